//! `nqueens list`: every solution in lexicographic order, one of them, or
//! one SVG file per solution.

use std::fs;
use std::io::{self, BufWriter, Write};

use anyhow::Context;
use nqueens::{
    count, nth_solution_with, render, resolve_threads, write_solutions, BoardFormat, CountOptions,
    NthProgress, Solution, Solutions,
};

use super::usage;
use crate::args::{ListArgs, ProgressMode};
use crate::exit_codes::ExitCode;
use crate::progress;

/// Most boards `--limit` takes from one ordered search instead of parallel
/// pieces.
const FEW_BOARDS: u64 = 1000;

/// Runs `nqueens list`.
pub fn run(args: &ListArgs) -> anyhow::Result<ExitCode> {
    let n = args.n;
    let to_files = args.out_dir.is_some();
    let format = args.format.unwrap_or(if to_files {
        BoardFormat::Svg
    } else {
        BoardFormat::Vector
    });
    let one_based = args.one_based;
    if to_files && format != BoardFormat::Svg {
        return Err(usage(
            "--out-dir writes SVG files: leave out --format, or give --format svg".to_string(),
        ));
    }
    if let Some(dir) = &args.out_dir {
        crate::output::file::refuse_unless_directory(dir, "--out-dir").map_err(usage)?;
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
        // Where the table knows the count, an index past it is refused at
        // once instead of after a search through every solution.
        if let Some(total) = nqueens::published::total(n).filter(|&total| index >= total) {
            return Err(usage(past_the_last(n, index, total)));
        }
        let threads = resolve_threads(args.threads)?;
        // Past the first boards, whole subtrees are counted, row by row:
        // seconds to minutes from N = 16, so a line says how far it is.
        let bar = progress::task_bar(ProgressMode::Auto, format!("N={n}"));
        let row_clock = progress::RowClock::default();
        bar.set_message(row_clock.text(
            n,
            NthProgress {
                rows_fixed: 0,
                next_row_done: 0.0,
            },
        ));
        // A signal ends the search at once, the line cleared.
        let stopped = || {
            bar.finish_and_clear();
            eprintln!(
                "interrupted: solution {index} of N = {n} not found yet; nothing was printed"
            );
        };
        let found = crate::signals::ended_at_once_by_a_signal(&stopped, || {
            nth_solution_with(n, index, threads, &|progress| {
                bar.set_message(row_clock.text(n, progress))
            })
        });
        bar.finish_and_clear();
        let Some(solution) = found else {
            let total = count(n, &CountOptions::default())?.solutions;
            return Err(usage(past_the_last(n, index, total)));
        };
        return write_boards(&mut out, args, [solution].into_iter());
    }
    // A few boards come from one search in order, printed as found: the
    // parallel pieces would each search until they had that many (at
    // N = 32 the first board took 57 s that way and 0.8 s this way on a
    // VM whose CPU was not recorded; 0.59 s this way on a Zen 5 core).
    let few = args.limit.is_some_and(|limit| limit <= FEW_BOARDS);
    if to_files || few {
        let limit = args.limit.unwrap_or(u64::MAX) as usize;
        return write_boards(&mut out, args, Solutions::new(n).take(limit));
    }
    let threads = resolve_threads(args.threads)?;
    let draw = |solution: &Solution, text: &mut Vec<u8>| {
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

/// The refusal of an index past the last of `total` solutions.
fn past_the_last(n: u32, index: u128, total: u128) -> String {
    let numbered = match total {
        0 => "none to pick".to_string(),
        1 => "numbered 0".to_string(),
        _ => format!("numbered 0 to {}", total - 1),
    };
    format!(
        "--nth {index} is past the last solution: N = {n} has {total} solution{}, {numbered}",
        if total == 1 { "" } else { "s" }
    )
}

/// Writes boards one by one: to stdout, or one SVG file each into --out-dir.
fn write_boards(
    out: &mut impl Write,
    args: &ListArgs,
    boards: impl Iterator<Item = Solution>,
) -> anyhow::Result<ExitCode> {
    let mut text = Vec::new();
    let format = args.format.unwrap_or(BoardFormat::Vector);
    let Some(dir) = &args.out_dir else {
        for board in boards {
            text.clear();
            render(&mut text, board.columns(), format, args.one_based);
            if format == BoardFormat::Grid && args.nth.is_none() {
                // As the full list separates its grids.
                text.push(b'\n');
            }
            out.write_all(&text)?;
            // Each board shows as soon as it is found.
            out.flush()?;
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
        crate::output::file::refuse_unless_regular(&path, "an SVG file").map_err(usage)?;
        fs::write(&path, &text).with_context(|| format!("cannot write {}", path.display()))?;
        written += 1;
    }
    eprintln!(
        "wrote {} to {}",
        crate::output::count_of(written, "SVG file"),
        dir.display()
    );
    Ok(ExitCode::Success)
}
