//! What a CODES model does with the keys a file leaves out, read from its
//! source at a5958cf (`src/networks/model-net/*.c*`), and the parts of a
//! CODES link that become ours: every value used gets a row saying where
//! it came from.
//!
//! * **Router delay**: dragonfly.c, fattree.c 50 ns; dragonfly-custom.cxx,
//!   dragonfly-dally.cxx, dragonfly-plus.cxx 100 ns; slimfly.c 0; torus.c
//!   a fixed 50 ns (it does not read the key).
//! * **Bandwidths** (GiB/s): local 5.25, global 4.7, cn 5.25 on the
//!   dragonflies and the Slim Fly; the fat-tree's `link_bandwidth` and
//!   `cn_bandwidth` 5 bytes/ns; the torus' `link_bandwidth` 2 GiB/s.
//! * **Buffers** (bytes): `local_vc_size` 1024, `global_vc_size` 2048 on
//!   the dragonflies and the Slim Fly; the fat-tree's `vc_size` 8 packets;
//!   the torus' `buffer_size` 2048.
//! * **Chunks**: CODES moves a packet as chunks of `chunk_size` bytes
//!   (default 512; torus 128), each taking `chunk_size / bandwidth` on a
//!   link (its `cn_delay`, `local_delay`, `global_delay`, `head_delay`)
//!   before the next router adds its delay. That time becomes our link
//!   latency: a packet's head reaches each router when CODES's first chunk
//!   does, and its tail follows at the slowest link's rate, as CODES's last
//!   chunk does (ours arrives one chunk's time on that link later). CODES
//!   has no propagation delay of its own, but for dragonfly-dally.cxx: it
//!   adds the link's `*_delay` (default: the chunk's time again) after the
//!   chunk's own time on the link, so a Dally link takes both.
//! * **NIC buffer** (`cn_vc_size`): 1024 bytes; the fat-tree's 8 packets;
//!   the torus has none.
//! * **MPI protocol**: the replay's eager threshold, 8192 bytes
//!   (`model-net-mpi-replay.c`), becomes `--eager-limit`.

use super::{gib_per_s, num, Map};
use timewarp_models::network;

/// CODES's router delay of `model` in ns, and whether the model reads the key.
fn router_delay(model: &str) -> (f64, bool) {
    match model {
        "dragonfly" | "fattree" => (50.0, true),
        "torus" => (50.0, false),
        "slimfly" => (0.0, true),
        _ => (100.0, true),
    }
}

/// The source file of `model` in CODES, as the table names it.
fn source(model: &str) -> &'static str {
    match model {
        "dragonfly" => "dragonfly.c",
        "dragonfly_custom" => "dragonfly-custom.cxx",
        "dragonfly_dally" => "dragonfly-dally.cxx",
        "dragonfly_plus" => "dragonfly-plus.cxx",
        "slimfly" => "slimfly.c",
        "fattree" => "fattree.c",
        _ => "torus.c",
    }
}

/// One class of links: (bandwidth key, its default in the file's unit,
/// our bandwidth option, our latency option, CODES's explicit delay key
/// where the model reads one).
type Class = (&'static str, f64, &'static str, &'static str, Option<&'static str>);

