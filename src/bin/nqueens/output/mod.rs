//! Output formats, one file per kind of report.

mod bench;
mod count;

pub use bench::write_bench;
pub use count::ReportWriter;

/// A rate with an SI prefix, e.g. `412.3 M/s`.
pub fn human_rate(per_second: f64) -> String {
    const PREFIXES: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, prefix) in PREFIXES {
        if per_second >= scale {
            return format!("{:.1} {prefix}/s", per_second / scale);
        }
    }
    format!("{per_second:.0} /s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_get_prefixes() {
        assert_eq!(human_rate(412_345_678.0), "412.3 M/s");
        assert_eq!(human_rate(2_500.0), "2.5 k/s");
        assert_eq!(human_rate(12.0), "12 /s");
        assert_eq!(human_rate(3.2e9), "3.2 G/s");
    }
}
