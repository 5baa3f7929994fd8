//! The searches: everything that counts the solutions below one task, and
//! nothing else (no threads, files or plans).
//!
//! - [`board`]: the bitmask board, the tally a search returns, row bounds.
//! - [`kernel`]: the depth-first search of one subtree (the hot loop).
//! - [`lanes`]: the same search on many boards at once in vector lanes
//!   (AVX-512 or AVX2), one generic body for every width.
//! - [`d4`]: one image per class under the 8 symmetries, weighted at the
//!   leaves; its parts run in the lanes.
//! - [`disjoint`]: pairs of keys with no bit in common counted without
//!   testing most of them (the bit-sliced matcher and its split): the
//!   kernel of every join, method-neutral.
//! - [`join`]: half boards paired on their crossing diagonals, with the
//!   quadrant cells of their row sets, counted by [`disjoint`].
//! - [`symmetric`]: the solutions a half or quarter turn leaves unchanged,
//!   and the unique count by Burnside's lemma.
//! - [`method`]: the trait every counting method implements, in its
//!   own folder ([`plain`] for `none` and `mirror`); [`registry`]: which
//!   method's code counts each method and kind of task, and a plan's
//!   building through it.
//! - [`naive`]: slow, obviously correct twins for the tests.
//! - `frame`: the vector searches' stack frames aligned to a cache line,
//!   so their register spills do not straddle lines whatever calls them.

// Without the `testing` feature nothing outside the crate reaches the
// items that the tests take through `nqueens::testing`, so they read as
// unused there; with it (`cargo test`, `clippy --all-targets`) every lint
// applies in full.
#![cfg_attr(
    not(feature = "testing"),
    allow(dead_code, unused_imports, unreachable_pub)
)]
// Off x86-64 the vector paths are configured out, and the helpers and
// imports only they use read as unused there; the x86-64 build, which CI
// lints, holds every one of them to the lints.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code, unused_imports))]

pub(crate) mod board;
pub(crate) mod d4;
pub(crate) mod disjoint;
mod frame;
pub(crate) mod join;
pub(crate) mod kernel;
pub(crate) mod lanes;
pub(crate) mod method;
pub mod naive;
#[cfg(target_arch = "x86_64")]
mod pack;
pub(crate) mod paths;
pub(crate) mod plain;
pub(crate) mod registry;
pub(crate) mod symmetric;
