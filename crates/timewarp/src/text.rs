//! Text for a reader: [`printable`] is what every error that echoes a
//! file's (or a command line's) text shows of it; [`sig`], [`time_ns`],
//! [`seconds`], [`percent`] and [`count`] are the one way a summary, a note,
//! a plot or a report prints a number (4 significant digits, times in the
//! unit that keeps them short). Full precision stays in the machine-readable
//! outputs (`--stats-json`, the CSV files, run files); an error that quotes a
//! user's value quotes it as given.

/// The most characters of one quoted piece of input a message shows.
pub const QUOTE_LIMIT: usize = 60;

/// `input` as an error message may show it: control characters escaped
/// (`\n`, `\t`, `\r`, `\u{1b}`), and so are the invisible characters that
/// reorder or hide text on a terminal (bidi embeddings, overrides and
/// isolates U+202A–U+202E, U+2066–U+2069, marks U+200E, U+200F, U+061C,
/// zero-width U+200B–U+200D, U+2060, U+FEFF, separators U+2028, U+2029);
/// at most [`QUOTE_LIMIT`] characters, then `…` and how many were left out.
///
/// Why: a message must read as what it is on the user's terminal — a
/// crafted file must not move text, clear the screen or fill it.
///
/// ```
/// use timewarp::text::printable;
/// assert_eq!(printable("a\tb\u{1b}[2J"), "a\\tb\\u{1b}[2J");
/// assert_eq!(printable("abc\u{202e}fed"), "abc\\u{202e}fed");
/// assert_eq!(printable(&"x".repeat(100)), format!("{}… (40 more characters)", "x".repeat(60)));
/// ```
pub fn printable(input: &str) -> String {
    printable_within(input, QUOTE_LIMIT)
}

/// [`printable`] with another limit: for a whole message from another
/// parser (TOML, clap) that quotes input inside it.
pub fn printable_within(input: &str, limit: usize) -> String {
    let mut out = String::new();
    for (n, c) in input.chars().enumerate() {
        if n == limit {
            let more = input.chars().count() - n;
            out += &format!("… ({more} more characters)");
            break;
        }
        match c {
            '\n' => out += "\\n",
            '\t' => out += "\\t",
            '\r' => out += "\\r",
            c if c.is_control() || hidden(c) => out += &format!("\\u{{{:x}}}", c as u32),
            c => out.push(c),
        }
    }
    out
}

/// Characters that change how the text around them is shown, or show as nothing.
fn hidden(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

/// `v` to 4 significant digits, thousands separated: 2,460; 138.6;
/// 0.04712; 1.235e-7 (below 1e-4 or from 1e15 up); `n/a` when not finite.
///
/// ```
/// use timewarp::text::sig;
/// assert_eq!(sig(363.30450148809524), "363.3");
/// assert_eq!(sig(999.96), "1,000");
/// assert_eq!(sig(-0.5), "-0.5000");
/// ```
pub fn sig(v: f64) -> String {
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
        format!("{keep}{}", "0".repeat(zeros))
    } else {
        digits.to_string()
    };
    let grouped = group(&digits);
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// A time given in ns, in the unit that keeps it short, to 4 significant
/// digits: 812.0 ns, 7.770 µs, 29.84 ms, 1.200 s; a value that rounds up to
/// the next unit is shown in it (999.96 ns is 1.000 µs).
///
/// ```
/// use timewarp::text::time_ns;
/// assert_eq!(time_ns(645280.3), "645.3 µs");
/// assert_eq!(time_ns(999.96), "1.000 µs");
/// ```
pub fn time_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return "n/a".into();
    }
    if ns == 0.0 {
        return "0 ns".into();
    }
    // The unit by the value as rounded to 4 significant digits, so that
    // 999.96 ns reads 1.000 µs, not 1,000 ns.
    let a = ns.abs();
    let magnitude = a.log10().floor() as i32;
    let step = 10f64.powi(magnitude - 3);
    let a = (a / step).round() * step;
    let (scale, u) = if a < 1e3 {
        (1.0, "ns")
    } else if a < 1e6 {
        (1e3, "µs")
    } else if a < 1e9 {
        (1e6, "ms")
    } else {
        (1e9, "s")
    };
    format!("{} {u}", sig(ns / scale))
}

