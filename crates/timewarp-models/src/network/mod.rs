//! Interconnection networks: packets, credit-based virtual cut-through
//! switches and topologies (direct: torus, mesh, hypercube, dragonfly;
//! indirect: fat-tree) under
//! synthetic traffic, after BigNetSim (Wilmarth, Zheng and Kalé) and the
//! CODES network models. Time unit: nanoseconds; sizes in bytes.
//!
//! # Entities and LPs
//!
//! One LP per router, with its NICs: one on the torus, mesh and hypercube
//! (a node is a router and its NIC), `p` on a dragonfly (node `n` is NIC
//! `n mod p` of router `n / p`; each NIC has its own injection queue,
//! injection link and ejection port), `k` on a fat-tree's leaf switches and
//! none on its other switches (leaves are numbered first, so node `n` is
//! again NIC `n mod k` of switch `n / k`; see [`Topology::nics`]). The NIC splits each message into
//! packets of at most `packet_bytes` and queues them for injection (its
//! source queue is unbounded); its receive side reassembles messages.
//! Routers have one port per link (torus and mesh: up and down each
//! dimension; hypercube: one per dimension) plus the NIC's, and on every
//! network input port `vcs` virtual channels of `buffer_packets` packets.
//!
//! # Flow control: virtual cut-through with credits
//!
//! A router forwards a packet as soon as its head has been routed (the
//! router delay after the head arrived), the output link is free and the
//! downstream virtual channel has a free packet buffer, for which it holds a
//! credit. The packet's tail follows its head by the serialisation time
//! `S = bytes / link_bandwidth`, which is how long the link stays busy. When
//! the tail has left a buffer, a credit goes back upstream (arriving one link
//! latency later). No packet is ever dropped and no buffer ever holds more
//! packets than its capacity (a push onto a full buffer or a credit beyond
//! it is a flow-control bug and stops the run, through `Ctx::fail`: in an
//! optimistic run such a state can be seen speculatively and is then undone).
//!
//! * **Input-buffered switch**: a packet leaves its input buffer directly
//!   onto the output link. Only the head of each virtual channel competes
//!   for outputs (head-of-line blocking). Among packets that can leave on the
//!   same output at the same instant the one that became ready first wins
//!   (ties: lower input port, then lower virtual channel).
//! * **Output-buffered switch**: the crossbar has infinite speed-up. A packet
//!   moves from its input buffer into a `buffer_packets` output buffer of its
//!   output port (virtual channel of the class its route needs) as soon as
//!   that has room, freeing its input buffer; output buffers then compete
//!   for the link the same way.
//!
//! # Routing and deadlock freedom
//!
//! Dimension-order routing (the lowest unfinished dimension first; on a torus
//! ring the shorter way round, and half-way round up from even coordinates
//! and down from odd ones, so both directions carry the same load; on a hypercube e-cube order).
//! Tori need two virtual-channel classes against deadlock on the rings:
//! dateline routing, class 0 until the packet crosses its dimension's
//! wrap-around link, class 1 after it, class 0 again in the next dimension;
//! virtual channel `v` belongs to class `v mod 2` (so a torus needs `vcs ≥ 2`).
//! Within its allowed channels a packet takes the one with the most credits
//! (lowest index on a tie).
//!
//! # Dragonfly
//!
//! Groups of `a` routers joined all-to-all by local links, `h` global links
//! per router, `g` groups (the maximal `a·h + 1` by default); the link
//! arrangement is [`Dragonfly`]'s. Global links have their own latency
//! ([`Network::global_link_latency`]); local, injection and ejection links
//! have `link_latency`. Routing ([`Routing`]):
//!
//! * **minimal**: to the router of the source group holding the global link
//!   to the destination's group (a local hop unless it is the source), the
//!   global hop, a local hop to the destination router unless the link
//!   landed on it: at most local–global–local;
//! * **Valiant**: minimally to an intermediate group drawn uniformly from the
//!   groups other than the source's and the destination's (drawn per
//!   message, at its creation), then minimally to the destination: at most
//!   local–global–local–global–local; packets within one group go minimally;
//! * **UGAL-L**: when a packet becomes the head of its injection queue, the
//!   source router compares `q_min · H_min` with `q_val · H_val` (`q`: the
//!   occupancy of the route's first output — downstream buffer slots
//!   without a credit, heads waiting for the port, output-buffer packets;
//!   `H`: the route's hops) and goes minimally if it is not larger, else by
//!   the Valiant route through the message's intermediate group.
//!
//! Deadlock freedom: a packet's `k`-th router-to-router hop (from 0) uses
//! virtual channel `k`, whatever the link class, so every packet climbs the
//! channels strictly and the channel dependency graph has no cycle. Minimal
//! routing needs `vcs ≥ 3`, Valiant and UGAL `vcs ≥ 5`; channels above the
//! longest route's hop count are unused. The zero-load latency of a route of
//! `l` local and `g` global hops is `(l + 2) L + g Lg + (l + g + 1) R + S`
//! ([`Network::zero_load_latency_dragonfly`]).
//!
//! # Fat-tree
//!
//! Two or three levels of switches of radix `2k` ([`FatTree`] has the
//! construction: pods of `k` leaves and `k` aggregation switches, core
//! groups, pruning by fewer nodes and fewer up links into the top). Every
//! link (injection and ejection included) has `link_latency`. Routing:
//! up to the lowest common ancestor of source and destination leaf, then
//! the only way down (among parallel links, the one the destination names):
//!
//! * **updown**: the up port named by a digit of the destination (D-mod-k);
//! * **updown-adaptive**: at each up hop the up port of least occupancy (as
//!   UGAL measures it; a tie goes to updown's port, then the lowest), chosen
//!   when the head arrives (at the source leaf: when it becomes the head of
//!   its injection queue).
//!
//! Deadlock freedom: every route climbs and then only descends, so a
//! channel dependency always goes from an up channel to a higher one, or
//! from a down channel to a lower one, or from up to down: no cycle, with
//! any number of virtual channels (a packet may take any; one suffices).
//! A route of `h` switch-to-switch hops (`h = 2 ·` the level of the lowest
//! common ancestor) has the zero-load latency `T0(h)` below.
//!
//! # Timing and the zero-load latency
//!
//! With link latency `L`, router delay `R` and serialisation time `S` of one
//! packet, a packet whose message is created at `t` reaches its first
//! router's output stage at `t + L + R` (injection link, routing), each hop
//! adds `L + R`, and the ejection link delivers the last byte `L + S` after
//! the head left the destination router. A single packet in an empty network
//! crossing `h` router-to-router links therefore has latency
//!
//! ```text
//!     T0(h) = (h + 2) L + (h + 1) R + S
//! ```
//!
//! ([`Network::zero_load_latency`]); packet `j` of a message of `n` follows
//! packet `j − 1` by its serialisation time on the injection link, so the
//! whole message takes `(h + 2) L + (h + 1) R + Σ S_j` at zero load.
//! Packet latency is measured from the creation of its message (source
//! queueing included) to its last byte at the destination NIC.
//!
//! # Link classes
//!
//! Links have classes ([`Network::classes`], [`Network::link_class`]):
//! terminal (injection and ejection), a dragonfly's local and global links,
//! a fat-tree's leaf–level-1 and level-1–level-2 links, each with its own
//! bandwidth, latency and buffer size (the network-wide values by default).
//! Above, `L`, `S` and `buffer_packets` are then the class's. A packet's
//! tail follows its head by its serialisation time on the slowest link it
//! has crossed, that one included (`lag`: cut-through cannot
//! send the tail before a slow link upstream has delivered it), so the
//! zero-load latency is `2 Lt + Σ L_i + (h + 1) R + bytes / min B`
//! ([`Network::zero_load_latency_route`]).
//!
//! # Traffic and measurement
//!
//! Each node (NIC) creates messages as a Poisson process (or periodically,
//! with a random phase) at the rate that offers `load` times its injection
//! link's bandwidth, to destinations drawn by the [`Traffic`] pattern. Statistics
//! cover packets created in `[warmup, end)` and delivered by `end`
//! (latency, hops) and bytes delivered in `[warmup, end)` (accepted
//! throughput, as a fraction of injection bandwidth per node).
//!
//! # Trace-driven workloads
//!
//! Instead of traffic, each node can run one rank of an MPI-like program
//! ([`Network::workload`]: read from trace files (text, or SST DUMPI's
//! binary traces: dumpi/) or generated, collectives expanded into
//! point-to-point messages; workload.rs). A rank's messages go through its
//! NIC like any other; sends are eager (complete when queued), receives
//! complete when the whole message is here, matching is by (source, tag),
//! either possibly a wildcard, in the source's send order. The ranks' state lives in the
//! node (rank.rs); docs/network.md has the format and semantics.
//!
//! # Events
//!
//! `Generate` (a new message at one NIC, self), `Arrive` (a packet's head at the next
//! router), `Credit` (a buffer slot freed downstream), `Wake` (an output link
//! becomes free while packets wait for it, self), `Ready` (the next injected
//! packet reaches the router, self; multi-packet messages only) and
//! `Deliver` (last byte at the destination NIC, self), and with a trace
//! workload `Step` (a rank starts or ends a compute, self). At zero load a hop
//! costs two events (arrive, credit). Every event between nodes has a delay
//! of at least `L` (a dragonfly: the smaller of `L` and the global link
//! latency): the model's lookahead, so conservative windows work.
//! Events within a node may have any delay (zero included). Rollback is by
//! state saving: a node's buffers live in one flat array.

