//! Boards as text and pictures: column vectors, text grids, FEN-style ranks
//! and SVG. Renderers append to a byte buffer so that streaming millions of
//! boards, or one board of millions of rows, stays cheap.

use std::fmt;
use std::str::FromStr;

/// Largest board drawn as a text grid (a million characters).
pub const GRID_MAX_N: u64 = 1_000;
/// Largest board drawn as SVG (one rectangle per square).
pub const SVG_MAX_N: u64 = 256;

/// The ways a board can be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BoardFormat {
    /// The queen's column per row, separated by spaces.
    Vector,
    /// One line per rank, `Q` for a queen and `.` for an empty square.
    Grid,
    /// Ranks joined by `/`, each as empty squares before the queen, `q`,
    /// empty squares after (zeros left out).
    Fen,
    /// A picture of the board.
    Svg,
}

impl BoardFormat {
    /// Every format, in the order help texts list them.
    pub const ALL: [BoardFormat; 4] = [
        BoardFormat::Vector,
        BoardFormat::Grid,
        BoardFormat::Fen,
        BoardFormat::Svg,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            BoardFormat::Vector => "vector",
            BoardFormat::Grid => "grid",
            BoardFormat::Fen => "fen",
            BoardFormat::Svg => "svg",
        }
    }

    /// Largest board this format draws, if it has a limit.
    pub fn max_n(self) -> Option<u64> {
        match self {
            BoardFormat::Grid => Some(GRID_MAX_N),
            BoardFormat::Svg => Some(SVG_MAX_N),
            BoardFormat::Vector | BoardFormat::Fen => None,
        }
    }
}

impl fmt::Display for BoardFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BoardFormat {
    type Err = String;

    fn from_str(name: &str) -> Result<BoardFormat, String> {
        BoardFormat::ALL
            .into_iter()
            .find(|format| format.name() == name)
            .ok_or_else(|| {
                let accepted: Vec<&str> = BoardFormat::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unknown format '{name}': accepted formats are {}",
                    accepted.join(", ")
                )
            })
    }
}

/// Appends the decimal digits of `value`.
#[inline]
pub(crate) fn push_number(out: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
}

/// Appends `board` (row -> 0-based column) in `format`, ending with a
/// newline (grids and pictures end with their last line). `one_based`
/// shifts the vector form's columns to 1..N.
pub fn render<C: Copy + Into<u64>>(
    out: &mut Vec<u8>,
    board: &[C],
    format: BoardFormat,
    one_based: bool,
) {
    match format {
        BoardFormat::Vector => render_vector(out, board, one_based),
        BoardFormat::Grid => render_grid(out, board),
        BoardFormat::Fen => render_fen(out, board),
        BoardFormat::Svg => render_svg(out, board),
    }
}

/// `0 4 7 5 2 6 1 3` (or 1-based).
pub fn render_vector<C: Copy + Into<u64>>(out: &mut Vec<u8>, board: &[C], one_based: bool) {
    let shift = u64::from(one_based);
    for (row, &col) in board.iter().enumerate() {
        if row > 0 {
            out.push(b' ');
        }
        push_number(out, col.into() + shift);
    }
    out.push(b'\n');
}

/// One line per rank, top row first.
pub fn render_grid<C: Copy + Into<u64>>(out: &mut Vec<u8>, board: &[C]) {
    let n = board.len();
    for &col in board {
        let col = col.into() as usize;
        out.extend(std::iter::repeat_n(b'.', col));
        out.push(b'Q');
        out.extend(std::iter::repeat_n(b'.', n - 1 - col));
        out.push(b'\n');
    }
}

/// `q7/2q5/...`: each rank as the empty squares before the queen, `q`, and
/// the empty squares after, zeros left out.
pub fn render_fen<C: Copy + Into<u64>>(out: &mut Vec<u8>, board: &[C]) {
    let n = board.len() as u64;
    for (row, &col) in board.iter().enumerate() {
        if row > 0 {
            out.push(b'/');
        }
        let col = col.into();
        if col > 0 {
            push_number(out, col);
        }
        out.push(b'q');
        if n - 1 - col > 0 {
            push_number(out, n - 1 - col);
        }
    }
    out.push(b'\n');
}

/// Side of one square in SVG user units.
const SQUARE: u64 = 40;
/// Room for the file and rank labels.
const MARGIN: u64 = 24;
/// Space between the board and the picture's top and right edges.
const EDGE: u64 = 8;

/// The name of file `col` (0-based): letters a..z up to 26 files, numbers
/// beyond.
fn file_label(col: u64, n: u64) -> String {
    if n <= 26 {
        char::from(b'a' + col as u8).to_string()
    } else {
        (col + 1).to_string()
    }
}

/// A picture: light and dark squares, a crown for each queen, files labelled
/// along the bottom and ranks (N at the top, 1 at the bottom) on the left.
pub fn render_svg<C: Copy + Into<u64>>(out: &mut Vec<u8>, board: &[C]) {
    use std::io::Write;
    let n = board.len() as u64;
    let side = n * SQUARE;
    // Labels take a margin on the left and at the bottom; a narrower one
    // (EDGE) keeps the board off the top and right edges.
    let (width, height) = (side + MARGIN + EDGE, side + MARGIN + EDGE);
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
    );
    let _ = writeln!(out, "<title>{n} queens</title>");
    let _ = writeln!(
        out,
        r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        out,
        r#"<g id="squares" transform="translate({MARGIN},{EDGE})">"#
    );
    for row in 0..n {
        for col in 0..n {
            let fill = if (row + col) % 2 == 0 {
                "#f0d9b5"
            } else {
                "#b58863"
            };
            let _ = writeln!(
                out,
                r#"<rect x="{}" y="{}" width="{SQUARE}" height="{SQUARE}" fill="{fill}"/>"#,
                col * SQUARE,
                row * SQUARE
            );
        }
    }
    let _ = writeln!(out, "</g>");
    let _ = writeln!(
        out,
        r#"<g id="queens" transform="translate({MARGIN},{EDGE})">"#
    );
    for (row, &col) in board.iter().enumerate() {
        let (x, y) = (col.into() * SQUARE, row as u64 * SQUARE);
        // A crown: five points over a band, in a 40 x 40 square.
        let _ = writeln!(
            out,
            r##"<path class="queen" transform="translate({x},{y})" d="M8 30 L6 12 L13 22 L16 9 L20 20 L24 9 L27 22 L34 12 L32 30 Z M8 32 H32 V35 H8 Z" fill="#1a1a1a" stroke="#ffffff" stroke-width="1"/>"##
        );
    }
    let _ = writeln!(out, "</g>");
    let _ = writeln!(
        out,
        r#"<g id="labels" font-family="sans-serif" font-size="12" text-anchor="middle">"#
    );
    for col in 0..n {
        let x = MARGIN + col * SQUARE + SQUARE / 2;
        let _ = writeln!(
            out,
            r#"<text x="{x}" y="{}">{}</text>"#,
            EDGE + side + 17,
            file_label(col, n)
        );
    }
    for row in 0..n {
        let y = EDGE + row * SQUARE + SQUARE / 2 + 4;
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{y}">{}</text>"#,
            MARGIN / 2,
            n - row
        );
    }
    let _ = writeln!(out, "</g>");
    let _ = writeln!(out, "</svg>");
}