/// A time given in seconds, as [`time_ns`] shows it: 8.123 ms, 1.500 s.
pub fn seconds(s: f64) -> String {
    time_ns(s * 1e9)
}

/// A fraction as a percentage to 4 significant digits: 13.02%, 100.0%.
pub fn percent(fraction: f64) -> String {
    format!("{}%", sig(100.0 * fraction))
}

/// A count: every digit, thousands separated (30,319).
pub fn count(n: u64) -> String {
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
    use super::*;

    #[test]
    fn four_significant_digits_with_thousands_separated() {
        assert_eq!(sig(2460.123), "2,460");
        assert_eq!(sig(138.59707651353094), "138.6");
        assert_eq!(sig(363.30450148809524), "363.3");
        assert_eq!(sig(0.04712345), "0.04712");
        assert_eq!(sig(0.1998), "0.1998");
        assert_eq!(sig(999.96), "1,000");
        assert_eq!(sig(9.99996), "10.00");
        assert_eq!(sig(0.99995), "1.000");
        assert_eq!(sig(30319.0), "30,320");
        assert_eq!(sig(1_234_567.0), "1,235,000");
        assert_eq!(sig(-2.5), "-2.500");
        assert_eq!(sig(-999.96), "-1,000");
        assert_eq!(sig(0.0), "0");
        assert_eq!(sig(-0.0), "0");
        assert_eq!(sig(1.23456e-7), "1.235e-7");
        assert_eq!(sig(f64::NAN), "n/a");
        assert_eq!(sig(f64::INFINITY), "n/a");
        assert_eq!(count(30319), "30,319");
        assert_eq!(count(7), "7");
        assert_eq!(count(0), "0");
    }

    #[test]
    fn times_scale_to_ns_us_ms_s() {
        assert_eq!(time_ns(812.0), "812.0 ns");
        assert_eq!(time_ns(35840.0), "35.84 µs");
        assert_eq!(time_ns(645280.3), "645.3 µs");
        assert_eq!(time_ns(7770.4), "7.770 µs");
        assert_eq!(time_ns(29838237.0), "29.84 ms");
        assert_eq!(time_ns(1.2e9), "1.200 s");
        assert_eq!(time_ns(3.6e12), "3,600 s");
        assert_eq!(time_ns(0.5), "0.5000 ns");
        // Rounding carries into the next unit.
        assert_eq!(time_ns(999.96), "1.000 µs");
        assert_eq!(time_ns(999.94), "999.9 ns");
        assert_eq!(time_ns(999_960.0), "1.000 ms");
        assert_eq!(time_ns(999_960_000.0), "1.000 s");
        // Negative and zero.
        assert_eq!(time_ns(-7770.4), "-7.770 µs");
        assert_eq!(time_ns(-999.96), "-1.000 µs");
        assert_eq!(time_ns(0.0), "0 ns");
        assert_eq!(time_ns(f64::NAN), "n/a");
        assert_eq!(seconds(0.0081234), "8.123 ms");
        assert_eq!(seconds(1.5), "1.500 s");
        assert_eq!(seconds(0.0), "0 ns");
        assert_eq!(percent(0.1302), "13.02%");
        assert_eq!(percent(1.0), "100.0%");
        assert_eq!(percent(0.0), "0%");
    }

    #[test]
    fn control_and_bidi_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(printable("plain text, ünïcode: 名前"), "plain text, ünïcode: 名前");
        assert_eq!(printable("a\nb\rc\0d\u{7f}e\u{85}"), "a\\nb\\rc\\u{0}d\\u{7f}e\\u{85}");
        for c in ['\u{202a}', '\u{202e}', '\u{2066}', '\u{2069}', '\u{200e}', '\u{200f}', '\u{061c}', '\u{feff}'] {
            let s = printable(&format!("x{c}y"));
            assert_eq!(s, format!("x\\u{{{:x}}}y", c as u32));
        }
    }

    #[test]
    fn long_input_is_cut_at_the_limit_with_a_count() {
        let s = printable(&"é".repeat(70_000));
        assert_eq!(s.chars().filter(|&c| c == 'é').count(), QUOTE_LIMIT);
        assert!(s.ends_with("… (69940 more characters)"), "{s}");
        assert_eq!(printable(&"y".repeat(QUOTE_LIMIT)), "y".repeat(QUOTE_LIMIT));
    }
}
