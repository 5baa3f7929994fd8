//! What the commands print on stdout: one [`Format`] enum, one
//! [`Exporter`] per format (a file each: `text/`, `json.rs`, `csv.rs`,
//! `markdown.rs`), and the reports they write as one [`Output`] value each.
//! A new format is one file implementing the trait; a new report is one
//! variant, written by each format that offers it.

mod csv;
pub mod file;
mod json;
mod markdown;
mod numbers;
pub mod profile;
mod reports;
mod text;

use std::io::{self, Write};

use clap::ValueEnum;

pub use file::{without_os_code, PendingFile};
pub use numbers::{count_of, human_duration, human_rate, si_three_digits};
pub use reports::{EstimateOnCores, Output, PartialMerge, PlanCosts, VerifyRecord};

/// The output formats. Every command that prints a report takes
/// `--format` and refuses, in one line, a format it does not offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Lines and aligned tables for people (`table` names it too).
    #[value(alias = "table")]
    Text,
    /// JSON: one object per count, or one object for the command.
    Json,
    /// Comma-separated values with a header (count, merge, bench).
    Csv,
    /// A Markdown table to paste into a page (count, merge, bench).
    Markdown,
}

/// The kinds of report, for asking a format before any work is done
/// whether it writes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `count`'s rows.
    Count,
    /// `merge`'s total.
    Merge,
    /// `merge --partial`'s figures so far.
    PartialMerge,
    /// `plan`'s plan, estimate or heaviest tasks.
    Plan,
    /// `compare`'s verdict.
    Compare,
    /// `bench`'s table.
    Bench,
    /// `verify`'s checks.
    Verify,
    /// `gpu`'s timing.
    #[cfg(feature = "gpu")]
    GpuTiming,
}

/// Writes the reports of one format.
pub trait Exporter {
    /// Whether this format writes reports of `kind`.
    fn offers(&self, kind: Kind) -> bool;

    /// Writes `output` onto `out` (nothing, where the format writes the
    /// report only at its end, as JSON does a plan's header or a verify's
    /// rows). Only called for a kind the format [`offers`](Exporter::offers).
    fn write(&self, out: &mut dyn Write, output: &Output<'_>) -> io::Result<()>;
}

impl Format {
    /// The exporter of this format.
    pub fn exporter(self) -> &'static dyn Exporter {
        match self {
            Format::Text => &text::Text,
            Format::Json => &json::Json,
            Format::Csv => &csv::Csv,
            Format::Markdown => &markdown::Markdown,
        }
    }

    /// The format's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "markdown",
        }
    }

    /// Refuses, as a usage error naming the formats `command` offers, a
    /// format that does not write reports of `kind`.
    pub fn check_offers(self, kind: Kind, command: &str) -> anyhow::Result<()> {
        if self.exporter().offers(kind) {
            return Ok(());
        }
        let offered: Vec<&str> = Format::value_variants()
            .iter()
            .filter(|format| format.exporter().offers(kind))
            .map(|format| format.name())
            .collect();
        Err(crate::usage::usage(format!(
            "{command} prints {}, not {}: use --format {}",
            offered.join(" or "),
            self.name(),
            offered.join(" or --format ")
        )))
    }

    /// Writes `output` in this format and flushes (rows of a count appear
    /// as each count finishes).
    pub fn write(self, out: &mut dyn Write, output: &Output<'_>) -> io::Result<()> {
        // Commands check the format before any work; this is a backstop.
        if !self.exporter().offers(output.kind()) {
            return Err(io::Error::other(format!(
                "--format {} does not write this report",
                self.name()
            )));
        }
        self.exporter().write(out, output)?;
        out.flush()
    }
}

/// Writes count reports onto `out`, one row each as it comes, the table's
/// header before the first.
pub struct ReportWriter<W: Write> {
    out: W,
    format: Format,
    wrote_header: bool,
}

impl<W: Write> ReportWriter<W> {
    /// A writer of `format` onto `out`.
    pub fn new(out: W, format: Format) -> ReportWriter<W> {
        ReportWriter {
            out,
            format,
            wrote_header: false,
        }
    }

    /// Writes one report (after the header, the first time) and flushes.
    pub fn write(&mut self, report: &nqueens::Report) -> io::Result<()> {
        let first = !self.wrote_header;
        self.format
            .write(&mut self.out, &Output::Count { report, first })?;
        self.wrote_header = true;
        Ok(())
    }
}
