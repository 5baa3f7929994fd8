//! The integration tests, one module per subject, in one binary: one
//! link instead of one a file (about a minute of a 2-core CI), and the
//! slow modules share the cores with the quick ones. Run one subject with
//! a filter: `cargo test --test suite join::`.

mod common;

mod bench;
mod binding;
mod boards_cli;
mod checkpoints;
mod cli;
mod compare;
mod docs;
mod failpoints;
mod faults;
mod gpu;
mod join;
mod join_grids;
mod join_parts;
mod kernel;
mod keys;
mod lanes;
mod listing;
mod merge;
mod methods;
mod mpi;
mod outputs;
mod pages;
mod paths;
mod plan_cli;
mod readers;
mod shards;
mod signals;
mod slurm;
mod symmetry;
mod tracked;
