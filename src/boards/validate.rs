//! Linear-time check of a claimed solution, naming the first conflict found.
//!
//! Boards from `solve` can have millions of rows, so the check remembers, for
//! every column and diagonal, which row took it: one pass, no pair loop.

use std::fmt;

/// Why a board is not a solution.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Violation {
    /// The board has no rows.
    Empty,
    /// A column index is not on the board.
    OffBoard {
        /// The row holding it.
        row: usize,
        /// The column given.
        col: u64,
        /// The board size.
        n: usize,
    },
    /// Two queens share a column.
    SameColumn {
        /// The earlier row.
        first: usize,
        /// The later row.
        second: usize,
        /// The shared column.
        col: u64,
    },
    /// Two queens share a diagonal.
    SameDiagonal {
        /// The earlier row.
        first: usize,
        /// The later row.
        second: usize,
    },
}

impl Violation {
    /// The violation in words, with rows and columns numbered from `base`
    /// (0, or 1 for boards written 1-based).
    pub fn describe(&self, base: u64) -> String {
        let row = |row: usize| row as u64 + base;
        match *self {
            Violation::Empty => "no queens".to_string(),
            Violation::OffBoard { row: at, col, n } => format!(
                "row {} has column {}, off a board of {n} columns",
                row(at),
                col + base
            ),
            Violation::SameColumn { first, second, col } => format!(
                "rows {} and {} share column {}",
                row(first),
                row(second),
                col + base
            ),
            Violation::SameDiagonal { first, second } => format!(
                "rows {} and {} are on one diagonal",
                row(first),
                row(second)
            ),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(0))
    }
}

/// Checks that `columns` (row -> 0-based column) is a solution of the
/// `columns.len()` board; rows in messages are 0-based.
///
/// One pass marks columns and diagonals in bit sets (5N bits in all); only
/// when a line is found taken twice is the board scanned again for the row
/// that took it first.
pub fn check(columns: &[u64]) -> Result<(), Violation> {
    check_columns(columns)
}

/// [`check`] over columns of any unsigned width (a line read keeps 4
/// bytes a column).
fn check_columns<C: Copy + Into<u64>>(columns: &[C]) -> Result<(), Violation> {
    let n = columns.len();
    if n == 0 {
        return Err(Violation::Empty);
    }
    let mut taken_cols = BitSet::new(n);
    let mut taken_sums = BitSet::new(2 * n - 1);
    let mut taken_diffs = BitSet::new(2 * n - 1);
    for (row, col) in columns.iter().enumerate() {
        let col: u64 = (*col).into();
        if col >= n as u64 {
            return Err(Violation::OffBoard { row, col, n });
        }
        let c = col as usize;
        if !taken_cols.insert(c) {
            let first = columns
                .iter()
                .position(|&other| other.into() == col)
                .unwrap_or(row);
            return Err(Violation::SameColumn {
                first,
                second: row,
                col,
            });
        }
        let (sum, diff) = (row + c, row + n - 1 - c);
        if !taken_sums.insert(sum) || !taken_diffs.insert(diff) {
            let first = columns
                .iter()
                .enumerate()
                .position(|(r, &other)| {
                    let o = other.into() as usize;
                    r + o == sum || r + n - 1 - o == diff
                })
                .unwrap_or(row);
            return Err(Violation::SameDiagonal { first, second: row });
        }
    }
    Ok(())
}

/// A fixed-size set of small integers, one bit each.
struct BitSet(Vec<u64>);

impl BitSet {
    fn new(size: usize) -> BitSet {
        BitSet(vec![0; size.div_ceil(64)])
    }

    /// Adds `index`; false if it was already there.
    fn insert(&mut self, index: usize) -> bool {
        let (word, bit) = (index / 64, 1u64 << (index % 64));
        let fresh = self.0[word] & bit == 0;
        self.0[word] |= bit;
        fresh
    }
}

