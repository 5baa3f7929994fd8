//! The published counts, embedded so that every result can be checked on any
//! machine without files or network.
//!
//! Source: OEIS A000170 (all solutions, n = 0..27) and A002562 (solutions up
//! to the 8 symmetries of the square, n = 1..27), data sections.

/// A000170: solutions of the n-queens problem, indexed by n, for n = 0..=27.
pub const A000170: [u128; 28] = [
    1,
    1,
    0,
    0,
    2,
    10,
    4,
    40,
    92,
    352,
    724,
    2_680,
    14_200,
    73_712,
    365_596,
    2_279_184,
    14_772_512,
    95_815_104,
    666_090_624,
    4_968_057_848,
    39_029_188_884,
    314_666_222_712,
    2_691_008_701_644,
    24_233_937_684_440,
    227_514_171_973_736,
    2_207_893_435_808_352,
    22_317_699_616_364_044,
    234_907_967_154_122_528,
];

/// A002562: solutions up to rotation and reflection, indexed by n, for
/// n = 1..=27 (the sequence starts at n = 1; index 0 is a placeholder).
pub const A002562: [u128; 28] = [
    0,
    1,
    0,
    0,
    1,
    2,
    1,
    6,
    12,
    46,
    92,
    341,
    1_787,
    9_233,
    45_752,
    285_053,
    1_846_955,
    11_977_939,
    83_263_591,
    621_012_754,
    4_878_666_808,
    39_333_324_973,
    336_376_244_042,
    3_029_242_658_210,
    28_439_272_956_934,
    275_986_683_743_434,
    2_789_712_466_510_289,
    29_363_495_934_315_694,
];

/// The largest N with a published count of all solutions.
pub fn largest_known() -> u32 {
    (A000170.len() - 1) as u32
}

/// The published number of solutions for `n`, where known.
pub fn total(n: u32) -> Option<u128> {
    A000170.get(n as usize).copied()
}

/// The published number of solutions up to symmetry for `n`, where known.
pub fn unique(n: u32) -> Option<u128> {
    if n == 0 {
        return None;
    }
    A002562.get(n as usize).copied()
}
