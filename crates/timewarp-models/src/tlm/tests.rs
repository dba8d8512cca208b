//! The TLM model against a direct, synchronous implementation of the same
//! scheme (written here without the engine), and against the scheme's known
//! properties: energy conservation, the wavefront's speed limit, the phase
//! velocity 1/√2 of the 2-D shunt mesh, and symmetry.

use super::*;
use timewarp::{Config, Run};

/// The scheme stepped directly: every cell, every step, in two arrays.
struct Direct {
    size: [usize; 3],
    /// Incident pulses of the coming step, `[cell][port]`.
    inc: Vec<[f64; 6]>,
    /// Per step: node voltage of each receiver (None where its cell was quiet).
    signals: Vec<Vec<(u32, f64)>>,
    /// Per step: Σ of squared pulses sent.
    energy: Vec<f64>,
    /// Node voltage of every cell at the snapshot step.
    snapshot: Vec<f64>,
}

impl Direct {
    fn run(m: &Tlm, steps: u32, snapshot_step: u32) -> Direct {
        let [sx, sy, sz] = m.grid.size.map(|s| s as usize);
        let dims = m.grid.dims;
        let cells = sx * sy * sz;
        // This implementation's own cell order; `m.grid.id` gives the model's LP.
        let id = |x: usize, y: usize, z: usize| x + sx * (y + sy * z);
        let lp = |x: usize, y: usize, z: usize| m.grid.id([x as u32, y as u32, z as u32]);
        let mut d = Direct {
            size: [sx, sy, sz],
            inc: vec![[0.0; 6]; cells],
            signals: vec![vec![]; m.receivers.len()],
            energy: vec![],
            snapshot: vec![0.0; cells],
        };
        for t in 0..steps {
            let mut next = vec![[0.0f64; 6]; cells];
            let mut energy = 0.0;
            // Cells in the model's LP order, so that energies are summed alike.
            for y in 0..sy {
                for x in 0..sx {
                    for z in 0..sz {
                        let c = id(x, y, z);
                        if m.grid.solid(lp(x, y, z)) {
                            continue;
                        }
                        let mut a = d.inc[c];
                        let emits = m.sources.contains(&lp(x, y, z)) && active_source(m, t);
                        if a.iter().all(|&v| v == 0.0) && !emits {
                            continue; // no pulse: the cell stays quiet
                        }
                        if emits {
                            let e = m.amplitude * m.waveform.value(t);
                            for v in a.iter_mut().take(2 * dims) {
                                *v += e;
                            }
                        }
                        let sum = (a[0] + a[1]) + (a[2] + a[3]);
                        let v = if dims == 2 { 0.5 * sum } else { (sum + (a[4] + a[5])) / 3.0 };
                        let mut sent = 0.0;
                        for p in 0..2 * dims {
                            let r = v - a[p];
                            let mut q = [x as i64, y as i64, z as i64];
                            q[p / 2] += if p % 2 == 0 { -1 } else { 1 };
                            let inside = (0..3).all(|k| q[k] >= 0 && (q[k] as usize) < d.size[k]);
                            let (cell, port, val) = if !inside {
                                (c, p, m.boundary_reflection * r)
                            } else {
                                let (nx, ny, nz) = (q[0] as usize, q[1] as usize, q[2] as usize);
                                let n = id(nx, ny, nz);
                                if m.grid.solid(lp(nx, ny, nz)) {
                                    (c, p, m.wall_reflection * r)
                                } else {
                                    (n, p ^ 1, r)
                                }
                            };
                            if val.abs() > m.threshold {
                                next[cell][port] = val;
                                sent += val * val;
                            }
                        }
                        energy += sent;
                        if let Some(i) = m.receivers.iter().position(|&r| r == lp(x, y, z)) {
                            d.signals[i].push((t, v));
                        }
                        if t == snapshot_step {
                            d.snapshot[c] = v;
                        }
                    }
                }
            }
            d.inc = next;
            d.energy.push(energy);
        }
        d
    }
}

/// Whether the sources still tick at step `t` (the model keeps a source
/// cell active while its waveform runs, even at zero crossings).
fn active_source(m: &Tlm, t: u32) -> bool {
    m.waveform.emits_at(t)
}

