//! `--lp-io-dir` for a `dragonfly_dally` import: the two files CODES's
//! Dally model writes at the end of a run (`dragonfly-dally.cxx`,
//! `dragonfly_dally_terminal_final` and `_router_final`) instead of
//! `dragonfly_custom`'s: `dragonfly-link-stats` (per link: bytes, busy
//! time, stalled chunks) and `dragonfly-cn-stats` (per terminal).
//! docs/codes.md, "Output files", lists the columns.

use std::fmt::Write;

use timewarp_models::network::{Dragonfly, LpIoRouter, LpIoTables, Wiring};

use super::{lf_ratio, Lps};

const LINK_FORMAT: &str = "# Format <source_id> <source_type> <dest_id> < dest_type>  <link_type> \
<link_traffic> <link_saturation> <stalled_chunks>\n";

const CN_FORMAT: &str = "# Format <LP id> <Terminal ID> <Total Data Sent> <Total Data Received> \
<Avg packet latency> <Max packet Latency> <Min packet Latency> <# Packets finished> <Avg Hops> \
<Avg Busy Time (over rails)>\n";

/// The files, by name.
pub(crate) fn files(t: &LpIoTables, l: &Lps, d: &Dragonfly) -> Result<Vec<(&'static str, Vec<u8>)>, String> {
    let Some(w) = &d.wiring else { return Err(super::DALLY_UNWIRED.into()) };
    // CODES's lp-io concatenates each LP's text in LP-id order (one rank).
    let mut link: Vec<(u64, String)> = Vec::new();
    let mut cn = String::new();
    for x in &t.terminals {
        let mut s = String::new();
        if x.terminal == 0 {
            s += LINK_FORMAT;
        }
        // Busy time and stalled chunks are the NIC buffer's (--nic-buffer);
        // without one, nan: never a made-up 0.
        let (busy, stalled) = match t.nic_buffer {
            true => (format!("{:.6}", x.busy_ns), x.stalled.to_string()),
            false => ("nan".to_string(), "nan".to_string()),
        };
        let _ = write!(s, "\n{} T {} R CN {} {busy} {stalled}", x.terminal, x.lp, x.injected_bytes);
        link.push((l.terminal(x.terminal), s));
        if x.terminal == 0 {
            cn += CN_FORMAT;
        }
        let min = if x.packets == 0 { f64::from(i32::MAX) } else { x.latency_min };
        // The last column: the busy time averaged over rails (one here).
        let _ = writeln!(
            cn,
            "{} {} {} {} {} {:.6} {:.6} {} {} {busy}",
            l.terminal(x.terminal),
            x.terminal,
            x.created_bytes,
            x.msg_bytes,
            lf_ratio(x.latency_sum, x.packets),
            x.latency_max,
            min,
            x.packets,
            lf_ratio(x.routers_sum as f64, x.packets),
        );
    }
    for x in &t.routers {
        link.push((l.router(x.lp), router_rows(x, d, w)));
    }
    link.sort_by_key(|e| e.0);
    let link: String = link.into_iter().map(|e| e.1).collect();
    Ok(vec![("dragonfly-link-stats", link.into_bytes()), ("dragonfly-cn-stats", cn.into_bytes())])
}

/// One router's rows: `R R L` for routers `0..=intra_grp_radix` of its
/// group but itself, `R R G` per global link, `R T CN` per terminal.
fn router_rows(x: &LpIoRouter, d: &Dragonfly, w: &Wiring) -> String {
    let r = x.lp;
    let local = w.local as usize;
    let row = |s: &mut String, dest: u32, kind: &str, port: Option<usize>| {
        let (b, busy, st) = port.map_or((0, 0.0, 0), |o| (x.port_bytes[o], x.port_busy[o], x.port_stalled[o]));
        let _ = write!(s, "\n{r} R {dest} {kind} {b} {busy:.6} {st}");
    };
    let mut s = String::new();
    // CODES prints, for d = 0 ..= intra_grp_radix but its own index, the
    // counters of its port d under the name of router d of the group: its
    // local ports are its intra-file records in order, and port
    // intra_grp_radix is its first global link in the inter file.
    let me = r % d.a;
    for k in 0..=local {
        if k as u32 == me {
            continue;
        }
        let port = if k < local {
            w.local_file_port(r, k)
        } else {
            (0..w.global as usize)
                .find(|&p| w.link(r, local + p).is_some() && w.global_file_order(r, p) == 0)
                .map(|p| local + p)
        };
        row(&mut s, r / d.a * d.a + k as u32, "R L", port);
    }
    // Global links by far router, parallel ones in file order: ours.
    for p in local..d.ports() {
        if let Some((far, _)) = w.link(r, p) {
            row(&mut s, far, "R G", Some(p));
        }
    }
    for (nic, o) in (d.ports()..x.port_bytes.len()).enumerate() {
        row(&mut s, r * d.p + nic as u32, "T CN", Some(o));
    }
    s
}
