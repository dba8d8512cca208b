//! `--lp-io-dir DIR`: CODES's LP-IO output files of a dragonfly run, as
//! `dragonfly-custom.cxx` writes them at the end (`*_terminal_final`,
//! `*_router_final`), from the figures the model counted
//! (`Results::lp_io`). docs/codes.md, "Output files", lists the columns.

use std::io::Write;
use std::path::Path;

use timewarp_models::network::{LpIoTables, Results, Topology};

/// CODES's terminal format line (its `dragonfly-msg-stats.meta`); the busy
/// time, which needs a bounded NIC buffer, is not modelled: written `nan`.
const MSG_STATS_FORMAT: &str = "# Format <LP id> <Terminal ID> <Total Data Size> <Avg packet latency> \
<# Flits/Packets finished> <Avg hops> <Busy Time> <Max packet Latency> <Min packet Latency >";

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

/// Writes the files into `dir` (created if needed).
pub(crate) fn write(dir: &Path, r: &Results) -> Result<(), String> {
    let Some(t) = &r.lp_io else {
        return Err(format!(
            "--lp-io-dir {}: the run has no LP-IO figures (they are not carried by checkpoints: \
             run from the start, without `timewarp resume`)",
            dir.display()
        ));
    };
    let fail = |e: std::io::Error| format!("cannot write LP-IO files to {}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(fail)?;
    std::fs::write(dir.join("dragonfly-msg-stats"), msg_stats(t)).map_err(fail)?;
    std::fs::write(dir.join("dragonfly-msg-stats.meta"), format!("{MSG_STATS_FORMAT}\n")).map_err(fail)?;
    std::fs::write(dir.join("dragonfly-router-traffic"), router_traffic(t)).map_err(fail)?;
    Ok(())
}

/// C's `%lf` of a ratio (`-nan` for 0/0, as CODES prints a terminal that received nothing).
fn lf_ratio(x: f64, n: u64) -> String {
    if n == 0 {
        "-nan".into()
    } else {
        format!("{:.6}", x / n as f64)
    }
}

/// One row per terminal: `%llu %u %llu %lf %ld %lf %lf %lf %lf`.
fn msg_stats(t: &LpIoTables) -> Vec<u8> {
    let mut out = Vec::new();
    for x in &t.terminals {
        // CODES starts the minimum at INT_MAX and prints it when nothing arrived.
        let min = if x.packets == 0 { f64::from(i32::MAX) } else { x.latency_min };
        writeln!(
            out,
            "{} {} {} {} {} {} nan {:.6} {:.6}",
            x.lp,
            x.terminal,
            x.msg_bytes,
            lf_ratio(x.latency_sum, x.packets),
            x.packets,
            lf_ratio(x.routers_sum as f64, x.packets),
            x.latency_max,
            min
        )
        .expect("writing to memory");
    }
    out
}

/// The format line, then per router `\n %llu %d %d` and ` %lld` per port,
/// as CODES lays it out (each row starts its own line).
fn router_traffic(t: &LpIoTables) -> Vec<u8> {
    let mut out = format!(
        "# Format <LP ID> <Group ID> <Router ID> <Link Traffic per router port(s)>\
         # Router ports in the order: {} local links, {} global channels, {} terminal links \n",
        t.local_ports, t.global_ports, t.terminal_ports
    );
    for x in &t.routers {
        out += &format!("\n {} {} {}", x.lp, x.group, x.router);
        for b in &x.port_bytes {
            out += &format!(" {b}");
        }
    }
    out.push('\n');
    out.into_bytes()
}
