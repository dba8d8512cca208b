//! TLM: radio-wave propagation by the transmission-line matrix method, the
//! Blue Gene paper's third workload (Bauer, Carothers, Holder; section IV-D).
//!
//! The scheme (scalar shunt node; `docs/tlm.md` has the derivation):
//!
//! * A grid of cells, 2-D or 3-D, one LP per cell; each cell has `N = 2·D`
//!   ports (port `p` faces axis `p / 2`, the lower side when `p` is even).
//! * At step `t` the pulses `a_n` incident on a cell's ports are scattered
//!   together: node voltage `V = (2/N)·Σ a_n`, reflected pulse
//!   `r_n = V − a_n`. A source cell first adds its waveform `e(t)` to every
//!   incident pulse.
//! * `r_n` leaves across port `n` and arrives at step `t + 1` on the
//!   neighbour's opposite port. Across the grid's edge it comes back to port
//!   `n` multiplied by `--boundary-reflection`; against an obstacle cell, by
//!   `--wall-reflection`. A pulse of magnitude `<= --threshold` is not sent.
//!
//! Event-driven: a cell works only at steps where a pulse reaches it. Its
//! pulses of one step are all events at the same time `t` of age 0 (each
//! arrives from another LP or from itself one step later); the first one
//! schedules a zero-delay `Scatter` to itself, which has age 1 and so comes
//! after every pulse of step `t` in the engine's total order, in every mode.
//! Lookahead: one step.
//!
//! The sum `Σ a_n` is taken axis by axis, `(a0 + a1) + (a2 + a3) [+ (a4 + a5)]`,
//! so that mirroring the grid in x or y, or swapping x and y, leaves every
//! rounding unchanged: the field of a centred source is exactly symmetric.
//!
//! ```
//! use timewarp::{Config, Run};
//! use timewarp_models::tlm::Tlm;
//!
//! let model = Tlm::new(&[21, 21]).unwrap(); // an impulse at the centre, open edges
//! let r = Run::new(&model, &Config { end: 30.0, ..Config::default() }).execute().unwrap();
//! let res = &r.results;
//! assert!(res.energy_final <= res.energy_initial.unwrap()); // open edges only lose energy
//! assert_eq!(res.events, r.stats.committed_events);
//! ```

mod grid;
mod source;

pub use grid::{Grid, Layout};
pub use source::Waveform;

use grid::{EDGE, RECEIVER, SOURCE, WALL};
use serde::{Deserialize, Serialize};
use timewarp::{Ctx, LpId, Model};

/// TLM parameters.
#[derive(Clone, Debug)]
pub struct Tlm {
    /// The grid, its obstacles, and which cells hold sources and receivers.
    grid: Grid,
    /// Cells holding a source, all with the same waveform.
    sources: Vec<LpId>,
    /// Cells holding a receiver, in the order results report them.
    receivers: Vec<LpId>,
    /// What the sources emit.
    pub waveform: Waveform,
    /// Peak excitation added to each incident pulse.
    pub amplitude: f64,
    /// Reflection coefficient of the grid's edge, in [-1, 1] (0: absorbing).
    pub boundary_reflection: f64,
    /// Reflection coefficient of obstacle walls, in [-1, 1].
    pub wall_reflection: f64,
    /// Pulses of magnitude at most this are not sent (0: only exact zeros).
    pub threshold: f64,
    /// Keep the node voltages of z-layer `.1` at step `.0` (for an image).
    pub snapshot: Option<(u32, u32)>,
}

/// The engine's events.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Msg {
    /// A pulse of voltage `v` arriving on port `port`.
    Pulse {
        /// Port it arrives on.
        port: u8,
        /// Its value.
        v: f64,
    },
    /// A source's reminder to emit at this step.
    Tick,
    /// Scatter this step's pulses (zero-delay, after every pulse of the step).
    Scatter,
}