mod dragonfly;
#[cfg(test)]
mod dragonfly_tests;
mod dumpi;
mod fattree;
#[cfg(test)]
mod fattree_tests;
mod histogram;
mod journal;
mod node;
mod rank;
#[cfg(test)]
mod tests;
mod topology;
mod traffic;
mod workload;
#[cfg(test)]
mod workload_tests;

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::str::FromStr;
use std::sync::Arc;
use timewarp::{Ctx, LpId, Model, Random, Rollback};

pub use dragonfly::{Dragonfly, NO_VIA};
pub use dumpi::{DumpiOptions, DumpiTime};
pub use fattree::{FatTree, Hop};
pub use histogram::Histogram;
pub use journal::Undo;
pub use node::{Header, Node, Packet};
pub use rank::RankResult;
pub use topology::{Step, Topology};
pub use traffic::Traffic;
pub use workload::{
    grid3, matches, read_mapping, trace_file, Kind, Mapping, Op, SendInfo, Workload, ANY_SOURCE, ANY_TAG,
    COLLECTIVE_TAG, NO_RANK,
};

use journal::{Journal, Saved};
use node::{Counts, Link, Nic, Queues, NO_DIM};

/// Where a switch buffers packets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Switch {
    /// Buffers at the inputs only (head-of-line blocking).
    #[default]
    InputBuffered,
    /// Buffers at the inputs and the outputs, infinite crossbar speed-up.
    OutputBuffered,
}

impl FromStr for Switch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "input-buffered" | "input" => Ok(Switch::InputBuffered),
            "output-buffered" | "output" => Ok(Switch::OutputBuffered),
            _ => Err(format!("unknown switch '{s}' (input-buffered, output-buffered)")),
        }
    }
}

/// How a router picks a packet's output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Routing {
    /// Dimension order (e-cube on a hypercube), dateline classes on tori.
    #[default]
    DimensionOrder,
    /// Minimal adaptive: any productive port on an adaptive virtual
    /// channel, ranked by the [`Selection`] measure; the
    /// dimension-order escape channels when no adaptive one is free (Duato).
    Adaptive,
    /// Dragonfly: minimal, local–global–local at most.
    Minimal,
    /// Dragonfly: Valiant, minimally to a random intermediate group, then
    /// minimally to the destination.
    Valiant,
    /// Dragonfly: UGAL-L, minimal or Valiant chosen at the source router by
    /// the occupancy of the two first outputs times the two routes' hops.
    Ugal,
    /// Fat-tree: up to the lowest common ancestor on the up port named by a
    /// digit of the destination, then the unique way down.
    UpDown,
    /// Fat-tree: up on the least occupied up port (on a tie updown's, then
    /// the lowest), then down.
    UpDownAdaptive,
}

impl Routing {
    /// The name used on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Routing::DimensionOrder => "dimension-order",
            Routing::Adaptive => "adaptive",
            Routing::Minimal => "minimal",
            Routing::Valiant => "valiant",
            Routing::Ugal => "ugal",
            Routing::UpDown => "updown",
            Routing::UpDownAdaptive => "updown-adaptive",
        }
    }
}

impl FromStr for Routing {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "dimension-order" | "dor" | "e-cube" => Ok(Routing::DimensionOrder),
            "adaptive" => Ok(Routing::Adaptive),
            "minimal" => Ok(Routing::Minimal),
            "valiant" => Ok(Routing::Valiant),
            "ugal" | "ugal-l" => Ok(Routing::Ugal),
            "updown" | "up-down" => Ok(Routing::UpDown),
            "updown-adaptive" => Ok(Routing::UpDownAdaptive),
            _ => Err(format!(
                "unknown routing '{s}' (dimension-order, adaptive, minimal, valiant, ugal, updown, updown-adaptive)"
            )),
        }
    }
}

/// How adaptive routing ranks the free outputs of a packet (BigNetSim's two models).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Selection {
    /// Load model: the neighbour's load, as the free buffers behind the output.
    #[default]
    Load,
    /// Contention model: the fewest packets at this router contending for the output.
    Contention,
}

impl FromStr for Selection {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "load" => Ok(Selection::Load),
            "contention" => Ok(Selection::Contention),
            _ => Err(format!("unknown selection '{s}' (load, contention)")),
        }
    }
}

/// How messages are created at each node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Exponential gaps (a Poisson process).
    #[default]
    Poisson,
    /// Equal gaps, each node with a random phase.
    Periodic,
}

impl FromStr for Arrivals {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "poisson" => Ok(Arrivals::Poisson),
            "periodic" => Ok(Arrivals::Periodic),
            _ => Err(format!("unknown arrival process '{s}' (poisson, periodic)")),
        }
    }
}

/// One class of links' own parameters; `None`: the network-wide default
/// (`link_bandwidth`, `link_latency`, `buffer_packets`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkClass {
    /// Bytes per ns.
    pub bandwidth: Option<f64>,
    /// ns from sender to receiver.
    pub latency: Option<f64>,
    /// Packets per virtual-channel buffer at the receiving end (terminal
    /// links have none: the NIC's source queue is unbounded and it always
    /// takes a packet).
    pub buffer_packets: Option<u32>,
}

/// The network model's parameters (see the module docs for the semantics).
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// The network's shape.
    pub topology: Topology,
    /// Where messages go.
    pub traffic: Traffic,
    /// When messages are created.
    pub arrivals: Arrivals,
    /// Offered load per node, as a fraction of the injection link's
    /// bandwidth (above 1 only with [`Network::messages`]: the source
    /// queues then grow, but the run still ends).
    pub load: f64,
    /// Messages each node creates, then stops (`None`: until the end).
    pub messages: Option<u32>,
    /// Bytes per message.
    pub message_bytes: u32,
    /// Most bytes per packet (a message is split into packets).
    pub packet_bytes: u32,
    /// Bytes per ns on every link.
    pub link_bandwidth: f64,
    /// ns from a link's sender to its receiver (a dragonfly: local links, injection and ejection).
    pub link_latency: f64,
    /// ns along a dragonfly's global links.
    pub global_link_latency: f64,
    /// ns from a head's arrival at a router to its earliest departure.
    pub router_delay: f64,
    /// Virtual channels per port.
    pub vcs: u32,
    /// Packets per virtual-channel buffer.
    pub buffer_packets: u32,
    /// Per-link-class overrides of `link_bandwidth`, `link_latency` and
    /// `buffer_packets`, by [`LinkClass`] index: 0 terminal (injection and
    /// ejection), 1 a dragonfly's local links or a fat-tree's leaf–level-1
    /// links, 2 a dragonfly's global links or a fat-tree's level-1–level-2
    /// links (a dragonfly's global latency is `global_link_latency`).
    pub classes: [LinkClass; 3],
    /// Where switches buffer packets.
    pub switch: Switch,
    /// How routers choose outputs.
    pub routing: Routing,
    /// How adaptive routing ranks free outputs.
    pub selection: Selection,
    /// Statistics cover `[warmup, end)`.
    pub warmup: f64,
    /// Instead of traffic: one message from `.0` to `.1` at time 0 (tests, zero-load latency).
    pub probe: Option<(u32, u32)>,
    /// Report every link's figures in [`Results::links`].
    pub link_stats: bool,
    /// Instead of traffic: ranks running these programs (placed with
    /// [`Workload::place`]); see docs/network.md, "Trace-driven workloads".
    pub workload: Option<Arc<Workload>>,
}

impl Default for Network {
    fn default() -> Self {
        Network {
            topology: Topology::Torus(vec![16, 16]),
            traffic: Traffic::Uniform,
            arrivals: Arrivals::Poisson,
            load: 0.3,
            messages: None,
            message_bytes: 256,
            packet_bytes: 256,
            link_bandwidth: 4.0,
            link_latency: 8.0,
            global_link_latency: 8.0,
            router_delay: 8.0,
            vcs: 2,
            buffer_packets: 4,
            classes: [LinkClass::default(); 3],
            switch: Switch::InputBuffered,
            routing: Routing::DimensionOrder,
            selection: Selection::Load,
            warmup: 0.0,
            probe: None,
            link_stats: false,
            workload: None,
        }
    }
}

/// A network event.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub enum Msg {
    /// Create a message at NIC `nic` (and schedule its next).
    #[allow(missing_docs)]
    Generate { nic: u8 },
    /// A packet's head reaches this router's input `port`, virtual channel `vc`.
    #[allow(missing_docs)]
    Arrive { pkt: Header, port: u8, vc: u8 },
    /// A buffer slot freed behind this router's output `port`, virtual channel `vc`.
    #[allow(missing_docs)]
    Credit { port: u8, vc: u8 },
    /// Output link `port` is free again.
    #[allow(missing_docs)]
    Wake { port: u8 },
    /// The next packet in NIC `nic`'s injection queue reaches the router.
    #[allow(missing_docs)]
    Ready { nic: u8 },
    /// A packet's last byte reaches this NIC.
    #[allow(missing_docs)]
    Deliver { pkt: Header },
    /// NIC `nic`'s rank starts or ends a compute (trace workloads).
    #[allow(missing_docs)]
    Step { nic: u8 },
}

