//! The `nqueens` command: parses, calls the library, prints. Only this file
//! exits the process or prints errors.

mod cli;
mod exit_codes;
mod output;
mod progress;
mod scaleout;

use std::fs;
use std::io::{self, BufRead, BufWriter, Write};

use anyhow::Context;
use clap::error::ErrorKind;
use clap::Parser;
use nqueens::render::{render, BoardFormat};
use nqueens::solutions::{nth_solution, write_solutions, Solutions};
use nqueens::validate::{check, Violation};
use nqueens::{count, count_with_hooks, CountOptions, Report, RunHooks, TaskOutcome};

use crate::cli::{BenchArgs, CheckArgs, Cli, Command, CountArgs, ListArgs, SolveArgs};
use crate::exit_codes::ExitCode;
use crate::output::ReportWriter;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err)
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) =>
        {
            let _ = err.print();
            std::process::exit(ExitCode::Success.code());
        }
        Err(err) if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = err.print();
            std::process::exit(ExitCode::Usage.code());
        }
        Err(err) => {
            eprintln!("{}", cli::one_line_error(&err));
            std::process::exit(ExitCode::Usage.code());
        }
    };
    if let Err(message) = nqueens::frontier::requested() {
        eprintln!("error: {message}");
        std::process::exit(ExitCode::Usage.code());
    }
    let code = match run(cli) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::Success,
        Err(err) => {
            eprintln!("error: {err:#}");
            exit_code_of(&err)
        }
    };
    std::process::exit(code.code());
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Count(args) => run_count(&args),
        Command::List(args) => run_list(&args),
        Command::Solve(args) => run_solve(&args),
        Command::Check(args) => run_check(&args),
        Command::Bench(args) => run_bench(&args),
        Command::Merge(args) => scaleout::run_merge(&args),
        Command::Plan(args) => run_plan(&args),
    }
}

#[cfg(feature = "mpi")]
fn run_mpi_count(args: &CountArgs, sizes: &[u32]) -> anyhow::Result<ExitCode> {
    use mpi::topology::Communicator;
    let universe = nqueens::distributed::start()?;
    let world = universe.world();
    let options = args.count_options();
    let stdout = io::stdout();
    let mut writer = ReportWriter::new(stdout.lock(), args.format);
    let mut mismatches = Vec::new();
    for &n in sizes {
        // Only rank 0 gets a report, and only it prints.
        if let Some(report) = nqueens::distributed::count(&world, n, &options)? {
            writer.write(&report).context("cannot write the result")?;
            mismatches.extend(mismatch(&report));
        }
    }
    if world.rank() == 0 && !mismatches.is_empty() {
        for complaint in &mismatches {
            eprintln!("error: WRONG COUNT: {complaint}");
        }
        return Ok(ExitCode::CountMismatch);
    }
    Ok(ExitCode::Success)
}

#[cfg(not(feature = "mpi"))]
fn run_mpi_count(_: &CountArgs, _: &[u32]) -> anyhow::Result<ExitCode> {
    Err(usage(
        "this nqueens was built without MPI: build it with `cargo build --release --features mpi` (needs an MPI library and libclang)"
            .to_string(),
    ))
}

