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

/// A time given in ns, in the unit that keeps it short: 812.0 ns,
/// 7.770 µs, 29.84 ms, 1.200 s (summaries, notes and `curve`'s warning).
pub(crate) fn time_ns(ns: f64) -> String {
    let a = ns.abs();
    let (v, u) = if a < 1e3 {
        (ns, "ns")
    } else if a < 1e6 {
        (ns / 1e3, "µs")
    } else if a < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{} {u}", sig(v))
}

/// A count: every digit, thousands separated (30,319).
pub(crate) fn count(n: u64) -> String {
    group(&n.to_string())
}

/// The unit of a figure (a results key, a sweep or curve column) the engine
/// or a shipped model writes; None for one of unknown meaning or none.
pub(crate) fn unit(column: &str) -> Option<&'static str> {
    let c = column.strip_prefix("result.").unwrap_or(column);
    Some(match c {
        "event_rate" => "events/s",
        "wall_seconds" | "init_seconds" | "checkpoint_seconds" | "mpi_seconds" => "s",
        "efficiency" => "committed / processed events",
        "committed_events" | "rolled_back_events" | "processed" | "sent_remote" => "events",
        "load" | "offered_load" | "measured_offered_load" | "saturation_throughput" => {
            "fraction of injection bandwidth"
        }
        "hops_mean" | "hops_std" => "hops",
        "threads" => "threads",
        _ if c.starts_with("accepted_throughput") || c.starts_with("node_accepted") => {
            "fraction of injection bandwidth"
        }
        _ if c.ends_with("_utilisation") => "fraction of time busy",
        "window_ns" | "app_time_ns" => "ns",
        _ if c.ends_with("_ns") || c.contains("latency") || c.starts_with("source_queueing") => "ns",
        _ if c.ends_with("_bytes") => "bytes",
        _ if c.ends_with("_packets") => "packets",
        _ if c.ends_with("_messages") => "messages",
        _ => return None,
    })
}

/// A results value as the summary shows it: `n/a` for null (undefined for
/// this run), counts with separators, numbers to 4 significant digits with
/// their unit, text without quotes.
pub(crate) fn value(key: &str, v: &serde_json::Value) -> String {
    use serde_json::Value;
    let unit = unit(key).map_or(String::new(), |u| format!(" {u}"));
    match v {
        Value::Null => "n/a".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match (n.as_u64(), n.as_f64()) {
            (Some(i), _) => format!("{}{unit}", count(i)),
            (None, Some(f)) => format!("{}{unit}", sig(f)),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
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
        assert_eq!(super::time_ns(29838237.0), "29.84 ms");
        assert_eq!(super::time_ns(812.0), "812.0 ns");
        assert_eq!(super::time_ns(7770.4), "7.770 µs");
    }

    #[test]
    fn values_carry_their_unit_and_undefined_reads_n_a() {
        use super::value;
        use serde_json::json;
        assert_eq!(value("latency_mean", &json!(138.59707651353094)), "138.6 ns");
        assert_eq!(value("accepted_throughput", &json!(0.1998)), "0.1998 fraction of injection bandwidth");
        assert_eq!(value("delivered_packets", &json!(30319)), "30,319 packets");
        assert_eq!(value("offered_load", &json!(null)), "n/a");
        assert_eq!(value("topology", &json!("torus")), "torus");
        assert_eq!(value("fairness", &json!(0.9929150872170753)), "0.9929");
    }
}
