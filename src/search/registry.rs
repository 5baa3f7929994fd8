//! The registry: which [`CountingMethod`] counts each method and each
//! kind of task. One line per method; nothing else outside a method's
//! folder names one.

use super::method::CountingMethod;
use super::{d4, join, plain};
use crate::plan::{Method, TaskKind};

impl Method {
    /// The implementation of the method (`auto` is resolved by
    /// [`effective_method`](crate::plan::effective_method) before it gets
    /// here; it would mean `mirror`).
    pub(crate) fn counting(self) -> &'static dyn CountingMethod {
        match self {
            Method::NoSymmetry => &plain::NONE,
            Method::Mirror | Method::Auto => &plain::MIRROR,
            Method::D4 => &d4::D4,
            Method::Join => &join::JOIN,
        }
    }
}

impl TaskKind {
    /// The implementation that counts a task of this kind (`none` and
    /// `mirror` tasks count alike: the weight tells them apart).
    pub(crate) fn counting(self) -> &'static dyn CountingMethod {
        match self {
            TaskKind::Plain => &plain::MIRROR,
            TaskKind::D4Corner { .. } | TaskKind::D4Edge { .. } => &d4::D4,
            TaskKind::Join { .. } => &join::JOIN,
        }
    }
}
