//! Figures as a reader takes them in at a glance: 4 significant digits,
//! thousands separated, `n/a` for what a run does not define. The
//! formatting itself is the engine's (`timewarp::text`: one way to print a
//! number, in the engine's summary and the CLI's notes alike); this adds
//! the units of results keys. Full precision stays in `--stats-json` and
//! the CSV files.

pub(crate) use timewarp::text::{count, sig, time_ns};

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
        "routers_traversed_mean" => "routers",
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
    let unit_name = unit(key);
    let unit = unit_name.map_or(String::new(), |u| format!(" {u}"));
    match v {
        Value::Null => "n/a".into(),
        Value::String(s) => s.clone(),
        // Times in the unit that keeps them short (35.84 µs, not 35840.0 ns).
        Value::Number(n) if unit_name == Some("ns") => n.as_f64().map_or_else(|| n.to_string(), time_ns),
        Value::Number(n) if unit_name == Some("s") => n.as_f64().map_or_else(|| n.to_string(), timewarp::text::seconds),
        Value::Number(n) => match (n.as_u64(), n.as_f64()) {
            (Some(i), _) => format!("{}{unit}", count(i)),
            (None, Some(f)) => format!("{}{unit}", sig(f)),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn values_carry_their_unit_and_undefined_reads_n_a() {
        use super::value;
        use serde_json::json;
        assert_eq!(value("latency_mean", &json!(138.59707651353094)), "138.6 ns");
        assert_eq!(value("latency_p99", &json!(35840.0)), "35.84 µs");
        assert_eq!(value("app_time_ns", &json!(645280.3)), "645.3 µs");
        assert_eq!(value("window_ns", &json!(5000)), "5.000 µs");
        assert_eq!(value("wall_seconds", &json!(0.0261)), "26.10 ms");
        assert_eq!(value("accepted_throughput", &json!(0.1998)), "0.1998 fraction of injection bandwidth");
        assert_eq!(value("delivered_packets", &json!(30319)), "30,319 packets");
        assert_eq!(value("offered_load", &json!(null)), "n/a");
        assert_eq!(value("topology", &json!("torus")), "torus");
        assert_eq!(value("fairness", &json!(0.9929150872170753)), "0.9929");
    }
}
