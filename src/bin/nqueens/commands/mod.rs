//! One file per command; what they share: usage errors, the complaint about
//! a wrong count, printing a report, and how errors become exit statuses.

pub mod bench;
pub mod check;
pub mod compare;
pub mod completions;
pub mod count;
pub mod count_one;
mod errors;
mod fallback;
pub mod gpu;
pub mod list;
pub mod merge;
pub mod plan;
mod scheduler;
pub mod solve;
pub mod verify;

pub use crate::usage::{usage, UsageError};
pub use errors::{describe, exit_code_of, is_broken_pipe};
pub use fallback::check_fallback;

use std::io::{self, Write};

use nqueens::Report;

use crate::exit_codes::ExitCode;

/// The complaint about a count that disagrees with the published tables, or
/// whose two routes to the unique count disagree.
pub fn mismatch(report: &Report) -> Option<String> {
    if report.is_consistent() {
        return None;
    }
    let n = report.n;
    let shown = |value: Option<u128>| value.map_or("none".to_string(), |value| value.to_string());
    let mut complaints = Vec::new();
    if report.matches_published() == Some(false) {
        complaints.push(format!(
            "counted {} solutions but A000170 says {}",
            report.solutions,
            shown(report.published())
        ));
    }
    if report.unique_matches_published() == Some(false) || report.unique.is_none() {
        complaints.push(format!(
            "unique {} (Burnside) but A002562 says {}",
            shown(report.unique),
            shown(report.published_unique())
        ));
    }
    if let Some(orbits) = report.orbits {
        if Some(orbits.unique) != report.unique {
            complaints.push(format!(
                "the {} leaves found {} classes but Burnside gives {}",
                report.method,
                orbits.unique,
                shown(report.unique)
            ));
        }
    }
    Some(format!("N = {n}: {}", complaints.join("; ")))
}

/// Prints complaints about wrong counts; the exit status they mean.
pub fn complain(mismatches: &[String]) -> ExitCode {
    if mismatches.is_empty() {
        return ExitCode::Success;
    }
    for complaint in mismatches {
        eprintln!("error: WRONG COUNT: {complaint}");
    }
    io::stderr().flush().ok();
    ExitCode::CountMismatch
}

/// The cost so far of a resumed count, for the interruption message
/// (empty for a count's first run).
pub fn cost_so_far(history: Option<nqueens::History>) -> String {
    history.map_or(String::new(), |history| {
        format!(
            " ({} so far: {:.0} s wall, {:.0} core-seconds of tasks)",
            crate::output::count_of(history.sessions, "run"),
            history.wall_seconds,
            history.task_seconds
        )
    })
}

/// Warns when `--split-depth` was given to a plan that has no use for it
/// (the join has one task per row set whatever the depth).
pub fn warn_ignored_split(split_depth: Option<u32>, plan: &nqueens::Plan) {
    if let Some(depth) = split_depth.filter(|_| !plan.method.uses_split_depth()) {
        eprintln!(
            "warning: --split-depth {depth} is ignored: N = {} is counted with {}, whose tasks do not depend on it",
            plan.n, plan.method
        );
    }
}

/// The run key of `--key FILE`, read and checked, if one was given.
pub fn run_key(
    path: Option<&std::path::Path>,
) -> anyhow::Result<Option<nqueens::run::signing::RunKey>> {
    path.map(|path| nqueens::run::signing::RunKey::from_file(path).map_err(usage))
        .transpose()
}

/// Names the code paths a count takes (`lanes avx512-popcnt, matcher
/// avx512`) where a person watches it: on a terminal, with the progress bar
/// not turned off (pipes and files get the output they always had).
pub fn say_paths(progress: crate::args::ProgressMode) {
    use std::io::IsTerminal;
    if progress != crate::args::ProgressMode::Never && io::stderr().is_terminal() {
        eprintln!("paths: {}", nqueens::analysis::bench::code_paths());
    }
}

/// Refuses a path that exists and is not a regular file before it is
/// opened: opening a pipe blocks until something writes to it, and a
/// device may never end.
pub fn must_be_regular(path: &std::path::Path, what: &str) -> anyhow::Result<()> {
    match std::fs::metadata(path) {
        Ok(metadata) if !metadata.is_file() => Err(usage(format!(
            "{} is not a regular file ({what} is a file of its own, not a pipe, device or directory)",
            path.display()
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nqueens::{count, CountOptions, Method, Plan, SplitDepth};

    #[test]
    fn a_wrong_count_is_named_and_a_right_one_is_not() {
        // A method whose count carries its classes of solutions.
        let classes = Method::first_that(|method| {
            Plan::build(10, method, SplitDepth::Auto).is_ok_and(|plan| plan.counts_orbits())
        })
        .unwrap();
        let options = CountOptions::default().with_method(classes);
        let mut report = count(10, &options).unwrap();
        assert_eq!(mismatch(&report), None);
        report.solutions += 1;
        let complaint = mismatch(&report).unwrap();
        assert!(
            complaint.contains("counted 725 solutions but A000170 says 724"),
            "{complaint}"
        );
        report.solutions -= 1;
        report.unique = Some(91);
        let complaint = mismatch(&report).unwrap();
        assert!(
            complaint.contains("unique 91 (Burnside) but A002562 says 92"),
            "{complaint}"
        );
        assert!(
            complaint.contains(&format!("the {classes} leaves found 92 classes")),
            "{complaint}"
        );
        // Past the tables only the two unique routes can be compared.
        report.n = 28;
        assert!(mismatch(&report).is_some());
        report.unique = Some(92);
        assert_eq!(mismatch(&report), None);
    }
}
