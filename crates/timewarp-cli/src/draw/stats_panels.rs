//! Plots of run statistics (`--stats-json`): GVT against wall time,
//! committed events per second, per-PE committed and rolled-back events,
//! and efficiency; several runs overlay.
//!
//! The file is read as JSON values, not as `timewarp::stats::Stats`, so a
//! file with keys added later (or written by an older build) still plots.

use super::{colour, err, note, padded, short, title_font, Drawn, Figure};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Default picture size (four panels).
pub(crate) const SIZE: (u32, u32) = (1200, 900);

/// Rate bins over the run: enough to show phases, few enough to smooth the
/// jitter of GVT rounds that commit in bursts.
const RATE_BINS: usize = 60;

/// One PE's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Pe {
    pub committed: f64,
    pub processed: f64,
    pub rolled_back: f64,
}

impl Pe {
    /// Committed / processed (1 when nothing was processed).
    pub(crate) fn efficiency(&self) -> f64 {
        if self.processed > 0.0 {
            self.committed / self.processed
        } else {
            1.0
        }
    }
}

/// One run's statistics, as much as the plots need.
#[derive(Clone, Debug)]
pub(crate) struct Run {
    /// The series' name in legends.
    pub label: String,
    /// Where it came from.
    pub path: PathBuf,
    /// The whole file (the report shows the rest).
    pub json: Value,
    /// (wall seconds, GVT) per GVT round with a finite GVT.
    pub gvt: Vec<(f64, f64)>,
    /// (wall seconds, events committed so far) per GVT round.
    pub committed: Vec<(f64, f64)>,
    /// Per-PE counters; one made of the totals for a sequential run.
    pub pes: Vec<Pe>,
    /// Whether `pes` came from the file (not from the totals).
    pub per_pe: bool,
    /// Committed / processed events of the run.
    pub efficiency: f64,
}

/// A number at `key` of `v`: absent or null is `None`; another type is an error.
pub(crate) fn number(v: &Value, key: &str, path: &Path) -> Result<Option<f64>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("{}: {key} is {x}, not a number; is it a --stats-json file?", path.display())),
    }
}

/// A list at `key` of `v` (absent or null: empty).
fn list<'a>(v: &'a Value, key: &str, path: &Path) -> Result<&'a [Value], String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(format!("{}: {key} is not a list; is it a --stats-json file?", path.display())),
    }
}

