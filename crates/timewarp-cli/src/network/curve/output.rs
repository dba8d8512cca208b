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
    "saturation",
    "digest",
    "error",
];

/// The CSV text: a row per load, in load order.
pub(super) fn csv(points: &[Point]) -> Result<String, String> {
    let sat = saturation(points).point;
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
            sat.is_some_and(|s| std::ptr::eq(s, p)).to_string(),
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
                "{load} steady: warm-up {}, latency {}, accepted {}",
                crate::readable::time_ns(*warmup as f64 * p.period),
                crate::readable::time_ns(lat),
                crate::readable::sig(acc)
            ),
            Ok(_) if p.short.is_some() => writeln!(
                s,
                "{load} unstable: carries {} of the {} offered (latency {}, rising)",
                crate::readable::sig(acc),
                crate::readable::sig(p.short.unwrap_or_default()),
                crate::readable::time_ns(lat)
            ),
            Ok((_, v @ Verdict::Unsettled { .. })) => {
                let end = PERIODS * p.period;
                let run = if end * 2.0 <= plan.max_end {
                    "past the first unstable load, one run"
                } else {
                    "the cap, --max-end"
                };
                let why = v.why(PERIODS as usize).unwrap_or_default();
                writeln!(s, "{load} unstable: {why}, at --end {} ({run})", crate::readable::time_ns(end))
            }
            Ok(_) => Ok(()),
        };
    }
    let sat = saturation(points);
    let _ = match (sat.point, sat.first_unstable) {
        (Some(b), Some(u)) => {
            let peak = match sat.peak {
                Some(p) if p.figures().1 > b.figures().1 => format!(
                    "; peak accepted {} at load {} ({}: not sustained)",
                    crate::readable::sig(p.figures().1),
                    p.load,
                    p.status()
                ),
                _ => String::new(),
            };
            writeln!(
                s,
                "saturation throughput {} (the highest accepted among steady loads, at load {}; unstable from {u}{peak})",
                crate::readable::sig(b.figures().1),
                b.load,
            )
        }
        (Some(_), None) => {
            let top = points.iter().filter(|p| p.stable()).map(|p| p.load).fold(f64::MIN, f64::max);
            writeln!(s, "no saturation up to load {top}: every load reached a steady state")
        }
        (None, Some(u)) => writeln!(s, "unstable from the lowest load ({u}): start the curve lower"),
        (None, None) => Ok(()),
    };
    s
}

/// The curve's saturation point: of the steady points, the one that
/// accepted the most (its accepted throughput is the saturation
/// throughput, so no steady row of the CSV accepted more: issue 62, where
/// the highest steady load's 0.078 was reported beside a steady 0.089);
/// the lowest unstable load; and the point (of any status) that accepted
/// the most, which past saturation may be an unstable one whose whole,
/// transient run carried more than any steady point sustains.
pub(super) struct Saturation<'a> {
    pub point: Option<&'a Point>,
    pub first_unstable: Option<f64>,
    pub peak: Option<&'a Point>,
}

/// [`Saturation`] of `points`; of equal accepted throughputs, the lower load's.
pub(super) fn saturation(points: &[Point]) -> Saturation<'_> {
    Saturation {
        point: most(points, Point::stable),
        first_unstable: points.iter().filter(|p| p.outcome.is_ok() && !p.stable()).map(|p| p.load).reduce(f64::min),
        peak: most(points, |p| p.outcome.is_ok()),
    }
}

/// Of `points` that pass `keep`, the first that accepted the most.
fn most(points: &[Point], keep: fn(&Point) -> bool) -> Option<&Point> {
    points.iter().filter(|p| keep(p) && p.figures().1.is_finite()).fold(None, |best, p| match best {
        Some(b) if b.figures().1 >= p.figures().1 => Some(b),
        _ => Some(p),
    })
}

#[cfg(test)]
mod tests {
    use super::super::rule::Verdict;
    use super::*;

    fn point(load: f64, accepted: f64, steady: bool) -> Point {
        let verdict = if steady {
            Verdict::Steady { warmup: 2, latency: 100.0 * (1.0 + load), accepted }
        } else {
            Verdict::Unsettled { change: 0.3, what: "mean latency", warmed_up: true }
        };
        let json = serde_json::json!({
            "digest": "0",
            "model_results": {"latency_mean": 900.0, "accepted_throughput": accepted, "measured_offered_load": load}
        });
        Point { load, refined: false, outcome: Ok((json, verdict)), period: 2000.0, short: None, brief: None }
    }

    /// A steady point below the highest steady load accepted more (noise),
    /// and a later unstable run's transient accepted more than any steady
    /// one: the saturation is the most any steady point accepted, never
    /// below a steady row of the CSV, and the unstable peak is named beside it.
    #[test]
    fn saturation_is_the_most_a_steady_point_accepted_and_the_peak_is_shown() {
        let points = vec![
            point(0.05, 0.05, true),
            point(0.1, 0.089, true),
            point(0.15, 0.078, true),
            point(0.2, 0.095, false),
            point(0.3, 0.09, false),
        ];
        let sat = saturation(&points);
        assert_eq!(sat.point.map(|p| p.load), Some(0.1));
        assert_eq!(sat.first_unstable, Some(0.2));
        assert_eq!(sat.peak.map(|p| p.load), Some(0.2));
        let steady_max = points.iter().filter(|p| p.stable()).map(|p| p.figures().1).fold(0.0, f64::max);
        assert_eq!(sat.point.unwrap().figures().1, steady_max);
        // The CSV marks the saturation row, and only it.
        let text = csv(&points).unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let col = r.headers().unwrap().iter().position(|h| h == "saturation").unwrap();
        let marked: Vec<String> =
            r.records().map(|x| x.unwrap()).filter(|x| &x[col] == "true").map(|x| x[0].to_string()).collect();
        assert_eq!(marked, ["0.1"]);
        let plan = Plan {
            loads: vec![],
            period: 2000.0,
            max_end: 320_000.0,
            refine: 0,
            threshold: 0.05,
            output: "c.csv".into(),
            run: vec![],
        };
        let line = summary(&points, &plan);
        assert!(
            line.contains(
                "saturation throughput 0.08900 (the highest accepted among steady loads, at load 0.1; unstable from \
                 0.2; peak accepted 0.09500 at load 0.2 (unstable: not sustained))"
            ),
            "{line}"
        );
        // All steady: no saturation, no peak.
        let line = summary(&points[..3], &plan);
        assert!(line.contains("no saturation up to load 0.15"), "{line}");
    }
}
