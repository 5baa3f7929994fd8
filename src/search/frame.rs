//! Stack frames aligned to a cache line, for the vector loops that spill.

/// A cache line of the stack whose address escapes.
#[repr(align(64))]
struct FrameLine {
    _bytes: [u8; 64],
}

/// Aligns the frame of the function it is inlined into to 64 bytes, so
/// the 32- and 64-byte vector registers that function spills each lie in
/// one cache line, whatever the depth of its callers. Without it their
/// alignment followed the call path: a refactor of the callers (fc6adb8,
/// the lane search's code unchanged) put the AVX2 lane search's spills
/// across lines and made `count 17 -m mirror` 1.3x slower on Zen 4. Costs
/// two stores a call: for functions that run a loop, not in one.
#[inline(always)]
pub(crate) fn align_frame() {
    let line = FrameLine { _bytes: [0; 64] };
    std::hint::black_box(&line);
}
