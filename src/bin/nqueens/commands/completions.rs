//! `nqueens completions SHELL` and `nqueens manpage`: generated from the
//! same command-line definition clap parses, so they never drift from it.

use std::io::{self, Write};

use anyhow::Context;
use clap::CommandFactory;

use crate::args::Cli;
use crate::exit_codes::ExitCode;

/// Prints the completion script for `shell` on stdout.
pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "nqueens", &mut script);
    io::stdout()
        .write_all(&script)
        .context("cannot write the completion script")?;
    Ok(ExitCode::Success)
}

/// Prints the manual page (roff) on stdout: the main page, then one
/// section per subcommand.
pub fn manpage() -> anyhow::Result<ExitCode> {
    let command = Cli::command();
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone())
        .render(&mut page)
        .context("cannot render the manual page")?;
    // The generated list of subcommands points to pages of their own
    // (`nqueens-count(1)`), which do not exist: each has a section below.
    let mut text = String::from_utf8(page).context("cannot render the manual page")?;
    for sub in command.get_subcommands() {
        let name = sub.get_name();
        text = text.replace(
            &format!("nqueens\\-{name}(1)"),
            &format!("nqueens {name} (its section below)"),
        );
    }
    // clap's own `help` has no section: `nqueens help COMMAND` prints it.
    text = text.replace("nqueens\\-help(1)", "nqueens help");
    let mut page = text.into_bytes();
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let title = format!("nqueens {}", sub.get_name()).to_uppercase();
        let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
        // A section per subcommand: its synopsis and options.
        writeln!(page, ".SH \"{title}\"\n{}", roff_text(&about))
            .context("cannot render the manual page")?;
        let man =
            clap_mangen::Man::new(sub.clone().bin_name(format!("nqueens {}", sub.get_name())));
        man.render_synopsis_section(&mut page)
            .and_then(|()| man.render_options_section(&mut page))
            .context("cannot render the manual page")?;
    }
    io::stdout()
        .write_all(&page)
        .context("cannot write the manual page")?;
    Ok(ExitCode::Success)
}

/// `text` as a roff paragraph: a leading dot or quote would be read as a
/// request, and backslashes as escapes.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e");
    match escaped.chars().next() {
        Some('.' | '\'') => format!("\\&{escaped}"),
        _ => escaped,
    }
}