/// What a run reports (`model_results`; the names say what each is, the
/// module docs how it is measured).
#[derive(Clone, Debug, Default, Serialize)]
#[allow(missing_docs)]
pub struct Results {
    pub topology: String,
    pub nodes: u32,
    pub injected_packets: u64,
    pub delivered_packets: u64,
    /// Packets in buffers or on links at the end (`injected = delivered + in flight`).
    pub in_flight_packets: u64,
    pub delivered_messages: u64,
    /// Packet latency (ns) over packets created in the window and delivered.
    pub latency_mean: f64,
    pub latency_p50: f64,
    pub latency_p99: f64,
    pub latency_max: f64,
    pub message_latency_mean: f64,
    pub hops_mean: f64,
    /// Standard deviation of the hops of measured packets.
    pub hops_std: f64,
    /// Measured packets (the sample behind the latency and hop figures).
    pub measured_packets: u64,
    /// Configured offered load, and what the sources actually offered in the window.
    pub offered_load: f64,
    pub measured_offered_load: f64,
    /// Delivered bytes per node per ns in the window, over the injection bandwidth.
    pub accepted_throughput: f64,
    /// Length of the measured window in ns: from `warmup` to the end time,
    /// or, for a finite workload (a trace or generated one, or
    /// `messages`), to the last delivery: a rate over a run's end time
    /// would count the idle time after the work was done.
    pub window_ns: f64,
    pub events_per_hop: f64,
    /// Most packets one input (output) buffer ever held, and its capacity.
    pub max_input_buffer: u16,
    pub max_output_buffer: u16,
    pub buffer_packets: u32,
    /// Most credits ever held for one downstream buffer (never above its capacity).
    pub max_credits: u16,
    /// Busiest network link's busy fraction in the window.
    pub max_link_utilisation: f64,
    /// Every network link, when [`Network::link_stats`] is on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkStat>,
    /// Trace workloads: when the last rank finished (0 if one did not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_time_ns: Option<f64>,
    /// Trace workloads: every rank's figures, by rank.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<RankResult>,
    /// Trace workloads: notes on how the trace was read (DUMPI: the calls
    /// not modelled), for the end of the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    #[serde(skip)]
    acc: Sums,
}

/// One link's figures.
#[derive(Clone, Debug, Serialize)]
#[allow(missing_docs)]
pub struct LinkStat {
    /// Sending node, its output port, receiving node.
    pub node: u32,
    pub port: u32,
    pub neighbour: u32,
    /// Packets sent over the whole run.
    pub packets: u64,
    /// Fraction of the measured window the link was busy.
    pub busy: f64,
}

/// Sums over nodes behind the derived figures of [`Results`].
#[derive(Clone, Debug, Default)]
struct Sums {
    hist: Histogram,
    lat_sum: f64,
    lat_min: f64,
    msg_lat_sum: f64,
    events: u64,
    hops: u64,
    hop_sum: u64,
    hop_sq: u64,
    delivered_bytes: u64,
    injected_bytes: u64,
    /// The latest delivery of all nodes, and the busiest link's busy time (ns).
    last_delivery: f64,
    max_busy: f64,
}

