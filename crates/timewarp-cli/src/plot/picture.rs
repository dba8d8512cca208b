//! Colour pictures of a TLM field (`--image`): one pixel per cell, so
//! written straight as PNG rather than through a chart.

use std::path::Path;
use timewarp_models::tlm::Field;

/// Anchors of the colour scale, dark (0) to bright (peak): an "inferno"-like
/// ramp that stays readable in grey.
const RAMP: [[f64; 3]; 5] =
    [[0.0, 0.0, 4.0], [87.0, 16.0, 110.0], [188.0, 55.0, 84.0], [249.0, 142.0, 9.0], [252.0, 255.0, 164.0]];

/// Obstacle cells.
const WALL: [u8; 3] = [128, 128, 128];

/// The colour of `t` in [0, 1] (also the network's link heatmap).
pub(crate) fn colour(t: f64) -> [u8; 3] {
    let x = t.clamp(0.0, 1.0) * (RAMP.len() - 1) as f64;
    let i = (x as usize).min(RAMP.len() - 2);
    let f = x - i as f64;
    std::array::from_fn(|k| (RAMP[i][k] + f * (RAMP[i + 1][k] - RAMP[i][k])).round() as u8)
}

/// Writes `field` as an RGB PNG, one pixel per cell, y growing upwards.
/// Brightness is `sqrt(|V| / max |V|)`: the square root keeps the weak far
/// field of a spreading wave visible beside the strong one near a source.
pub(crate) fn write_field(path: &Path, field: &Field) -> Result<(), String> {
    let peak = field.values.iter().filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(v.abs()));
    let (w, h) = (field.width as usize, field.height as usize);
    let mut rgb = Vec::with_capacity(w * h * 3);
    for y in (0..h).rev() {
        for v in &field.values[y * w..(y + 1) * w] {
            let c = if v.is_nan() {
                WALL
            } else if peak > 0.0 {
                colour((v.abs() / peak).sqrt())
            } else {
                colour(0.0)
            };
            rgb.extend_from_slice(&c);
        }
    }
    super::write_png(path, (field.width, field.height), &rgb)
        .map_err(|e| format!("cannot write image {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ramp_runs_from_dark_to_bright() {
        assert_eq!(colour(0.0), [0, 0, 4]);
        assert_eq!(colour(1.0), [252, 255, 164]);
        let lum = |c: [u8; 3]| 0.3 * c[0] as f64 + 0.59 * c[1] as f64 + 0.11 * c[2] as f64;
        let steps: Vec<f64> = (0..=20).map(|i| lum(colour(i as f64 / 20.0))).collect();
        assert!(steps.windows(2).all(|w| w[1] > w[0]), "{steps:?}");
    }
}