/// Most columns a line may hold: the largest board `solve` makes. A line
/// past it is refused as it is read, so that no line, however long, takes
/// more than about 460 MB (4 bytes a column, and the check's bit sets).
pub(crate) const MAX_CHECKED_COLUMNS: usize = 100_000_000;

/// Longest line read: the largest board's columns, 9 digits and a space
/// each, with room for other white space. Reading stops with an error once
/// a line passes it, so an endless line (`/dev/zero`) ends.
pub(crate) const MAX_LINE_BYTES: u64 = 12 * MAX_CHECKED_COLUMNS as u64;

/// Longest token quoted in a message; longer ones are cut.
const QUOTED_BYTES: usize = 24;

/// Checks every board of `input`, one per line as columns separated by
/// white space (1-based when `shift` is 1), calling `verdict` with each
/// non-blank line's number (from 1) and its check. The input is read in
/// blocks and parsed as it comes, so a line costs 8 bytes per column
/// whatever its length, and bytes that are not a board (binary, other
/// encodings) make that line invalid, quoted cut and escaped. Input that is
/// not text (a NUL byte) or a line longer than the largest board's (1.2 GB) ends the
/// reading with an error of kind `InvalidData` naming the line.
pub fn check_lines(
    mut input: impl std::io::BufRead,
    shift: u64,
    mut verdict: impl FnMut(u64, Result<(), String>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut line = LineParser::default();
    let mut line_number = 0u64;
    let mut line_bytes = 0u64;
    let mut finish = |line: &mut LineParser, line_number: u64| -> std::io::Result<()> {
        match line.finish(shift) {
            Some(result) => verdict(line_number, result),
            None => Ok(()),
        }
    };
    let refuse = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
    loop {
        let block = input.fill_buf()?;
        if block.is_empty() {
            if !line.is_empty() {
                finish(&mut line, line_number + 1)?;
            }
            return Ok(());
        }
        let used = block.len();
        for &byte in block {
            match byte {
                b'\n' => {
                    line_number += 1;
                    line_bytes = 0;
                    finish(&mut line, line_number)?;
                }
                0 => {
                    return Err(refuse(format!(
                        "line {} holds a NUL byte: not a text file of boards",
                        line_number + 1
                    )));
                }
                _ => {
                    line_bytes += 1;
                    if line_bytes > MAX_LINE_BYTES {
                        return Err(refuse(format!(
                            "line {} is longer than {MAX_LINE_BYTES} bytes, more than the largest board check reads (N = {MAX_CHECKED_COLUMNS}) takes",
                            line_number + 1
                        )));
                    }
                    line.push(byte);
                }
            }
        }
        input.consume(used);
    }
}

/// One line being read: its columns so far, the token being read, and the
/// first thing wrong with it.
#[derive(Default)]
struct LineParser {
    /// Columns as given (those past `u32` are off every board read).
    columns: Vec<u32>,
    /// The token being read (digits accumulate in `value`); its bytes, up
    /// to what a message quotes.
    token: Vec<u8>,
    token_len: usize,
    value: Option<u64>,
    /// The first problem found, if any.
    problem: Option<String>,
    /// Whether the line held anything but white space.
    any: bool,
}

impl LineParser {
    fn is_empty(&self) -> bool {
        !self.any && self.token_len == 0
    }

    fn push(&mut self, byte: u8) {
        if byte.is_ascii_whitespace() {
            self.end_token();
            return;
        }
        self.any = true;
        if self.token.len() < QUOTED_BYTES {
            self.token.push(byte);
        }
        self.token_len += 1;
        if self.token_len == 1 {
            self.value = Some(0);
        }
        self.value = match (self.value, byte) {
            (Some(value), b'0'..=b'9') => value
                .checked_mul(10)
                .and_then(|value| value.checked_add(u64::from(byte - b'0'))),
            _ => None,
        };
    }

    fn end_token(&mut self) {
        if self.token_len == 0 {
            return;
        }
        match self.value {
            _ if self.problem.is_some() => {}
            Some(_) if self.columns.len() == MAX_CHECKED_COLUMNS => {
                self.problem = Some(format!(
                    "more than {MAX_CHECKED_COLUMNS} columns (check reads boards up to N = {MAX_CHECKED_COLUMNS})"
                ));
                self.columns = Vec::new();
            }
            Some(col) => match u32::try_from(col) {
                Ok(col) if (col as usize) < MAX_CHECKED_COLUMNS + 1 => self.columns.push(col),
                _ => {
                    self.problem = Some(format!(
                        "column {col} is off every board check reads (N up to {MAX_CHECKED_COLUMNS})"
                    ));
                    self.columns = Vec::new();
                }
            },
            None if self.problem.is_none() => {
                self.problem = Some(format!("{} is not a column number", self.quoted()));
            }
            None => {}
        }
        self.token.clear();
        self.token_len = 0;
        self.value = None;
    }

    /// The token as a message quotes it: cut, and escaped so that no byte
    /// reaches the terminal raw.
    fn quoted(&self) -> String {
        let text = self.token.escape_ascii();
        let cut = if self.token_len > self.token.len() {
            "..."
        } else {
            ""
        };
        format!("'{text}{cut}'")
    }

    /// The verdict on the line ended now (`None` for a blank line), and a
    /// fresh start for the next.
    fn finish(&mut self, shift: u64) -> Option<Result<(), String>> {
        self.end_token();
        let verdict = if !self.any {
            None
        } else if let Some(problem) = self.problem.take() {
            Some(Err(problem))
        } else if let Some(&col) = self.columns.iter().find(|&&col| u64::from(col) < shift) {
            Some(Err(format!(
                "column {col} is not on the board: columns are numbered from 1"
            )))
        } else {
            for col in &mut self.columns {
                *col -= shift as u32;
            }
            Some(check_columns(&self.columns).map_err(|violation| violation.describe(shift)))
        };
        self.columns.clear();
        self.problem = None;
        self.any = false;
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    fn read_all(input: impl std::io::BufRead) -> (Vec<(u64, bool)>, std::io::Result<()>) {
        let mut verdicts = Vec::new();
        let result = check_lines(input, 0, |line, verdict| {
            verdicts.push((line, verdict.is_ok()));
            Ok(())
        });
        (verdicts, result)
    }

    #[test]
    fn an_endless_line_ends_once_it_passes_the_largest_board() {
        // An endless run of digits: no newline ever comes.
        let (verdicts, result) = read_all(BufReader::with_capacity(1 << 20, std::io::repeat(b'1')));
        assert!(verdicts.is_empty());
        let err = result.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        assert!(
            err.to_string().starts_with("line 1 is longer than"),
            "{err}"
        );
    }

    #[test]
    fn a_nul_byte_ends_the_reading_naming_its_line() {
        let text = b"1 3 0 2\n\n2 0 3 1\n\x7fELF\x00\x01".as_slice();
        let (verdicts, result) = read_all(BufReader::new(text));
        assert_eq!(verdicts, [(1, true), (3, true)]);
        let err = result.unwrap_err();
        assert!(err.to_string().starts_with("line 4 holds a NUL"), "{err}");
        // Zeros alone, as /dev/zero gives.
        let (_, result) = read_all(BufReader::new(std::io::repeat(0).take(1 << 20)));
        assert!(result
            .unwrap_err()
            .to_string()
            .starts_with("line 1 holds a NUL"));
    }

    #[test]
    fn line_numbers_count_blank_lines_and_a_last_line_without_newline() {
        let (verdicts, result) = read_all(BufReader::new(b"\n1 3 0 2\n0 1".as_slice()));
        result.unwrap();
        assert_eq!(verdicts, [(2, true), (3, false)]);
    }
}
