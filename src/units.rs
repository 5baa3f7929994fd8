//! Sizes in bytes, read and written in one unit system: powers of 1024
//! (`10M` is 10 MiB and prints as `10.0 MiB`).

/// Bytes for people: "512 B", "7.3 KiB", "1.2 GiB" (powers of 1024).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Parses a byte count: digits with an optional K, M, G or T suffix
/// (powers of 1024; a trailing B or iB is accepted).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let error = || {
        format!("'{text}' is not a memory size: give bytes, or a number with K, M, G or T (e.g. 512M, 8G)")
    };
    let trimmed = text.trim();
    let upper = trimmed.to_ascii_uppercase();
    let upper = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (digits, scale) = match upper.chars().last() {
        Some('K') => (&upper[..upper.len() - 1], 1u64 << 10),
        Some('M') => (&upper[..upper.len() - 1], 1 << 20),
        Some('G') => (&upper[..upper.len() - 1], 1 << 30),
        Some('T') => (&upper[..upper.len() - 1], 1 << 40),
        _ => (upper, 1),
    };
    let value: u64 = digits.trim().parse().map_err(|_| error())?;
    value.checked_mul(scale).ok_or_else(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sizes_parse_with_suffixes() {
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert_eq!(parse_bytes("512M"), Ok(512 << 20));
        assert_eq!(parse_bytes("8g"), Ok(8 << 30));
        assert_eq!(parse_bytes("2GiB"), Ok(2 << 30));
        assert_eq!(parse_bytes("4kB"), Ok(4 << 10));
        for bad in ["", "M", "12Q", "-5", "1.5G", "99999999999T"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sizes_print_in_the_unit_they_are_read_in() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(10 << 20), "10.0 MiB");
        assert_eq!(human_bytes(parse_bytes("8G").unwrap()), "8.0 GiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
    }
}
