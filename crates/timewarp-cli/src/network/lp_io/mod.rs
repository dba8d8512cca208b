//! `--lp-io-dir DIR`: CODES's LP-IO output files of a dragonfly run, as
//! `dragonfly-custom.cxx` writes them at the end (`*_terminal_final`,
//! `*_router_final`), from the figures the model counted
//! (`Results::lp_io`); a `dragonfly_dally` import gets the Dally model's
//! own files instead (dally.rs). docs/codes.md, "Output files", lists the
//! columns.

mod dally;

use std::io::Write;
use std::path::Path;

use timewarp_models::network::{Dragonfly, LpIoRouter, LpIoTables, Results, Topology};

/// CODES's terminal format line (its `dragonfly-msg-stats.meta`); the busy
/// time needs a bounded NIC buffer (`--nic-buffer`): `nan` without one.
const MSG_STATS_FORMAT: &str = "# Format <LP id> <Terminal ID> <Total Data Size> <Avg packet latency> \
<# Flits/Packets finished> <Avg hops> <Busy Time> <Max packet Latency> <Min packet Latency >";

pub(crate) const DALLY_UNWIRED: &str = "--lp-io-lps names dragonfly_dally LPs, whose files follow CODES's connection \
files, but the dragonfly has none (give it --intra-connections and --inter-connections, or import the \
CODES configuration that names them)";

/// Refuses `--lp-io-dir` where the layout is not defined.
pub(crate) fn supported(t: &Topology) -> Result<(), String> {
    match t {
        Topology::Dragonfly(d) if d.leaves().is_none() => Ok(()),
        _ => Err(format!(
            "--lp-io-dir writes CODES's dragonfly files: it supports --topology dragonfly and CODES's \
             dragonfly imports (dragonfly_custom, dragonfly_dally, 1-D dragonfly), not a {}",
            match t {
                Topology::Dragonfly(_) => "dragonfly-plus",
                t => t.name(),
            }
        )),
    }
}

/// How CODES numbers the LPs and lays out the ports (`--lp-io-lps`,
/// `--lp-io-grid`); each part absent: ours.
pub(crate) struct Layout {
    pub(crate) lps: Option<Lps>,
    pub(crate) grid: Option<Grid>,
}

/// One LPGROUPS repetition: its LPs, and where its terminals and routers
/// sit in it. codes-mapping numbers LPs repetition by repetition, each
/// listing its LP types in order, so LP `k` of a type is number
/// `(k / count) · per_rep + offset + k mod count`.
pub(crate) struct Lps {
    per_rep: u64,
    terminals: (u64, u64),
    routers: (u64, u64),
    /// The terminal type is `modelnet_dragonfly_dally`: CODES's Dally model,
    /// which writes files of its own (dally.rs).
    pub(crate) dally: bool,
}

/// `dragonfly_custom`'s router ports (`dragonfly-custom.cxx`, `get_output_port`):
/// a slot per column and row channel (green), then per row and column
/// channel (black) of the group, then the global channels in the inter
/// file's order, then the terminals.
pub(crate) struct Grid {
    cols: u32,
    row_chans: u32,
    col_chans: u32,
    global: u32,
}

impl Lps {
    /// CODES's LP ids of terminal `k` and router `k`.
    pub(crate) fn terminal(&self, k: u32) -> u64 {
        self.id(self.terminals, k)
    }

    pub(crate) fn router(&self, k: u32) -> u64 {
        self.id(self.routers, k)
    }

    fn id(&self, (at, count): (u64, u64), k: u32) -> u64 {
        let k = u64::from(k);
        (k / count) * self.per_rep + at + k % count
    }
}

impl Layout {
    pub(crate) fn new(lps: Option<&str>, grid: Option<&str>) -> Result<Layout, String> {
        let lps = lps.map(parse_lps).transpose()?;
        let grid = grid
            .map(|g| {
                let bad = || {
                    format!(
                        "--lp-io-grid {g}: expected COLS,ROW_CHANS,COL_CHANS,GLOBAL_CHANNELS, four whole numbers \
                         of at least 1 (CODES's num_router_cols, num_row_chans, num_col_chans, num_global_channels)"
                    )
                };
                let v: Vec<u32> =
                    g.split(',').map(|x| x.trim().parse().map_err(|_| bad())).collect::<Result<_, _>>()?;
                match v[..] {
                    [cols, row_chans, col_chans, global] if v.iter().all(|&x| x > 0) => {
                        Ok(Grid { cols, row_chans, col_chans, global })
                    }
                    _ => Err(bad()),
                }
            })
            .transpose()?;
        Ok(Layout { lps, grid })
    }

    /// Whether writing needs the run's topology (a grid, Dally's ports).
    pub(crate) fn needs_topology(&self) -> bool {
        self.grid.is_some() || self.lps.as_ref().is_some_and(|l| l.dally)
    }

