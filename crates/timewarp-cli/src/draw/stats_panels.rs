//! Plots of run statistics (`--stats-json`, read by `stats_file.rs`): GVT
//! against wall time, committed events per second, per-PE committed and
//! rolled-back events, and efficiency; several runs overlay.

use super::stats_file::Run;
use super::{colour, err, note, padded, short, title_font, Drawn, Figure};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;

/// Default picture size (four panels).
pub(crate) const SIZE: (u32, u32) = (1200, 900);

/// Rate bins over the run: enough to show phases, few enough to smooth the
/// jitter of GVT rounds that commit in bursts.
const RATE_BINS: usize = 60;

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
            .label(format!("{name}run {}", timewarp::text::percent(e / 100.0)))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    legend!(chart, UpperRight)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_of_runs_share_a_slot_without_overlap() {
        let b: Vec<_> = (0..3).flat_map(|i| bars(1, i, 3, 2)).collect();
        assert!(b.windows(2).all(|w| w[0].1 < w[1].0), "{b:?}");
        assert!(b[0].0 >= 0.6 && b[b.len() - 1].1 <= 1.4);
    }
}
