//! The model's parameters: [`Network`] and [`LinkClass`], their
//! validation, the zero-load latency formulas, and the look-ups of each
//! link's parameters (class, latency, buffer, serialisation). The choices
//! an option offers (switch, routing, selection, arbitration, arrivals) are
//! choices.rs'.

use std::sync::Arc;
use timewarp::Rollback;

use super::choices::{Arbitration, Arrivals, Routing, Scoring, Selection, Switch};
use super::packet::{Packet, NO_DIM};
use super::{Jobs, Topology, Traffic, Workload, NO_VIA, PAR_PENDING};

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
            workload: None,
            rollback: Rollback::Incremental,
            sample_every: None,
            jobs: None,
        }
    }
}

impl Network {
    /// Checks every parameter; the message names the option to fix.
    pub fn validate(&self) -> Result<(), String> {
        self.topology.validate()?;
        self.traffic.validate(self.topology.nodes())?;
        if self.traffic == Traffic::Tornado && !matches!(self.topology, Topology::Torus(_) | Topology::Mesh(_)) {
            return Err(format!(
                "--traffic tornado is defined on tori and meshes (steps along each dimension), not on a {}",
                self.topology.name()
            ));
        }
        let pos = |v: f64, what: &str| {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(format!("{what} must be positive and finite, got {v}"))
            }
        };
        if self.rollback == Rollback::Reverse {
            return Err("--rollback reverse: the network model has no reverse handlers; use incremental \
                        (the default) or state-saving"
                .into());
        }
        pos(self.link_bandwidth, "--link-bandwidth")?;
        if let Some(t) = self.sample_every {
            pos(t, "--sample-every")?;
        }
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
        if matches!(self.arrivals, Arrivals::Bursty { .. } | Arrivals::Bernoulli) && self.load > 1.0 {
            return Err(format!(
                "--arrivals {} sends at most one message per serialisation time: --load must be at most 1, got {}",
                self.arrivals.name(),
                self.load
            ));
        }
        if let Arrivals::Bursty { burst: 0 } = self.arrivals {
            return Err("--burst-length must be at least 1 (messages per burst, on average)".into());
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
            (Topology::Dragonfly(_) | Topology::SlimFly(_), 2) if what == "latency" => "--global-link-latency".into(),
            (Topology::Dragonfly(_) | Topology::SlimFly(_), 1) => format!("--local-{what}"),
            (Topology::Dragonfly(_) | Topology::SlimFly(_), _) => format!("--global-{what}"),
            (_, c) => format!("--level-{what} (entry {c})"),
        }
    }

    /// The per-class parameters: in range, and only for classes this topology has.
    fn validate_classes(&self) -> Result<(), String> {
        let classes = match self.topology {
            Topology::Dragonfly(_) | Topology::SlimFly(_) => 3,
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
        if let Topology::SlimFly(_) = self.topology {
            return self.validate_slimfly();
        }
        let dfly_routing =
            matches!(self.routing, Routing::Minimal | Routing::Valiant | Routing::Ugal | Routing::Par | Routing::UgalG)
                || self.routing == Routing::NonMinimalLeaf;
        let tree_routing = matches!(self.routing, Routing::UpDown | Routing::UpDownAdaptive);
        let ugal = matches!(self.routing, Routing::Ugal | Routing::Par | Routing::UgalG);
        if let Some(t) = self.ugal_g_period {
            if !(t > 0.0 && t.is_finite()) {
                return Err(format!(
                    "--ugal-g-period must be positive and finite (ns between a router's occupancy broadcasts), got {t}"
                ));
            }
            if self.routing != Routing::UgalG {
                return Err(format!(
                    "--ugal-g-period is for --topology dragonfly with --routing ugal-g, not {} routing",
                    self.routing.name()
                ));
            }
        }
        if !(self.ugal_threshold >= 0.0 && self.ugal_threshold.is_finite()) {
            return Err(format!(
                "--ugal-threshold must be >= 0 and finite (a bias towards the minimal route), got {}",
                self.ugal_threshold
            ));
        }
        if self.ugal_threshold != 0.0 && !(ugal && matches!(self.topology, Topology::Dragonfly(_))) {
            return Err(format!(
                "--ugal-threshold is for --topology dragonfly with --routing ugal, ugal-g or par, not {} routing on a {}",
                self.routing.name(),
                self.topology.name()
            ));
        }
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
                    "minimal, valiant or ugal, ugal-g, or par"
                } else {
                    "dimension-order or adaptive, or valiant or romm"
                }
            ));
        }
        if !matches!(self.topology, Topology::Dragonfly(_)) {
            let two_phase = matches!(self.routing, Routing::Valiant | Routing::Romm);
            if two_phase && !matches!(self.topology, Topology::FatTree(_)) {
                // Valiant and ROMM on the cubes: two dimension-order phases on disjoint channels.
                let need = if matches!(self.topology, Topology::Torus(_)) { 4 } else { 2 };
                if self.vcs < need {
                    return Err(format!(
                        "--routing {} on a {} needs --vcs {need} or more (the route to the random intermediate and \
                         the route on from it each have their own channels{}, against deadlock), got {}",
                        self.routing.name(),
                        self.topology.name(),
                        if need == 4 { ", two dateline classes each" } else { "" },
                        self.vcs
                    ));
                }
                if self.topology.routers() >= NO_VIA as u32 {
                    return Err(format!(
                        "--routing {} on a {} names its intermediate router in 16 bits: at most {} routers, got {}",
                        self.routing.name(),
                        self.topology.name(),
                        NO_VIA - 1,
                        self.topology.routers()
                    ));
                }
            } else if dfly_routing {
                return Err(format!(
                    "--routing {} is for --topology dragonfly; a {} routes {}",
                    self.routing.name(),
                    self.topology.name(),
                    if tree_routing {
                        "updown or updown-adaptive"
                    } else {
                        "dimension-order, adaptive or valiant, or romm"
                    }
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
                "--routing {} is for the torus, mesh and hypercube; a dragonfly routes minimal, valiant or ugal, ugal-g, \
                 or par",
                self.routing.name()
            ));
        }
        // Virtual channel = hops taken so far: a minimal route has at most 3,
        // a Valiant one 5, PAR's 6 (a local hop before it turns Valiant).
        // A wired group may need D = 2 local hops (Aries): 2D + 1, 3D + 2, 4D + 2;
        // through a dragonfly_custom intermediate router, D more (to it).
        let (dd, via_router) = match &self.topology {
            Topology::Dragonfly(d) => (d.local_diameter(), d.via_router()),
            _ => (1, false),
        };
        let need = match self.routing {
            Routing::Minimal => 2 * dd + 1,
            Routing::Par => 4 * dd + 2,
            _ => 3 * dd + 2,
        } + if via_router && self.routing != Routing::Minimal { dd } else { 0 };
        // As in CODES, any routing of a Dragonfly+ may name delta; only
        // prog-adaptive's comparison scores differently.
        let plus = matches!(&self.topology, Topology::Dragonfly(d) if d.leaves().is_some());
        if self.scoring != Scoring::Alpha && !plus {
            return Err(format!(
                "--route-scoring {} is for --topology dragonfly-plus (CODES's dragonfly_plus), not a {}: leave it out",
                self.scoring.name(),
                self.topology.name()
            ));
        }
        if let Topology::Dragonfly(d) = &self.topology {
            if d.leaves().is_none() && self.routing == Routing::NonMinimalLeaf {
                return Err(
                    "--routing non-minimal-leaf is for --topology dragonfly-plus (a detour down to a leaf of the \
                     intermediate group): use valiant"
                        .into(),
                );
            }
            if d.wiring.is_some() && self.routing == Routing::UgalG {
                return Err(
                    "--routing ugal-g is not available on a dragonfly wired by connection files: use ugal or par"
                        .into(),
                );
            }
        }
        if self.vcs < need {
            return Err(format!(
                "--routing {} on a dragonfly needs --vcs {need} or more (one virtual channel per hop of its longest route{}, against deadlock), got {}",
                self.routing.name(),
                if via_router && self.routing != Routing::Minimal { ", through an intermediate router" } else { "" },
                self.vcs
            ));
        }
        if let (true, Topology::Dragonfly(d)) = (via_router && self.routing != Routing::Minimal, &self.topology) {
            // The intermediate router in 16 bits, PAR's pending mark in the top one.
            let most = if self.routing == Routing::Par { PAR_PENDING - 1 } else { NO_VIA - 1 };
            if d.routers() > most as u32 {
                return Err(format!(
                    "--routing {} on a dragonfly_custom network names its intermediate router in {} bits: at most {most} routers, got {}",
                    self.routing.name(),
                    if self.routing == Routing::Par { 15 } else { 16 },
                    d.routers()
                ));
            }
        }
        if self.routing == Routing::Par {
            if let Topology::Dragonfly(d) = &self.topology {
                if d.g >= PAR_PENDING as u32 {
                    return Err(format!(
                        "--routing par marks a packet's pending intermediate group in its top bit: at most {} groups, got {}",
                        PAR_PENDING - 1,
                        d.g
                    ));
                }
            }
        }
        Ok(())
    }

    /// A Slim Fly's routings (minimal, valiant, ugal) and the virtual
    /// channels they need: one per hop, 2 for minimal routes, 4 through a
    /// Valiant intermediate router.
    fn validate_slimfly(&self) -> Result<(), String> {
        if !matches!(self.routing, Routing::Minimal | Routing::Valiant | Routing::Ugal) {
            return Err(format!(
                "--routing {} is not for a Slim Fly; a slimfly routes minimal, valiant or ugal",
                self.routing.name()
            ));
        }
        if self.ugal_g_period.is_some() {
            return Err("--ugal-g-period is for --topology dragonfly with --routing ugal-g".into());
        }
        if !(self.ugal_threshold >= 0.0 && self.ugal_threshold.is_finite())
            || (self.ugal_threshold != 0.0 && self.routing != Routing::Ugal)
        {
            return Err(format!(
                "--ugal-threshold must be >= 0 and finite, and is for --routing ugal, got {} with {}",
                self.ugal_threshold,
                self.routing.name()
            ));
        }
        if self.traffic == Traffic::GroupShift {
            return Err(
                "--traffic group-shift needs --topology dragonfly (it sends from group i to group i + 1)".into()
            );
        }
        let need = if self.routing == Routing::Minimal { 2 } else { 4 };
        if self.vcs < need {
            return Err(format!(
                "--routing {} on a Slim Fly needs --vcs {need} or more (one virtual channel per hop of its longest \
                 route, against deadlock), got {}",
                self.routing.name(),
                self.vcs
            ));
        }
        Ok(())
    }

    /// UGAL-G: the least time between two occupancy broadcasts of a router
    /// ([`Network::ugal_g_period`], or a packet's serialisation time on a global link).
    pub fn ugal_g_period(&self) -> f64 {
        self.ugal_g_period.unwrap_or(self.packet_bytes as f64 / self.class_bandwidth(2))
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

    // The look-ups of a router's ports and of each link's parameters live
    // here beside the options they read, not in switch.rs: they are pure
    // functions of the parameters and the topology (no node state), used by
    // validation, the zero-load formulas, routing, injection and the switch
    // alike.

    /// Network ports per router; the NICs' ports follow from this index.
    #[inline]
    pub(crate) fn ports(&self) -> usize {
        self.topology.ports()
    }

    /// Output ports per router: network ports, then one ejection port per NIC.
    #[inline]
    pub(crate) fn outputs(&self) -> usize {
        self.topology.ports() + self.topology.terminals() as usize
    }

    /// Whether the fixed route of a packet is its only candidate output
    /// (every routing but the cubes' adaptive one: the decision, UGAL's
    /// included, is taken once per router).
    #[inline]
    pub(crate) fn fixed_route(&self) -> bool {
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
            Topology::Dragonfly(_) | Topology::SlimFly(_) if c == 2 => self.global_link_latency,
            _ => self.link_latency,
        })
    }

    /// Packets per virtual-channel buffer behind links of class `c`.
    #[inline]
    pub fn class_buffer(&self, c: usize) -> u32 {
        self.classes[c].buffer_packets.unwrap_or(self.buffer_packets)
    }

    /// The largest buffer of any class (the bound of a router's queues).
    pub(crate) fn max_buffer(&self) -> u32 {
        (1..3).map(|c| self.class_buffer(c)).fold(self.buffer_packets, u32::max)
    }

    /// Whether every class has the default bandwidth: a packet's tail then
    /// follows its head by one serialisation time everywhere, and nothing
    /// about the links it crossed needs remembering.
    #[inline]
    pub(crate) fn uniform_bandwidth(&self) -> bool {
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
            Topology::SlimFly(s) => 1 + s.is_global(o) as usize,
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
    pub(crate) fn latency(&self, r: u32, o: usize) -> f64 {
        // Per-class latencies are rare: without them (on every hop of most
        // runs) no class needs working out.
        if self.classes.iter().all(|c| c.latency.is_none()) {
            return match &self.topology {
                Topology::Dragonfly(d) if d.is_global(o) => self.global_link_latency,
                Topology::SlimFly(s) if s.is_global(o) => self.global_link_latency,
                _ => self.link_latency,
            };
        }
        self.class_latency(self.link_class(r, o))
    }

    /// Packets per virtual-channel buffer behind output `o` of router `r`
    /// (an ejection port's output buffers: `buffer_packets`).
    #[inline]
    pub(crate) fn buffer_of(&self, r: u32, o: usize) -> u32 {
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
    #[inline(always)]
    pub(crate) fn lag(&self, r: u32, p: &Packet, o: usize) -> f64 {
        if self.uniform_bandwidth() {
            return p.bytes as f64 / self.link_bandwidth;
        }
        if let Topology::Dragonfly(d) = &self.topology {
            if d.wiring.is_some() {
                // Wired (CODES's connection files): each link serialises at
                // its own bandwidth, as CODES's links do; `dim` is the
                // routing draw there, not the classes crossed.
                return p.bytes as f64 / self.class_bandwidth(self.link_class(r, o));
            }
        }
        let mut crossed = 1 << self.link_class(r, o) | 1;
        crossed |= match &self.topology {
            Topology::Dragonfly(_) | Topology::SlimFly(_) if p.dim != NO_DIM => p.dim,
            Topology::Dragonfly(_) | Topology::SlimFly(_) => 0,
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
    pub(crate) fn serialisation(&self, bytes: u32) -> f64 {
        bytes as f64 / self.class_bandwidth(0)
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
            Arrivals::Periodic => self.gap(),
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
