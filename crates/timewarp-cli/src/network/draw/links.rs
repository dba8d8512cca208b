//! The network model's picture: every link's busy fraction as a heatmap,
//! node against output port (`run network --link-stats FILE` puts the
//! figures in `model_results.links` of `--stats-json`).

use crate::draw::ramp::{colour, colour_bar};
use crate::draw::{err, title_font, Drawn, Figure};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;
use std::path::Path;

/// One link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Link {
    pub node: u32,
    pub port: u32,
    pub busy: f64,
}

/// A network's links.
#[derive(Clone, Debug)]
pub(crate) struct Links {
    pub topology: String,
    pub links: Vec<Link>,
}

/// Default picture size.
pub(crate) const SIZE: (u32, u32) = (1200, 500);

impl Links {
    /// The links in a run's `model_results`, if it has them.
    pub(crate) fn of(json: &Value, path: &Path) -> Result<Option<Links>, String> {
        let results = json.get("model_results").unwrap_or(&Value::Null);
        let Some(list) = results.get("links").and_then(Value::as_array) else { return Ok(None) };
        let mut links = Vec::with_capacity(list.len());
        for l in list {
            let field = |k: &str| l.get(k).and_then(Value::as_f64);
            let (Some(node), Some(port), Some(busy)) = (field("node"), field("port"), field("busy")) else {
                return Err(format!("{}: a link in model_results.links lacks node, port or busy: {l}", path.display()));
            };
            links.push(Link { node: node as u32, port: port as u32, busy });
        }
        let topology = results.get("topology").and_then(Value::as_str).unwrap_or("network").to_string();
        Ok((!links.is_empty()).then_some(Links { topology, links }))
    }
}

impl Figure for Links {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        // Links join routers (a dragonfly's 864 routers serve 3,456 nodes).
        let nodes = self.links.iter().map(|l| l.node + 1).max().unwrap_or(1);
        let ports = self.links.iter().map(|l| l.port + 1).max().unwrap_or(1);
        let peak = self.links.iter().map(|l| l.busy).fold(0.0, f64::max);
        // Colours span 0 to the busiest link, so a lightly loaded network still shows its pattern.
        let scale = if peak > 0.0 { peak } else { 1.0 };
        let (w, _) = root.dim_in_pixel();
        let (map, bar) = root.split_horizontally(w.saturating_sub(110));
        let title = format!("Link busy fraction ({}, {nodes} routers)", self.topology);
        let mut chart = ChartBuilder::on(&map)
            .caption(title, title_font())
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.5..nodes as f64 - 0.5, -0.5..ports as f64 - 0.5)
            .map_err(err)?;
        let whole = |v: &f64| if (v - v.round()).abs() < 1e-6 { format!("{}", v.round()) } else { String::new() };
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("router")
            .y_desc("output port")
            .x_label_formatter(&whole)
            .y_label_formatter(&whole)
            .y_labels(ports as usize + 1)
            .draw()
            .map_err(err)?;
        chart
            .draw_series(self.links.iter().map(|l| {
                let (x, y) = (l.node as f64, l.port as f64);
                let [r, g, b] = colour(l.busy / scale);
                Rectangle::new([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)], RGBColor(r, g, b).filled())
            }))
            .map_err(err)?;
        // The colour bar.
        colour_bar(&bar, scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn links_come_from_the_model_results() {
        let p = Path::new("n.json");
        let j = json!({"model_results": {"topology": "torus", "links": [
            {"node": 0, "port": 1, "neighbour": 1, "packets": 3, "busy": 0.5}]}});
        let l = Links::of(&j, p).unwrap().unwrap();
        assert_eq!(l.links, vec![Link { node: 0, port: 1, busy: 0.5 }]);
        assert!(Links::of(&json!({"model_results": {}}), p).unwrap().is_none());
        let bad = json!({"model_results": {"links": [{"node": 0}]}});
        assert!(Links::of(&bad, p).unwrap_err().contains("lacks node, port or busy"));
    }
}
