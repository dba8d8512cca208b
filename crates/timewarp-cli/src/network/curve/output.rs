//! What a curve writes and shows: its CSV (a row per load), the two
//! pictures beside it, and the lines on the terminal.

use std::path::{Path, PathBuf};

use super::rule::Verdict;
use super::{Plan, Point, PERIODS};
use crate::draw::{self, csv_table::Table};

/// The columns of the curve's CSV.
const COLUMNS: &[&str] = &[
    "load",
    "status",
    "latency_mean",
    "accepted_throughput",
    "measured_offered_load",
    "warmup_ns",
    "measured_ns",
    "sample_period_ns",
    "latency_change",
    "hops_mean",
    "in_flight_packets",
    "refined",
    "digest",
    "error",
];

/// The CSV text: a row per load, in load order.
pub(super) fn csv(points: &[Point]) -> Result<String, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let e = |e: csv::Error| e.to_string();
    w.write_record(COLUMNS).map_err(e)?;
    for p in points {
        let (lat, acc) = p.figures();
        let num = |v: f64| if v.is_finite() { v.to_string() } else { String::new() };
        let r = p.results();
        let field = |k: &str| r.map(|r| crate::rerun::field(&r[k])).unwrap_or_default();
        let (warmup, measured, change) = match &p.outcome {
            Ok((_, Verdict::Steady { warmup, .. })) => {
                let w = *warmup as f64 * p.period;
                (num(w), num(PERIODS * p.period - w), String::new())
            }
            Ok((_, Verdict::Unsettled { change, .. })) => (String::new(), String::new(), num(*change)),
            Err(_) => Default::default(),
        };
        let digest = p.outcome.as_ref().map(|(j, _)| crate::rerun::field(&j["digest"])).unwrap_or_default();
        let error = p.outcome.as_ref().err().cloned().unwrap_or_default();
        w.write_record([
            num(p.load),
            p.status().into(),
            num(lat),
            num(acc),
            field("measured_offered_load"),
            warmup,
            measured,
            num(p.period),
            change,
            field("hops_mean"),
            field("in_flight_packets"),
            p.refined.to_string(),
            digest,
            error,
        ])
        .map_err(e)?;
    }
    String::from_utf8(w.into_inner().map_err(|e| e.to_string())?).map_err(|e| e.to_string())
}

/// Draws latency against load (steady points only, log scale: an unstable
/// point's latency is a transient that grows with the run) and accepted
/// against offered (a line per status), beside `csv_path`.
pub(super) fn pictures(csv_path: &Path, text: &str) -> Result<Vec<PathBuf>, String> {
    let mut table = Table::parse(csv_path, text)?;
    let stem = csv_path.file_stem().map_or_else(|| "curve".into(), |s| s.to_string_lossy().into_owned());
    let mut out = Vec::new();
    let path = csv_path.with_file_name(format!("{stem}-accepted.png"));
    if let Ok(series) = table.series("measured_offered_load", "accepted_throughput", Some("status")) {
        draw::render(&path, draw::Format::Png, draw::csv_table::SIZE, &series)?;
        out.push(path);
    }
    let status = table.column("status", "status")?;
    table.rows.retain(|(_, r)| r[status] == "steady");
    let path = csv_path.with_file_name(format!("{stem}-latency.png"));
    if let Ok(series) = table.series("load", "latency_mean", None).and_then(|s| s.log(false, true)) {
        draw::render(&path, draw::Format::Png, draw::csv_table::SIZE, &series)?;
        out.insert(0, path);
    }
    Ok(out)
}

/// What the terminal shows: a line per load and the saturation point.
pub(super) fn summary(points: &[Point], plan: &Plan) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for p in points {
        let (lat, acc) = p.figures();
        let load = format!("load {:<9}", p.load);
        let _ = match &p.outcome {
            Err(e) => writeln!(s, "{load} error: {e}"),
            Ok((_, Verdict::Steady { warmup, .. })) if p.short.is_none() => writeln!(
                s,
                "{load} steady: warm-up {} ns, latency {} ns, accepted {}",
                crate::readable::sig(*warmup as f64 * p.period),
                crate::readable::sig(lat),
                crate::readable::sig(acc)
            ),
            Ok(_) if p.short.is_some() => writeln!(
                s,
                "{load} unstable: carries {} of the {} offered (latency {} ns, rising)",
                crate::readable::sig(acc),
                crate::readable::sig(p.short.unwrap_or_default()),
                crate::readable::sig(lat)
            ),
            Ok((_, v @ Verdict::Unsettled { .. })) => {
                let end = PERIODS * p.period;
                let run = if end * 2.0 <= plan.max_end {
                    "past the first unstable load, one run"
                } else {
                    "the cap, --max-end"
                };
                let why = v.why(PERIODS as usize).unwrap_or_default();
                writeln!(s, "{load} unstable: {why}, at --end {} ns ({run})", crate::readable::sig(end))
            }
            Ok(_) => Ok(()),
        };
    }
    let first_bad = points.iter().find(|p| p.outcome.is_ok() && !p.stable()).map(|p| p.load);
    let best = points.iter().rfind(|p| p.stable() && first_bad.map_or(true, |b| p.load < b));
    let _ = match (best, first_bad) {
        (Some(b), Some(u)) => writeln!(
            s,
            "saturation throughput {} (accepted at load {}, the highest steady load; unstable from {})",
            crate::readable::sig(b.figures().1),
            b.load,
            u
        ),
        (Some(b), None) => writeln!(s, "no saturation up to load {}: every load reached a steady state", b.load),
        (None, Some(u)) => writeln!(s, "unstable from the lowest load ({u}): start the curve lower"),
        (None, None) => Ok(()),
    };
    s
}
