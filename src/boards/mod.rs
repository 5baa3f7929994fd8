//! Boards for people: every solution in order, the n-th one, one solution
//! for any N without search, drawing them, and checking a claimed one.

pub mod construct;
mod next_row;
pub mod render;
pub mod solutions;
pub mod validate;