fn run_plan(args: &cli::PlanArgs) -> anyhow::Result<ExitCode> {
    let split = args
        .split_depth
        .map_or(nqueens::SplitDepth::Auto, nqueens::SplitDepth::Rows);
    let plan = nqueens::Plan::build_within(args.n, args.method, split, args.max_memory)?;
    const PROBE_ROWS: u32 = 3;
    let mut costs = nqueens::plan::estimate_costs(&plan, PROBE_ROWS);
    costs.sort_unstable();
    let total: u64 = costs.iter().sum();
    let mean = total as f64 / costs.len().max(1) as f64;
    let max = costs.last().copied().unwrap_or(0);
    let median = costs.get(costs.len() / 2).copied().unwrap_or(0);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    writeln!(
        out,
        "N = {}, method {}, split depth {}",
        plan.n, plan.method, plan.split_depth
    )?;
    writeln!(out, "tasks: {}", plan.tasks.len())?;
    if plan.method == nqueens::Method::Join {
        writeln!(
            out,
            "memory: {} for the quadrant table (peak, while it is built)",
            nqueens::error::human_bytes(nqueens::join::memory_needed(plan.n))
        )?;
    }
    writeln!(out, "fingerprint: {}", plan.fingerprint_hex())?;
    writeln!(
        out,
        "queens placed building the plan: {}",
        plan.prefix_nodes
    )?;
    if plan.method == nqueens::Method::Join {
        writeln!(
            out,
            "tasks are row sets of the east half board, costs not estimated"
        )?;
    } else {
        writeln!(
            out,
            "estimated cost (queens in the {PROBE_ROWS} rows below each task): mean {mean:.0}, median {median}, max {max}, max/mean {:.2}",
            if mean > 0.0 { max as f64 / mean } else { 0.0 }
        )?;
    }
    writeln!(
        out,
        "measure the real spread with: nqueens count {} -m {} --profile FILE, then scripts/efficiency.py FILE",
        plan.n, plan.method
    )?;
    Ok(ExitCode::Success)
}

fn run_bench(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    let mut config = nqueens::bench::BenchConfig::standard(args.n, args.method)?;
    config.runs = args.runs;
    config.warmup = !args.no_warmup;
    if let Some(list) = &args.threads {
        config.thread_counts = list.0.clone();
    }
    let bar = progress::bench_bar(args.quiet);
    let report = nqueens::bench::run_bench(&config, |step| {
        bar.set_length(step.total as u64);
        bar.set_position(step.done as u64);
        bar.set_message(format!("{} threads", step.threads));
    });
    bar.finish_and_clear();
    let report = report?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    output::write_bench(&mut out, &report, args.format)?;
    out.flush()?;
    Ok(ExitCode::Success)
}

