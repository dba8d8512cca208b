//! The network drawn as its topology, every link coloured by its busy
//! fraction (`run network --link-stats FILE` puts the links and the
//! topology's shape in `model_results`): a torus or mesh as its grid (a
//! third dimension's planes side by side, wrap-around links as stubs out
//! of the edge), a hypercube on a grid of its address bits, a dragonfly's
//! groups on a circle (routers on a small circle each, global links as
//! chords), a fat-tree's switches in rows by level.

use super::links::Links;
use crate::draw::ramp::{colour, colour_bar};
use crate::draw::{err, title_font, Drawn, Figure};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;
use std::f64::consts::PI;

/// Default picture size.
pub(crate) const SIZE: (u32, u32) = (1000, 800);

/// One directed link to draw: from, to (unit coordinates), busy fraction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Segment {
    pub from: (f64, f64),
    pub to: (f64, f64),
    pub busy: f64,
}

/// The picture: routers' positions and the links between them.
#[derive(Clone, Debug)]
pub(crate) struct Map {
    pub title: String,
    pub routers: Vec<(f64, f64)>,
    pub segments: Vec<Segment>,
}

impl Map {
    /// The map of a run's links, when its results have the links and a
    /// shape this draws (`None` otherwise).
    pub(crate) fn of(json: &Value, links: &Links) -> Option<Map> {
        let results = json.get("model_results")?;
        let shape: Vec<u32> =
            results.get("shape")?.as_array()?.iter().filter_map(Value::as_u64).map(|v| v as u32).collect();
        let full = json.pointer("/model_results/links")?.as_array()?;
        let pos = positions(&links.topology, &shape)?;
        let mut segments = Vec::with_capacity(full.len());
        for l in full {
            let f = |k: &str| l.get(k).and_then(Value::as_u64).map(|v| v as usize);
            let (a, port, b) = (f("node")?, f("port")?, f("neighbour")?);
            let busy = l.get("busy").and_then(Value::as_f64)?;
            let (p, q) = (*pos.get(a)?, *pos.get(b)?);
            let to = match wrap(&links.topology, &shape, a, port) {
                // A wrap-around link: a stub out of the edge it leaves by.
                Some((dx, dy)) => (p.0 + dx, p.1 + dy),
                None => q,
            };
            segments.push(Segment { from: p, to, busy });
        }
        // The busiest on top.
        segments.sort_by(|x, y| x.busy.total_cmp(&y.busy));
        let nodes = results.get("nodes").and_then(Value::as_u64).unwrap_or(0);
        let title = format!("Link busy fraction on the {} ({nodes} nodes)", links.topology);
        Some(Map { title, routers: pos, segments })
    }
}

/// Each router's position (unit coordinates, y up), by topology and shape.
fn positions(topology: &str, shape: &[u32]) -> Option<Vec<(f64, f64)>> {
    match topology {
        "torus" | "mesh" => {
            let (x, y) = (shape.first().copied()? as usize, shape.get(1).copied().unwrap_or(1) as usize);
            let planes: usize = shape.iter().skip(2).map(|&d| d as usize).product();
            Some(
                (0..x * y * planes)
                    .map(|r| {
                        let (c0, c1, z) = (r % x, (r / x) % y, r / (x * y));
                        ((c0 + z * (x + 1)) as f64, c1 as f64)
                    })
                    .collect(),
            )
        }
        "hypercube" => {
            let n = *shape.first()?;
            let lo = n.div_ceil(2);
            Some((0..1u32 << n).map(|r| ((r & ((1 << lo) - 1)) as f64, (r >> lo) as f64)).collect())
        }
        "dragonfly" | "slimfly" => {
            // A Slim Fly's shape is its q: 2q groups of q routers.
            let (a, g) = match topology {
                "slimfly" => (*shape.first()? as usize, 2 * *shape.first()? as usize),
                _ => (*shape.first()? as usize, *shape.get(3)? as usize),
            };
            let inner = (PI / g as f64).sin().min(0.5) * 0.6;
            Some(
                (0..a * g)
                    .map(|r| {
                        let (grp, i) = (r / a, r % a);
                        let t = 2.0 * PI * grp as f64 / g as f64;
                        let s = t + 2.0 * PI * i as f64 / a as f64;
                        (t.cos() + inner * s.cos(), t.sin() + inner * s.sin())
                    })
                    .collect(),
            )
        }
        "fattree" => {
            let widest = *shape.iter().max()? as f64;
            let mut out = Vec::new();
            for (level, &n) in shape.iter().enumerate() {
                for i in 0..n {
                    out.push(((i as f64 + 0.5) * widest / n as f64, level as f64 * widest / 4.0));
                }
            }
            Some(out)
        }
        _ => None,
    }
}