/// State of one cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Incident pulses of step `step`, by port; valid where `fresh` has the port's bit.
    inc: [f64; 6],
    /// Energy of the pulses this cell sent at the sources' last step.
    e0: f64,
    /// The step whose pulses `inc` holds (its scatter is scheduled); `u32::MAX` before any.
    step: u32,
    /// Ports that received a pulse at `step`.
    fresh: u8,
    /// Node voltage at the snapshot step (0: quiet then, or not in the layer).
    snap: f64,
    /// Steps this cell scattered.
    scatters: u64,
    /// Events this cell processed.
    events: u64,
    /// A receiver's signal: `(step, node voltage)` at every step it scattered.
    /// Boxed: one pointer in every cell instead of a 24-byte `Vec`.
    #[allow(clippy::box_collection)]
    signal: Option<Box<Vec<(u32, f64)>>>,
}

/// Undo record of a pulse or tick: what opening or filling a step overwrote.
#[derive(Clone, Copy, Debug, Default)]
pub struct Undo {
    inc: f64,
    step: u32,
    fresh: u8,
}

/// One receiver's figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Receiver {
    /// Position.
    pub x: u32,
    /// Position.
    pub y: u32,
    /// Position.
    pub z: u32,
    /// Largest |node voltage| seen.
    pub peak: f64,
    /// Step of the peak (first one if tied).
    pub peak_time: u32,
    /// First step with a non-zero node voltage (the wavefront's arrival).
    pub arrival: Option<u32>,
}

/// Node voltages of one z-layer at one step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Field {
    /// Cells along x.
    pub width: u32,
    /// Cells along y.
    pub height: u32,
    /// Step shown.
    pub step: u32,
    /// Row-major (`x` fastest) node voltages; obstacle cells are NaN.
    pub values: Vec<f64>,
    /// `[x, y]` of the sources on the layer shown.
    pub sources: Vec<[u32; 2]>,
    /// `[x, y]` of the receivers on the layer shown.
    pub receivers: Vec<[u32; 2]>,
}

/// What a TLM run reports.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct TlmResults {
    /// Cells (LPs), obstacles included.
    pub cells: u64,
    /// Cells that are not obstacles.
    pub open_cells: u64,
    /// Steps simulated (`0..steps`).
    pub steps: u64,
    /// Cell-steps at which a cell scattered (did work).
    pub cell_steps: u64,
    /// Events processed (equals the engine's committed events).
    pub events: u64,
    /// `events / cell_steps`: pulses in plus the scatter (plus source ticks).
    pub events_per_cell_step: f64,
    /// `cell_steps / (open_cells · steps)`: how much of the space-time was active.
    pub active_fraction: f64,
    /// Last step at which a source emits (null: until the end).
    pub sources_last_step: Option<u32>,
    /// Σ of squared pulses in flight after the sources' last step (null if
    /// that step is not before the end).
    pub energy_initial: Option<f64>,
    /// Σ of squared pulses in flight after the last step.
    pub energy_final: f64,
    /// Per receiver, in the order given.
    pub receivers: Vec<Receiver>,
    /// Per receiver: `(step, node voltage)` at every step its cell was active.
    #[serde(skip)]
    pub signals: Vec<Vec<(u32, f64)>>,
    /// The snapshot layer, when asked for.
    #[serde(skip)]
    pub field: Option<Field>,
}

/// The pulses of one scatter: where each goes and its value.
struct Outgoing {
    n: usize,
    to: [(LpId, u8, f64); 6],
    voltage: f64,
}

impl Tlm {
    /// A free-space grid with an impulse at the centre and no receivers.
    pub fn new(size: &[u32]) -> Result<Tlm, String> {
        let grid = Grid::new(size, &Layout::Open)?;
        let centre: Vec<u32> = size.iter().map(|&s| s / 2).collect();
        let mut m = Tlm {
            sources: vec![],
            receivers: vec![],
            waveform: Waveform::Impulse,
            amplitude: 1.0,
            boundary_reflection: 0.0,
            wall_reflection: 0.5,
            threshold: 0.0,
            snapshot: None,
            grid,
        };
        m.add_source(&centre)?;
        Ok(m)
    }

    /// The grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// Cells holding a source.
    pub fn sources(&self) -> &[LpId] {
        &self.sources
    }

    /// Cells holding a receiver, in the order results report them.
    pub fn receivers(&self) -> &[LpId] {
        &self.receivers
    }

