//! Numbers and durations as people read them: three significant digits
//! and a unit.

/// A rate with an SI prefix, e.g. `412 M/s`, `2.50 k/s`.
pub fn human_rate(per_second: f64) -> String {
    let (scaled, prefix) = si_prefixed(per_second);
    format!("{} {prefix}/s", three_digits(scaled))
}

/// `value` with three significant digits and an SI prefix past a
/// thousand: `0.50`, `12.3`, `4.14k`, `123M`, `10.0G`.
pub fn si_three_digits(value: f64) -> String {
    let (scaled, prefix) = si_prefixed(value);
    format!("{}{prefix}", three_digits(scaled))
}

/// `value` scaled below a thousand, and the SI prefix that says by how
/// much (up to T).
fn si_prefixed(value: f64) -> (f64, &'static str) {
    const PREFIXES: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    PREFIXES
        .into_iter()
        // 999.96 rounds to 1000 at three digits: it takes the next prefix.
        .find(|&(scale, _)| value >= scale * 0.99995)
        .map_or((value, ""), |(scale, prefix)| (value / scale, prefix))
}

/// A duration for people, to 3 significant digits: `512 ms`, `4.21 s`,
/// `17.3 min`, `5.02 h`, `12.1 days`, `3.40 years`.
pub fn human_duration(seconds: f64) -> String {
    const UNITS: [(f64, &str); 5] = [
        (365.25 * 86_400.0, "years"),
        (86_400.0, "days"),
        (3_600.0, "h"),
        (60.0, "min"),
        (1.0, "s"),
    ];
    for (scale, unit) in UNITS {
        // Minutes from 2 min up, and so on: 90 s reads better than 1.50 min.
        if seconds >= 2.0 * scale || (scale == 1.0 && seconds >= 1.0) {
            return format!("{} {unit}", three_digits(seconds / scale));
        }
    }
    format!("{} ms", three_digits(seconds * 1000.0))
}

/// `value` (below 1000) with three significant digits: `512`, `17.3`,
/// `4.21` (a value rounding up to the next decade takes its width).
fn three_digits(value: f64) -> String {
    let decimals = match value {
        v if v >= 99.95 => 0,
        v if v >= 9.995 => 1,
        _ => 2,
    };
    format!("{value:.decimals$}")
}

/// `1 board`, `2 boards`: a count and its noun, plural but for 1.
pub fn count_of(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_their_unit() {
        assert_eq!(human_duration(0.512), "512 ms");
        assert_eq!(human_duration(4.214), "4.21 s");
        assert_eq!(human_duration(90.0), "90.0 s");
        assert_eq!(human_duration(1038.0), "17.3 min");
        assert_eq!(human_duration(3.0 * 86_400.0), "3.00 days");
        assert_eq!(human_duration(30.0 * 3_600.0), "30.0 h");
        assert_eq!(human_duration(10.0 * 365.25 * 86_400.0), "10.0 years");
    }

    #[test]
    fn rates_get_prefixes() {
        assert_eq!(human_rate(412_345_678.0), "412 M/s");
        assert_eq!(human_rate(2_500.0), "2.50 k/s");
        assert_eq!(human_rate(12.0), "12.0 /s");
        assert_eq!(human_rate(3.2e9), "3.20 G/s");
        assert_eq!(human_rate(999_990.0), "1.00 M/s");
    }

    #[test]
    fn numbers_have_three_significant_digits_and_a_prefix() {
        assert_eq!(si_three_digits(4143.8288), "4.14k");
        assert_eq!(si_three_digits(0.5), "0.50");
        assert_eq!(si_three_digits(12.345), "12.3");
        assert_eq!(si_three_digits(999.9), "1000");
        assert_eq!(si_three_digits(123_456_789.0), "123M");
        assert_eq!(si_three_digits(9.996e9), "10.0G");
    }
}