impl Run {
    /// Reads a statistics file written by `timewarp run ... --stats-json`
    /// (or `verify`'s, whose parallel run it takes).
    pub(crate) fn read(path: &Path) -> Result<Run, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let json: Value = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{} is not valid JSON ({e}); give a file written by `timewarp run ... --stats-json FILE`",
                path.display()
            )
        })?;
        Run::from_json(path, json)
    }

    /// The run in `json` (read from `path`).
    pub(crate) fn from_json(path: &Path, json: Value) -> Result<Run, String> {
        // `timewarp verify --stats-json`: both runs; the parallel one is of interest.
        let json = match json.get("parallel") {
            Some(p) if p.is_object() && json.get("sequential").is_some() => p.clone(),
            _ => json,
        };
        if !json.is_object() || json.get("committed_events").is_none() {
            return Err(format!(
                "{}: not run statistics (no committed_events); give a file written by `timewarp run ... \
                 --stats-json FILE`",
                path.display()
            ));
        }
        let mut gvt = Vec::new();
        let mut committed = Vec::new();
        for p in list(&json, "gvt_series", path)? {
            let (Some(wall), Some(c)) = (number(p, "wall", path)?, number(p, "committed", path)?) else {
                return Err(format!("{}: a gvt_series point lacks wall or committed: {p}", path.display()));
            };
            committed.push((wall, c));
            // The last round's GVT is infinite (written as null): the run is over.
            if let Some(g) = number(p, "gvt", path)?.filter(|g| g.is_finite()) {
                gvt.push((wall, g));
            }
        }
        let mut pes = Vec::new();
        for p in list(&json, "pes", path)? {
            let get = |k| number(p, k, path).map(Option::unwrap_or_default);
            pes.push(Pe {
                committed: get("committed")?,
                processed: get("processed")?,
                rolled_back: get("rolled_back")?,
            });
        }
        let total = |k| number(&json, k, path).map(Option::unwrap_or_default);
        let per_pe = !pes.is_empty();
        if !per_pe {
            pes.push(Pe {
                committed: total("committed_events")?,
                processed: total("processed_events")?,
                rolled_back: total("rolled_back_events")?,
            });
        }
        let efficiency = match number(&json, "efficiency", path)? {
            Some(e) => e,
            None => {
                Pe { committed: total("committed_events")?, processed: total("processed_events")?, ..Pe::default() }
                    .efficiency()
            }
        };
        Ok(Run { label: String::new(), path: path.to_path_buf(), json, gvt, committed, pes, per_pe, efficiency })
    }

    /// A text field of the file ("" when absent).
    pub(crate) fn text(&self, key: &str) -> String {
        match self.json.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(v) => v.to_string(),
        }
    }

    /// "phold, optimistic, 2 threads".
    pub(crate) fn describe(&self) -> String {
        let mut parts = vec![self.text("model"), self.text("sync")];
        let threads = self.json.get("threads").and_then(Value::as_u64).unwrap_or(1);
        let ranks = self.json.get("ranks").and_then(Value::as_u64).unwrap_or(1);
        parts.push(format!("{threads} thread{}", if threads == 1 { "" } else { "s" }));
        if ranks > 1 {
            parts.push(format!("{ranks} processes"));
        }
        parts.retain(|p| !p.is_empty());
        parts.join(", ")
    }

    /// Committed events per second over the run, in `bins` equal spans of
    /// wall time: (span middle, rate). Empty without a GVT series.
    pub(crate) fn rate(&self, bins: usize) -> Vec<(f64, f64)> {
        let mut pts = self.committed.clone();
        pts.retain(|p| p.0.is_finite() && p.1.is_finite());
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        if pts.is_empty() {
            return Vec::new();
        }
        if pts[0].0 > 0.0 {
            pts.insert(0, (0.0, 0.0));
        }
        let end = pts[pts.len() - 1].0;
        if end <= 0.0 || bins == 0 {
            return Vec::new();
        }
        // Committed by time t, linear between rounds.
        let at = |t: f64| -> f64 {
            let i = pts.partition_point(|p| p.0 <= t);
            if i == 0 {
                return pts[0].1;
            }
            if i == pts.len() {
                return pts[i - 1].1;
            }
            let (a, b) = (pts[i - 1], pts[i]);
            if b.0 > a.0 {
                a.1 + (b.1 - a.1) * (t - a.0) / (b.0 - a.0)
            } else {
                b.1
            }
        };
        let bins = bins.min(pts.len() - 1).max(1);
        let w = end / bins as f64;
        (0..bins).map(|k| (w * (k as f64 + 0.5), (at(w * (k + 1) as f64) - at(w * k as f64)) / w)).collect()
    }
}

/// Gives each run its legend label: its description alone, or the file
/// names when several overlay (their full paths where the names repeat).
pub(crate) fn label(mut runs: Vec<Run>) -> Vec<Run> {
    let stem = |r: &Run| r.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let stems: Vec<String> = runs.iter().map(stem).collect();
    let unique = (1..stems.len()).all(|i| !stems[..i].contains(&stems[i]));
    for (i, r) in runs.iter_mut().enumerate() {
        r.label = if stems.len() == 1 {
            r.describe()
        } else if unique {
            stems[i].clone()
        } else {
            r.path.display().to_string()
        };
    }
    runs
}

/// The runs to draw together.
pub(crate) struct Runs(pub Vec<Run>);

/// The four panels, each drawable alone (the HTML report shows them apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Panel {
    Gvt,
    Rate,
    PerPe,
    Efficiency,
}

impl Panel {
    /// All panels, in the order of the picture.
    pub(crate) const ALL: [Panel; 4] = [Panel::Gvt, Panel::Rate, Panel::PerPe, Panel::Efficiency];

    /// The panel's title.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Panel::Gvt => "GVT against wall time",
            Panel::Rate => "Committed events per second",
            Panel::PerPe => "Events per PE",
            Panel::Efficiency => "Efficiency per PE (committed / processed)",
        }
    }
}

/// One panel of `runs`, drawable alone.
pub(crate) struct One<'a>(pub &'a [Run], pub Panel);

impl Figure for One<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        panel(root, self.0, self.1)
    }
}

impl Figure for Runs {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        let heading = match self.0.as_slice() {
            [one] => format!("timewarp run: {}", one.describe()),
            many => format!("timewarp: {} runs compared", many.len()),
        };
        let area = root.margin(8, 0, 0, 0).titled(&heading, ("sans-serif", 24).into_font()).map_err(err)?;
        for (a, p) in area.split_evenly((2, 2)).iter().zip(Panel::ALL) {
            panel(a, &self.0, p)?;
        }
        Ok(())
    }
}

