//! TLM's command line.

use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use timewarp_models::tlm::{Layout, Tlm, Waveform};

use super::{bounded, num};
use crate::args::non_negative_f64;
use crate::registry::{ModelCli, RunInfo};

/// TLM options (time in steps Δt, distances in cells).
#[derive(Args, Debug, Clone)]
pub(crate) struct TlmArgs {
    /// Grid size XxY (2-D, 4 ports per cell) or XxYxZ (3-D, 6 ports), e.g. 1000x1000x2.
    #[arg(long, default_value = "256x256", value_parser = grid_size)]
    pub size: GridSize,
    /// Reflection coefficient of the grid's edge, in [-1, 1] (0: absorbing, ±1: lossless walls).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub boundary_reflection: f64,
    /// Reflection coefficient of obstacle walls, in [-1, 1].
    #[arg(long, default_value_t = 0.5, allow_negative_numbers = true)]
    pub wall_reflection: f64,
    /// Obstacles: none, or urban (square blocks of --block-size cells between
    /// streets of --street-width, building heights drawn by --seed).
    #[arg(long, default_value = "none", value_parser = ["none", "urban"])]
    pub obstacles: String,
    /// Side of an urban block, in cells.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub block_size: u32,
    /// Width of an urban street, in cells.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..))]
    pub street_width: u32,
    /// Terrain file: a row of characters per y, one per x: '.' open, '1'-'9'
    /// a building that many cells high, '#' as high as the grid (overrides --obstacles).
    #[arg(long, value_name = "FILE")]
    pub terrain: Option<PathBuf>,
    /// Radios placed at random open ground cells (z = 0) by --seed
    /// [default: one at the centre when no source is given].
    #[arg(long, value_name = "N")]
    pub sources: Option<u32>,
    /// A radio at this cell (repeat the option for several).
    #[arg(long, value_name = "X,Y[,Z]", value_parser = position)]
    pub source_at: Vec<Position>,
    /// Radios from a file: one "X Y [Z]" per line ('#' starts a comment).
    #[arg(long, value_name = "FILE")]
    pub sources_file: Option<PathBuf>,
    /// Receivers placed at random open ground cells by --seed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub receivers: u32,
    /// A receiver at this cell (repeat the option for several).
    #[arg(long, value_name = "X,Y[,Z]", value_parser = position)]
    pub receiver_at: Vec<Position>,
    /// Receivers from a file: one "X Y [Z]" per line.
    #[arg(long, value_name = "FILE")]
    pub receivers_file: Option<PathBuf>,
    /// What the radios emit: gaussian (pulse of --width), impulse (one kick at
    /// step 0), sine (of --period, for --source-steps).
    #[arg(long, default_value = "gaussian", value_parser = ["gaussian", "impulse", "sine"])]
    pub waveform: String,
    /// Standard deviation of the Gaussian pulse, in steps.
    #[arg(long, default_value_t = 4.0, value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub width: f64,
    /// Period of the sine, in steps.
    #[arg(long, default_value_t = 16.0, value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub period: f64,
    /// Steps the sine is on (0: the whole run).
    #[arg(long, default_value_t = 0)]
    pub source_steps: u32,
    /// Peak excitation added to each incident pulse of a radio's cell.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub amplitude: f64,
    /// Pulses of magnitude at most this are not sent (saves work far from
    /// the sources, loses that much energy; 0 drops only exact zeros).
    #[arg(long, default_value_t = 0.0, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub threshold: f64,
    /// Write the field magnitude of one z-layer as a PNG image.
    #[arg(long, value_name = "FILE.png")]
    pub image: Option<PathBuf>,
    /// Step shown by --image [default: the last step].
    #[arg(long, value_name = "STEP")]
    pub image_at: Option<u32>,
    /// Z-layer shown by --image.
    #[arg(long, default_value_t = 0)]
    pub image_layer: u32,
    /// Write every receiver's node voltage per step as CSV (a column per receiver).
    #[arg(long, value_name = "FILE")]
    pub receivers_csv: Option<PathBuf>,
}

/// Extents of a TLM grid.
#[derive(Clone, Debug)]
pub(crate) struct GridSize(pub Vec<u32>);

/// `XxY` or `XxYxZ`.
fn grid_size(s: &str) -> Result<GridSize, String> {
    let v: Result<Vec<u32>, _> = s.split(['x', 'X']).map(str::parse).collect();
    match v {
        Ok(v) if (2..=3).contains(&v.len()) => Ok(GridSize(v)),
        _ => Err(format!("'{s}' is not XxY or XxYxZ with whole numbers, e.g. 256x256 or 1000x1000x2")),
    }
}

/// A cell given on the command line.
#[derive(Clone, Debug)]
pub(crate) struct Position(pub Vec<u32>);