    /// Puts obstacles on the grid (sources and receivers must stay on open cells).
    ///
    /// ```
    /// use timewarp_models::tlm::{Layout, Tlm};
    /// let mut m = Tlm::new(&[9, 9]).unwrap();
    /// let e = m.set_layout(Layout::Urban { block: 9, street: 1, seed: 1 }).unwrap_err();
    /// assert!(e.contains("inside an obstacle"), "{e}");
    /// m.set_layout(Layout::Urban { block: 3, street: 2, seed: 1 }).unwrap(); // the centre is a street
    /// ```
    pub fn set_layout(&mut self, layout: Layout) -> Result<(), String> {
        let dims = self.grid.dims;
        let size: Vec<u32> = self.grid.size[..dims].to_vec();
        // Built aside: a refused layout leaves the model as it was.
        let mut next = Tlm { grid: Grid::new(&size, &layout)?, sources: vec![], receivers: vec![], ..self.clone() };
        for &c in &self.sources {
            next.add_source(&self.grid.coords(c)[..dims])?;
        }
        for &c in &self.receivers {
            next.add_receiver(&self.grid.coords(c)[..dims])?;
        }
        *self = next;
        Ok(())
    }

    /// Removes every source.
    pub fn clear_sources(&mut self) {
        for c in std::mem::take(&mut self.sources) {
            self.grid.unmark(c, SOURCE);
        }
    }

    /// Puts a source at `pos` (2 or 3 coordinates; z defaults to 0).
    pub fn add_source(&mut self, pos: &[u32]) -> Result<(), String> {
        let c = self.grid.locate("source", pos)?;
        if self.sources.contains(&c) {
            return Err(format!("two sources at {pos:?}; give each its own cell"));
        }
        self.sources.push(c);
        self.grid.mark(c, SOURCE);
        Ok(())
    }

    /// Puts a receiver at `pos`.
    pub fn add_receiver(&mut self, pos: &[u32]) -> Result<(), String> {
        let c = self.grid.locate("receiver", pos)?;
        self.receivers.push(c);
        self.grid.mark(c, RECEIVER);
        Ok(())
    }

    /// Checks the parameters, saying what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.sources.is_empty() {
            return Err("no source: give --sources N, --source-at X,Y[,Z] or --sources-file".into());
        }
        self.waveform.validate()?;
        if !(self.amplitude.is_finite() && self.amplitude.abs() <= 1e100) {
            return Err(format!("--amplitude must be a finite number of magnitude <= 1e100, got {}", self.amplitude));
        }
        for (name, r) in
            [("--boundary-reflection", self.boundary_reflection), ("--wall-reflection", self.wall_reflection)]
        {
            if !(-1.0..=1.0).contains(&r) {
                return Err(format!("{name} is a reflection coefficient in [-1, 1], got {r}"));
            }
        }
        if !(self.threshold.is_finite() && self.threshold >= 0.0) {
            return Err(format!("--threshold must be a finite number >= 0, got {}", self.threshold));
        }
        if let Some((_, layer)) = self.snapshot {
            if layer >= self.grid.size[2] {
                return Err(format!("--image-layer {layer} is not a layer of the grid (z < {})", self.grid.size[2]));
            }
        }
        Ok(())
    }

    /// Scatters the incident pulses of a cell at `step`: the node voltage and
    /// the pulses it sends (after reflection and threshold).
    #[inline]
    fn scatter(&self, c: LpId, s: &Cell, step: u32) -> Outgoing {
        let ports = self.grid.ports();
        let flags = self.grid.flags(c);
        let mut a = [0.0f64; 6];
        for (p, a) in a.iter_mut().enumerate().take(ports) {
            if s.fresh & (1 << p) != 0 {
                *a = s.inc[p];
            }
        }
        if flags & SOURCE != 0 {
            let e = self.amplitude * self.waveform.value(step);
            for a in a.iter_mut().take(ports) {
                *a += e;
            }
        }
        let voltage = node_voltage(&a, ports);
        let mut out = Outgoing { n: 0, to: [(0, 0, 0.0); 6], voltage };
        for (p, &a) in a.iter().enumerate().take(ports) {
            let r = voltage - a;
            let (dst, port, v) = if flags & (EDGE << p) != 0 {
                (c, p, self.boundary_reflection * r)
            } else if flags & (WALL << p) != 0 {
                (c, p, self.wall_reflection * r)
            } else {
                (self.grid.across(c, p), p ^ 1, r)
            };
            if v.abs() > self.threshold {
                out.to[out.n] = (dst, port as u8, v);
                out.n += 1;
            }
        }
        out
    }

    /// Energy of the pulses a scatter sends.
    fn energy(out: &Outgoing) -> f64 {
        out.to[..out.n].iter().map(|t| t.2 * t.2).sum()
    }
}

