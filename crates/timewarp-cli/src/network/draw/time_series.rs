//! The network model's time series (`run network --sample-every NS` puts
//! it in `model_results.samples` of `--stats-json`): five panels against
//! virtual time — accepted throughput, latency mean and p99, packets in
//! flight, the most packets on one link, the busiest link's utilisation —
//! with a line per job where there are several, in the same colour in
//! every panel.

use crate::draw::{colour, err, legend, padded, short, title_font, Drawn, Figure};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;
use std::path::Path;

/// Default picture size.
pub(crate) const SIZE: (u32, u32) = (1200, 1300);

/// A named line: points (interval middle in ns, value), and its colour's
/// number (a job's is the same in every panel).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Curve {
    pub name: String,
    pub pts: Vec<(f64, f64)>,
    pub hue: usize,
}

/// The first colour of the jobs' lines (the run's own take 0 and 1).
const JOB_HUES: usize = 2;

/// A run's time series, as lines per panel.
#[derive(Clone, Debug)]
pub(crate) struct Series {
    pub topology: String,
    pub panels: [Vec<Curve>; 5],
}

/// Panel titles and y axes.
const PANELS: [(&str, &str); 5] = [
    ("Accepted throughput", "fraction of injection bandwidth"),
    ("Packet latency", "latency (ns)"),
    ("Packets in the network", "packets"),
    ("Busiest link", "utilisation"),
    // Its own axis: a few packets, beside the thousands in flight (issue 62).
    ("Most packets on one link", "packets"),
];

impl Series {
    /// The time series in a run's `model_results`, if it has one.
    pub(crate) fn of(json: &Value, path: &Path) -> Result<Option<Series>, String> {
        let results = json.get("model_results").unwrap_or(&Value::Null);
        let Some(list) = results.get("samples").and_then(Value::as_array).filter(|l| !l.is_empty()) else {
            return Ok(None);
        };
        let bad =
            |s: &Value| format!("{}: a sample in model_results.samples lacks start_ns or end_ns: {s}", path.display());
        let mut panels: [Vec<Curve>; 5] = Default::default();
        let curve = |name: &str, hue| Curve { name: name.into(), pts: Vec::new(), hue };
        panels[0].push(curve("all", 0));
        panels[1].extend([curve("mean", 0), curve("p99", 1)]);
        panels[2].push(curve("in flight", 0));
        panels[3].push(curve("busiest link", 0));
        panels[4].push(curve("most on one link", 0));
        let jobs = list.iter().map(|s| s.get("jobs").and_then(Value::as_array).map_or(0, Vec::len)).max().unwrap_or(0);
        for j in 0..jobs {
            panels[0].push(curve(&format!("job {j}"), JOB_HUES + j));
            panels[1].push(curve(&format!("job {j} mean"), JOB_HUES + j));
        }
        for s in list {
            let f = |k: &str| s.get(k).and_then(Value::as_f64);
            let (Some(a), Some(b)) = (f("start_ns"), f("end_ns")) else { return Err(bad(s)) };
            let t = 0.5 * (a + b);
            let mut put = |p: usize, i: usize, v: Option<f64>| {
                if let Some(v) = v.filter(|v| v.is_finite()) {
                    panels[p][i].pts.push((t, v));
                }
            };
            put(0, 0, f("accepted_throughput"));
            put(1, 0, f("latency_mean"));
            put(1, 1, f("latency_p99"));
            put(2, 0, f("in_flight_packets"));
            put(4, 0, f("max_link_occupancy"));
            let busiest = s.pointer("/links/0/utilisation").and_then(Value::as_f64);
            put(3, 0, Some(busiest.unwrap_or(0.0)));
            for j in 0..jobs {
                let job = |k: &str| s.pointer(&format!("/jobs/{j}/{k}")).and_then(Value::as_f64);
                put(0, 1 + j, job("accepted_throughput"));
                put(1, 2 + j, job("latency_mean"));
            }
        }
        let topology = results.get("topology").and_then(Value::as_str).unwrap_or("network").to_string();
        Ok(Some(Series { topology, panels }))
    }
}

impl Figure for Series {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        let areas = root.split_evenly((3, 2));
        for (i, area) in areas.iter().take(PANELS.len()).enumerate() {
            draw_panel(area, &format!("{} ({})", PANELS[i].0, self.topology), PANELS[i].1, &self.panels[i])?;
        }
        Ok(())
    }
}

/// One panel: its lines against virtual time.
fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, y_desc: &str, curves: &[Curve]) -> Drawn {
    let all = curves.iter().flat_map(|c| &c.pts);
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
        .x_desc("virtual time (ns)")
        .y_desc(y_desc)
        .x_label_formatter(&|v| short(*v))
        .y_label_formatter(&|v| short(*v))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    for c in curves.iter().filter(|c| !c.pts.is_empty()) {
        let col = colour(c.hue);
        chart
            .draw_series(LineSeries::new(c.pts.iter().copied(), col.stroke_width(2)))
            .map_err(err)?
            .label(c.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
    }
    if curves.iter().filter(|c| !c.pts.is_empty()).count() > 1 {
        legend!(chart, UpperRight)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_series_comes_from_the_samples_and_undefined_points_are_left_out() {
        let p = Path::new("s.json");
        let j = json!({"model_results": {"topology": "torus", "samples": [
            {"start_ns": 0.0, "end_ns": 100.0, "accepted_throughput": 0.25, "latency_mean": 50.0, "latency_p99": 80.0,
             "in_flight_packets": 3, "max_link_occupancy": 2, "links": [{"utilisation": 0.5}],
             "jobs": [{"accepted_throughput": 0.1, "latency_mean": null}]},
            {"start_ns": 100.0, "end_ns": 200.0, "accepted_throughput": 0.0, "latency_mean": null, "latency_p99": null,
             "in_flight_packets": 0, "max_link_occupancy": 0, "links": []}]}});
        let s = Series::of(&j, p).unwrap().unwrap();
        assert_eq!(s.panels[0][0].pts, vec![(50.0, 0.25), (150.0, 0.0)]);
        assert_eq!(s.panels[1][0].pts, vec![(50.0, 50.0)], "an interval without deliveries has no latency");
        assert_eq!(s.panels[3][0].pts, vec![(50.0, 0.5), (150.0, 0.0)]);
        assert_eq!((s.panels[0][1].name.as_str(), s.panels[0][1].pts.len()), ("job 0", 1));
        assert_eq!(s.panels[4][0].pts, vec![(50.0, 2.0), (150.0, 0.0)], "occupancy on its own axis");
        assert_eq!(s.panels[2].len(), 1, "in flight alone on its axis");
        assert_eq!(s.panels[0][1].hue, s.panels[1][2].hue, "job 0 is one colour in every panel");
        let svg = crate::draw::svg(SIZE, &s).unwrap();
        assert!(svg.contains("virtual time (ns)") && svg.contains("Packet latency (torus)"));
        assert!(Series::of(&json!({"model_results": {}}), p).unwrap().is_none());
        let bad = json!({"model_results": {"samples": [{"start_ns": 0}]}});
        assert!(Series::of(&bad, p).unwrap_err().contains("lacks start_ns or end_ns"));
    }
}