fn seq(m: &Tlm, end: f64) -> TlmResults {
    Run::new(m, &Config { end, ..Config::default() }).execute().unwrap().results
}

/// A 2-D city and a 3-D one, with every kind of edge and a threshold.
fn cities() -> Vec<Tlm> {
    let mut two = Tlm::new(&[24, 20]).unwrap();
    two.clear_sources();
    two.set_layout(Layout::Urban { block: 4, street: 3, seed: 5 }).unwrap();
    two.add_source(&[5, 5]).unwrap();
    two.add_source(&[19, 12]).unwrap();
    for r in [[6, 6], [12, 15], [0, 19], [23, 5]] {
        two.add_receiver(&r).unwrap();
    }
    two.waveform = Waveform::Gaussian { width: 2.0 };
    two.boundary_reflection = -0.7;
    two.wall_reflection = 0.6;
    two.threshold = 1e-7;
    two.snapshot = Some((37, 0));

    let mut three = Tlm::new(&[10, 9, 4]).unwrap();
    three.clear_sources();
    three.set_layout(Layout::Urban { block: 3, street: 2, seed: 9 }).unwrap();
    three.add_source(&[4, 4, 1]).unwrap();
    for r in [[4, 0, 0], [9, 8, 3], [3, 4, 2]] {
        three.add_receiver(&r).unwrap();
    }
    three.waveform = Waveform::Sine { period: 7.0, steps: 12 };
    three.boundary_reflection = 0.4;
    three.snapshot = Some((20, 2));
    vec![two, three]
}

#[test]
fn equals_direct_time_stepping_bit_for_bit() {
    for m in cities() {
        let end = 60.0;
        let r = seq(&m, end);
        let (step, layer) = m.snapshot.unwrap();
        let d = Direct::run(&m, end as u32, step);
        assert_eq!(r.steps, 60);
        for (i, sig) in r.signals.iter().enumerate() {
            assert!(!sig.is_empty(), "receiver {i} heard nothing: the test would prove little");
            assert_eq!(sig, &d.signals[i], "receiver {i} of the {}-D grid", m.grid.dims);
        }
        // Same summation order (per cell over ports, then cells by id): identical bits.
        assert_eq!(r.energy_final.to_bits(), d.energy[59].to_bits());
        let last = m.waveform.last_step().unwrap() as usize;
        assert_eq!(r.energy_initial.unwrap().to_bits(), d.energy[last].to_bits());
        let f = r.field.unwrap();
        let [sx, sy, _] = d.size;
        for (i, &v) in f.values.iter().enumerate() {
            let c = i + sx * sy * layer as usize;
            if m.grid.solid(m.grid.id([(i % sx) as u32, (i / sx) as u32, layer])) {
                assert!(v.is_nan());
            } else {
                assert_eq!(v.to_bits(), d.snapshot[c].to_bits(), "cell {c}");
            }
        }
        assert_eq!(r.events_per_cell_step, r.events as f64 / r.cell_steps as f64);
    }
}

#[test]
fn lossless_walls_keep_the_energy_and_open_edges_only_lose_it() {
    // Directly, over thousands of steps.
    for dims in [&[12u32, 12][..], &[6, 6, 5]] {
        let mut m = Tlm::new(dims).unwrap();
        m.boundary_reflection = 1.0;
        let d = Direct::run(&m, 3000, 0);
        for (t, e) in d.energy.iter().enumerate() {
            assert!((e / d.energy[0] - 1.0).abs() < 1e-12, "step {t}: {e} vs {}", d.energy[0]);
        }
        m.boundary_reflection = -1.0;
        let d = Direct::run(&m, 3000, 0);
        assert!((d.energy[2999] / d.energy[0] - 1.0).abs() < 1e-12);
        m.boundary_reflection = 0.0;
        let d = Direct::run(&m, 200, 0);
        assert!(d.energy.windows(2).all(|w| w[1] <= w[0] * (1.0 + 1e-14)), "open edges gained energy");
        assert!(d.energy[199] < 0.1 * d.energy[0]);
    }
    // Through the engine, with obstacles of reflection ±1 too.
    let mut m = Tlm::new(&[14, 14]).unwrap();
    m.clear_sources();
    m.set_layout(Layout::Urban { block: 3, street: 3, seed: 1 }).unwrap();
    m.add_source(&[4, 4]).unwrap();
    m.boundary_reflection = 1.0;
    m.wall_reflection = -1.0;
    m.waveform = Waveform::Gaussian { width: 1.5 };
    let r = seq(&m, 1000.0);
    let e0 = r.energy_initial.unwrap();
    assert!(e0 > 0.0 && (r.energy_final / e0 - 1.0).abs() < 1e-12, "{} vs {e0}", r.energy_final);
    m.boundary_reflection = 0.0;
    let mut before = e0;
    for end in [30.0, 60.0, 120.0] {
        let e = seq(&m, end).energy_final;
        assert!(e <= before * (1.0 + 1e-14), "energy rose from {before} to {e} by step {end}");
        before = e;
    }
}