/// The shunt node's voltage `(2/N)·Σ a_n`, summed axis by axis (see the module docs).
///
/// ```
/// use timewarp_models::tlm::node_voltage;
/// assert_eq!(node_voltage(&[1.0, 1.0, 1.0, 1.0, 0.0, 0.0], 4), 2.0);
/// assert_eq!(node_voltage(&[3.0, 0.0, 0.0, 0.0, 0.0, 0.0], 6), 1.0);
/// ```
#[inline]
pub fn node_voltage(a: &[f64; 6], ports: usize) -> f64 {
    let plane = (a[0] + a[1]) + (a[2] + a[3]);
    if ports == 4 {
        0.5 * plane
    } else {
        (plane + (a[4] + a[5])) / 3.0
    }
}

impl Model for Tlm {
    type State = Cell;
    type Msg = Msg;
    type Undo = Undo;
    type Results = TlmResults;

    fn name(&self) -> &str {
        "tlm"
    }

    fn num_lps(&self) -> u32 {
        self.grid.cells()
    }

    fn lookahead(&self) -> f64 {
        1.0
    }

    fn neighbours(&self, lp: LpId) -> Option<Vec<LpId>> {
        if self.grid.solid(lp) {
            return Some(vec![]);
        }
        Some(
            (0..self.grid.ports())
                .filter_map(|p| self.grid.neighbour(lp, p))
                .filter(|&n| !self.grid.solid(n))
                .collect(),
        )
    }

    fn rng_streams(&self) -> u32 {
        0
    }

    /// A tick per radio: the grid starts quiet.
    fn initial_events(&self) -> u64 {
        self.sources.len() as u64
    }

    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> Cell {
        let flags = self.grid.flags(lp);
        if flags & SOURCE != 0 {
            ctx.send(lp, 0.0, Msg::Tick);
        }
        Cell {
            inc: [0.0; 6],
            e0: 0.0,
            step: u32::MAX,
            fresh: 0,
            snap: 0.0,
            scatters: 0,
            events: 0,
            signal: (flags & RECEIVER != 0).then(Box::default),
        }
    }

    #[inline]
    fn forward(&self, s: &mut Cell, msg: &Msg, undo: &mut Undo, ctx: &mut Ctx<'_, Self>) {
        s.events += 1;
        let now = ctx.now() as u32;
        let (port, v) = match *msg {
            Msg::Scatter => return self.scatter_forward(s, now, ctx),
            Msg::Pulse { port, v } => (port, v),
            Msg::Tick => (u8::MAX, 0.0),
        };
        undo.step = s.step;
        undo.fresh = s.fresh;
        if s.step != now {
            s.step = now;
            s.fresh = 0;
            ctx.send(ctx.lp(), 0.0, Msg::Scatter);
        }
        if port != u8::MAX {
            let bit = 1u8 << port;
            if s.fresh & bit != 0 {
                return ctx.fail(format!("two pulses on port {port} in one step"));
            }
            s.fresh |= bit;
            undo.inc = s.inc[port as usize];
            s.inc[port as usize] = v;
        }
    }

    #[inline]
    fn reverse(&self, s: &mut Cell, msg: &Msg, undo: &Undo, _lp: LpId, now: f64) {
        s.events -= 1;
        match *msg {
            Msg::Scatter => {
                let now = now as u32;
                s.scatters -= 1;
                if let Some(sig) = &mut s.signal {
                    sig.pop();
                }
                if self.snapshot.map(|(t, _)| t) == Some(now) {
                    s.snap = 0.0;
                }
                if self.waveform.last_step() == Some(now) {
                    s.e0 = 0.0;
                }
            }
            Msg::Pulse { port, .. } => {
                s.inc[port as usize] = undo.inc;
                s.step = undo.step;
                s.fresh = undo.fresh;
            }
            Msg::Tick => {
                s.step = undo.step;
                s.fresh = undo.fresh;
            }
        }
    }