impl Network {
    /// Checks every parameter; the message names the option to fix.
    pub fn validate(&self) -> Result<(), String> {
        self.topology.validate()?;
        self.traffic.validate(self.topology.nodes())?;
        let pos = |v: f64, what: &str| {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(format!("{what} must be positive and finite, got {v}"))
            }
        };
        pos(self.link_bandwidth, "--link-bandwidth")?;
        if !(self.link_latency >= 0.0 && self.link_latency.is_finite()) {
            return Err(format!("--link-latency must be >= 0 and finite, got {}", self.link_latency));
        }
        if !(self.global_link_latency >= 0.0 && self.global_link_latency.is_finite()) {
            return Err(format!("--global-link-latency must be >= 0 and finite, got {}", self.global_link_latency));
        }
        self.validate_dragonfly()?;
        self.validate_classes()?;
        if !(self.router_delay >= 0.0 && self.router_delay.is_finite()) {
            return Err(format!("--router-delay must be >= 0 and finite, got {}", self.router_delay));
        }
        if !(self.load >= 0.0 && self.load.is_finite()) {
            return Err(format!("--load must be >= 0 and finite, got {}", self.load));
        }
        if self.load > 1.0 && self.messages.is_none() {
            return Err(format!(
                "--load {} offers more than the injection link can carry (1.0 is its full bandwidth), \
                 so the source queues would grow without bound: lower the load, or bound the run with --messages N",
                self.load
            ));
        }
        if self.messages == Some(0) {
            return Err("--messages must be at least 1 (leave it out for no limit)".into());
        }
        if self.packet_bytes == 0 || self.message_bytes == 0 {
            return Err("--packet-bytes and --message-bytes must be at least 1".into());
        }
        if self.packet_bytes > u16::MAX as u32 {
            return Err(format!(
                "--packet-bytes may be at most 65,535 (a packet header carries its size in 16 bits), got {}; \
                 a larger --message-bytes is split into packets",
                self.packet_bytes
            ));
        }
        if self.message_bytes.div_ceil(self.packet_bytes) > 1 << 20 {
            return Err("a message may have at most 2^20 packets (--message-bytes / --packet-bytes)".into());
        }
        if !(1..=64).contains(&self.vcs) {
            return Err(format!("--vcs must be between 1 and 64, got {}", self.vcs));
        }
        if matches!(self.topology, Topology::Torus(_)) && self.vcs < 2 {
            return Err(
                "a torus needs --vcs 2 or more: dimension-order routing on rings deadlocks without the two dateline classes"
                    .into(),
            );
        }
        if self.routing == Routing::Adaptive && self.vcs as usize <= self.escape_vcs() {
            return Err(format!(
                "adaptive routing needs --vcs {} or more: {} escape channel(s) for dimension-order routing plus at least one adaptive",
                self.escape_vcs() + 1,
                self.escape_vcs()
            ));
        }
        if !(1..=4096).contains(&self.buffer_packets) {
            return Err(format!("--buffer-packets must be between 1 and 4096, got {}", self.buffer_packets));
        }
        // A router's buffers are one pool addressed by u16 (node.rs, `Queues`).
        let buffered = (self.ports() as u64 + 1) * self.vcs as u64 * self.max_buffer() as u64;
        if buffered >= u16::MAX as u64 {
            return Err(format!(
                "a router of this topology would buffer up to {buffered} packets ({} ports + NIC × --vcs {} × \
                 --buffer-packets {}); at most 65,534: lower --vcs or --buffer-packets",
                self.ports(),
                self.vcs,
                self.buffer_packets
            ));
        }
        if !(self.warmup >= 0.0 && self.warmup.is_finite()) {
            return Err(format!("--warmup must be >= 0 and finite, got {}", self.warmup));
        }
        if let Some((a, b)) = self.probe {
            let n = self.topology.nodes();
            if a >= n || b >= n {
                return Err(format!("probe {a} -> {b} names a node outside 0..{n}"));
            }
        }
        if let Some(w) = &self.workload {
            w.check(self.topology.nodes(), self.packet_bytes)?;
        }
        Ok(())
    }

    /// The option that sets `what` (bandwidth, latency, buffer-packets) of link class `c` here.
    fn class_option(&self, c: usize, what: &str) -> String {
        match (&self.topology, c) {
            (_, 0) => format!("--terminal-{what}"),
            (Topology::Dragonfly(_), 2) if what == "latency" => "--global-link-latency".into(),
            (Topology::Dragonfly(_), 1) => format!("--local-{what}"),
            (Topology::Dragonfly(_), _) => format!("--global-{what}"),
            (_, c) => format!("--level-{what} (entry {c})"),
        }
    }

    /// The per-class parameters: in range, and only for classes this topology has.
    fn validate_classes(&self) -> Result<(), String> {
        let classes = match self.topology {
            Topology::Dragonfly(_) => 3,
            Topology::FatTree(f) => f.levels as usize,
            _ => 1,
        };
        if self.classes[0].buffer_packets.is_some() {
            return Err("terminal links have no buffer to size: the NIC's source queue is unbounded and it always \
                         takes a packet"
                .into());
        }
        for (c, k) in self.classes.iter().enumerate() {
            if c >= classes && *k != LinkClass::default() {
                return Err(match self.topology {
                    Topology::FatTree(_) => format!(
                        "--level-bandwidth, --level-latency and --level-buffer-packets take one entry per level of \
                         links between switches: {} on a {}-level fat-tree",
                        classes - 1,
                        classes
                    ),
                    _ => format!(
                        "per-class link options are for --topology dragonfly (--local-*, --global-*) and fattree \
                         (--level-*); a {} has one class of network links: use --link-bandwidth, --link-latency, \
                         --buffer-packets",
                        self.topology.name()
                    ),
                });
            }
            if let Some(b) = k.bandwidth.filter(|b| !(*b > 0.0 && b.is_finite())) {
                return Err(format!("{} must be positive and finite, got {b}", self.class_option(c, "bandwidth")));
            }
            if let Some(l) = k.latency.filter(|l| !(*l >= 0.0 && l.is_finite())) {
                return Err(format!("{} must be >= 0 and finite, got {l}", self.class_option(c, "latency")));
            }
            if let Some(b) = k.buffer_packets.filter(|b| !(1..=4096).contains(b)) {
                return Err(format!("{} must be between 1 and 4096, got {b}", self.class_option(c, "buffer-packets")));
            }
        }
        Ok(())
    }

    /// Routing and traffic that only a dragonfly has (or has not).
    fn validate_dragonfly(&self) -> Result<(), String> {
        let dfly_routing = matches!(self.routing, Routing::Minimal | Routing::Valiant | Routing::Ugal);
        let tree_routing = matches!(self.routing, Routing::UpDown | Routing::UpDownAdaptive);
        if matches!(self.topology, Topology::FatTree(_)) {
            if !tree_routing {
                return Err(format!(
                    "--routing {} is not for a fat-tree; a fattree routes updown or updown-adaptive",
                    self.routing.name()
                ));
            }
        } else if tree_routing {
            return Err(format!(
                "--routing {} is for --topology fattree; a {} routes {}",
                self.routing.name(),
                self.topology.name(),
                if matches!(self.topology, Topology::Dragonfly(_)) {
                    "minimal, valiant or ugal"
                } else {
                    "dimension-order or adaptive"
                }
            ));
        }
        if !matches!(self.topology, Topology::Dragonfly(_)) {
            if dfly_routing {
                return Err(format!(
                    "--routing {} is for --topology dragonfly; a {} routes {}",
                    self.routing.name(),
                    self.topology.name(),
                    if tree_routing { "updown or updown-adaptive" } else { "dimension-order or adaptive" }
                ));
            }
            if self.traffic == Traffic::GroupShift {
                return Err(
                    "--traffic group-shift needs --topology dragonfly (it sends from group i to group i + 1)".into()
                );
            }
            return Ok(());
        }
        if !dfly_routing {
            return Err(format!(
                "--routing {} is for the torus, mesh and hypercube; a dragonfly routes minimal, valiant or ugal",
                self.routing.name()
            ));
        }
        // Virtual channel = hops taken so far: a minimal route has at most 3, a Valiant one 5.
        let need = if self.routing == Routing::Minimal { 3 } else { 5 };
        if self.vcs < need {
            return Err(format!(
                "--routing {} on a dragonfly needs --vcs {need} or more (one virtual channel per hop of its longest route, against deadlock), got {}",
                self.routing.name(),
                self.vcs
            ));
        }
        Ok(())
    }

    /// The exact zero-load latency on a dragonfly of a single packet of
    /// `bytes` crossing `local` local and `global` global links:
    /// `(l + 2) L + g Lg + (l + g + 1) R + S` (injection and ejection links cost L).
    /// With per-class parameters: `2 Lt + l Ll + g Lg + (l + g + 1) R +
    /// bytes / min(Bt, Bl if l > 0, Bg if g > 0)` ([`Network::zero_load_latency_route`]).
    pub fn zero_load_latency_dragonfly(&self, local: u32, global: u32, bytes: u32) -> f64 {
        let route: Vec<usize> =
            std::iter::repeat(1).take(local as usize).chain(std::iter::repeat(2).take(global as usize)).collect();
        self.zero_load_latency_route(&route, bytes)
    }

    /// The exact latency of a single packet of `bytes` crossing `hops`
    /// router-to-router links in an empty network: `(h+2) L + (h+1) R + S`
    /// (links of class 1; a fat-tree's route climbs and descends through
    /// its classes: [`Network::zero_load_latency_route`]).
    pub fn zero_load_latency(&self, hops: u32, bytes: u32) -> f64 {
        let route = match self.topology {
            Topology::FatTree(_) => (1..=hops / 2).chain((1..=hops / 2).rev()).map(|c| c as usize).collect(),
            _ => vec![1; hops as usize],
        };
        self.zero_load_latency_route(&route, bytes)
    }

    /// The exact zero-load latency of a single packet of `bytes` whose
    /// router-to-router links have the classes `route`: both terminal
    /// links' and every link's latency, a router delay per router, and the
    /// serialisation time on the slowest link,
    /// `2 Lt + Σ L_i + (h + 1) R + bytes / min(Bt, min B_i)`.
    pub fn zero_load_latency_route(&self, route: &[usize], bytes: u32) -> f64 {
        let links: f64 = route.iter().map(|&c| self.class_latency(c)).sum();
        let slowest = route.iter().map(|&c| self.class_bandwidth(c)).fold(self.class_bandwidth(0), f64::min);
        2.0 * self.class_latency(0) + links + (route.len() as f64 + 1.0) * self.router_delay + bytes as f64 / slowest
    }

    /// Network ports per router; the NICs' ports follow from this index.
    #[inline]
    fn ports(&self) -> usize {
        self.topology.ports()
    }

    /// Output ports per router: network ports, then one ejection port per NIC.
    #[inline]
    fn outputs(&self) -> usize {
        self.topology.ports() + self.topology.terminals() as usize
    }

    /// Whether the fixed route of a packet is its only candidate output
    /// (every routing but the cubes' adaptive one: the decision, UGAL's
    /// included, is taken once per router).
    #[inline]
    fn fixed_route(&self) -> bool {
        self.routing != Routing::Adaptive
    }

    /// Bandwidth of link class `c` (bytes per ns; see [`Network::classes`]).
    #[inline]
    pub fn class_bandwidth(&self, c: usize) -> f64 {
        self.classes[c].bandwidth.unwrap_or(self.link_bandwidth)
    }

    /// Latency of link class `c` (a dragonfly's global class defaults to `global_link_latency`).
    #[inline]
    pub fn class_latency(&self, c: usize) -> f64 {
        self.classes[c].latency.unwrap_or(match self.topology {
            Topology::Dragonfly(_) if c == 2 => self.global_link_latency,
            _ => self.link_latency,
        })
    }

    /// Packets per virtual-channel buffer behind links of class `c`.
    #[inline]
    pub fn class_buffer(&self, c: usize) -> u32 {
        self.classes[c].buffer_packets.unwrap_or(self.buffer_packets)
    }

    /// The largest buffer of any class (the bound of a router's queues).
    fn max_buffer(&self) -> u32 {
        (1..3).map(|c| self.class_buffer(c)).fold(self.buffer_packets, u32::max)
    }

    /// Whether every class has the default bandwidth: a packet's tail then
    /// follows its head by one serialisation time everywhere, and nothing
    /// about the links it crossed needs remembering.
    #[inline]
    fn uniform_bandwidth(&self) -> bool {
        self.classes.iter().all(|c| c.bandwidth.map_or(true, |b| b == self.link_bandwidth))
    }

    /// The class of the link behind output `o` of router `r`: 0 terminal
    /// (the NICs' ports); 1 a cube's links, a dragonfly's local ones, a
    /// fat-tree's leaf–level-1 ones; 2 a dragonfly's global links, a
    /// fat-tree's level-1–level-2 ones.
    #[inline]
    pub fn link_class(&self, r: u32, o: usize) -> usize {
        if o >= self.ports() {
            return 0;
        }
        match &self.topology {
            Topology::Dragonfly(d) => 1 + d.is_global(o) as usize,
            // Ports k.. go up to the next level (a top switch's all go down);
            // ports below k down to this one.
            Topology::FatTree(f) => {
                let l = f.level(r);
                (l + (o >= f.k as usize && l + 1 < f.levels) as u32) as usize
            }
            _ => 1,
        }
    }

    /// Latency of the link behind port `o` of router `r`.
    #[inline]
    fn latency(&self, r: u32, o: usize) -> f64 {
        // Per-class latencies are rare: without them (on every hop of most
        // runs) no class needs working out.
        if self.classes.iter().all(|c| c.latency.is_none()) {
            return match &self.topology {
                Topology::Dragonfly(d) if d.is_global(o) => self.global_link_latency,
                _ => self.link_latency,
            };
        }
        self.class_latency(self.link_class(r, o))
    }

    /// Packets per virtual-channel buffer behind output `o` of router `r`
    /// (an ejection port's output buffers: `buffer_packets`).
    #[inline]
    fn buffer_of(&self, r: u32, o: usize) -> u32 {
        // Without per-class buffers (most runs) no class needs working out.
        if self.classes.iter().all(|c| c.buffer_packets.is_none()) || o >= self.ports() {
            self.buffer_packets
        } else {
            self.class_buffer(self.link_class(r, o))
        }
    }

    /// How long the tail of `p` (at router `r`, `p.hops` hops so far)
    /// follows its head out of output `o`: its serialisation time on the
    /// slowest link it has crossed or is about to (cut-through: a fast link
    /// cannot send the tail before a slow one has delivered it). What it
    /// crossed: its injection link, and on a cube a network link once it
    /// has hopped; on a fat-tree the levels up to the highest it reached,
    /// `(hops + level) / 2` (up: hops = level; down from `M`: hops = 2M −
    /// level); on a dragonfly the classes recorded in `p.dim` (unused there
    /// otherwise), which `launch` sets only when the bandwidths differ.
    #[inline]
    fn lag(&self, r: u32, p: &Packet, o: usize) -> f64 {
        if self.uniform_bandwidth() {
            return p.bytes as f64 / self.link_bandwidth;
        }
        let mut crossed = 1 << self.link_class(r, o) | 1;
        crossed |= match &self.topology {
            Topology::Dragonfly(_) if p.dim != NO_DIM => p.dim,
            Topology::Dragonfly(_) => 0,
            Topology::FatTree(f) => match (p.hops as u32 + f.level(r)) / 2 {
                0 => 0,
                1 => 0b10,
                _ => 0b110,
            },
            _ => ((p.hops > 0) as u8) << 1,
        };
        let slowest =
            (0..3).filter(|c| crossed & 1 << c != 0).map(|c| self.class_bandwidth(c)).fold(f64::MAX, f64::min);
        p.bytes as f64 / slowest
    }

    /// Serialisation of `bytes` on an injection link.
    #[inline]
    fn serialisation(&self, bytes: u32) -> f64 {
        bytes as f64 / self.class_bandwidth(0)
    }

    /// Mean gap between messages at one node (infinite without load).
    fn gap(&self) -> f64 {
        self.message_bytes as f64 / (self.load * self.class_bandwidth(0))
    }

    /// Routes `p` at `node`: its output port, and its dateline class on
    /// that link (a dragonfly: its virtual channel, the hops taken so far).
    #[inline(always)]
    fn route(&self, n: &Node, node: u32, p: &mut Packet) {
        match &self.topology {
            Topology::Dragonfly(d) => return self.route_dragonfly(d, node, p),
            Topology::FatTree(f) => return self.route_fattree(f, n, node, p),
            _ => {}
        }
        match self.topology.route(node, p.dst) {
            None => p.out = self.ports() as u8,
            Some(step) => {
                if step.dim != p.dim {
                    p.class = 0;
                }
                if step.wraps {
                    p.class = 1;
                }
                p.dim = step.dim;
                p.out = step.port;
            }
        }
    }

    /// [`Network::route`] on a dragonfly; kept out of line so that the
    /// cubes' routing stays small enough to be inlined into its callers.
    #[inline(never)]
    fn route_dragonfly(&self, d: &Dragonfly, node: u32, p: &mut Packet) {
        if p.via != NO_VIA && d.group(node) == p.via as u32 {
            p.via = NO_VIA;
        }
        match d.step(node, p.dst / d.p, p.via) {
            None => p.out = (self.ports() as u32 + p.dst % d.p) as u8,
            Some(port) => {
                p.out = port;
                p.class = p.hops.min(u8::MAX as u16) as u8;
            }
        }
    }

    /// [`Network::route`] on a fat-tree (out of line, as the dragonfly's):
    /// up/down; updown-adaptive takes the up port with the least
    /// [`Network::occupancy`] now (updown's port on a tie, then the lowest). The virtual
    /// channel is free: up/down routes cannot deadlock (every route climbs
    /// then descends, so no cycle of channel dependencies exists).
    #[inline(never)]
    fn route_fattree(&self, f: &FatTree, n: &Node, node: u32, p: &mut Packet) {
        p.out = match f.hop(node, p.dst) {
            Hop::Eject(nic) => self.ports() as u32 + nic,
            Hop::Down(port) => port as u32,
            Hop::Up { pick, .. } if self.routing == Routing::UpDown => pick as u32,
            Hop::Up { base, n: up, pick } => {
                // Ties go to updown's destination-digit port, not the lowest:
                // at low load every port ties, and the lowest would take it all.
                let best = (base..base + up).min_by_key(|&o| (self.occupancy(n, node, o), o != pick, o));
                best.expect("a switch below the top has up ports") as u32
            }
        } as u8;
    }

    /// UGAL-L's measure of output `o` here: packets in the downstream
    /// buffers (buffer slots without a credit), heads waiting for it, and
    /// packets in its output buffers.
    fn occupancy(&self, n: &Node, r: u32, o: usize) -> u32 {
        let v = self.vcs as usize;
        let mut q = n.links[o].heads;
        let cap = self.buffer_of(r, o);
        for vc in 0..v {
            q += cap - n.input.lanes[o * v + vc].credits as u32;
            if self.switch == Switch::OutputBuffered {
                q += n.output.len(o * v + vc) as u32;
            }
        }
        q
    }

    /// UGAL-L at the source router, as packet `p` becomes the head of its
    /// injection queue: keeps its Valiant route through `p.via` only if
    /// `q_min · H_min > q_val · H_val`, and routes it again.
    /// On a fat-tree with updown-adaptive routing: chooses the first up port again, on the buffers now.
    #[inline(never)]
    fn ugal(&self, n: &Node, router: u32, p: &mut Packet) {
        if self.routing == Routing::UpDownAdaptive {
            return self.route(n, router, p);
        }
        let Topology::Dragonfly(d) = &self.topology else { return };
        if self.routing != Routing::Ugal || p.via == NO_VIA || p.hops > 0 {
            return;
        }
        let to = p.dst / d.p;
        let (min, val) = (d.step(router, to, NO_VIA), d.step(router, to, p.via));
        let (Some(min), Some(val)) = (min, val) else { return };
        let q_min = self.occupancy(n, router, min as usize) * d.hops(router, to, NO_VIA);
        let q_val = self.occupancy(n, router, val as usize) * d.hops(router, to, p.via);
        if q_min <= q_val {
            p.via = NO_VIA;
        }
        self.route(n, router, p);
    }

    /// The packet now at the front of NIC `nic`'s injection queue (if any)
    /// becomes a head: the routings that decide at the source (UGAL-L,
    /// updown-adaptive) decide now, on the buffers as they are, and its
    /// output counts it.
    #[inline]
    fn injection_head(&self, n: &mut Node, router: u32, nic: usize) {
        let Some(&h) = n.inject[nic].queue.front() else { return };
        let mut h = h;
        if matches!(self.routing, Routing::Ugal | Routing::UpDownAdaptive) {
            self.ugal(n, router, &mut h);
            n.nic_set_head(nic, h);
        }
        n.link_mut(h.out as usize).heads += 1;
    }

    /// Escape virtual channels under adaptive routing (the dateline classes
    /// of a torus, one channel otherwise); the channels above are adaptive.
    #[inline]
    fn escape_vcs(&self) -> usize {
        if matches!(self.topology, Topology::Torus(_)) {
            2
        } else {
            1
        }
    }

    /// Free slots of output `o`, virtual channel `vc`: output-buffer room
    /// (`room`) or downstream credits.
    #[inline]
    fn free(&self, n: &Node, r: u32, o: usize, vc: usize, room: bool) -> u32 {
        let q = o * self.vcs as usize + vc;
        if room {
            self.buffer_of(r, o) - n.output.len(q) as u32
        } else if o >= self.ports() {
            1 // the NIC always takes a packet
        } else {
            n.input.lanes[q].credits as u32
        }
    }

    /// Whether output `o` is one of the routes of `p` at `node`.
    #[inline]
    fn candidate(&self, node: u32, p: &Packet, o: usize) -> bool {
        o == p.out as usize
            || (self.routing == Routing::Adaptive && o < self.ports() && self.topology.productive(node, p.dst, o))
    }

    /// The virtual channel `p` may take on output `o` now and how good it is
    /// (higher is better: adaptive channels first, then the most free slots),
    /// or `None` if `o` is not a route of `p` or nothing there is free.
    #[inline]
    fn usable(&self, n: &Node, node: u32, p: &Packet, o: usize, room: bool) -> Option<(usize, u32)> {
        let v = self.vcs as usize;
        let eject = self.ports();
        let best_of = |vcs: &mut dyn Iterator<Item = usize>, bonus: u32| {
            let mut best: Option<(usize, u32)> = None;
            for vc in vcs {
                let f = self.free(n, node, o, vc, room);
                if f > 0 && best.map_or(true, |b| f + bonus > b.1) {
                    best = Some((vc, f + bonus));
                }
            }
            best
        };
        if o >= eject {
            return if p.out as usize == o { best_of(&mut (0..v), 0) } else { None };
        }
        match self.routing {
            Routing::DimensionOrder
            | Routing::Minimal
            | Routing::Valiant
            | Routing::Ugal
            | Routing::UpDown
            | Routing::UpDownAdaptive => {
                if o != p.out as usize {
                    return None;
                }
                // The channels the packet may use: on a torus those of its
                // dateline class (`v mod 2`); on a dragonfly exactly its hop
                // number; on a mesh, hypercube or fat-tree all.
                match self.topology {
                    Topology::Torus(_) => best_of(&mut (p.class as usize..v).step_by(2), 0),
                    Topology::Dragonfly(_) => best_of(&mut std::iter::once(p.class as usize), 0),
                    _ => best_of(&mut (0..v), 0),
                }
            }
            Routing::Adaptive => {
                let e = self.escape_vcs();
                if self.topology.productive(node, p.dst, o) {
                    if let Some(b) = best_of(&mut (e..v), 1 << 16) {
                        return Some(b);
                    }
                }
                if o != p.out as usize {
                    return None;
                }
                let escape = if e == 2 { p.class as usize } else { 0 };
                best_of(&mut std::iter::once(escape), 0)
            }
        }
    }

    /// The best output for `p` now under adaptive routing: (port, channel)
    /// among its routes whose link is free (`room`: whatever the link) and
    /// that have a free slot; adaptive channels first, then by the
    /// [`Selection`] measure, then by free slots, then the lowest port.
    fn best_route(&self, n: &Node, node: u32, p: &Packet, room: bool, now: f64) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize, (u32, u32))> = None;
        for o in 0..self.outputs() {
            if !self.candidate(node, p, o) || (!room && n.links[o].free > now) {
                continue;
            }
            if let Some((vc, score)) = self.usable(n, node, p, o, room) {
                let rank = match self.selection {
                    Selection::Load => (score, 0),
                    // Adaptive before escape, then the least contended port.
                    Selection::Contention => {
                        (score >> 16 << 16 | (0xFFFF - self.contention(n, node, o, now).min(0xFFFF)), score)
                    }
                };
                if best.map_or(true, |b| rank > b.2) {
                    best = Some((o, vc, rank));
                }
            }
        }
        best.map(|b| (b.0, b.1))
    }

    /// Packets at this router contending for output `o`: ready input heads
    /// that may take it, and (output-buffered) packets in its output buffers.
    fn contention(&self, n: &Node, node: u32, o: usize, now: f64) -> u32 {
        let v = self.vcs as usize;
        let queued: usize = match self.switch {
            Switch::OutputBuffered => (0..v).map(|vc| n.output.len(o * v + vc)).sum(),
            Switch::InputBuffered => 0,
        };
        (self.oldest_for(n, node, o, false, now).1 + queued) as u32
    }

    /// Schedules a wake-up for output `o` at the time its link frees, unless one is pending.
    #[inline]
    fn ensure_wake(&self, n: &mut Node, o: usize, ctx: &mut Ctx<'_, Self>) {
        let l = &n.links[o];
        if l.wake != l.free {
            let l = n.link_mut(o);
            l.wake = l.free;
            ctx.send(ctx.lp(), l.free - ctx.now(), Msg::Wake { port: o as u8 });
        }
    }

    /// Head of input `i` (network inputs `0..ports·vcs`, then one injection queue per NIC).
    #[inline(always)]
    fn input_head<'n>(&self, n: &'n Node, i: usize) -> Option<&'n Packet> {
        let inject = self.ports() * self.vcs as usize;
        if i >= inject {
            n.inject[i - inject].queue.front()
        } else {
            n.input.head(i)
        }
    }

    /// Takes the head of input `i` and returns the credit for its buffer upstream.
    #[inline]
    fn take_input(&self, n: &mut Node, i: usize, ctx: &mut Ctx<'_, Self>) -> Packet {
        let v = self.vcs as usize;
        let inject = self.ports() * v;
        if i >= inject {
            let p = n.nic_pop(i - inject);
            self.injection_head(n, ctx.lp(), i - inject);
            n.link_mut(p.out as usize).heads -= 1;
            return p;
        }
        let p = n.pop(false, i);
        n.done_waiting(i, p.out as usize);
        if let Some(out) = n.input.head(i).map(|h| h.out as usize) {
            n.wait_for(i, out);
        }
        let (port, vc) = (i / v, i % v);
        let up = self.topology.neighbour(ctx.lp(), port).expect("an input port with a link");
        // The buffer frees when the tail has left (`lag` after the head).
        let delay = self.lag(ctx.lp(), &p, p.out as usize) + self.latency(ctx.lp(), port);
        ctx.send(up, delay, Msg::Credit { port: self.topology.peer_port(ctx.lp(), port) as u8, vc: vc as u8 });
        p
    }

    /// Puts `p` on output link `o`, virtual channel `vc` (the link is free).
    fn launch(&self, n: &mut Node, mut p: Packet, o: usize, vc: usize, ctx: &mut Ctx<'_, Self>) {
        let now = ctx.now();
        let s = self.lag(ctx.lp(), &p, o);
        let (end, w) = (ctx.end_time(), self.warmup);
        let l = n.link_mut(o);
        l.free = now + s;
        l.packets += 1;
        l.busy += ((now + s).min(end) - now.max(w)).max(0.0);
        if o >= self.ports() {
            let delay = self.class_latency(0) + s;
            let on_link = now + delay >= end;
            n.counts.on_links += on_link as u64;
            n.log.save(|| Saved::Launch { hop: false, on_link });
            ctx.send(ctx.lp(), delay, Msg::Deliver { pkt: p.header() });
            return;
        }
        let v = self.vcs as usize;
        n.lane_mut(o * v + vc).credits -= 1;
        n.counts.hops += 1;
        p.hops += 1;
        if vc >= self.escape_vcs() && self.routing == Routing::Adaptive {
            // An adaptive hop: should the packet take the escape channels
            // later, it starts there in class 0 of its dimension (minimal
            // routes never cross a ring's dateline twice).
            p.dim = NO_DIM;
            p.class = 0;
        }
        if let (Topology::Dragonfly(_), false) = (&self.topology, self.uniform_bandwidth()) {
            // Remember the classes crossed, for `lag` downstream.
            p.dim = if p.dim == NO_DIM { 0 } else { p.dim } | 1 << self.link_class(ctx.lp(), o);
        }
        let delay = self.latency(ctx.lp(), o) + self.router_delay;
        let on_link = now + delay >= end;
        n.counts.on_links += on_link as u64;
        n.log.save(|| Saved::Launch { hop: true, on_link });
        let next = self.topology.neighbour(ctx.lp(), o).expect("a route takes existing links");
        let port = self.topology.peer_port(ctx.lp(), o) as u8;
        ctx.send(next, delay, Msg::Arrive { pkt: p.header(), port, vc: vc as u8 });
    }

    /// Tries to move the head of input `i` on (and, through `try_output`,
    /// the heads behind it).
    fn try_input(&self, n: &mut Node, i: usize, ctx: &mut Ctx<'_, Self>) {
        let now = ctx.now();
        let node = ctx.lp();
        let v = self.vcs as usize;
        loop {
            let Some(&p) = self.input_head(n, i) else { return };
            if p.ready > now {
                // Only injected packets wait for their head to reach the router.
                let nic = i - self.ports() * v;
                if n.inject[nic].wake != p.ready {
                    n.save_nic(nic);
                    n.inject[nic].wake = p.ready;
                    ctx.send(node, p.ready - now, Msg::Ready { nic: nic as u8 });
                }
                return;
            }
            let adaptive = !self.fixed_route();
            match self.switch {
                // The output picks the oldest packet that can go (this one or
                // an older one) and moves the input it took from on.
                Switch::InputBuffered => {
                    if !adaptive {
                        return self.try_output(n, p.out as usize, Some(i), ctx);
                    }
                    if let Some((o, _)) = self.best_route(n, node, &p, false, now) {
                        return self.try_output(n, o, None, ctx);
                    }
                    // Wait for the first of its routes to free (credits come as events).
                    for o in 0..self.outputs() {
                        if self.candidate(node, &p, o) && n.links[o].free > now {
                            self.ensure_wake(n, o, ctx);
                        }
                    }
                    return;
                }
                Switch::OutputBuffered => {
                    let to = if adaptive {
                        self.best_route(n, node, &p, true, now)
                    } else {
                        let o = p.out as usize;
                        self.usable(n, node, &p, o, true).map(|(vc, _)| (o, vc))
                    };
                    let Some((o, vc)) = to else { return };
                    let mut p = self.take_input(n, i, ctx);
                    p.ready = now;
                    let len = n.push(true, o * v + vc, p).expect("room in the output buffer was checked");
                    if len as u16 > n.counts.max_output {
                        n.save_maxes();
                        n.counts.max_output = len as u16;
                    }
                    self.try_output(n, o, None, ctx);
                }
            }
        }
    }

    /// The oldest input head that waits for output `o` and may use it now
    /// (`room`: output-buffered, there is room in an output buffer for it;
    /// otherwise a virtual channel with a credit): (input, virtual channel),
    /// and how many heads wait for `o`.
    fn oldest_for(&self, n: &Node, node: u32, o: usize, room: bool, now: f64) -> (Option<(usize, usize)>, usize) {
        let mut best: Option<(f64, usize, usize)> = None;
        let mut waiting = 0;
        let inject = self.ports() * self.vcs as usize;
        let nics = n.inject.iter().enumerate().filter_map(|(t, nic)| nic.queue.front().map(|p| (inject + t, p)));
        let mut consider = |i: usize, p: &Packet| {
            if p.ready > now || !self.candidate(node, p, o) {
                return;
            }
            waiting += 1;
            // The oldest, the lowest input on a tie (inputs come in any order).
            if best.is_some_and(|b| (b.0, b.1) <= (p.ready, i)) {
                return;
            }
            if let Some((vc, _)) = self.usable(n, node, p, o, room) {
                best = Some((p.ready, i, vc));
            }
        };
        if self.fixed_route() {
            // Only the heads routed to `o` can take it: its waiting list.
            for i in n.waiting(o) {
                consider(i, n.input.head(i).expect("a waiting queue has a head"));
            }
            nics.for_each(|(i, p)| consider(i, p));
        } else {
            n.input.heads().chain(nics).for_each(|(i, p)| consider(i, p));
        }
        (best.map(|b| (b.1, b.2)), waiting)
    }

    /// Output `o` may have become usable (its link is free, a credit came, a
    /// packet is waiting): sends the oldest packet that can go, then moves on
    /// the buffers that freed.
    fn try_output(&self, n: &mut Node, o: usize, from: Option<usize>, ctx: &mut Ctx<'_, Self>) {
        let now = ctx.now();
        let v = self.vcs as usize;
        match self.switch {
            Switch::InputBuffered => {
                let dor = self.fixed_route();
                let (best, waiting) = match (from, n.links[o].heads) {
                    (_, 0) if dor => return,
                    // The caller's ready head is the only one for `o`.
                    (Some(i), 1) if dor => {
                        let p = self.input_head(n, i).expect("the caller's head");
                        (self.usable(n, ctx.lp(), p, o, false).map(|(vc, _)| (i, vc)), 1)
                    }
                    _ => self.oldest_for(n, ctx.lp(), o, false, now),
                };
                if waiting > 0 && n.links[o].free > now {
                    return self.ensure_wake(n, o, ctx);
                }
                let Some((i, vc)) = best else { return };
                let p = self.take_input(n, i, ctx);
                self.launch(n, p, o, vc, ctx);
                if waiting > 1 {
                    self.ensure_wake(n, o, ctx);
                }
                self.try_input(n, i, ctx);
            }
            Switch::OutputBuffered => {
                let queued = (0..v).any(|vc| n.output.len(o * v + vc) > 0);
                if n.links[o].free > now {
                    if queued {
                        self.ensure_wake(n, o, ctx);
                    }
                    return;
                }
                let mut best: Option<(f64, usize)> = None;
                for vc in 0..v {
                    let Some(p) = n.output.head(o * v + vc) else { continue };
                    let credit = o >= self.ports() || n.input.lanes[o * v + vc].credits > 0;
                    if credit && best.map_or(true, |b| p.ready < b.0) {
                        best = Some((p.ready, vc));
                    }
                }
                let Some((_, vc)) = best else { return };
                let p = n.pop(true, o * v + vc);
                self.launch(n, p, o, vc, ctx);
                if (0..v).any(|vc| n.output.len(o * v + vc) > 0) {
                    self.ensure_wake(n, o, ctx);
                }
                // Room in an output buffer: the oldest input heads for `o` move in.
                if self.fixed_route() && n.links[o].heads == 0 {
                    return;
                }
                while let (Some((i, _)), _) = self.oldest_for(n, ctx.lp(), o, true, now) {
                    self.try_input(n, i, ctx);
                }
            }
        }
    }

    /// The Valiant intermediate group of a packet from router `from` to
    /// node `dst`: uniform over the groups other than both ends' ([`NO_VIA`]
    /// when the route stays in one group, or no third group exists).
    fn via(&self, from: u32, dst: u32, ctx: &mut Ctx<'_, Self>) -> u16 {
        let Topology::Dragonfly(d) = &self.topology else { return NO_VIA };
        let (gs, gd) = (d.group(from), d.group(dst / d.p));
        if self.routing == Routing::Minimal || gs == gd || d.g < 3 {
            return NO_VIA;
        }
        let mut v = ctx.rng(0).below(d.g as u64 - 2) as u32;
        // Skip the two ends' groups, lower one first.
        for skip in [gs.min(gd), gs.max(gd)] {
            v += (v >= skip) as u32;
        }
        v as u16
    }

    /// A new message at NIC `nic`: its packets join the NIC's injection queue.
    fn generate(&self, n: &mut Node, nic: usize, ctx: &mut Ctx<'_, Self>) {
        let router = ctx.lp();
        let me = self.topology.node(router, nic as u32).expect("only NICs with a node create messages");
        let nodes = self.topology.nodes();
        let dst = match self.probe {
            Some((_, d)) => d,
            None => {
                let k0 = match &self.topology {
                    Topology::Torus(d) | Topology::Mesh(d) => d[0],
                    Topology::Hypercube(_) => 2,
                    Topology::Dragonfly(d) => d.a * d.p,
                    Topology::FatTree(f) => f.k,
                };
                self.traffic.destination(me, nodes, k0, &mut ctx.rng(0))
            }
        };
        n.save_nic(nic);
        let q = &mut n.inject[nic];
        let msg = q.next_msg;
        q.next_msg = q.next_msg.wrapping_add(1);
        self.enqueue(n, nic, me, dst, self.message_bytes, msg, ctx);
        let more = self.messages.map_or(true, |m| n.inject[nic].next_msg < m);
        if self.probe.is_none() && self.load > 0.0 && more {
            let gap = match self.arrivals {
                Arrivals::Poisson => ctx.rng(1).exponential(self.gap()),
                Arrivals::Periodic => self.gap(),
            };
            ctx.send(router, gap, Msg::Generate { nic: nic as u8 });
        }
    }

    /// Message `msg` of `message_bytes` from node `me` (NIC `nic` here) to
    /// node `dst`: its packets join the NIC's injection queue.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn enqueue(
        &self,
        n: &mut Node,
        nic: usize,
        me: u32,
        dst: u32,
        message_bytes: u32,
        msg: u32,
        ctx: &mut Ctx<'_, Self>,
    ) {
        let now = ctx.now();
        let router = ctx.lp();
        let via = self.via(router, dst, ctx);
        let npkts = message_bytes.div_ceil(self.packet_bytes);
        let was_empty = n.inject[nic].queue.is_empty();
        let measured = now >= self.warmup;
        n.save_nic(nic);
        for j in 0..npkts {
            let bytes = (message_bytes - j * self.packet_bytes).min(self.packet_bytes);
            let q = &mut n.inject[nic];
            let ready = (now + self.class_latency(0) + self.router_delay).max(q.next);
            q.next = ready + self.serialisation(bytes);
            let mut p = Packet {
                created: now,
                ready,
                src: me,
                dst,
                msg,
                npkts,
                bytes,
                hops: 0,
                dim: NO_DIM,
                class: 0,
                out: 0,
                via,
            };
            self.route(n, router, &mut p);
            n.nic_push(nic, p);
            n.log.save(|| Saved::Injected { bytes, measured });
            n.counts.injected += 1;
            if measured {
                n.counts.injected_w += 1;
                n.counts.injected_bytes_w += bytes as u64;
            }
        }
        if was_empty {
            self.injection_head(n, router, nic);
            self.try_input(n, self.ports() * self.vcs as usize + nic, ctx);
        }
    }

    /// A packet's last byte arrived here; whether its message is now whole.
    fn deliver(&self, n: &mut Node, p: &Header, now: f64) -> bool {
        let c = &mut n.counts;
        let in_window = now >= self.warmup;
        let last = c.last_delivery;
        n.log.save(|| Saved::Delivered { bytes: p.bytes, in_window, last });
        c.delivered += 1;
        c.last_delivery = now;
        if in_window {
            c.delivered_bytes_w += p.bytes as u64;
        }
        let measured = p.created >= self.warmup;
        if measured {
            let lat = now - p.created;
            let (sum, max, min) = (c.lat_sum, c.lat_max, c.lat_min);
            let (hist_first, hist_len) = c.hist.span();
            n.log.save(|| Saved::Latency { lat, hops: p.hops, sum, max, min, hist_first, hist_len });
            c.lat_n += 1;
            c.lat_sum += lat;
            c.lat_max = c.lat_max.max(lat);
            c.lat_min = if c.lat_n == 1 { lat } else { c.lat_min.min(lat) };
            c.hist.add(lat);
            c.hop_sum += p.hops as u64;
            c.hop_sq += p.hops as u64 * p.hops as u64;
        }
        let done = if p.npkts == 1 {
            true
        } else if let Some(i) = n.partial.iter().position(|e| e.0 == p.src && e.1 == p.msg) {
            let last = n.partial[i].2 == 1;
            if last {
                let old = n.partial.swap_remove(i);
                n.log.save(|| Saved::PartialRemove { i: i as u32, old });
            } else {
                n.partial[i].2 -= 1;
                n.log.save(|| Saved::PartialCount { i: i as u32 });
            }
            last
        } else {
            n.partial.push((p.src, p.msg, p.npkts - 1, p.created));
            n.log.save(|| Saved::PartialPush);
            false
        };
        if done && measured {
            let c = &mut n.counts;
            let sum = c.msg_lat_sum;
            n.log.save(|| Saved::Message { sum });
            c.msg_n += 1;
            c.msg_lat_sum += now - p.created;
        }
        done
    }
}

