//! Which builds of the hot loops a count runs: a value a caller passes
//! ([`CodePaths`]), entered on each of the count's threads; where none
//! is, the environment variables `NQUEENS_LANES` and `NQUEENS_MATCHER`,
//! else the fastest builds this CPU has. Counts never depend on it.

use std::fmt;

use super::disjoint::{parse_matcher, MatcherPath};
use super::lanes::{parse_lanes, Lanes};
use crate::error::Error;

/// The builds a count's hot loops take: the vector lanes of the
/// depth-first searches and the join's matcher loop. [`Default`] leaves
/// both to the environment variables, else to the fastest this CPU runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodePaths {
    /// `Some(None)`: no lanes (the scalar kernel).
    lanes: Option<Option<Lanes>>,
    matcher: Option<MatcherPath>,
}

impl CodePaths {
    /// The builds named as `NQUEENS_LANES` and `NQUEENS_MATCHER` take
    /// them (`avx512-popcnt`, `avx512`, `avx2` or `off`; `avx512`, `avx2`
    /// or `portable`), `None` leaving one to its default; an error names a
    /// value that is not a build, or one this CPU cannot run.
    pub fn parse(lanes: Option<&str>, matcher: Option<&str>) -> Result<CodePaths, Error> {
        Ok(CodePaths {
            lanes: lanes
                .map(|value| parse_lanes(value, "lanes "))
                .transpose()
                .map_err(Error::Environment)?,
            matcher: matcher
                .map(|value| parse_matcher(value, "matcher "))
                .transpose()
                .map_err(Error::Environment)?,
        })
    }

    /// Makes these the builds of the calling thread's searches until it
    /// ends or enters others (the engine enters a count's on each of its
    /// threads).
    pub(crate) fn enter(self) {
        super::lanes::enter(self.lanes);
        super::disjoint::enter_matcher(self.matcher);
    }
}

/// `lanes avx512-popcnt, matcher avx512`: the choices, `default` where one
/// is left to the environment variable or the CPU.
impl fmt::Display for CodePaths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lanes = match self.lanes {
            Some(Some(lanes)) => lanes.name(),
            Some(None) => "off",
            None => "default",
        };
        let matcher = self.matcher.map_or("default", MatcherPath::name);
        write!(f, "lanes {lanes}, matcher {matcher}")
    }
}

/// The names of the builds the calling thread's searches take now:
/// (lanes, matcher), `off` for no lanes.
pub(crate) fn taken_now() -> (&'static str, &'static str) {
    let lanes = super::lanes::best().map_or("off", |lanes| lanes.name());
    (lanes, super::disjoint::matcher_path().name())
}

/// Checks the environment variables that steer the searches
/// (`NQUEENS_LANES`, `NQUEENS_MATCHER`): an error names the value and
/// what is accepted.
pub(crate) fn check_environment() -> Result<(), Error> {
    super::lanes::requested()
        .map(|_| ())
        .and_then(|()| super::disjoint::requested_matcher().map(|_| ()))
        .map_err(Error::Environment)
}
