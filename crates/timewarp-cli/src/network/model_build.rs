//! How the network's options become a model: the topology, its link
//! classes and the rest of `Network` (`model`), the jobs of `--job`, and
//! the bounds that refuse a run that would not end or would not fit (kept
//! apart from model_args.rs, which holds the options and the `ModelCli`
//! impl, as wired.rs holds the wired dragonflies).

use timewarp_models::network::{
    self, Dragonfly, FatTree, LinkClass, Network, RailSelect, Routing, SlimFly, Topology, Traffic,
};

use super::model_args::{NetworkArgs, LOAD};
use crate::models::{bounded, num};
use crate::registry::RunInfo;

impl NetworkArgs {
    /// Refuses parameters that cannot give a run that ends (see [`MAX_EVENTS`](crate::models::MAX_EVENTS)).
    pub(crate) fn bounded(&self, nodes: u32, end: f64) -> Result<(), String> {
        // Each packet is a few events per hop; 16 covers a few hops.
        let packets = (self.message_bytes as f64 / self.packet_bytes as f64).ceil();
        let mut messages = end * self.offered() * self.injection_bandwidth() / self.message_bytes as f64;
        let mut what = format!("{} with --load {}", self.injection_option(), num(self.offered()));
        let mut fix = if self.terminal_bandwidth.is_some() {
            "lower --terminal-bandwidth, --load or --end"
        } else {
            "lower --link-bandwidth, --load or --end"
        };
        // When --messages ends the sources before --end does, it is a finite
        // workload like the generated ones: the same cap on its messages.
        if let Some(m) = self.messages.filter(|&m| (m as f64) < messages) {
            let total = nodes as u64 * m as u64;
            let max = super::workload_args::MAX_MESSAGES;
            if total > max {
                return Err(format!(
                    "--messages {m} on {nodes} nodes creates {total} messages, more than the {max} a run holds; \
                     lower --messages"
                ));
            }
            messages = m as f64;
            (what, fix) = (format!("--messages {m} on {nodes} nodes"), "lower --messages");
        }
        let events = nodes as f64 * messages * packets * 16.0;
        bounded(events, end, &what, fix)
    }

    /// `--job`: the jobs placed on `m` (job_args.rs); the single-workload and
    /// synthetic options are refused beside them.
    pub(super) fn jobs(&self, m: &mut Network, run: &RunInfo) -> Result<(), String> {
        let w = &self.workload;
        let refused = [
            (w.workload != "synthetic", "--workload"),
            (w.trace_dir.is_some(), "--trace-dir"),
            (w.rank_mapping != "linear", "--rank-mapping"),
            (w.ranks.is_some(), "--ranks"),
            (self.messages.is_some(), "--messages"),
            (self.interarrival.is_some(), "--interarrival"),
            (self.load != LOAD, "--load"),
            (self.traffic != Traffic::Uniform, "--traffic"),
        ];
        if let Some((_, option)) = refused.iter().find(|r| r.0) {
            return Err(format!(
                "{option} is for one workload; with --job each job says what it runs (KIND:KEY=VALUE,...@PLACEMENT)"
            ));
        }
        super::job_args::build(
            m,
            w.job_specs()?,
            w.baseline_alone,
            (run.end, run.seed),
            super::workload_args::MAX_MESSAGES,
        )?;
        if m.load > 0.0 {
            // Synthetic traffic runs to --end: bound it as a synthetic run.
            let nodes = m.jobs.as_ref().map_or(0, |j| j.list.iter().map(|x| x.nodes.len() as u32).sum());
            let messages = run.end * m.load * m.class_bandwidth(0) / m.message_bytes as f64;
            let events = nodes as f64 * messages * (m.message_bytes as f64 / m.packet_bytes as f64).ceil() * 16.0;
            bounded(events, run.end, "a synthetic --job", "lower its load or --end")?;
            self.backlog(m, run.end)?;
        }
        super::samples_csv::bounded(self.sample_every.filter(|_| m.load > 0.0), run.end)
    }

