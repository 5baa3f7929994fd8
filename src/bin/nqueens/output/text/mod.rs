//! Text for people: aligned tables and lines, a file per report.

mod bench;
mod compare;
mod count;
#[cfg(feature = "gpu")]
mod gpu;
mod merge;
mod plan;
mod verify;

use std::io::{self, Write};

pub use bench::{bench_cells, bench_heading, bench_score, BENCH_HEADER};
pub use count::{published_check, unique_cell};

use super::{Exporter, Kind, Output};

/// Text.
pub struct Text;

impl Exporter for Text {
    fn offers(&self, _: Kind) -> bool {
        true
    }

    fn write(&self, out: &mut dyn Write, output: &Output<'_>) -> io::Result<()> {
        match output {
            Output::Count { report, first } => count::row(out, report, *first),
            Output::Merged {
                report,
                shards,
                task_seconds,
            } => merge::merged(out, report, *shards, *task_seconds),
            Output::PartialMerge(partial) => merge::partial(out, partial),
            Output::PlanHeader {
                plan,
                threads,
                peak_memory,
            } => plan::header(out, plan, *threads, *peak_memory),
            Output::PlanCosts(costs) => plan::costs(out, costs),
            Output::Comparison(comparison) => compare::tasks(out, comparison),
            Output::ShardComparison(comparison) => compare::shards(out, comparison),
            Output::Bench(report) => bench::table(out, report),
            Output::VerifyHeader {
                plan,
                sampled,
                seed,
            } => verify::header(out, plan, *sampled, *seed),
            Output::VerifyRow(check) => verify::row(out, check),
            // The rows said it all; a difference goes to stderr.
            Output::Verified(_) => Ok(()),
            #[cfg(feature = "gpu")]
            Output::GpuTiming(timing) => gpu::timing(out, timing),
        }
    }
}
