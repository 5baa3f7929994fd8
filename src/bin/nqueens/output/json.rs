//! JSON: every report, as the library's (or this binary's) records
//! serialize; one object per line, a benchmark's pretty-printed.

use std::io::{self, Write};

use super::{Exporter, Kind, Output};

/// JSON.
pub struct Json;

impl Exporter for Json {
    fn offers(&self, _: Kind) -> bool {
        true
    }

    fn write(&self, out: &mut dyn Write, output: &Output<'_>) -> io::Result<()> {
        let line = match output {
            Output::Count { report, .. } | Output::Merged { report, .. } => {
                serde_json::to_string(report)
            }
            Output::PartialMerge(partial) => serde_json::to_string(partial),
            Output::PlanCosts(plan) => serde_json::to_string(plan),
            Output::Comparison(comparison) => serde_json::to_string(comparison),
            Output::ShardComparison(comparison) => serde_json::to_string(comparison),
            Output::Bench(report) => serde_json::to_string_pretty(report),
            Output::Verified(record) => serde_json::to_string(record),
            #[cfg(feature = "gpu")]
            Output::GpuTiming(timing) => serde_json::to_string(timing),
            // The record at the end holds them.
            Output::PlanHeader { .. } | Output::VerifyHeader { .. } | Output::VerifyRow(_) => {
                return Ok(())
            }
        }?;
        writeln!(out, "{line}")
    }
}