/// A mistake in what the user asked for, found after parsing: exit status 2.
#[derive(Debug)]
struct UsageError(String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn usage(message: String) -> anyhow::Error {
    anyhow::Error::new(UsageError(message))
}

fn run_list(args: &ListArgs) -> anyhow::Result<ExitCode> {
    let n = args.n;
    let (format, one_based) = (args.format, args.one_based);
    let to_files = args.out_dir.is_some();
    if to_files && format != BoardFormat::Svg {
        return Err(usage(
            "--out-dir writes SVG files: add --format svg".to_string(),
        ));
    }
    let single = args.nth.is_some() || args.limit == Some(1);
    if format == BoardFormat::Svg && !to_files && !single {
        return Err(usage(
            "svg draws one board to stdout: pick it with --nth I or --limit 1, or give --out-dir DIR for one file per solution"
                .to_string(),
        ));
    }
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    if let Some(index) = args.nth {
        let Some(solution) = nth_solution(n, index) else {
            let total = count(n, &CountOptions::default())?.solutions;
            return Err(usage(format!(
                "--nth {index} is past the last solution: N = {n} has {total} solutions, numbered 0 to {}",
                total.saturating_sub(1)
            )));
        };
        return write_boards(&mut out, args, [solution].into_iter());
    }
    if to_files {
        let limit = args.limit.unwrap_or(u64::MAX) as usize;
        return write_boards(&mut out, args, Solutions::new(n).take(limit));
    }
    let threads = nqueens::resolve_threads(args.threads)?;
    let draw = |solution: &nqueens::solutions::Solution, text: &mut Vec<u8>| {
        render(text, solution.columns(), format, one_based);
        if format == BoardFormat::Grid {
            // A blank line between boards keeps a list of grids readable.
            text.push(b'\n');
        }
    };
    write_solutions(n, threads, args.limit, &draw, &mut out)?;
    out.flush()?;
    Ok(ExitCode::Success)
}

/// Writes boards one by one: to stdout, or one SVG file each into --out-dir.
fn write_boards(
    out: &mut impl Write,
    args: &ListArgs,
    boards: impl Iterator<Item = nqueens::solutions::Solution>,
) -> anyhow::Result<ExitCode> {
    let mut text = Vec::new();
    let Some(dir) = &args.out_dir else {
        for board in boards {
            text.clear();
            render(&mut text, board.columns(), args.format, args.one_based);
            out.write_all(&text)?;
        }
        out.flush()?;
        return Ok(ExitCode::Success);
    };
    fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the directory {}", dir.display()))?;
    let first = args.nth.unwrap_or(0);
    let mut written = 0u64;
    for (offset, board) in boards.enumerate() {
        text.clear();
        render(&mut text, board.columns(), BoardFormat::Svg, false);
        let index = first + offset as u128;
        let path = dir.join(format!("queens-{}-{index:08}.svg", args.n));
        fs::write(&path, &text).with_context(|| format!("cannot write {}", path.display()))?;
        written += 1;
    }
    eprintln!("wrote {written} SVG files to {}", dir.display());
    Ok(ExitCode::Success)
}

fn run_solve(args: &SolveArgs) -> anyhow::Result<ExitCode> {
    let n = args.n;
    if let Some(max) = args.format.max_n() {
        if n > max {
            return Err(usage(format!(
                "--format {} draws boards up to N = {max}: use vector or fen for N = {n}",
                args.format
            )));
        }
    }
    let board = if args.random {
        nqueens::construct::random_solution(n, args.seed)
    } else {
        nqueens::construct::explicit_solution(n)
    };
    let Some(board) = board else {
        anyhow::bail!("no solution exists for N = {n}: N = 2 and N = 3 have none");
    };
    let mut text = Vec::with_capacity(board.len() * 9 + 64);
    render(&mut text, &board, args.format, args.one_based);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    out.write_all(&text)?;
    out.flush()?;
    Ok(ExitCode::Success)
}

fn run_check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let input: Box<dyn BufRead> = match &args.file {
        Some(path) => Box::new(io::BufReader::new(
            fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?,
        )),
        None => Box::new(io::BufReader::new(io::stdin())),
    };
    let shift = u64::from(args.one_based);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let (mut boards, mut invalid) = (0u64, 0u64);
    for (index, line) in input.lines().enumerate() {
        let line = line.context("cannot read the input")?;
        if line.trim().is_empty() {
            continue;
        }
        boards += 1;
        if let Err(reason) = check_line(&line, shift) {
            invalid += 1;
            writeln!(out, "line {}: invalid: {reason}", index + 1)?;
        }
    }
    out.flush()?;
    let noun = if boards == 1 { "board" } else { "boards" };
    eprintln!(
        "checked {boards} {noun}: {} valid, {invalid} invalid",
        boards - invalid
    );
    Ok(if invalid == 0 {
        ExitCode::Success
    } else {
        ExitCode::Failure
    })
}

/// Parses one board (columns separated by white space, 1-based when `shift`
/// is 1) and checks it; the reason names rows as the input counts them.
fn check_line(line: &str, shift: u64) -> Result<(), String> {
    let mut columns = Vec::new();
    for token in line.split_ascii_whitespace() {
        let col: u64 = token
            .parse()
            .map_err(|_| format!("'{token}' is not a column number"))?;
        if col < shift {
            return Err(format!(
                "column {col} is not on the board: columns are numbered from 1"
            ));
        }
        columns.push(col - shift);
    }
    check(&columns).map_err(|violation| match violation {
        Violation::OffBoard { row, col, n } => format!(
            "row {} has column {}, off a board of {n} columns",
            row as u64 + shift,
            col + shift
        ),
        Violation::SameColumn { first, second, col } => format!(
            "rows {} and {} share column {}",
            first as u64 + shift,
            second as u64 + shift,
            col + shift
        ),
        Violation::SameDiagonal { first, second } => format!(
            "rows {} and {} are on one diagonal",
            first as u64 + shift,
            second as u64 + shift
        ),
        Violation::Empty => "no queens".to_string(),
    })
}