/// A run's line in a panel, or what stands in for it in a run without a
/// GVT series (a sequential or conservative one): one point or a flat
/// line, drawn thin and dashed, with a legend that says what it is.
pub(crate) struct Line {
    pub pts: Vec<(f64, f64)>,
    pub stand_in: Option<&'static str>,
}

impl Run {
    /// The run's end time and wall time, when the file has them.
    fn end_and_wall(&self) -> Option<(f64, f64)> {
        let get = |k: &str| self.json.get(k).and_then(Value::as_f64).filter(|v| v.is_finite());
        Some((get("end_time")?, get("wall_seconds")?))
    }

    /// The GVT panel's line: the series, or else the one point a run
    /// without GVT rounds has: all of its virtual time done at its wall time.
    pub(crate) fn gvt_line(&self) -> Line {
        match (self.gvt.is_empty(), self.end_and_wall()) {
            (true, Some((end, wall))) => {
                Line { pts: vec![(wall, end)], stand_in: Some("no GVT rounds: its end time, reached at its wall time") }
            }
            _ => Line { pts: self.gvt.clone(), stand_in: None },
        }
    }

    /// The rate panel's line: binned from the series, or else the run's mean
    /// rate over its wall time.
    pub(crate) fn rate_line(&self) -> Line {
        let rate = self.json.get("event_rate").and_then(Value::as_f64).filter(|v| v.is_finite());
        match (self.committed.is_empty(), self.end_and_wall(), rate) {
            (true, Some((_, wall)), Some(r)) if wall > 0.0 => {
                Line { pts: vec![(0.0, r), (wall, r)], stand_in: Some("no GVT series: mean rate") }
            }
            _ => Line { pts: self.rate(RATE_BINS), stand_in: None },
        }
    }
}

/// Draws panel `p` of `runs` on `area`.
fn panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, runs: &[Run], p: Panel) -> Drawn {
    // A run without a GVT series has only a stand-in: alone, a note says so.
    let alone = |l: &[Line]| l.iter().all(|l| l.pts.is_empty() || l.stand_in.is_some()) && runs.len() == 1;
    match p {
        Panel::Gvt => {
            let series: Vec<_> = runs.iter().map(Run::gvt_line).collect();
            if alone(&series) {
                return note(area, p.title(), "no GVT rounds in this run (a sequential run has none)");
            }
            lines(area, p.title(), runs, &series, "wall time (s)", "GVT (virtual time)")
        }
        Panel::Rate => {
            let series: Vec<_> = runs.iter().map(Run::rate_line).collect();
            if alone(&series) {
                let rates: Vec<String> = runs
                    .iter()
                    .filter_map(|r| r.json.get("event_rate").and_then(Value::as_f64))
                    .map(|v| format!("{} events/s", short(v)))
                    .collect();
                return note(area, p.title(), &format!("no GVT series; whole run: {}", rates.join(", ")));
            }
            lines(area, p.title(), runs, &series, "wall time (s)", "committed events / s")
        }
        Panel::PerPe => per_pe(area, runs),
        Panel::Efficiency => efficiency(area, runs),
    }
}

/// One line per run.
fn lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    runs: &[Run],
    series: &[Line],
    x_desc: &str,
    y_desc: &str,
) -> Drawn {
    let all = series.iter().flat_map(|l| &l.pts);
    let x_hi = all.clone().map(|p| p.0).fold(0.0, f64::max);
    let y_hi = all.map(|p| p.1).fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption(title, title_font())
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..padded(0.0, x_hi).end, 0.0..padded(0.0, y_hi).end)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|v| short(*v))
        .y_label_formatter(&|v| short(*v))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    for (i, (run, line)) in runs.iter().zip(series).enumerate() {
        let c = colour(i);
        let pts = line.pts.iter().copied();
        let drawn = match line.stand_in {
            None => chart.draw_series(LineSeries::new(pts, c.stroke_width(2))),
            Some(_) if line.pts.len() == 1 => chart.draw_series(pts.map(|p| Cross::new(p, 6, c.stroke_width(2)))),
            Some(_) => chart.draw_series(DashedLineSeries::new(pts, 8, 5, c.stroke_width(2))),
        }
        .map_err(err)?;
        match line.stand_in {
            None => drawn
                .label(run.label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))),
            Some(why) if line.pts.len() == 1 => drawn
                .label(format!("{} ({why})", run.label))
                .legend(move |(x, y)| Cross::new((x + 10, y), 5, c.stroke_width(2))),
            Some(why) => drawn.label(format!("{} ({why})", run.label)).legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (8, 0)], c.stroke_width(2))
                    + PathElement::new(vec![(12, 0), (20, 0)], c.stroke_width(2))
            }),
        };
    }
    if runs.len() > 1 {
        legend!(chart, UpperLeft)?;
    }
    Ok(())
}