/// `X,Y` or `X,Y,Z`.
fn position(s: &str) -> Result<Position, String> {
    let v: Result<Vec<u32>, _> = s.split(',').map(|w| w.trim().parse()).collect();
    match v {
        Ok(v) if (2..=3).contains(&v.len()) => Ok(Position(v)),
        _ => Err(format!("'{s}' is not X,Y or X,Y,Z with whole numbers")),
    }
}

/// Positions from a file of "X Y [Z]" lines.
fn positions(path: &std::path::Path) -> Result<Vec<Vec<u32>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut out = vec![];
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let p: Result<Vec<u32>, _> = line.split([' ', '\t', ',']).filter(|w| !w.is_empty()).map(str::parse).collect();
        match p {
            Ok(p) if (2..=3).contains(&p.len()) => out.push(p),
            _ => {
                return Err(format!(
                    "{}:{}: expected \"X Y [Z]\" (whole numbers), got \"{}\"",
                    path.display(),
                    i + 1,
                    timewarp::text::printable(line)
                ))
            }
        }
    }
    Ok(out)
}

impl TlmArgs {
    /// Refuses a run that could not end in reasonable time: at most every
    /// open cell busy at every step, `2·D + 2` events each.
    pub(crate) fn bounded(&self, m: &Tlm, end: f64) -> Result<(), String> {
        let events = m.grid().open_cells() as f64 * (m.grid().ports() + 2) as f64 * end;
        let what = format!(
            "--size {} with --end {}",
            self.size.0.iter().map(u32::to_string).collect::<Vec<_>>().join("x"),
            num(end)
        );
        bounded(events, end, &what, "lower --end or --size")
    }

    /// Refuses a grid that cannot fit in memory before it is laid out
    /// (laying out hundreds of millions of cells takes minutes): the
    /// estimate of a 2-cell-wide grid of the same dimensions, per cell,
    /// times the cells. `run` checks the whole model again once built.
    fn fits_before_building(&self, dims: &[u32]) -> Result<(), String> {
        use timewarp::memory::{human, Estimate, Limit};
        use timewarp::Model;
        let cells: u64 = dims.iter().map(|&d| d as u64).product();
        let (Some(limit), Ok(small)) = (Limit::current(), Tlm::new(&vec![2; dims.len()])) else { return Ok(()) };
        let e = Estimate::of(&small, &timewarp::Config::default(), 1);
        let need = (e.total() / small.num_lps() as u64).saturating_mul(cells);
        if limit.fits(need, 1) {
            return Ok(());
        }
        Err(format!(
            "{} needs about {} of memory ({cells} cells), but {}; make the model smaller{}",
            self.sizing(),
            human(need),
            limit.describe(),
            limit.remedy()
        ))
    }

    /// The model; `seed` places random radios and buildings, `end` sets the
    /// default image step.
    pub(crate) fn model(&self, seed: u64, end: f64) -> Result<Tlm, String> {
        if end > (u32::MAX - 2) as f64 {
            return Err(format!("--end {end} is more steps than a TLM run counts (at most {})", u32::MAX - 2));
        }
        let dims = &self.size.0;
        self.fits_before_building(dims)?;
        let mut m = Tlm::new(dims)?;
        let layout = match (&self.terrain, self.obstacles.as_str()) {
            (Some(path), _) => {
                let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                Layout::parse_terrain(&text, dims[0], dims[1]).map_err(|e| format!("{}: {e}", path.display()))?
            }
            (None, "urban") => Layout::Urban { block: self.block_size, street: self.street_width, seed },
            _ => Layout::Open,
        };
        let mut sources: Vec<Vec<u32>> = self.source_at.iter().map(|p| p.0.clone()).collect();
        if let Some(p) = &self.sources_file {
            sources.extend(positions(p)?);
        }
        let mut receivers: Vec<Vec<u32>> = self.receiver_at.iter().map(|p| p.0.clone()).collect();
        if let Some(p) = &self.receivers_file {
            receivers.extend(positions(p)?);
        }
        m.clear_sources();
        m.set_layout(layout)?;
        for p in &sources {
            m.add_source(p)?;
        }
        let mut rng = timewarp::ReversibleRng::new(seed, u64::MAX);
        for p in random_ground_cells(&m, self.sources.unwrap_or(0), m.sources(), &mut rng)? {
            m.add_source(&p)?;
        }
        if m.sources().is_empty() && self.sources.is_none() {
            let mut centre: Vec<u32> = dims.iter().map(|&d| d / 2).collect();
            if let Some(z) = centre.get_mut(2) {
                *z = 0; // radios stand on the ground
            }
            m.add_source(&centre).map_err(|e| format!("{e} (or place radios with --source-at)"))?;
        }
        for p in &receivers {
            m.add_receiver(p)?;
        }
        for p in random_ground_cells(&m, self.receivers, &[], &mut rng)? {
            m.add_receiver(&p)?;
        }
        m.waveform = match self.waveform.as_str() {
            "impulse" => Waveform::Impulse,
            "sine" => Waveform::Sine { period: self.period, steps: self.source_steps },
            _ => Waveform::Gaussian { width: self.width },
        };
        m.amplitude = self.amplitude;
        m.boundary_reflection = self.boundary_reflection;
        m.wall_reflection = self.wall_reflection;
        m.threshold = self.threshold;
        let last = (end - 1.0).ceil().max(0.0) as u32;
        if self.image.is_some() {
            let at = self.image_at.unwrap_or(last);
            if at > last {
                return Err(format!("--image-at {at} is past the last step {last} (the run ends at {end})"));
            }
            m.snapshot = Some((at, self.image_layer));
        }
        m.validate()?;
        Ok(m)
    }
}

