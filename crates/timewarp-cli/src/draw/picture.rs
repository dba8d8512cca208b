//! Colour pictures of a TLM field (`--image`): the cells (whole pixels per
//! cell), the sources and receivers marked, and a colour bar of `|V|`.

use super::ramp::colour;
use super::{err, Drawn, Figure};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use timewarp_models::tlm::Field;

/// Obstacle cells.
const WALL: [u8; 3] = [128, 128, 128];

/// Sources (crosses) and receivers (rings): colours outside the ramp.
const SOURCE: RGBColor = RGBColor(0, 220, 255);
const RECEIVER: RGBColor = RGBColor(80, 255, 80);

/// Width of the strip right of the field: the colour bar, its labels and
/// the marker key.
const STRIP: u32 = 150;

/// The field is drawn at least this many pixels on its longer side: a small
/// grid is scaled up by whole pixels per cell.
const MIN_SIDE: u32 = 320;

/// Height the strip needs for its labels.
const MIN_HEIGHT: u32 = 260;

/// A TLM field as a picture: the cells (y growing upwards), sources and
/// receivers marked, and a colour bar from 0 to the peak `|V|`.
pub(crate) struct Picture<'a> {
    field: &'a Field,
    /// Pixels per cell.
    scale: u32,
}

impl<'a> Picture<'a> {
    pub(crate) fn new(field: &'a Field) -> Self {
        let side = field.width.max(field.height).max(1);
        Picture { field, scale: (MIN_SIDE / side).max(1) }
    }

    /// Width and height in pixels.
    pub(crate) fn size(&self) -> (u32, u32) {
        let f = self.field;
        (f.width * self.scale + STRIP, (f.height * self.scale).max(MIN_HEIGHT))
    }

    /// Largest finite `|V|` (obstacles are NaN).
    fn peak(&self) -> f64 {
        self.field.values.iter().filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(v.abs()))
    }

    /// Radius of the markers: a few pixels beyond half a cell, at most 12.
    fn radius(&self) -> i32 {
        (self.scale as i32 / 2 + 4).min(12)
    }

    /// The pixel at the middle of cell `[x, y]`.
    fn centre(&self, [x, y]: [u32; 2]) -> (i32, i32) {
        let s = self.scale as i32;
        (x as i32 * s + s / 2, (self.field.height as i32 - 1 - y as i32) * s + s / 2)
    }
}

impl Figure for Picture<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        let f = self.field;
        let peak = self.peak();
        let (w, h, s) = (f.width as usize, f.height as usize, self.scale as i32);
        // Brightness is sqrt(|V| / peak): the square root keeps the weak far
        // field of a spreading wave visible beside the strong one near a source.
        let shade = |v: f64| -> RGBColor {
            let [r, g, b] = if v.is_nan() {
                WALL
            } else if peak > 0.0 {
                colour((v.abs() / peak).sqrt())
            } else {
                colour(0.0)
            };
            RGBColor(r, g, b)
        };
        for y in 0..h {
            let top = (h - 1 - y) as i32 * s;
            for (x, &v) in f.values[y * w..(y + 1) * w].iter().enumerate() {
                let c = shade(v);
                if s == 1 {
                    root.draw_pixel((x as i32, top), &c).map_err(err)?;
                } else {
                    let left = x as i32 * s;
                    root.draw(&Rectangle::new([(left, top), (left + s, top + s)], c.filled())).map_err(err)?;
                }
            }
        }
        let r = self.radius();
        for &p in &f.sources {
            root.draw(&Cross::new(self.centre(p), r, SOURCE.stroke_width(2))).map_err(err)?;
        }
        for &p in &f.receivers {
            root.draw(&Circle::new(self.centre(p), r, RECEIVER.stroke_width(2))).map_err(err)?;
        }
        // The strip: a colour bar of |V| (its colours follow the square-root
        // brightness: the label at the middle is a quarter of the peak).
        let (_, strip) = root.split_horizontally(w as i32 * s);
        let (_, full) = strip.dim_in_pixel();
        let (bar, key) = strip.split_vertically(full.saturating_sub(78));
        let top = if peak > 0.0 { peak } else { 1.0 };
        let mut chart = ChartBuilder::on(&bar)
            .caption(format!("|V| at step {}", f.step), ("sans-serif", 14))
            .margin_top(8)
            .margin_bottom(8)
            .margin_left(12)
            .margin_right(8)
            .y_label_area_size(62)
            .build_cartesian_2d(0.0..1.0, 0.0..top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .y_labels(5)
            .y_label_style(("sans-serif", 12))
            .y_label_formatter(&|v| match *v {
                0.0 => "0".into(),
                v if (0.01..1e4).contains(&top) => super::short(v),
                v => format!("{v:.1e}"),
            })
            .draw()
            .map_err(err)?;
        let steps = 100;
        chart
            .draw_series((0..steps).map(|i| {
                let (a, b) = (top * i as f64 / steps as f64, top * (i + 1) as f64 / steps as f64);
                let [r, g, bl] = colour(((a + b) / 2.0 / top).sqrt());
                Rectangle::new([(0.0, a), (1.0, b)], RGBColor(r, g, bl).filled())
            }))
            .map_err(err)?;
        let text = ("sans-serif", 13).into_font().color(&BLACK);
        // The range in full: tick labels need not reach the peak.
        let range = format!(
            "|V| 0 to {}",
            if (0.01..1e4).contains(&peak) { super::short(peak) } else { format!("{peak:.2e}") }
        );
        key.draw(&Text::new(range, (12, 0), text.clone())).map_err(err)?;
        let items: [(&str, bool); 2] = [("source", true), ("receiver", false)];
        for (i, (name, cross)) in items.iter().enumerate() {
            let y = 34 + 22 * i as i32;
            if *cross {
                key.draw(&Cross::new((22, y), 6, SOURCE.stroke_width(2))).map_err(err)?;
            } else {
                key.draw(&Circle::new((22, y), 6, RECEIVER.stroke_width(2))).map_err(err)?;
            }
            key.draw(&Text::new(name.to_string(), (36, y - 7), text.clone())).map_err(err)?;
        }
        Ok(())
    }
}