/// Where run `i` of `k` puts its bars in a PE's slot (slot width 1, centred
/// on the PE): the left and right of its share, `parts` bars side by side.
fn bars(pe: usize, i: usize, k: usize, parts: usize) -> Vec<(f64, f64)> {
    let slot = 0.8 / k as f64;
    let left = pe as f64 - 0.4 + slot * i as f64;
    let w = slot / parts as f64;
    (0..parts).map(|j| (left + w * j as f64 + w * 0.08, left + w * (j + 1) as f64 - w * 0.08)).collect()
}

/// Integer tick labels for PEs (no labels between them).
fn pe_label(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-6 && *v >= -0.01 {
        format!("{}", v.round() as i64)
    } else {
        String::new()
    }
}

/// Committed (left axis) and rolled-back (right axis: far fewer) events per PE.
fn per_pe<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, runs: &[Run]) -> Drawn {
    let n = runs.iter().map(|r| r.pes.len()).max().unwrap_or(1);
    let c_hi = runs.iter().flat_map(|r| &r.pes).map(|p| p.committed).fold(0.0, f64::max);
    let r_hi = runs.iter().flat_map(|r| &r.pes).map(|p| p.rolled_back).fold(0.0, f64::max);
    let title = if runs.iter().any(|r| r.per_pe) { "Events per PE" } else { "Events (sequential: one PE)" };
    let x = -0.5..n as f64 - 0.5;
    let mut chart = ChartBuilder::on(area)
        .caption(title, title_font())
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .right_y_label_area_size(70)
        // Headroom above the bars for the legend.
        .build_cartesian_2d(x.clone(), 0.0..padded(0.0, c_hi).end * 1.3)
        .map_err(err)?
        .set_secondary_coord(x, 0.0..padded(0.0, r_hi.max(1.0)).end * 1.3);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n.min(16) + 1)
        .x_label_formatter(&pe_label)
        .x_desc("PE")
        .y_desc("committed events (bars)")
        .y_label_formatter(&|v| short(*v))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    chart
        .configure_secondary_axes()
        .y_desc("rolled-back events (light bars)")
        .y_label_formatter(&|v| short(*v))
        .draw()
        .map_err(err)?;
    let k = runs.len();
    for (i, run) in runs.iter().enumerate() {
        let c = colour(i);
        let spots: Vec<_> = run.pes.iter().enumerate().map(|(pe, p)| (bars(pe, i, k, 2), *p)).collect();
        let name = if k == 1 { String::new() } else { format!("{}: ", run.label) };
        chart
            .draw_series(spots.iter().map(|(b, p)| Rectangle::new([(b[0].0, 0.0), (b[0].1, p.committed)], c.filled())))
            .map_err(err)?
            .label(format!("{name}committed"))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], c.filled()));
        let light = c.mix(0.35);
        chart
            .draw_secondary_series(
                spots.iter().map(|(b, p)| Rectangle::new([(b[1].0, 0.0), (b[1].1, p.rolled_back)], light.filled())),
            )
            .map_err(err)?
            .label(format!("{name}rolled back (right axis)"))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], light.filled()));
        // An outline, so that a light bar reads against the white and a zero shows as nothing.
        chart
            .draw_secondary_series(
                spots
                    .iter()
                    .filter(|(_, p)| p.rolled_back > 0.0)
                    .map(|(b, p)| Rectangle::new([(b[1].0, 0.0), (b[1].1, p.rolled_back)], c.stroke_width(1))),
            )
            .map_err(err)?;
    }
    legend!(chart, UpperRight)
}