/// `n` distinct open ground cells (z = 0) drawn uniformly, none of them in `taken`.
fn random_ground_cells(
    m: &Tlm,
    n: u32,
    taken: &[u32],
    rng: &mut timewarp::ReversibleRng,
) -> Result<Vec<Vec<u32>>, String> {
    use timewarp::Random;
    if n == 0 {
        return Ok(vec![]);
    }
    let g = m.grid();
    let taken: std::collections::HashSet<u32> = taken.iter().copied().collect();
    let ground: Vec<u32> = (0..g.size[1])
        .flat_map(|y| (0..g.size[0]).map(move |x| g.id([x, y, 0])))
        .filter(|&c| !g.solid(c) && !taken.contains(&c))
        .collect();
    let free = ground.len() as u64;
    if n as u64 > free {
        return Err(format!("{n} random radios and receivers do not fit on {free} open ground cells"));
    }
    let mut chosen = std::collections::HashSet::new();
    let mut out = vec![];
    while out.len() < n as usize {
        let c = ground[rng.below(ground.len() as u64) as usize];
        if chosen.insert(c) {
            let [x, y, z] = g.coords(c);
            out.push(if g.dims == 3 { vec![x, y, z] } else { vec![x, y] });
        }
    }
    Ok(out)
}

impl ModelCli for TlmArgs {
    type Model = Tlm;
    const NAME: &'static str = "tlm";
    const ABOUT: &'static str = "TLM radio propagation: pulses scattered by a transmission-line matrix over a 2-D \
        or 3-D grid with obstacles (time in steps)";
    const SUMMARY: &'static str = "radio propagation by transmission-line matrix over terrain (the Blue Gene \
        paper's TLM; checked against direct time stepping, energy, phase velocity, symmetry)";
    const END: &'static str = "150";
    const END_HELP: &'static str = "Virtual end time in steps (Δt = 1); steps 0 up to it are simulated";
    fn build(&self, run: &RunInfo) -> Result<Tlm, String> {
        let m = self.model(run.seed, run.end)?;
        self.bounded(&m, run.end)?;
        Ok(m)
    }
    fn inputs(&self) -> Vec<timewarp::checkpoint::InputFiles> {
        [
            ("--terrain", &self.terrain),
            ("--sources-file", &self.sources_file),
            ("--receivers-file", &self.receivers_file),
        ]
        .into_iter()
        .filter_map(|(option, path)| {
            let p = path.as_ref()?;
            Some(timewarp::checkpoint::InputFiles::new(format!("{option} {}", p.display()), vec![p.clone()]))
        })
        .collect()
    }
    fn sizing(&self) -> String {
        format!("--size {}", self.size.0.iter().map(u32::to_string).collect::<Vec<_>>().join("x"))
    }
    fn after(&self, r: &timewarp_models::tlm::TlmResults) -> Result<(), String> {
        if let (Some(path), Some(field)) = (&self.image, &r.field) {
            crate::draw::picture::write_field(path, field)?;
        }
        match &self.receivers_csv {
            Some(path) => write_signals(path, r),
            None => Ok(()),
        }
    }
}

/// Writes every receiver's node voltage per step (0 where its cell was quiet).
fn write_signals(path: &std::path::Path, r: &timewarp_models::tlm::TlmResults) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write receiver signals to {}: {e}", path.display());
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(fail)?);
    write!(f, "step").map_err(fail)?;
    for rx in &r.receivers {
        write!(f, ",x{}_y{}_z{}", rx.x, rx.y, rx.z).map_err(fail)?;
    }
    writeln!(f).map_err(fail)?;
    let mut next = vec![0usize; r.signals.len()];
    for step in 0..r.steps as u32 {
        write!(f, "{step}").map_err(fail)?;
        for (sig, i) in r.signals.iter().zip(&mut next) {
            let v = match sig.get(*i) {
                Some(&(t, v)) if t == step => {
                    *i += 1;
                    v
                }
                _ => 0.0,
            };
            write!(f, ",{v}").map_err(fail)?;
        }
        writeln!(f).map_err(fail)?;
    }
    f.flush().map_err(fail)
}