    /// Whether the grid fits the network: every wired port has a slot of
    /// its own; whether Dally's files have the connection files they follow.
    pub(crate) fn check(&self, t: &Topology) -> Result<(), String> {
        let wired = matches!(t, Topology::Dragonfly(d) if d.wiring.is_some());
        if self.lps.as_ref().is_some_and(|l| l.dally) && !wired {
            return Err(DALLY_UNWIRED.into());
        }
        match (&self.grid, t) {
            (None, _) => Ok(()),
            (Some(g), Topology::Dragonfly(d)) => g.slots(d).map(|_| ()),
            (Some(_), _) => Err("--lp-io-grid is for CODES's dragonfly_custom networks".into()),
        }
    }
}

fn parse_lps(s: &str) -> Result<Lps, String> {
    let bad = |why: &str| {
        format!(
            "--lp-io-lps {s}: {why} (expected one LPGROUPS repetition as NAME=COUNT,..., e.g. \
             nw-lp=4,modelnet_dragonfly_custom=4,modelnet_dragonfly_custom_router=1)"
        )
    };
    let (mut at, mut terminals, mut routers, mut dally) = (0u64, None, None, false);
    for part in s.split(',') {
        let (name, count) = part.split_once('=').ok_or_else(|| bad(&format!("{part} has no =COUNT")))?;
        let count: u64 = count.trim().parse().map_err(|_| bad(&format!("{part}: COUNT must be a whole number")))?;
        let name = name.trim();
        if let Some(m) = name.strip_prefix("modelnet_") {
            let slot = if m.ends_with("_router") { &mut routers } else { &mut terminals };
            dally |= m == "dragonfly_dally" && count > 0;
            if count > 0 && slot.replace((at, count)).is_some() {
                return Err(bad("two modelnet_ terminal (or router) types"));
            }
        }
        at += count;
    }
    match (terminals, routers) {
        (Some(terminals), Some(routers)) => Ok(Lps { per_rep: at, terminals, routers, dally }),
        _ => Err(bad("it needs a modelnet_<model> terminal type and a modelnet_<model>_router type, each at least 1")),
    }
}

impl Grid {
    /// Green and black slots of a group.
    fn intra(&self, rows: u32) -> (u32, u32) {
        (self.cols * self.row_chans, if rows > 1 { rows * self.col_chans } else { 0 })
    }

    /// Per router, the slot of each network port (`usize::MAX`: unwired).
    fn slots(&self, d: &Dragonfly) -> Result<Vec<Vec<usize>>, String> {
        let err = |why: String| {
            format!("--lp-io-grid {},{},{},{}: {why}", self.cols, self.row_chans, self.col_chans, self.global)
        };
        let Some(w) = &d.wiring else {
            return Err(err("CODES's port slots are for dragonfly_custom networks read from connection files".into()));
        };
        if d.a % self.cols != 0 {
            return Err(err(format!("{} routers per group are not rows of {} columns", d.a, self.cols)));
        }
        let rows = d.a / self.cols;
        let (green, black) = self.intra(rows);
        let mut out = Vec::with_capacity(d.routers() as usize);
        for r in 0..d.routers() {
            let i = r % d.a;
            let mut slots = vec![usize::MAX; d.ports()];
            for (port, slot) in slots.iter_mut().enumerate() {
                let Some((s, _)) = d.link(r, port) else { continue };
                if d.is_global(port) {
                    let k = w.global_file_order(r, port - w.local as usize) as u32;
                    if k >= self.global {
                        return Err(err(format!("router {r} has more than {} global links", self.global)));
                    }
                    *slot = (green + black + k) as usize;
                    continue;
                }
                // The m-th of the parallel links to s goes to s's m-th channel slot.
                let m = (0..port).filter(|&q| d.link(r, q).is_some_and(|(x, _)| x == s)).count() as u32;
                let j = s % d.a;
                let (at, chans) = if i / self.cols == j / self.cols {
                    ((j % self.cols) * self.row_chans, self.row_chans)
                } else if i % self.cols == j % self.cols {
                    (green + (j / self.cols) * self.col_chans, self.col_chans)
                } else {
                    return Err(err(format!("routers {i} and {j} of a group are joined but share no row or column")));
                };
                if m >= chans {
                    return Err(err(format!("routers {i} and {j} of a group are joined by more than {chans} links")));
                }
                *slot = (at + m) as usize;
            }
            out.push(slots);
        }
        Ok(out)
    }
}