/// Per-PE efficiency bars, and each run's efficiency as a dashed line.
fn efficiency<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, runs: &[Run]) -> Drawn {
    let n = runs.iter().map(|r| r.pes.len()).max().unwrap_or(1);
    let pct = |e: f64| 100.0 * e;
    let lowest = runs
        .iter()
        .flat_map(|r| r.pes.iter().map(|p| pct(p.efficiency())).chain([pct(r.efficiency)]))
        .fold(100.0, f64::min);
    // Efficiencies near 100% differ in their last digits: start the axis
    // below the lowest by a fifth of its gap to 100, at a whole percent.
    let lo = (lowest - (100.0 - lowest) * 0.2 - 0.5).floor().clamp(0.0, 99.0);
    let x = -0.5..n as f64 - 0.5;
    let mut chart = ChartBuilder::on(area)
        .caption(Panel::Efficiency.title(), title_font())
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        // Headroom above 100% for the legend.
        .build_cartesian_2d(x, lo..100.0 + (100.0 - lo) * 0.3)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n.min(16) + 1)
        .x_label_formatter(&pe_label)
        .x_desc("PE")
        .y_desc("efficiency (%)")
        .y_label_formatter(&|v| if *v > 100.0 { String::new() } else { short(*v) })
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    let k = runs.len();
    for (i, run) in runs.iter().enumerate() {
        let c = colour(i);
        chart
            .draw_series(run.pes.iter().enumerate().map(|(pe, p)| {
                let b = bars(pe, i, k, 1)[0];
                Rectangle::new([(b.0, lo), (b.1, pct(p.efficiency()))], c.mix(0.8).filled())
            }))
            .map_err(err)?;
        let e = pct(run.efficiency);
        let dashes = (0..40).map(|j| {
            let a = -0.5 + n as f64 * j as f64 / 40.0;
            PathElement::new(vec![(a, e), (a + n as f64 / 80.0, e)], c.stroke_width(2))
        });
        let name = if k == 1 { String::new() } else { format!("{}: ", run.label) };
        chart
            .draw_series(dashes)
            .map_err(err)?
            .label(format!("{name}run {:.2}%", e))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    legend!(chart, UpperRight)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(j: Value) -> Run {
        Run::from_json(Path::new("t.json"), j).unwrap()
    }

    #[test]
    fn the_rate_is_committed_events_over_wall_time() {
        let r = run(json!({"committed_events": 300, "gvt_series": [
            {"gvt": 1.0, "wall": 1.0, "committed": 100},
            {"gvt": 2.0, "wall": 2.0, "committed": 200},
            {"gvt": null, "wall": 3.0, "committed": 300}]}));
        assert_eq!(r.gvt, vec![(1.0, 1.0), (2.0, 2.0)], "the infinite last GVT is left out");
        let rate = r.rate(3);
        assert_eq!(rate.len(), 3);
        for (k, (t, v)) in rate.iter().enumerate() {
            assert!((t - (k as f64 + 0.5)).abs() < 1e-9);
            assert!((v - 100.0).abs() < 1e-9, "{rate:?}");
        }
    }

    #[test]
    fn a_sequential_run_has_one_pe_of_its_totals() {
        let r = run(json!({"committed_events": 10, "processed_events": 10, "rolled_back_events": 0,
                           "gvt_series": [], "pes": []}));
        assert!(!r.per_pe);
        assert_eq!(r.pes, vec![Pe { committed: 10.0, processed: 10.0, rolled_back: 0.0 }]);
        assert!(r.rate(10).is_empty());
        assert_eq!(r.efficiency, 1.0);
    }

    #[test]
    fn bad_files_are_named() {
        let e = Run::from_json(Path::new("x.json"), json!({"a": 1})).unwrap_err();
        assert!(e.contains("x.json") && e.contains("committed_events"), "{e}");
        let e = Run::from_json(Path::new("x.json"), json!({"committed_events": 1, "pes": 3})).unwrap_err();
        assert!(e.contains("pes is not a list"), "{e}");
        let e = Run::from_json(Path::new("x.json"), json!({"committed_events": "many"})).unwrap_err();
        assert!(e.contains("committed_events"), "{e}");
    }

    #[test]
    fn verify_files_plot_their_parallel_run() {
        let r = run(json!({"identical": true, "sequential": {"committed_events": 1},
                           "parallel": {"committed_events": 2, "sync": "optimistic"}}));
        assert_eq!(r.text("sync"), "optimistic");
    }

    #[test]
    fn bars_of_runs_share_a_slot_without_overlap() {
        let b: Vec<_> = (0..3).flat_map(|i| bars(1, i, 3, 2)).collect();
        assert!(b.windows(2).all(|w| w[0].1 < w[1].0), "{b:?}");
        assert!(b[0].0 >= 0.6 && b[b.len() - 1].1 <= 1.4);
    }
}
