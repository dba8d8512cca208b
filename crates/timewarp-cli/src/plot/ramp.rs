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