/// Sets what the file leaves out to CODES's defaults, the router delay,
/// and the link latencies from the chunk size (see the module docs).
pub(super) fn apply(m: &mut Map<'_>, model: &str, packet: u32) -> Result<(), String> {
    let src = source(model);
    // Explicit per-link delays: dragonfly-custom.cxx, -dally.cxx and -plus.cxx read them.
    let explicit = |k: &'static str| (model.starts_with("dragonfly_")).then_some(k);
    let classes: Vec<Class> = match model {
        "fattree" => vec![
            ("cn_bandwidth", 5.0, "terminal-bandwidth", "terminal-latency", None),
            ("link_bandwidth", 5.0, "link-bandwidth", "link-latency", None),
        ],
        "torus" => vec![("link_bandwidth", 2.0, "link-bandwidth", "link-latency", None)],
        _ => vec![
            ("cn_bandwidth", 5.25, "terminal-bandwidth", "terminal-latency", explicit("cn_delay")),
            ("local_bandwidth", 5.25, "local-bandwidth", "local-latency", explicit("local_delay")),
            ("global_bandwidth", 4.7, "global-bandwidth", "global-link-latency", explicit("global_delay")),
        ],
    };
    let to_bytes_per_ns = |x: f64| if model == "fattree" { x } else { gib_per_s(x) };
    // Bandwidths: the file's (taken by the model's mapping) or CODES's default.
    let mut bandwidths = Vec::new();
    for &(key, default, long, _, _) in &classes {
        let b = match m.num(key)? {
            Some((x, _)) if x > 0.0 => to_bytes_per_ns(x),
            // fattree.c and slimfly.c take a 0 as absent.
            _ => {
                let b = to_bytes_per_ns(default);
                let unit = if model == "fattree" { "bytes/ns" } else { "GiB/s" };
                m.fixed(key, "CODES default", long, num(b), &format!("{src}: {default} {unit}"));
                b
            }
        };
        bandwidths.push(b);
    }
    // Buffers: (key, default bytes, our option).
    let buffers: &[(&str, u32, &str)] = match model {
        "fattree" => &[("vc_size", 8 * packet, "buffer-packets")],
        "torus" => &[("buffer_size", 2048, "buffer-packets")],
        _ => &[("local_vc_size", 1024, "local-buffer-packets"), ("global_vc_size", 2048, "global-buffer-packets")],
    };
    for &(key, bytes, long) in buffers {
        if m.get(key).is_none() {
            let n = (bytes / packet).max(1);
            m.fixed(
                key,
                "CODES default",
                long,
                n.to_string(),
                &format!("{src}: {bytes} bytes / {packet}-byte packets"),
            );
        }
    }
    // The NICs' buffer (`cn_vc_size`): every model but the torus has one.
    if model != "torus" && m.get("cn_vc_size").is_none() {
        let bytes = if model == "fattree" { 8 * packet } else { 1024 };
        let why = if bytes >= packet {
            format!("{src}: {bytes} bytes, {} packets of {packet}", bytes / packet)
        } else {
            format!("{src}: {bytes} bytes, rounded up to one {packet}-byte packet (our buffer holds whole packets)")
        };
        m.fixed("cn_vc_size", "CODES default", "nic-buffer", bytes.max(packet).to_string(), &why);
    }
    // MPI's protocol: CODES's replay (model-net-mpi-replay.c) sends a
    // message of EAGER_THRESHOLD bytes or more by rendezvous; its
    // `--eager_threshold` is a command-line option, not a key.
    m.fixed(
        "",
        "CODES default",
        "eager-limit",
        network::CODES_EAGER_LIMIT.to_string(),
        "model-net-mpi-replay.c: eager below 8192 bytes, rendezvous from 8192 (its --eager_threshold)",
    );
    // The routers: every model but the torus moves a chunk into its output
    // port's queue as it arrives, while that port's `vc_occupancy` (queue,
    // link and next buffer) is below the port's buffer, and sends the
    // credit back then; otherwise it waits at the input.
    if model != "torus" {
        m.fixed(
            "",
            "CODES default",
            "switch",
            "codes".into(),
            &format!("{src}: a chunk enters its output port's queue on arrival while the port's occupancy is below its buffer, and its credit goes back then"),
        );
    }
    // The router delay.
    let (delay, read) = router_delay(model);
    match m.num("router_delay")? {
        Some((d, e)) if read => m.set("router_delay", Some(e), "router-delay", num(d), "taken", "ns"),
        Some(_) => m.fixed(
            "router_delay",
            "CODES default",
            "router-delay",
            num(delay),
            &format!("{src} does not read the key: its router delay is a fixed {delay} ns"),
        ),
        None => m.fixed("router_delay", "CODES default", "router-delay", num(delay), &format!("{src}: {delay} ns")),
    }
    // The chunk, and the link latencies it gives.
    let default_chunk = if model == "torus" { 128 } else { 512 };
    let (chunk, from) = match m.whole("chunk_size")? {
        Some((c, _)) if c > 0 => (c, "file"),
        _ => (default_chunk, "CODES default"),
    };
    let shown = m.get("chunk_size").map_or("(absent)".to_string(), |e| e.values.join(","));
    let moved = chunk.min(packet);
    m.used.push("chunk_size".into());
    m.out.rows.push(super::Row {
        key: "chunk_size".into(),
        value: shown,
        from,
        status: "converted",
        note: format!(
            "{chunk}-byte chunks: each takes {moved} bytes / bandwidth on a link, our link latency below \
             (timewarp moves whole packets, virtual cut-through)"
        ),
        option: None,
    });
    for (i, &(_, _, _, long, delay_key)) in classes.iter().enumerate() {
        let bw = bandwidths[i];
        // dragonfly-dally.cxx puts a chunk on the link (its bytes / bandwidth)
        // and then adds the link's delay as propagation, by default a whole
        // chunk's time again; the other models take the delay as the chunk's
        // whole time on the link.
        let transmission = (model == "dragonfly_dally").then(|| moved as f64 / bw);
        if let Some(key) = delay_key {
            if let Some((d, e)) = m.num(key)? {
                match transmission {
                    None => m.set(key, Some(e), long, num(d), "taken", "ns, CODES's delay of a chunk on this link"),
                    Some(t) => m.set(
                        key,
                        Some(e),
                        long,
                        num(t + d),
                        "converted",
                        &format!("{src}: the chunk's {} ns on the link, then this delay (ns) as propagation", num(t)),
                    ),
                }
                continue;
            }
        }
        let l = moved as f64 / bw;
        let (l, why) = match transmission {
            None => (l, format!("{moved} bytes / {} bytes/ns: CODES's time of a chunk on the link", num(bw))),
            Some(t) => (
                t + chunk as f64 / bw,
                format!(
                    "{src}: {moved} bytes / {} bytes/ns on the link, then its default propagation delay, \
                     {chunk} bytes / the same bandwidth",
                    num(bw)
                ),
            ),
        };
        m.fixed(delay_key.unwrap_or(""), "CODES default", long, num(l), &why);
    }
    if model == "torus" {
        m.out.rows.push(super::Row {
            key: String::new(),
            value: String::new(),
            from: "timewarp",
            status: "ours",
            note: "--terminal-latency, --terminal-bandwidth as the torus links: CODES's torus has no terminal \
                   link (its NIC hands a packet over 10 ns per byte, a fixed cn_delay)"
                .into(),
            option: None,
        });
    }
    // Virtual channels: ours are one per hop of the longest route.
    if m.out.options.iter().any(|o| o.0 == "vcs") {
        return Ok(());
    }
    let vcs = match model {
        "dragonfly" => "3 virtual channels",
        "dragonfly_custom" | "dragonfly_dally" => "4 to 10 virtual channels by routing",
        "slimfly" => "num_vcs (4) virtual channels",
        "fattree" => "1 virtual channel",
        _ => "1 virtual channel per direction",
    };
    m.out.rows.push(super::Row {
        key: String::new(),
        value: String::new(),
        from: "timewarp",
        status: "ours",
        note: format!(
            "--vcs: timewarp's default for the routing (one per hop against deadlock); CODES uses {vcs} (--vcs N \
             sets it)"
        ),
        option: None,
    });
    Ok(())
}