#[test]
fn the_wavefront_moves_one_cell_per_step_at_most() {
    // An impulse at the centre: the field at step t is zero beyond Manhattan
    // distance t, non-zero on the diamond at distance exactly t.
    let mut m = Tlm::new(&[41, 41]).unwrap();
    for t in [5, 13] {
        m.snapshot = Some((t, 0));
        let f = seq(&m, t as f64 + 1.0).field.unwrap();
        for (i, &v) in f.values.iter().enumerate() {
            let (x, y) = ((i % 41) as i64, (i / 41) as i64);
            let dist = ((x - 20).abs() + (y - 20).abs()) as u32;
            if dist > t {
                assert_eq!(v, 0.0, "({x},{y}) at step {t}");
            } else if dist == t {
                assert!(v > 0.0, "({x},{y}) at step {t}: the front should be there");
            }
        }
    }
    // Receivers hear the first pulse exactly at their Manhattan distance.
    for r in [[30, 20], [20, 3], [27, 31], [0, 0]] {
        m.add_receiver(&r).unwrap();
    }
    let r = seq(&m, 60.0);
    for rx in &r.receivers {
        assert_eq!(rx.arrival, Some(rx.x.abs_diff(20) + rx.y.abs_diff(20)), "{rx:?}");
    }
}

#[test]
fn a_low_frequency_peak_travels_at_one_over_root_two_cells_per_step() {
    // Gaussian of width 5 steps: its spectrum lies where the 2-D shunt mesh's
    // dispersion is below 1 %, so its peak moves at the low-frequency phase
    // velocity 1/√2. Compare two receivers on one ray (the source's own
    // delay cancels), along an axis and along the diagonal.
    let n = 121;
    let c = n / 2;
    let mut m = Tlm::new(&[n, n]).unwrap();
    m.waveform = Waveform::Gaussian { width: 5.0 };
    let (near, far) = (12u32, 40u32);
    m.add_receiver(&[c + near, c]).unwrap();
    m.add_receiver(&[c + far, c]).unwrap();
    let (dn, df) = (9u32, 28u32); // diagonal: distance 12.7 and 39.6
    m.add_receiver(&[c + dn, c + dn]).unwrap();
    m.add_receiver(&[c + df, c + df]).unwrap();
    let r = seq(&m, 110.0);
    let rx = &r.receivers;
    let axis = (rx[1].peak_time - rx[0].peak_time) as f64;
    let diag = (rx[3].peak_time - rx[2].peak_time) as f64;
    let want_axis = std::f64::consts::SQRT_2 * (far - near) as f64;
    let want_diag = std::f64::consts::SQRT_2 * std::f64::consts::SQRT_2 * (df - dn) as f64;
    assert!((axis - want_axis).abs() <= 0.05 * want_axis + 1.0, "axis: {axis} steps, theory {want_axis:.1}");
    assert!((diag - want_diag).abs() <= 0.05 * want_diag + 1.0, "diagonal: {diag} steps, theory {want_diag:.1}");
    // A 2-D pulse spreads over a circle: amplitude falls like 1/√r (cylindrical spreading).

    let ratio = rx[1].peak / rx[0].peak;
    let want = (near as f64 / far as f64).sqrt();
    assert!((ratio / want - 1.0).abs() < 0.15, "amplitude ratio {ratio:.3}, cylindrical spreading {want:.3}");
}