impl Model for Network {
    type State = Node;
    type Msg = Msg;
    type Undo = Undo;
    type Results = Results;
    const ROLLBACK: Rollback = Rollback::Incremental;

    fn name(&self) -> &str {
        "network"
    }
    fn num_lps(&self) -> u32 {
        self.topology.routers()
    }
    fn lookahead(&self) -> f64 {
        match self.topology {
            Topology::Dragonfly(_) => self.class_latency(1).min(self.class_latency(2)),
            Topology::FatTree(f) if f.levels == 3 => self.class_latency(1).min(self.class_latency(2)),
            _ => self.class_latency(1),
        }
    }
    fn neighbours(&self, lp: LpId) -> Option<Vec<LpId>> {
        Some(self.topology.neighbours(lp))
    }
    fn rng_streams(&self) -> u32 {
        2
    }

    fn state_heap_bytes(&self) -> u64 {
        // What `init` gives each router: the positions of the input queues
        // on every port and virtual channel (and of the output queues when
        // output-buffered), the links and the NICs. Packet slots come later,
        // as packets are buffered (node.rs, `Queues`).
        let (ports, outs) = (self.ports() as u64, self.outputs() as u64);
        let lanes = |n: u64| n * self.vcs as u64 * size_of::<node::Lane>() as u64;
        let output = if self.switch == Switch::OutputBuffered { lanes(outs) } else { 0 };
        let nics = (outs - ports) * size_of::<Nic>() as u64;
        let node = lanes(ports) + output + outs * size_of::<Link>() as u64 + nics;
        node.saturating_mul(self.num_lps() as u64)
    }

    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> Node {
        let ports = self.ports();
        let v = self.vcs as usize;
        let b = self.max_buffer() as u16;
        let out_cap = if self.switch == Switch::OutputBuffered { b } else { 0 };
        let nics = self.topology.terminals();
        match self.probe {
            Some((src, _)) if src / nics == lp => ctx.send(lp, 0.0, Msg::Generate { nic: (src % nics) as u8 }),
            None if self.load > 0.0 && self.workload.is_none() => {
                // Only a fat-tree's leaves have NICs behind their slots.
                for nic in 0..self.topology.nics(lp) {
                    let first = match self.arrivals {
                        Arrivals::Poisson => ctx.rng(1).exponential(self.gap()),
                        Arrivals::Periodic => ctx.rng(1).uniform() * self.gap(),
                    };
                    ctx.send(lp, first, Msg::Generate { nic: nic as u8 });
                }
            }
            _ => {}
        }
        let outs = self.outputs();
        let mut input = Queues::new(ports * v, b);
        for (i, lane) in input.lanes.iter_mut().enumerate() {
            lane.credits =
                if self.topology.neighbour(lp, i / v).is_some() { self.buffer_of(lp, i / v) as u16 } else { 0 };
        }
        Node {
            input,
            inject: vec![Nic { queue: VecDeque::new(), wake: -1.0, next: 0.0, next_msg: 0 }; nics as usize],
            output: Queues::new(if out_cap > 0 { outs * v } else { 0 }, out_cap.max(1)),
            links: vec![Link::default(); outs],
            partial: Vec::new(),
            counts: Counts { max_credits: b, ..Counts::default() },
            ranks: if self.workload.is_some() { self.start_ranks(lp, ctx) } else { Vec::new() },
            log: Journal::default(),
        }
    }