/// Writes `field` as an RGB PNG: see [`Picture`].
pub(crate) fn write_field(path: &Path, field: &Field) -> Result<(), String> {
    let pic = Picture::new(field);
    let size = pic.size();
    let rgb = super::bitmap(size, &pic)?;
    super::write_png(path, size, &rgb).map_err(|e| format!("cannot write image {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 20 × 10 field, bright at one cell, with a source and a receiver.
    fn field() -> Field {
        let mut values = vec![0.0; 200];
        values[5 * 20 + 3] = 2.0;
        values[0] = f64::NAN;
        Field { width: 20, height: 10, step: 7, values, sources: vec![[3, 5]], receivers: vec![[15, 2]] }
    }

    #[test]
    fn the_picture_marks_sources_and_receivers_beside_a_colour_bar() {
        let f = field();
        let pic = Picture::new(&f);
        // 16 pixels per cell (320 / 20), and the strip.
        assert_eq!(pic.size(), (20 * 16 + STRIP, MIN_HEIGHT));
        let rgb = crate::draw::bitmap(pic.size(), &pic).unwrap();
        let at = |(x, y): (i32, i32)| {
            let i = (y as usize * pic.size().0 as usize + x as usize) * 3;
            [rgb[i], rgb[i + 1], rgb[i + 2]]
        };
        let RGBColor(r, g, b) = SOURCE;
        assert_eq!(at(pic.centre([3, 5])), [r, g, b], "a cross over the source's cell");
        let (x, y) = pic.centre([15, 2]);
        let RGBColor(r, g, b) = RECEIVER;
        assert_eq!(at((x + pic.radius(), y)), [r, g, b], "a ring around the receiver's cell");
        // y grows upwards: cell (0, 0) (an obstacle) is at the bottom left.
        assert_eq!(at((1, 10 * 16 - 2)), WALL);
        // The bar: brightest at its top, darkest at its bottom, in the strip.
        let column: Vec<[u8; 3]> = (0..MIN_HEIGHT as i32).map(|y| at((20 * 16 + 12 + 62 + 20, y))).collect();
        assert!(column.contains(&colour(0.995f64.sqrt())) || column.iter().any(|c| *c == colour(1.0)), "no bright end");
        // Its labels, the step and the key (in an SVG, as text).
        let svg = crate::draw::svg(pic.size(), &pic).unwrap();
        for text in ["|V| at step 7", "source", "receiver", "|V| 0 to 2"] {
            assert!(svg.lines().any(|l| l.trim() == text), "the picture lacks {text:?}");
        }
    }

    #[test]
    fn the_ramp_runs_from_dark_to_bright() {
        assert_eq!(colour(0.0), [0, 0, 4]);
        assert_eq!(colour(1.0), [252, 255, 164]);
        let lum = |c: [u8; 3]| 0.3 * c[0] as f64 + 0.59 * c[1] as f64 + 0.11 * c[2] as f64;
        let steps: Vec<f64> = (0..=20).map(|i| lum(colour(i as f64 / 20.0))).collect();
        assert!(steps.windows(2).all(|w| w[1] > w[0]), "{steps:?}");
    }
}