#[test]
fn a_centred_source_gives_an_exactly_symmetric_field() {
    let mut m = Tlm::new(&[31, 31]).unwrap();
    m.waveform = Waveform::Gaussian { width: 2.0 };
    m.boundary_reflection = -0.5;
    m.snapshot = Some((45, 0));
    let f = seq(&m, 46.0).field.unwrap();
    let v = |x: usize, y: usize| f.values[y * 31 + x].to_bits();
    let mut nonzero = 0;
    for x in 0..31 {
        for y in 0..31 {
            assert_eq!(v(x, y), v(y, x), "transpose at ({x},{y})");
            assert_eq!(v(x, y), v(30 - x, y), "x mirror at ({x},{y})");
            assert_eq!(v(x, y), v(x, 30 - y), "y mirror at ({x},{y})");
            nonzero += usize::from(f.values[y * 31 + x] != 0.0);
        }
    }
    assert!(nonzero > 500, "the wave should fill the grid by step 45");

    let mut m = Tlm::new(&[15, 15, 3]).unwrap();
    m.clear_sources();
    m.add_source(&[7, 7, 1]).unwrap();
    m.snapshot = Some((12, 0));
    let f = seq(&m, 13.0).field.unwrap();
    let v = |x: usize, y: usize| f.values[y * 15 + x].to_bits();
    for x in 0..15 {
        for y in 0..15 {
            assert_eq!(v(x, y), v(y, x));
            assert_eq!(v(x, y), v(14 - x, y));
        }
    }
}

#[test]
fn a_threshold_saves_work_and_changes_the_field_only_slightly() {
    let mut m = Tlm::new(&[41, 41]).unwrap();
    m.waveform = Waveform::Gaussian { width: 3.0 };
    let full = seq(&m, 60.0);
    m.threshold = 1e-3;
    let cut = seq(&m, 60.0);
    assert!(cut.cell_steps < full.cell_steps, "{} vs {}", cut.cell_steps, full.cell_steps);
    assert!(cut.energy_final < full.energy_final);
    assert!(cut.energy_final > 0.9 * full.energy_final, "{} vs {}", cut.energy_final, full.energy_final);
}

#[test]
fn bad_parameters_are_explained() {
    let mut m = Tlm::new(&[8, 8]).unwrap();
    m.boundary_reflection = 1.5;
    assert!(m.validate().unwrap_err().contains("--boundary-reflection"));
    m.boundary_reflection = 0.0;
    m.threshold = -1.0;
    assert!(m.validate().unwrap_err().contains("--threshold"));
    m.threshold = 0.0;
    m.waveform = Waveform::Gaussian { width: 0.0 };
    assert!(m.validate().unwrap_err().contains("--width"));
    m.waveform = Waveform::Impulse;
    m.snapshot = Some((3, 1));
    assert!(m.validate().unwrap_err().contains("--image-layer"));
    m.snapshot = None;
    assert!(m.add_source(&[4, 4]).unwrap_err().contains("two sources"));
    assert!(m.add_receiver(&[9, 1]).unwrap_err().contains("outside"));
    m.clear_sources();
    assert!(m.validate().unwrap_err().contains("no source"));
}

#[test]
fn a_new_layout_keeps_sources_and_receivers_in_their_cells() {
    let mut m = Tlm::new(&[10, 10, 3]).unwrap();
    m.add_receiver(&[5, 0, 2]).unwrap();
    let before = (m.sources().to_vec(), m.receivers().to_vec());
    m.set_layout(Layout::Urban { block: 4, street: 2, seed: 4 }).unwrap();
    assert_eq!((m.sources().to_vec(), m.receivers().to_vec()), before);
    assert!((0..m.grid().cells()).any(|c| m.grid().solid(c)));
    // Refused as a whole: the model keeps its old layout.
    let e = m.set_layout(Layout::Heights(vec![u8::MAX; 100])).unwrap_err();
    assert!(e.contains("inside an obstacle"), "{e}");
    assert_eq!((m.sources().to_vec(), m.receivers().to_vec()), before);
    assert!(!m.grid().solid(m.sources()[0]));
}