    /// The option that sets the injection bandwidth, with its value.
    fn injection_option(&self) -> String {
        match self.terminal_bandwidth {
            Some(b) => format!("--terminal-bandwidth {}", num(b)),
            None => format!("--link-bandwidth {}", num(self.link_bandwidth)),
        }
    }

    /// Refuses an offered load whose messages pile up in the NICs' source
    /// queues beyond this process's memory before --end: the network cannot
    /// carry them away (docs/running.md, "Memory"), and the run would grow
    /// until it aborted.
    pub(super) fn backlog(&self, m: &Network, end: f64) -> Result<(), String> {
        use timewarp::memory::{human, Limit};
        let Some(limit) = Limit::current() else { return Ok(()) };
        let bytes = m.source_backlog_bytes(end);
        if bytes <= limit.bytes as f64 {
            return Ok(());
        }
        Err(format!(
            "{} with --load {} offers {} bytes/ns per node, more than the routers' links can carry away: by \
             --end {} the source queues would hold about {:.1e} packets ({}), but {}; lower --load, {} or --end",
            self.injection_option(),
            num(self.offered()),
            num(m.load * m.class_bandwidth(0)),
            num(end),
            m.source_backlog(end),
            human(bytes.min(u64::MAX as f64) as u64),
            limit.describe(),
            if self.terminal_bandwidth.is_some() { "--terminal-bandwidth" } else { "--link-bandwidth" },
        ))
    }

    /// The offered load: --load, or what --interarrival gives.
    fn offered(&self) -> f64 {
        match self.interarrival {
            Some(gap) => self.message_bytes as f64 / (gap * self.injection_bandwidth()),
            None => self.load,
        }
    }

    /// The terminal links' bandwidth, which --load is a fraction of.
    fn injection_bandwidth(&self) -> f64 {
        self.terminal_bandwidth.unwrap_or(self.link_bandwidth)
    }

    /// The per-class link options (see [`Network::classes`]); the dragonfly's
    /// and the fat-tree's own options only on their topology.
    fn classes(&self, topology: &Topology) -> Result<[LinkClass; 3], String> {
        let mut c = [LinkClass::default(); 3];
        c[0].bandwidth = self.terminal_bandwidth;
        c[0].latency = self.terminal_latency;
        let dfly = [
            ("--local-bandwidth", self.local_bandwidth.is_some()),
            ("--local-latency", self.local_latency.is_some()),
            ("--local-buffer-packets", self.local_buffer_packets.is_some()),
            ("--global-bandwidth", self.global_bandwidth.is_some()),
            ("--global-buffer-packets", self.global_buffer_packets.is_some()),
        ];
        let tree = [
            ("--level-bandwidth", self.level_bandwidth.len()),
            ("--level-latency", self.level_latency.len()),
            ("--level-buffer-packets", self.level_buffer_packets.len()),
        ];
        match topology {
            Topology::Dragonfly(_) | Topology::SlimFly(_) => {
                if let Some((name, _)) = tree.iter().find(|t| t.1 > 0) {
                    return Err(format!(
                        "{name} is for --topology fattree; a dragonfly's links are --local-* and --global-*"
                    ));
                }
                c[1] = LinkClass {
                    bandwidth: self.local_bandwidth,
                    latency: self.local_latency,
                    buffer_packets: self.local_buffer_packets,
                };
                c[2].bandwidth = self.global_bandwidth;
                c[2].buffer_packets = self.global_buffer_packets;
            }
            Topology::FatTree(f) => {
                if let Some((name, _)) = dfly.iter().find(|t| t.1) {
                    return Err(format!(
                        "{name} is for --topology dragonfly; a fat-tree's switch links are --level-bandwidth, \
                         --level-latency, --level-buffer-packets (one entry per level)"
                    ));
                }
                let levels = f.levels as usize - 1;
                if let Some((name, n)) = tree.iter().find(|t| t.1 > levels) {
                    return Err(format!(
                        "{name} has {n} entries, but a {}-level fat-tree has {levels} level(s) of switch links \
                         (leaf to level 1{}): give at most {levels}",
                        f.levels,
                        if levels == 2 { ", level 1 to level 2" } else { "" }
                    ));
                }
                for l in 0..levels {
                    c[l + 1] = LinkClass {
                        bandwidth: self.level_bandwidth.get(l).copied(),
                        latency: self.level_latency.get(l).copied(),
                        buffer_packets: self.level_buffer_packets.get(l).copied(),
                    };
                }
            }
            _ => {
                let given = dfly.iter().find(|t| t.1).map(|t| t.0).or(tree.iter().find(|t| t.1 > 0).map(|t| t.0));
                if let Some(name) = given {
                    return Err(format!(
                        "{name} is for --topology {}; a {} has one class of network links: use --link-bandwidth, \
                         --link-latency, --buffer-packets",
                        if name.starts_with("--level") { "fattree" } else { "dragonfly" },
                        topology.name()
                    ));
                }
            }
        }
        Ok(c)
    }

