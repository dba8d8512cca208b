//! `--lp-io-dir` (`Network::lp_io`): the figures CODES's dragonfly
//! writes to its LP-IO files at the end of a run (`dragonfly-custom.cxx`,
//! `dragonfly_custom_terminal_final` and `_router_final`): per terminal,
//! what it received (bytes of whole messages, packets, their latency sum
//! and extremes, routers crossed), and per router port, the bytes it sent.
//!
//! Counted over the whole run, as CODES does (it has no warm-up), and only
//! when asked: the counters live in `Node::lp_io`, out of the node's
//! encoding, so a run's digest is the same with and without them. Their
//! writes are journalled like every other (node.rs's `LpIo*` entries, undone
//! in journal/); they are counted in `lp_io_count.rs`.

use serde::Serialize;

/// One router's counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LpIo {
    /// Per NIC: what it received.
    pub(crate) recv: Vec<Recv>,
    /// Bytes sent on each output link (network ports, then ejection links).
    pub(crate) sent: Vec<u64>,
    /// Per output link: time it was busy (CODES's `busy_time`), packets
    /// that found it without a credit (`stalled_chunks`), and when the open
    /// busy period began (negative: none open).
    pub(crate) busy: Vec<f64>,
    pub(crate) stalled: Vec<u64>,
    pub(crate) since: Vec<f64>,
    /// Bytes of the packets each NIC created (CODES's `total_gen_size`)
    /// and sent onto its link (the terminal's `link_traffic`).
    pub(crate) created: Vec<u64>,
    pub(crate) injected: Vec<u64>,
    /// Messages being reassembled here: (source, message, bytes so far).
    pub(crate) pending: Vec<(u32, u32, u64)>,
    /// Per NIC, with `--nic-buffer`: its packets that waited for room in
    /// the router's terminal buffer (nic_buffer.rs).
    pub(crate) stall: Vec<Stall>,
}

/// What one NIC's packets waited for the terminal buffer (CODES's
/// `busy_time` and Dally's `stalled_chunks`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Stall {
    /// Time (ns) the NIC held a packet it could have sent but for the full buffer.
    pub(crate) busy: f64,
    /// Packets that found the buffer full when they could have been sent.
    pub(crate) stalled: u64,
}

/// What one NIC received over the run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Recv {
    pub(crate) packets: u64,
    /// Bytes of the messages that arrived whole (CODES's `total_msg_size`).
    pub(crate) msg_bytes: u64,
    pub(crate) lat_sum: f64,
    pub(crate) lat_max: f64,
    pub(crate) lat_min: f64,
    /// Routers crossed, summed (CODES's `my_N_hop`: one per router a
    /// packet leaves, the source and destination routers included, so one
    /// more than its router-to-router hops).
    pub(crate) routers: u64,
}

/// The LP-IO figures of a run (`Results::lp_io`), gathered router by router.
#[derive(Clone, Debug, Default, Serialize)]
#[allow(missing_docs)]
pub struct LpIoTables {
    /// Network ports per router: local, then global (every router of a
    /// dragonfly has the same); then one terminal port per NIC.
    pub local_ports: u32,
    pub global_ports: u32,
    pub terminal_ports: u32,
    /// Routers per group.
    pub group_routers: u32,
    /// Whether the NICs had a bounded buffer (`--nic-buffer`): the busy
    /// times and stalled counts are defined only then.
    pub nic_buffer: bool,
    pub terminals: Vec<LpIoTerminal>,
    pub routers: Vec<LpIoRouter>,
}

/// One terminal's row of `dragonfly-msg-stats`.
#[derive(Clone, Debug, Serialize)]
#[allow(missing_docs)]
pub struct LpIoTerminal {
    /// Its router's LP and its node id.
    pub lp: u32,
    pub terminal: u32,
    pub msg_bytes: u64,
    pub packets: u64,
    /// Latency (ns, from creation to the last byte's arrival) summed, and
    /// its extremes (0 with no packet).
    pub latency_sum: f64,
    pub latency_max: f64,
    pub latency_min: f64,
    pub routers_sum: u64,
    /// With `--nic-buffer`: the time (ns) it held a packet that could have
    /// gone but for its router's full terminal buffer (CODES's Busy Time),
    /// and the packets that waited so (Dally's `stalled_chunks`); 0 and 0
    /// without a buffer.
    pub busy_ns: f64,
    pub stalled: u64,
    /// Bytes of the packets it created and sent onto its link.
    pub created_bytes: u64,
    pub injected_bytes: u64,
}

/// One router's row of `dragonfly-router-traffic`.
#[derive(Clone, Debug, Serialize)]
#[allow(missing_docs)]
pub struct LpIoRouter {
    pub lp: u32,
    pub group: u32,
    pub router: u32,
    /// Bytes sent per port: network ports (local, then global), then terminal ports.
    pub port_bytes: Vec<u64>,
    /// Per port likewise: time without a credit for a packet that came for
    /// it (ns, CODES's `busy_time`), and packets that found no credit
    /// (`stalled_chunks`); terminal ports always take a packet: 0.
    pub port_busy: Vec<f64>,
    pub port_stalled: Vec<u64>,
}

impl LpIo {
    /// Counters for a router with `outs` output links and `nics` NICs.
    pub(crate) fn new(outs: usize, nics: u32) -> Self {
        let nics = nics as usize;
        LpIo {
            recv: vec![Recv::default(); nics],
            sent: vec![0; outs],
            busy: vec![0.0; outs],
            stalled: vec![0; outs],
            since: vec![-1.0; outs],
            created: vec![0; nics],
            injected: vec![0; nics],
            pending: Vec::new(),
            stall: vec![Stall::default(); nics],
        }
    }
}
