//! Figures as a reader takes them in at a glance: 4 significant digits,
//! thousands separated, `n/a` for what a run does not define. Full
//! precision stays in `--stats-json` and the CSV files.

/// `v` to 4 significant digits: 2,460; 138.6; 0.04712; 1.235e-7.
pub(crate) fn sig(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-4..1e15).contains(&a) {
        return format!("{v:.3e}");
    }
    // Decimals for 4 significant digits, none at or above 1,000.
    let magnitude = a.log10().floor() as i32;
    let decimals = (3 - magnitude).max(0) as usize;
    let rounded = format!("{v:.decimals$}");
    // Rounding may carry into a new digit (999.96 -> 1000.0): one decimal fewer.
    let carried = rounded.parse::<f64>().is_ok_and(|r| r.abs() >= 10f64.powi(magnitude + 1));
    let rounded = if carried && decimals > 0 {
        let d = decimals - 1;
        format!("{v:.d$}")
    } else {
        rounded
    };
    let (int, frac) = rounded.split_once('.').map_or((rounded.as_str(), None), |(i, f)| (i, Some(f)));
    let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
    // Beyond 4 digits the integer part is rounded to 4 significant ones.
    let digits = if digits.len() > 4 {
        let keep: u64 = digits[..4].parse().unwrap_or(0);
        let next = digits.as_bytes()[4] - b'0';
        let keep = keep + u64::from(next >= 5);
        let zeros = digits.len() - 4;
        let s = format!("{keep}{}", "0".repeat(zeros));
        s
    } else {
        digits.to_string()
    };
    let grouped = group(&digits);
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// A count: every digit, thousands separated (30,319).
pub(crate) fn count(n: u64) -> String {
    group(&n.to_string())
}

/// `1234567` as `1,234,567`.
fn group(digits: &str) -> String {
    let n = digits.len();
    let mut out = String::with_capacity(n + n / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{count, sig};

    #[test]
    fn four_significant_digits_with_thousands_separated() {
        assert_eq!(sig(2460.123), "2,460");
        assert_eq!(sig(138.59707651353094), "138.6");
        assert_eq!(sig(0.04712345), "0.04712");
        assert_eq!(sig(0.1998), "0.1998");
        assert_eq!(sig(999.96), "1,000");
        assert_eq!(sig(9.99996), "10.00");
        assert_eq!(sig(30319.0), "30,320");
        assert_eq!(sig(1_234_567.0), "1,235,000");
        assert_eq!(sig(-2.5), "-2.500");
        assert_eq!(sig(0.0), "0");
        assert_eq!(sig(1.23456e-7), "1.235e-7");
        assert_eq!(sig(f64::NAN), "n/a");
        assert_eq!(count(30319), "30,319");
        assert_eq!(count(7), "7");
    }
}
