//! The model's parameters: [`Network`] and its defaults, and what follows
//! from them about the workload (open runs, message gaps). Their
//! validation is validate.rs'; the links' parameters (classes, per-port
//! look-ups, zero-load latency formulas) are links.rs'. The choices an
//! option offers (switch, routing, selection, arbitration, arrivals) are
//! choices.rs'.

mod links;
mod validate;

use std::sync::Arc;
use timewarp::Rollback;

use super::choices::{Arbitration, Arrivals, Routing, Scoring, Selection, Switch};
use super::{Jobs, Topology, Traffic, Workload};

pub use links::LinkClass;

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
    /// Which waiting packet an output serves next.
    pub arbitration: Arbitration,
    /// How routers choose outputs.
    pub routing: Routing,
    /// How adaptive routing ranks free outputs.
    pub selection: Selection,
    /// UGAL-L and PAR (dragonfly): the bias towards the minimal route, in
    /// occupancy × hops: minimal unless `q_min · H_min > q_val · H_val + T`
    /// (0: the plain comparison).
    pub ugal_threshold: f64,
    /// Dragonfly+: how candidate ports are scored ([`Scoring`]: CODES's
    /// alpha, the default, beta or delta).
    pub scoring: Scoring,
    /// UGAL-G (dragonfly): a router broadcasts its global channels'
    /// occupancy to its group when it has changed, at most once per this
    /// many ns (`None`: the serialisation time of a packet on a global
    /// link, the fastest such a queue drains by one packet).
    pub ugal_g_period: Option<f64>,
    /// Also gather the distributions of the two parts of packet latency
    /// (source queueing, network latency) for their p50 and p99 in
    /// [`Results`](super::Results). Off by default: it adds to every
    /// router's state, and so changes the digest of every run.
    pub split_quantiles: bool,
    /// Statistics cover `[warmup, end)`.
    pub warmup: f64,
    /// Instead of traffic: one message from `.0` to `.1` at time 0 (tests, zero-load latency).
    pub probe: Option<(u32, u32)>,
    /// Report every link's figures in [`Results::links`](super::Results::links).
    pub link_stats: bool,
    /// Count what CODES's dragonfly writes to its LP-IO files (per
    /// terminal: what it received; per router port: bytes sent) into
    /// [`Results::lp_io`](super::Results::lp_io) (lp_io.rs). The counters
    /// are out of the node's encoding: the digest is the same without it.
    pub lp_io: bool,
    /// Instead of traffic: ranks running these programs (placed with
    /// [`Workload::place`]); see docs/network-workloads.md.
    pub workload: Option<Arc<Workload>>,
    /// How an optimistic run undoes a router's speculative events:
    /// [`Rollback::Incremental`] (default: each event saves what it
    /// overwrites, journal.rs) or [`Rollback::StateSaving`] (a copy of the
    /// whole router before every event; kept to measure against, see
    /// docs/history/performance-2026-11.md). The model has no reverse handlers.
    pub rollback: Rollback,
    /// Record a time series ([`Results::samples`](super::Results::samples))
    /// in intervals of this many ns (samples.rs). Off by default: the rows
    /// are part of every router's state, and so of the digest.
    pub sample_every: Option<f64>,
    /// Several jobs sharing the network (jobs.rs): their nodes, and which
    /// run ranks of [`Network::workload`] or synthetic traffic.
    pub jobs: Option<Arc<Jobs>>,
    /// The ranks' MPI protocol (docs/network-workloads.md): a message of
    /// fewer bytes than this goes eager, one of this many or more by
    /// rendezvous (request-to-send, clear-to-send, then the data), as
    /// CODES's `eager_threshold`. `None`: every message eager.
    pub eager_limit: Option<u32>,
    /// The NICs' bounded buffer (CODES's `cn_vc_size`): bytes of each
    /// router's terminal input buffer, in whole packets of `packet_bytes`
    /// (a packet takes a slot whatever its size, as CODES counts a chunk);
    /// the NIC sends a packet only while it holds a slot's credit
    /// (nic_buffer.rs). `None`: unbounded, a packet's time on the
    /// terminal link fixed when it is queued.
    pub nic_buffer: Option<u32>,
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
            arbitration: Arbitration::default(),
            routing: Routing::DimensionOrder,
            selection: Selection::Load,
            ugal_threshold: 0.0,
            scoring: Scoring::Alpha,
            ugal_g_period: None,
            split_quantiles: false,
            warmup: 0.0,
            probe: None,
            link_stats: false,
            lp_io: false,
            workload: None,
            rollback: Rollback::Incremental,
            sample_every: None,
            jobs: None,
            eager_limit: None,
            nic_buffer: None,
        }
    }
}
impl Network {
    /// `--nic-buffer`: the terminal buffer's packet slots, or `None`.
    #[inline]
    pub fn nic_slots(&self) -> Option<u16> {
        self.nic_buffer.map(|b| (b / self.packet_bytes.max(1)).min(u16::MAX as u32) as u16)
    }

    /// UGAL-G: the least time between two occupancy broadcasts of a router
    /// ([`Network::ugal_g_period`], or a packet's serialisation time on a global link).
    pub fn ugal_g_period(&self) -> f64 {
        self.ugal_g_period.unwrap_or(self.packet_bytes as f64 / self.class_bandwidth(2))
    }

    /// (every routing but the cubes' adaptive one: the decision, UGAL's
    /// included, is taken once per router).
    #[inline]
    pub(crate) fn fixed_route(&self) -> bool {
        self.routing != Routing::Adaptive
    }

    /// Whether the run is open: sources create messages until the end
    /// (synthetic traffic without `--messages`), so its window is fixed.
    pub(crate) fn open(&self) -> bool {
        self.workload.is_none() && self.messages.is_none() && self.probe.is_none()
    }

    /// Mean gap between messages at one node (infinite without load).
    pub(crate) fn gap(&self) -> f64 {
        self.message_bytes as f64 / (self.load * self.class_bandwidth(0))
    }

    /// The time from one message's creation at a node to the next's, drawn
    /// as [`Network::arrivals`] says (`first`: the node's first message).
    pub(crate) fn next_gap(&self, first: bool, rng: &mut impl timewarp::Random) -> f64 {
        let slot = self.serialisation(self.message_bytes);
        match self.arrivals {
            Arrivals::Poisson => rng.exponential(self.gap()),
            Arrivals::Periodic if first => rng.uniform() * self.gap(),
            Arrivals::Periodic | Arrivals::InPhase => self.gap(),
            Arrivals::Bursty { burst } => {
                // A cycle: `burst` messages a slot apart on average, then a silence.
                let silence = burst as f64 * slot * (1.0 / self.load - 1.0);
                if first || rng.bernoulli(1.0 / burst as f64) {
                    (if first { 0.0 } else { slot }) + rng.exponential(silence.max(f64::MIN_POSITIVE))
                } else {
                    slot
                }
            }
            Arrivals::Bernoulli => {
                let u = 1.0 - rng.uniform();
                let slots = if self.load >= 1.0 { 1.0 } else { (u.ln() / (1.0 - self.load).ln()).ceil().max(1.0) };
                slots * slot
            }
        }
    }
}