fn run_count(args: &CountArgs) -> anyhow::Result<ExitCode> {
    let sizes = args.board_sizes();
    if args.mpi {
        return run_mpi_count(args, &sizes);
    }
    scaleout::install_signal_handler();
    let shard = scaleout::shard_of(args)?;
    if args.checkpoint.is_some() || shard.is_some() || args.profile.is_some() {
        if sizes.len() != 1 {
            return Err(usage(
                "--checkpoint, --shard and --profile take one N: run one count per N".to_string(),
            ));
        }
        return scaleout::run_tracked_count(args, sizes[0], shard);
    }
    if args.out.is_some() {
        return Err(usage(
            "--out names a shard's result file: add --shard I/K".to_string(),
        ));
    }
    let options = args.count_options();
    let stdout = io::stdout();
    let mut writer = ReportWriter::new(stdout.lock(), args.format);
    let mut mismatches = Vec::new();
    for n in sizes {
        let bar = progress::task_bar(args.progress, format!("N={n}"));
        let on_task = |_: &TaskOutcome| bar.inc(1);
        let hooks = RunHooks {
            on_task: Some(&on_task),
            cancel: Some(&scaleout::INTERRUPTED),
            ..RunHooks::default()
        };
        let report = count_with_hooks(n, &options, &hooks, |plan| {
            bar.set_length(plan.tasks.len() as u64)
        })?;
        bar.finish_and_clear();
        if !report.complete {
            eprintln!(
                "interrupted: N = {n} not finished; nothing was saved (add --checkpoint FILE to make a run resumable)"
            );
            return Ok(ExitCode::Interrupted);
        }
        writer.write(&report).context("cannot write the result")?;
        mismatches.extend(mismatch(&report));
    }
    if mismatches.is_empty() {
        return Ok(ExitCode::Success);
    }
    for mismatch in &mismatches {
        eprintln!("error: WRONG COUNT: {mismatch}");
    }
    io::stderr().flush().ok();
    Ok(ExitCode::CountMismatch)
}

/// The complaint about a count that disagrees with the published tables, or
/// whose two routes to the unique count disagree.
fn mismatch(report: &Report) -> Option<String> {
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
                "the d4 leaves found {} classes but Burnside gives {}",
                orbits.unique,
                shown(report.unique)
            ));
        }
    }
    Some(format!("N = {n}: {}", complaints.join("; ")))
}

/// Mistakes in what the user asked for are usage errors; the rest failures.
fn exit_code_of(err: &anyhow::Error) -> ExitCode {
    if err.downcast_ref::<UsageError>().is_some() {
        return ExitCode::Usage;
    }
    match err.downcast_ref::<nqueens::journal::JournalError>() {
        Some(nqueens::journal::JournalError::Io { .. }) => return ExitCode::Failure,
        Some(_) => return ExitCode::Usage,
        None => {}
    }
    match err.downcast_ref::<nqueens::Error>() {
        Some(nqueens::Error::WrongCount { .. }) => ExitCode::CountMismatch,
        Some(nqueens::Error::ThreadPool { .. }) | None => ExitCode::Failure,
        Some(_) => ExitCode::Usage,
    }
}

/// A reader closing the pipe early (`nqueens ... | head`) is not a failure.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io_err| io_err.kind() == io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nqueens::{count, CountOptions};

    #[test]
    fn a_wrong_count_is_named_and_a_right_one_is_not() {
        let options = CountOptions {
            method: nqueens::Method::D4,
            ..CountOptions::default()
        };
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
            complaint.contains("the d4 leaves found 92 classes"),
            "{complaint}"
        );
        // Past the tables only the two unique routes can be compared.
        report.n = 28;
        assert!(mismatch(&report).is_some());
        report.unique = Some(92);
        assert_eq!(mismatch(&report), None);
    }

    #[test]
    fn input_mistakes_are_usage_errors() {
        let usage = anyhow::Error::new(nqueens::Error::ZeroThreads);
        assert_eq!(exit_code_of(&usage), ExitCode::Usage);
        let failure = anyhow::anyhow!("disk full");
        assert_eq!(exit_code_of(&failure), ExitCode::Failure);
    }
}