/// Writes the files into `dir` (created if needed); `topology` is the
/// run's, needed with a grid and for a `dragonfly_dally` import.
pub(crate) fn write(dir: &Path, r: &Results, layout: &Layout, topology: Option<&Topology>) -> Result<(), String> {
    let Some(t) = &r.lp_io else {
        return Err(format!(
            "--lp-io-dir {}: the run has no LP-IO figures (they are not carried by checkpoints: \
             run from the start, without `timewarp resume`)",
            dir.display()
        ));
    };
    let fail = |e: std::io::Error| format!("cannot write LP-IO files to {}: {e}", dir.display());
    let files: Vec<(&str, Vec<u8>)> = match (&layout.lps, topology) {
        (Some(l), Some(Topology::Dragonfly(d))) if l.dally => dally::files(t, l, d)?,
        (Some(l), _) if l.dally => return Err(DALLY_UNWIRED.into()),
        _ => {
            let grid = match (&layout.grid, topology) {
                (Some(g), Some(Topology::Dragonfly(d))) => Some((g, d)),
                _ => None,
            };
            let traffic =
                ports_table(t, layout, grid, "Link Traffic", &|x, o| x.port_bytes[o] as f64, &|v| format!(" {v}"))?;
            let busy = ports_table(t, layout, grid, "Busy time", &|x, o| x.port_busy[o], &|v| format!(" {v:.6}"))?;
            vec![
                ("dragonfly-msg-stats", msg_stats(t, layout)),
                ("dragonfly-msg-stats.meta", format!("{MSG_STATS_FORMAT}\n").into_bytes()),
                ("dragonfly-router-traffic", traffic),
                ("dragonfly-router-stats", busy),
            ]
        }
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).map_err(fail)?;
    }
    Ok(())
}

/// C's `%lf` of a ratio (`-nan` for 0/0, as CODES prints a terminal that received nothing).
pub(crate) fn lf_ratio(x: f64, n: u64) -> String {
    if n == 0 {
        "-nan".into()
    } else {
        format!("{:.6}", x / n as f64)
    }
}

/// One row per terminal: `%llu %u %llu %lf %ld %lf %lf %lf %lf`.
fn msg_stats(t: &LpIoTables, layout: &Layout) -> Vec<u8> {
    let mut out = Vec::new();
    for x in &t.terminals {
        // CODES starts the minimum at INT_MAX and prints it when nothing arrived.
        let min = if x.packets == 0 { f64::from(i32::MAX) } else { x.latency_min };
        let busy = if t.nic_buffer { format!("{:.6}", x.busy_ns) } else { "nan".to_string() };
        writeln!(
            out,
            "{} {} {} {} {} {} {} {:.6} {:.6}",
            layout.lps.as_ref().map_or(u64::from(x.lp), |l| l.id(l.terminals, x.terminal)),
            x.terminal,
            x.msg_bytes,
            lf_ratio(x.latency_sum, x.packets),
            x.packets,
            lf_ratio(x.routers_sum as f64, x.packets),
            busy.as_str(),
            x.latency_max,
            min
        )
        .expect("writing to memory");
    }
    out
}

pub(crate) fn router_id(layout: &Layout, lp: u32) -> u64 {
    layout.lps.as_ref().map_or(u64::from(lp), |l| l.id(l.routers, lp))
}

/// A per-port table of `dragonfly_custom` (`dragonfly-router-traffic`,
/// `-router-stats`): the format line (`what` per router port), then per
/// router `\n %llu %d %d` and a value per port, each row starting its own
/// line as CODES lays it out (no newline after the last). Ports in our order (network ports, local then
/// global, then terminal ports), or with a grid in `dragonfly_custom`'s
/// slots: green, black, global, terminal, a slot without a link of ours
/// (the router's own) 0.
fn ports_table(
    t: &LpIoTables,
    layout: &Layout,
    grid: Option<(&Grid, &Dragonfly)>,
    what: &str,
    value: &dyn Fn(&LpIoRouter, usize) -> f64,
    cell: &dyn Fn(f64) -> String,
) -> Result<Vec<u8>, String> {
    let mut out = format!("# Format <LP ID> <Group ID> <Router ID> <{what} per router port(s)>");
    let slots = match grid {
        Some((g, d)) => {
            let (green, black) = g.intra(d.a / g.cols);
            out += &format!(
                "# Router ports in the order: {green} green links, {black} black links {} global channels \n",
                g.global
            );
            Some((g.slots(d)?, (green + black + g.global) as usize, d.ports()))
        }
        None => {
            out += &format!(
                "# Router ports in the order: {} local links, {} global channels, {} terminal links \n",
                t.local_ports, t.global_ports, t.terminal_ports
            );
            None
        }
    };
    for x in &t.routers {
        let ports = x.port_bytes.len();
        let row: Vec<f64> = match &slots {
            Some((slots, net_slots, net)) => {
                let mut row = vec![0.0; net_slots + (ports - net)];
                for (port, &slot) in slots[x.lp as usize].iter().enumerate().take(*net) {
                    if let Some(s) = row.get_mut(slot) {
                        *s += value(x, port);
                    }
                }
                for port in *net..ports {
                    row[net_slots + port - net] = value(x, port);
                }
                row
            }
            None => (0..ports).map(|o| value(x, o)).collect(),
        };
        out += &format!("\n {} {} {}", router_id(layout, x.lp), x.group, x.router);
        for v in row {
            out += &cell(v);
        }
    }
    // CODES's last row ends the file: its final "\n" is printed past the
    // length it hands to lp_io_write.
    Ok(out.into_bytes())
}