    fn finalize(&self, lp: LpId, s: &Cell, end: f64, r: &mut TlmResults) {
        let last = (end - 1.0).ceil().max(0.0) as u32; // the last step before `end`
        if lp == 0 {
            r.cells = self.grid.cells() as u64;
            r.open_cells = self.grid.open_cells();
            r.steps = last as u64 + 1;
            r.sources_last_step = self.waveform.last_step();
            r.energy_initial = self.waveform.last_step().filter(|&t| t <= last).map(|_| 0.0);
            r.receivers = self
                .receivers
                .iter()
                .map(|&c| {
                    let [x, y, z] = self.grid.coords(c);
                    Receiver { x, y, z, ..Receiver::default() }
                })
                .collect();
            r.signals = vec![vec![]; self.receivers.len()];
            if let Some((step, layer)) = self.snapshot {
                let [w, h, _] = self.grid.size;
                let on_layer = |cells: &[LpId]| {
                    let at = cells.iter().map(|&c| self.grid.coords(c));
                    at.filter(|p| p[2] == layer).map(|[x, y, _]| [x, y]).collect()
                };
                r.field = Some(Field {
                    width: w,
                    height: h,
                    step,
                    values: Vec::with_capacity((w * h) as usize),
                    sources: on_layer(&self.sources),
                    receivers: on_layer(&self.receivers),
                });
            }
        }
        r.cell_steps += s.scatters;
        r.events += s.events;
        if let Some(e) = &mut r.energy_initial {
            *e += s.e0;
        }
        if s.step == last {
            r.energy_final += Tlm::energy(&self.scatter(lp, s, last));
        }
        if let (Some(f), Some((_, layer))) = (&mut r.field, self.snapshot) {
            if self.grid.coords(lp)[2] == layer {
                f.values.push(if self.grid.solid(lp) { f64::NAN } else { s.snap });
            }
        }
        if let Some(sig) = &s.signal {
            for (i, _) in self.receivers.iter().enumerate().filter(|(_, &c)| c == lp) {
                let rx = &mut r.receivers[i];
                rx.arrival = sig.iter().find(|p| p.1 != 0.0).map(|p| p.0);
                if let Some(&(t, v)) = sig.iter().fold(None::<&(u32, f64)>, |best, p| match best {
                    Some(b) if b.1.abs() >= p.1.abs() => Some(b),
                    _ => Some(p),
                }) {
                    rx.peak = v.abs();
                    rx.peak_time = t;
                }
                r.signals[i] = sig.to_vec();
            }
        }
        if lp + 1 == self.grid.cells() {
            r.events_per_cell_step = r.events as f64 / r.cell_steps.max(1) as f64;
            r.active_fraction = r.cell_steps as f64 / (r.open_cells.max(1) * r.steps) as f64;
        }
    }
}

impl Tlm {
    /// The scatter event: sends this step's pulses and records what results need.
    #[inline]
    fn scatter_forward(&self, s: &mut Cell, now: u32, ctx: &mut Ctx<'_, Self>) {
        let c = ctx.lp();
        s.scatters += 1;
        let out = self.scatter(c, s, now);
        for &(dst, port, v) in &out.to[..out.n] {
            ctx.send(dst, 1.0, Msg::Pulse { port, v });
        }
        let flags = self.grid.flags(c);
        if flags & SOURCE != 0 && self.waveform.emits_at(now.saturating_add(1)) {
            ctx.send(c, 1.0, Msg::Tick);
        }
        if let Some(sig) = &mut s.signal {
            sig.push((now, out.voltage));
        }
        if let Some((t, layer)) = self.snapshot {
            if t == now && self.grid.coords(c)[2] == layer {
                s.snap = out.voltage;
            }
        }
        if self.waveform.last_step() == Some(now) {
            s.e0 = Tlm::energy(&out);
        }
    }
}

#[cfg(test)]
mod tests;