/// A torus's wrap-around link from router `r`'s `port`: the stub's offset.
fn wrap(topology: &str, shape: &[u32], r: usize, port: usize) -> Option<(f64, f64)> {
    if topology != "torus" {
        return None;
    }
    let d = port / 2;
    let k = *shape.get(d)? as usize;
    let stride: usize = shape[..d].iter().map(|&x| x as usize).product();
    let c = (r / stride) % k;
    let up = port % 2 == 0;
    if (up && c + 1 < k) || (!up && c > 0) {
        return None;
    }
    let s = if up { 0.4 } else { -0.4 };
    match d {
        0 => Some((s, 0.0)),
        1 => Some((0.0, s)),
        // Between planes: the stubs slant, so they are told from the grid's.
        _ => Some((s * 0.5, s * 0.5)),
    }
}

impl Figure for Map {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        let pts = self.routers.iter().chain(self.segments.iter().map(|s| &s.to));
        let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
        for p in pts {
            (x0, x1, y0, y1) = (x0.min(p.0), x1.max(p.0), y0.min(p.1), y1.max(p.1));
        }
        let pad = 0.05 * (x1 - x0).max(y1 - y0).max(1.0);
        let peak = self.segments.iter().map(|s| s.busy).fold(0.0, f64::max);
        let scale = if peak > 0.0 { peak } else { 1.0 };
        let (w, _) = root.dim_in_pixel();
        let (area, bar) = root.split_horizontally(w.saturating_sub(110));
        let mut chart = ChartBuilder::on(&area)
            .caption(&self.title, title_font())
            .margin(16)
            .build_cartesian_2d(x0 - pad..x1 + pad, y0 - pad..y1 + pad)
            .map_err(err)?;
        // The two directions of a link side by side: each shifted to its right.
        let shift = 0.04 * (x1 - x0).max(y1 - y0).max(1.0) / (self.routers.len() as f64).sqrt().max(1.0);
        chart
            .draw_series(self.segments.iter().map(|s| {
                let (dx, dy) = (s.to.0 - s.from.0, s.to.1 - s.from.1);
                let len = (dx * dx + dy * dy).sqrt().max(1e-12);
                let (ox, oy) = (dy / len * shift, -dx / len * shift);
                let [r, g, b] = colour(s.busy / scale);
                PathElement::new(
                    vec![(s.from.0 + ox, s.from.1 + oy), (s.to.0 + ox, s.to.1 + oy)],
                    RGBColor(r, g, b).stroke_width(2),
                )
            }))
            .map_err(err)?;
        chart
            .draw_series(self.routers.iter().map(|&p| Circle::new(p, 3, RGBColor(90, 90, 90).filled())))
            .map_err(err)?;
        colour_bar(&bar, scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn map(topology: &str, shape: Value, links: Value) -> Option<Map> {
        let j = json!({"model_results": {"topology": topology, "nodes": 4, "shape": shape, "links": links}});
        let l = Links::of(&j, Path::new("m.json")).unwrap()?;
        Map::of(&j, &l)
    }

    #[test]
    fn routers_sit_where_their_topology_puts_them() {
        // A 2 × 2 torus: router 3 at (1, 1); 0's up link in x goes to 1, its
        // down link in x wraps round: a stub to the left.
        let links = json!([
            {"node": 0, "port": 0, "neighbour": 1, "busy": 0.5},
            {"node": 0, "port": 1, "neighbour": 1, "busy": 0.25}]);
        let m = map("torus", json!([2, 2]), links.clone()).unwrap();
        assert_eq!(m.routers[3], (1.0, 1.0));
        assert_eq!(m.segments[1], Segment { from: (0.0, 0.0), to: (1.0, 0.0), busy: 0.5 }, "busiest last");
        assert_eq!(m.segments[0].to, (-0.4, 0.0));
        // A mesh has no wrap-around links; a fat-tree's levels are rows.
        assert_eq!(map("mesh", json!([2, 2]), links.clone()).unwrap().segments[0].to, (1.0, 0.0));
        let f = positions("fattree", &[4, 4, 2]).unwrap();
        assert_eq!((f.len(), f[0].1, f[4].1, f[9].1), (10, 0.0, 1.0, 2.0));
        let d = positions("dragonfly", &[4, 2, 2, 9]).unwrap();
        assert_eq!(d.len(), 36);
        assert_eq!(positions("hypercube", &[4]).unwrap()[5], (1.0, 1.0));
        // Without a shape (a run before shapes were recorded) there is no map.
        let j = json!({"model_results": {"topology": "torus", "links": links}});
        assert!(Map::of(&j, &Links::of(&j, Path::new("m.json")).unwrap().unwrap()).is_none());
        let svg = crate::draw::svg(SIZE, &m).unwrap();
        assert!(svg.contains("Link busy fraction on the torus"));
    }
}