    fn forward(&self, n: &mut Node, msg: &Msg, _: &mut Undo, ctx: &mut Ctx<'_, Self>) {
        n.log.on = ctx.saving();
        self.handle(n, msg, ctx);
        if n.log.on {
            n.flush(|e| ctx.save(e));
        }
    }

    fn restore(&self, n: &mut Node, e: &Undo) {
        n.restore(&e.0);
    }

    fn finalize(&self, lp: LpId, n: &Node, end: f64, r: &mut Results) {
        let c = &n.counts;
        let nodes = self.topology.nodes();
        r.topology = self.topology.name().to_string();
        r.nodes = nodes;
        r.buffer_packets = self.buffer_packets;
        r.offered_load = if self.probe.is_some() || self.workload.is_some() { 0.0 } else { self.load };
        r.injected_packets += c.injected;
        r.delivered_packets += c.delivered;
        let queued: u64 = n.inject.iter().map(|q| q.queue.len() as u64).sum();
        r.in_flight_packets += n.input.total() + queued + n.output.total() + c.on_links;
        r.delivered_messages += c.msg_n;
        r.measured_packets += c.lat_n;
        r.latency_max = r.latency_max.max(c.lat_max);
        r.max_input_buffer = r.max_input_buffer.max(c.max_input);
        r.max_output_buffer = r.max_output_buffer.max(c.max_output);
        r.max_credits = r.max_credits.max(c.max_credits);
        // Busy times in ns until the window is known (at the last node).
        for o in 0..self.ports() {
            let busy = n.links[o].busy;
            r.acc.max_busy = r.acc.max_busy.max(busy);
            if let (true, Some(to)) = (self.link_stats, self.topology.neighbour(lp, o)) {
                r.links.push(LinkStat { node: lp, port: o as u32, neighbour: to, packets: n.links[o].packets, busy });
            }
        }
        if self.workload.is_some() {
            self.finalize_ranks(lp, n, r);
        }
        let a = &mut r.acc;
        a.hist.merge(&c.hist);
        a.lat_sum += c.lat_sum;
        a.msg_lat_sum += c.msg_lat_sum;
        a.events += c.events;
        a.hops += c.hops;
        a.hop_sum += c.hop_sum;
        a.hop_sq += c.hop_sq;
        a.delivered_bytes += c.delivered_bytes_w;
        a.injected_bytes += c.injected_bytes_w;
        a.last_delivery = a.last_delivery.max(c.last_delivery);
        if c.lat_n > 0 {
            a.lat_min = if a.lat_min > 0.0 { a.lat_min.min(c.lat_min) } else { c.lat_min };
        }
        // The derived figures, exact once the last node is in.
        let m = r.measured_packets as f64;
        let ratio = |x: f64, y: f64| if y > 0.0 { x / y } else { 0.0 };
        r.latency_mean = ratio(a.lat_sum, m);
        r.latency_p50 = a.hist.quantile(0.5, a.lat_min, r.latency_max);
        r.latency_p99 = a.hist.quantile(0.99, a.lat_min, r.latency_max);
        r.message_latency_mean = ratio(a.msg_lat_sum, r.delivered_messages as f64);
        r.hops_mean = ratio(a.hop_sum as f64, m);
        r.hops_std =
            if m > 1.0 { ((a.hop_sq as f64 - m * r.hops_mean * r.hops_mean) / (m - 1.0)).max(0.0).sqrt() } else { 0.0 };
        let finite = self.workload.is_some() || self.messages.is_some();
        let until = if finite { a.last_delivery.min(end) } else { end };
        let window = (until - self.warmup).max(0.0);
        r.window_ns = window;
        r.max_link_utilisation = ratio(a.max_busy, window);
        // finalize runs in LP-id order: the last node fixes the window.
        if lp as u64 + 1 == self.num_lps() as u64 {
            for l in &mut r.links {
                l.busy = ratio(l.busy, window);
            }
        }
        let capacity = nodes as f64 * window * self.class_bandwidth(0);
        r.accepted_throughput = ratio(a.delivered_bytes as f64, capacity);
        r.measured_offered_load = ratio(a.injected_bytes as f64, capacity);
        r.events_per_hop = ratio(a.events as f64, a.hops as f64);
    }
}

