//! The colour ramp of the models' pictures: TLM fields and the network's
//! link heatmap.

/// Anchors of the colour scale, dark (0) to bright (peak): an "inferno"-like
/// ramp that stays readable in grey.
const RAMP: [[f64; 3]; 5] =
    [[0.0, 0.0, 4.0], [87.0, 16.0, 110.0], [188.0, 55.0, 84.0], [249.0, 142.0, 9.0], [252.0, 255.0, 164.0]];

/// The colour of `t` in [0, 1].
pub(crate) fn colour(t: f64) -> [u8; 3] {
    let x = t.clamp(0.0, 1.0) * (RAMP.len() - 1) as f64;
    let i = (x as usize).min(RAMP.len() - 2);
    let f = x - i as f64;
    std::array::from_fn(|k| (RAMP[i][k] + f * (RAMP[i + 1][k] - RAMP[i][k])).round() as u8)
}

/// Draws the colour bar of a busy-fraction picture in `bar`, from 0 to
/// `scale` (the link heatmap's and the topology map's).
pub(crate) fn colour_bar<DB: plotters::prelude::DrawingBackend>(
    bar: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    scale: f64,
) -> super::Drawn {
    use super::{err, short};
    use plotters::prelude::*;
    let mut key = ChartBuilder::on(bar)
        .caption("busy", ("sans-serif", 14))
        .margin_top(24)
        .margin_bottom(52)
        .margin_right(8)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..1.0, 0.0..scale)
        .map_err(err)?;
    key.configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_label_style(("sans-serif", 14))
        .y_label_formatter(&|v| short(*v))
        .draw()
        .map_err(err)?;
    let steps = 100;
    key.draw_series((0..steps).map(|i| {
        let (a, b) = (scale * i as f64 / steps as f64, scale * (i + 1) as f64 / steps as f64);
        let [r, g, bl] = colour((i as f64 + 0.5) / steps as f64);
        Rectangle::new([(0.0, a), (1.0, b)], RGBColor(r, g, bl).filled())
    }))
    .map_err(err)?;
    Ok(())
}