    pub(crate) fn model(&self) -> Result<Network, String> {
        let dragonfly = |a: u32, p: u32, h: u32, g: Option<u32>| {
            Topology::Dragonfly(Dragonfly::new(a, p, h, g.unwrap_or(a * h + 1)))
        };
        // A preset's own topology may be named beside it (docs/running.md lists
        // --preset among that topology's options); another one may not.
        if let Some(p) = self.preset.as_deref() {
            let own = if p == "summit" { "fattree" } else { "dragonfly" };
            if self.topology != own {
                return Err(format!(
                    "--preset {p} is a {own}, not a {}: give --topology {own} or leave --topology out",
                    self.topology
                ));
            }
        }
        let topology = match (self.preset.as_deref(), self.topology.as_str()) {
            (Some("summit"), _) => Topology::FatTree(FatTree::new(36, 3, 3564, None)?),
            (Some(_theta), _) => dragonfly(96, 4, 10, Some(9)),
            (_, "fattree") => {
                // The full tree by default; an impossible shape is named by FatTree::tapered.
                let t = self.tapering.unwrap_or(1.0);
                let nodes = self.nodes.unwrap_or(FatTree::full_nodes(self.radix, self.levels, t));
                let limit = self.rail_select_limit.unwrap_or(network::CODES_RAIL_SELECT_LIMIT);
                let tree = FatTree::tapered(self.radix, self.levels, nodes, self.top_uplinks, t)?;
                Topology::FatTree(match (self.rails, self.rail_select) {
                    (_, s) if self.rail_select_limit.is_some() && s != Some(RailSelect::Adaptive) => {
                        return Err("--rail-select-limit is for --rail-select adaptive (the messages it weighs)".into())
                    }
                    (None, None) => tree,
                    (r, s) => tree.with_rails(r.unwrap_or(1), s.unwrap_or_default())?.with_select_limit(limit),
                })
            }
            (_, "torus") => Topology::Torus(self.dims.clone()),
            (_, "slimfly") if self.generator_set_x.is_empty() => {
                Topology::SlimFly(SlimFly::new(self.slimfly_q, self.terminals_per_router)?)
            }
            (_, "slimfly") => Topology::SlimFly(SlimFly::with_sets(
                self.slimfly_q,
                self.terminals_per_router,
                self.generator_set_x.clone(),
                self.generator_set_x_prime.clone(),
            )?),
            (_, "mesh") => Topology::Mesh(self.dims.clone()),
            (_, "dragonfly-plus") => self.plus()?,
            (_, "dragonfly") if self.intra_connections.is_some() || self.inter_connections.is_some() => self.wired()?,
            (_, "dragonfly") => {
                dragonfly(self.routers_per_group, self.terminals_per_router, self.global_links, self.groups)
            }
            _ => {
                let nodes = self.nodes.unwrap_or(1024);
                if !nodes.is_power_of_two() || nodes < 2 {
                    return Err(format!("--nodes of a hypercube must be a power of two >= 2, got {nodes}"));
                }
                Topology::Hypercube(nodes.trailing_zeros())
            }
        };
        if !matches!(topology, Topology::FatTree(_)) {
            if let Some(o) = [
                (self.rails.is_some(), "--rails"),
                (self.rail_select.is_some(), "--rail-select"),
                (self.tapering.is_some(), "--tapering"),
                (self.rail_select_limit.is_some(), "--rail-select-limit"),
            ]
            .iter()
            .find(|o| o.0)
            {
                return Err(format!("{} is for --topology fattree, not a {}", o.1, topology.name()));
            }
        }
        let traffic = match self.traffic {
            Traffic::Shift(_) => Traffic::Shift(self.shift),
            Traffic::Hotspot { .. } => Traffic::Hotspot { nodes: self.hotspot_nodes, fraction: self.hotspot_fraction },
            Traffic::Permutation(_) => Traffic::Permutation(self.permutation_seed),
            t => t,
        };
        let is_sfly = matches!(topology, Topology::SlimFly(_));
        // A dragonfly's local diameter (D local hops per group; 2 on Aries).
        let (dfly_d, via_router) = match &topology {
            Topology::Dragonfly(d) => (Some(d.local_diameter()), d.via_router()),
            _ => (None, false),
        };
        let routing = self.routing.unwrap_or(match topology {
            Topology::Dragonfly(_) | Topology::SlimFly(_) => Routing::Minimal,
            Topology::FatTree(_) => Routing::UpDown,
            _ => Routing::DimensionOrder,
        });
        if self.lp_io_dir.is_some() {
            super::lp_io::supported(&topology)?;
            // Checked before the run: a bad layout would be found only after it.
            let layout = super::lp_io::Layout::new(self.lp_io_lps.as_deref(), self.lp_io_grid.as_deref())?;
            layout.check(&topology)?;
        }
        let classes = self.classes(&topology)?;
        let m = Network {
            classes,
            topology,
            traffic,
            arrivals: match self.arrivals {
                network::Arrivals::Bursty { .. } => network::Arrivals::Bursty { burst: self.burst_length },
                a => a,
            },
            load: self.offered(),
            messages: self.messages,
            message_bytes: self.message_bytes,
            packet_bytes: self.packet_bytes,
            link_bandwidth: self.link_bandwidth,
            link_latency: self.link_latency,
            global_link_latency: self.global_link_latency.unwrap_or(self.link_latency),
            router_delay: self.router_delay,
            vcs: self.vcs.unwrap_or(match (dfly_d, routing) {
                // One channel per hop of the longest route (through a
                // dragonfly_custom intermediate router: D more).
                (Some(d), Routing::Par) => 4 * d + 2 + via_router as u32 * d,
                (Some(d), Routing::Minimal) => 3 * d + 2,
                (Some(d), _) => 3 * d + 2 + via_router as u32 * d,
                // A Slim Fly: one per hop of a Valiant route, CODES's num_vcs.
                _ if is_sfly => 4,
                _ => 2,
            }),
            buffer_packets: self.buffer_packets,
            switch: self.switch,
            arbitration: self.arbitration,
            routing,
            selection: self.selection,
            ugal_threshold: self.ugal_threshold,
            scoring: self.route_scoring,
            ugal_g_period: self.ugal_g_period,
            split_quantiles: self.split_quantiles,
            warmup: self.warmup,
            probe: None,
            link_stats: self.link_stats.is_some(),
            lp_io: self.lp_io_dir.is_some(),
            workload: None,
            rollback: self.rollback,
            sample_every: self.sample_every,
            jobs: None,
            eager_limit: self.eager_limit.and_then(|e| e.0),
            nic_buffer: self.nic_buffer.and_then(|b| b.0),
        };
        m.validate()?;
        Ok(m)
    }
}