impl Network {
    /// One event (`Model::forward`, less the journal's set-up and hand-over).
    #[inline(always)]
    fn handle(&self, n: &mut Node, msg: &Msg, ctx: &mut Ctx<'_, Self>) {
        n.counts.events += 1;
        n.log.save(|| Saved::Event);
        let v = self.vcs as usize;
        match *msg {
            Msg::Generate { nic } => self.generate(n, nic as usize, ctx),
            Msg::Arrive { pkt, port, vc } => {
                let mut pkt = Packet::arrived(&pkt, ctx.now());
                self.route(n, ctx.lp(), &mut pkt);
                let q = port as usize * v + vc as usize;
                let full = n.input.len(q) >= self.buffer_of(ctx.lp(), port as usize) as usize;
                let Some(len) = (if full { None } else { n.push(false, q, pkt) }) else {
                    return ctx.fail(format!(
                        "flow control violated: a packet arrived at the full buffer of input port {port}, virtual channel {vc}"
                    ));
                };
                if len as u16 > n.counts.max_input {
                    n.save_maxes();
                    n.counts.max_input = len as u16;
                }
                if len == 1 {
                    n.wait_for(q, pkt.out as usize);
                    self.try_input(n, q, ctx);
                }
            }
            Msg::Credit { port, vc } => {
                let q = port as usize * v + vc as usize;
                let c = n.input.lanes[q].credits;
                if c as u32 >= self.buffer_of(ctx.lp(), port as usize) {
                    return ctx.fail(format!(
                        "flow control violated: more credits than buffer slots at output port {port}, virtual channel {vc}"
                    ));
                }
                n.lane_mut(q).credits = c + 1;
                if c + 1 > n.counts.max_credits {
                    n.save_maxes();
                    n.counts.max_credits = c + 1;
                }
                self.try_output(n, port as usize, None, ctx);
            }
            Msg::Wake { port } => {
                n.link_mut(port as usize).wake = -1.0;
                self.try_output(n, port as usize, None, ctx);
            }
            Msg::Ready { nic } => {
                n.save_nic(nic as usize);
                n.inject[nic as usize].wake = -1.0;
                self.try_input(n, self.ports() * v + nic as usize, ctx);
            }
            Msg::Deliver { pkt } => {
                if self.deliver(n, &pkt, ctx.now()) && self.workload.is_some() {
                    self.message_arrived(n, &pkt, ctx);
                }
            }
            Msg::Step { nic } => self.step(n, nic as usize, ctx),
        }
    }
}
