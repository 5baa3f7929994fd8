//! Every placement of a quadrant, enumerated plainly: the naive twin of
//! the cells built on demand ([`super::RowCells`]), and the count behind
//! the memory model.

/// A placement being built, row by row.
#[derive(Clone, Copy, Debug)]
struct Partial {
    row: u32,
    rows: u32,
    cols: u32,
    diag: u64,
}

impl Partial {
    const EMPTY: Partial = Partial {
        row: 0,
        rows: 0,
        cols: 0,
        diag: 0,
    };

    /// This state with row `row` left empty, then with a queen on each
    /// column it may take.
    fn children(self, side: u32, visit: &mut dyn FnMut(Partial)) {
        let row = self.row;
        visit(Partial {
            row: row + 1,
            ..self
        });
        for col in 0..side {
            let d1 = 1u64 << (row + side - 1 - col);
            let d2 = 1u64 << (32 + row + col);
            if self.cols & (1 << col) == 0 && self.diag & (d1 | d2) == 0 {
                visit(Partial {
                    row: row + 1,
                    rows: self.rows | 1 << row,
                    cols: self.cols | 1 << col,
                    diag: self.diag | d1 | d2,
                });
            }
        }
    }
}

/// Calls `visit(rows, cols, diagonals)` for every non-attacking placement on
/// a `side` square, in a fixed order.
fn each_placement(side: u32, visit: &mut dyn FnMut(u32, u32, u64)) {
    fn below(side: u32, state: Partial, visit: &mut dyn FnMut(u32, u32, u64)) {
        if state.row == side {
            visit(state.rows, state.cols, state.diag);
            return;
        }
        state.children(side, &mut |child| below(side, child, visit));
    }
    below(side, Partial::EMPTY, visit);
}

/// Placements of 0..=side queens on a `side` square, counted without
/// storing them.
pub fn count_placements(side: u32) -> u64 {
    let mut total = 0u64;
    each_placement(side, &mut |_, _, _| total += 1);
    total
}

/// Every non-attacking placement on a `side` square as (rows, cols,
/// diagonals), in the cells' bit layout: what [`super::RowCells`] must hold.
pub fn placements(side: u32) -> Vec<(u32, u32, u64)> {
    let mut all = Vec::new();
    each_placement(side, &mut |rows, cols, diag| all.push((rows, cols, diag)));
    all
}
