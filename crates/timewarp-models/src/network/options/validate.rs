//! Validation of [`Network`]: every parameter checked, and the message
//! names the option to fix.

use timewarp::Rollback;

use super::super::choices::{Arrivals, Routing, Scoring};
use super::super::{Topology, Traffic, NO_VIA, PAR_PENDING};
use super::{LinkClass, Network};

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
        if let Some(b) = self.nic_buffer {
            if b < self.packet_bytes {
                return Err(format!(
                    "--nic-buffer {b} bytes (a CODES import's cn_vc_size) holds no packet of {} bytes \
                     (--packet-bytes): give at least one packet's bytes, or --nic-buffer none",
                    self.packet_bytes
                ));
            }
            if b / self.packet_bytes > u16::MAX as u32 {
                return Err(format!(
                    "--nic-buffer {b} bytes is {} packets of {} bytes; at most 65,535 packets are counted",
                    b / self.packet_bytes,
                    self.packet_bytes
                ));
            }
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
            let most = w.sends.iter().map(Vec::len).max().unwrap_or(0);
            if self.eager_limit.is_some() && most >= super::super::workload::MAX_RANK_SENDS as usize {
                return Err(format!(
                    "--eager-limit: a rank sends {most} messages, more than the rendezvous protocol numbers \
                     ({}); run it eager only (leave out --eager-limit)",
                    super::super::workload::MAX_RANK_SENDS
                ));
            }
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
                || matches!(self.routing, Routing::NonMinimalLeaf | Routing::UgalCodes);
        let tree_routing = matches!(self.routing, Routing::UpDown | Routing::UpDownAdaptive);
        let ugal = matches!(self.routing, Routing::Ugal | Routing::Par | Routing::UgalG | Routing::UgalCodes);
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
                "--ugal-threshold is for --topology dragonfly with --routing ugal, ugal-g, ugal-codes or par, not {} routing on a {}",
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
                    "minimal, valiant or ugal, ugal-g, ugal-codes, or par"
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
                 ugal-codes, or par",
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
        // On CODES's wired dragonflies delta is dragonfly_dally's
        // route_scoring_metric and dragonfly_custom's minimal-bias=1; beta
        // is the Dragonfly+'s alone (CODES's dragonfly_dally stops on it).
        let plus = matches!(&self.topology, Topology::Dragonfly(d) if d.leaves().is_some());
        let wired = matches!(&self.topology, Topology::Dragonfly(d) if d.wiring.is_some());
        if self.scoring != Scoring::Alpha && !plus && !(wired && self.scoring == Scoring::Delta) {
            return Err(format!(
                "--route-scoring {} is for --topology dragonfly-plus (CODES's dragonfly_plus; delta also on a \
                 dragonfly wired by CODES's connection files), not a {}: leave it out",
                self.scoring.name(),
                if wired { "dragonfly wired by connection files" } else { self.topology.name() }
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
            if d.wiring.is_some() && self.routing == Routing::UgalCodes {
                return Err(
                    "--routing ugal-codes is CODES's 1-D dragonfly rule, for a dragonfly not wired by connection \
                     files: use ugal or par"
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
}
