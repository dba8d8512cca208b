//! Command-line front ends of the shipped models: their options and defaults.

use crate::args::{choice, non_negative_f64, probability, whole};
use crate::{ModelCli, RunInfo};
use serde_json::Value;
use std::io::Write;

/// Most events a run may be expected to process: more would not finish in
/// any reasonable time (10^14 events are days at 10^8 events per second),
/// so parameters that imply more are refused up front.
const MAX_EVENTS: f64 = 1e14;

/// Most busy-work iterations per PHOLD event.
const MAX_COMPUTE: u64 = 1_000_000;

/// Largest delay parameter: an exponential draw with a larger mean could
/// overflow to infinity.
const MAX_SPAN: f64 = 1e300;

/// A finite time span in `0..=MAX_SPAN`.
fn time_span(s: &str) -> Result<f64, String> {
    let v = non_negative_f64(s)?;
    if v > MAX_SPAN {
        return Err(format!("must be at most {MAX_SPAN:e} (a larger delay can overflow to infinity), got {s}"));
    }
    Ok(v)
}

/// `v` as a person writes it: `0.5`, `20000`, but `1e300`, not 301 digits.
fn num(v: f64) -> String {
    let s = v.to_string();
    if s.len() > 12 {
        format!("{v:e}")
    } else {
        s
    }
}

/// Refuses parameters whose expected number of events (`events`, over the
/// run up to `end`) is beyond [`MAX_EVENTS`]; `what` names the options.
fn bounded(events: f64, end: f64, what: &str, fix: &str) -> Result<(), String> {
    if events > MAX_EVENTS {
        return Err(format!(
            "{what} gives about {events:.1e} events before --end {}, more than the {MAX_EVENTS:e} a run can \
             process in reasonable time; {fix}",
            num(end)
        ));
    }
    Ok(())
}
use clap::Args;
use std::path::PathBuf;
use timewarp_models::network::{
    self, Dragonfly, FatTree, LinkClass, Network, Routing, Selection, Switch, Topology, Traffic,
};
use timewarp_models::pcs::{Arrivals, Pcs};
use timewarp_models::phold::{Hierarchy, Phold, Regional};
use timewarp_models::tlm::{Layout, Tlm, Waveform};

/// PHOLD options (defaults: the reference configuration of the papers).
#[derive(Args, Debug, Clone)]
pub(crate) struct PholdArgs {
    /// Number of LPs.
    #[arg(long, default_value_t = 16_384, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub lps: u32,
    /// Initial events per LP.
    #[arg(long, default_value_t = 10, value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub population: u32,
    /// Mean of the exponential part of each delay (0 to 1e300; parameters
    /// that imply more than 1e14 events before --end are refused).
    #[arg(long, default_value_t = 1.0, value_parser = time_span, allow_negative_numbers = true)]
    pub mean: f64,
    /// Minimum delay added to every event (the model's lookahead; 0 to 1e300).
    #[arg(long, default_value_t = 1.0, value_parser = time_span, allow_negative_numbers = true)]
    pub lookahead: f64,
    /// Probability that an event goes to an LP drawn uniformly from all LPs instead of to itself.
    #[arg(long, default_value_t = 0.1, value_parser = probability, allow_negative_numbers = true)]
    pub remote: f64,
    /// Busy-work iterations per event (event grain; 0 to 1,000,000, about a
    /// millisecond per event at most).
    #[arg(long, default_value_t = 0, value_parser = whole::<u32>(0, MAX_COMPUTE), allow_negative_numbers = true)]
    pub compute: u32,
    /// Blocks ("nodes") of the local/regional/remote variant: --remote then
    /// sends to an LP of another node (the multicore report's table 2).
    #[arg(long, value_name = "G", default_value_t = 1, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub nodes: u32,
    /// Sub-blocks ("PEs") per node; an event that is neither remote nor
    /// regional goes to an LP of its own sub-block.
    #[arg(long, value_name = "S", default_value_t = 1, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub pes_per_node: u32,
    /// Probability that an event goes to another sub-block of its own node.
    #[arg(long, default_value_t = 0.0, value_parser = probability, allow_negative_numbers = true)]
    pub regional: f64,
    /// Hierarchical topology L,X,K: leaf clusters of X objects combined two
    /// at a time over L levels (X × 2^(L−1) LPs; sets --lps), K neighbours
    /// per object per level; --remote is the probability of leaving the LP.
    #[arg(long, value_name = "L,X,K", value_delimiter = ',', num_args = 1, value_parser = whole::<u32>(0, u32::MAX as u64))]
    pub hierarchy: Option<Vec<u32>>,
    /// Pareto shape α of the hierarchy's activity: −5 mostly the nearest
    /// cluster, 1 mostly the farthest (not 0).
    #[arg(long, default_value_t = -5.0, allow_negative_numbers = true)]
    pub alpha: f64,
    /// Lower bound of the bounded Pareto range.
    #[arg(long, default_value_t = 1.0, value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub pareto_low: f64,
    /// Upper bound of the bounded Pareto range.
    #[arg(long, default_value_t = 10.0, value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub pareto_high: f64,
    /// Per-object busy work from the same Pareto distribution (mean --compute).
    #[arg(long)]
    pub skewed_compute: bool,
    /// Interleave the hierarchy's leaf clusters in LP ids, so contiguous id
    /// blocks (block mapping) cut every cluster.
    #[arg(long)]
    pub interleave: bool,
}

impl PholdArgs {
    /// Refuses parameters that cannot give a run that ends (see [`MAX_EVENTS`]).
    /// `stall_limit` is `--max-events-at-one-time` (0: none).
    pub(crate) fn bounded(&self, lps: u32, end: f64, stall_limit: u64) -> Result<(), String> {
        let gap = self.mean + self.lookahead;
        if gap == 0.0 {
            if stall_limit == 0 {
                return Err("--mean 0 with --lookahead 0 puts every event at time 0, and --max-events-at-one-time 0 \
                            lifts the limit that would stop it: the run would never end; give --mean or --lookahead \
                            a value > 0"
                    .into());
            }
            return Ok(()); // every event at time 0: the engine's stall limit stops it
        }
        let events = lps as f64 * self.population as f64 * (end / gap).max(1.0);
        let what = format!("--mean {} with --lookahead {}", num(self.mean), num(self.lookahead));
        bounded(events, end, &what, "raise --mean or --lookahead, or lower --end, --lps or --population")
    }

    /// The model these options describe (with --hierarchy, its LP count).
    pub(crate) fn model(&self) -> Result<Phold, String> {
        let mut m = Phold {
            lps: self.lps,
            population: self.population,
            mean: self.mean,
            lookahead: self.lookahead,
            remote: self.remote,
            compute: self.compute,
            ..Phold::default()
        };
        if self.nodes > 1 || self.pes_per_node > 1 || self.regional > 0.0 {
            m.regional = Some(Regional { nodes: self.nodes, pes_per_node: self.pes_per_node, regional: self.regional });
        }
        if let Some(v) = &self.hierarchy {
            let [levels, cluster, neighbours] = v[..] else {
                return Err(format!("--hierarchy takes three numbers L,X,K (levels, objects per leaf cluster, neighbours per level), got {} ", v.len()));
            };
            let h = Hierarchy {
                levels,
                cluster,
                neighbours,
                alpha: self.alpha,
                low: self.pareto_low,
                high: self.pareto_high,
                skewed_compute: self.skewed_compute,
                interleave: self.interleave,
            };
            // --lps left at its default follows the hierarchy; another value must agree.
            if let Some(n) = h.lps() {
                if self.lps != 16_384 && self.lps != n {
                    return Err(format!("--lps {} disagrees with --hierarchy {levels},{cluster},{neighbours}, which gives X × 2^(L−1) = {n} LPs; leave --lps out", self.lps));
                }
                m.lps = n;
            }
            m.hierarchy = Some(h);
        } else if self.skewed_compute || self.interleave {
            return Err("--skewed-compute and --interleave shape the hierarchical model; give --hierarchy L,X,K".into());
        }
        Ok(m)
    }
}

/// PCS options (defaults: ROSS's PCS with one mean call duration as the time unit).
#[derive(Args, Debug, Clone)]
pub(crate) struct PcsArgs {
    /// Cells along x (the grid wraps around).
    #[arg(long, default_value_t = 32, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub cells_x: u32,
    /// Cells along y.
    #[arg(long, default_value_t = 32, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub cells_y: u32,
    /// Radio channels per cell.
    #[arg(long, default_value_t = 10, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub channels: u32,
    /// Portables (subscribers) starting in each cell.
    #[arg(long, default_value_t = 16, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub portables_per_cell: u32,
    /// Call attempts per unit time by an idle portable (rates that imply
    /// more than 1e14 events before --end are refused).
    #[arg(long, default_value_t = 0.5, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub call_rate: f64,
    /// Mean call holding time.
    #[arg(long, default_value_t = 1.0, value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub call_duration: f64,
    /// Moves per unit time of a portable (0: no mobility).
    #[arg(long, default_value_t = 0.04, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub move_rate: f64,
    /// Call arrival process: engset (idle portables call; finite source) or poisson (per cell; Erlang-B).
    #[arg(long, default_value = "engset", value_parser = choice::<Arrivals>(&["engset", "poisson"]))]
    pub arrivals: Arrivals,
}

impl PcsArgs {
    /// Refuses parameters that cannot give a run that ends (see [`MAX_EVENTS`]).
    pub(crate) fn bounded(&self, end: f64) -> Result<(), String> {
        // A call is two events (attempt, end), a move one.
        let per_portable = (2.0 * self.call_rate + self.move_rate) * end;
        let events = self.cells_x as f64 * self.cells_y as f64 * self.portables_per_cell as f64 * per_portable;
        let what = format!("--call-rate {} with --move-rate {}", num(self.call_rate), num(self.move_rate));
        bounded(events, end, &what, "lower --call-rate, --move-rate or --end")
    }

    pub(crate) fn model(&self) -> Pcs {
        Pcs {
            cells_x: self.cells_x,
            cells_y: self.cells_y,
            channels: self.channels,
            portables_per_cell: self.portables_per_cell,
            call_rate: self.call_rate,
            call_duration: self.call_duration,
            move_rate: self.move_rate,
            arrivals: self.arrivals,
        }
    }
}

/// Network options (time in ns, sizes in bytes, bandwidth in bytes/ns).
#[derive(Args, Debug, Clone)]
pub(crate) struct NetworkArgs {
    /// Topology: torus (k-ary n-cube), mesh, hypercube, dragonfly, or fattree
    /// (2 or 3 levels of --radix-port switches, nodes on the leaves).
    /// A preset sets its own (dragonfly for theta, fattree for summit).
    #[arg(long, default_value = "torus", value_parser = ["torus", "mesh", "hypercube", "dragonfly", "fattree"],
          default_value_ifs = [("preset", "theta", "dragonfly"), ("preset", "summit", "fattree")])]
    pub topology: String,
    /// A named machine: theta (ALCF Theta as CODES's dragonfly-custom model
    /// has it: --topology dragonfly --routers-per-group 96
    /// --terminals-per-router 4 --global-links 10 --groups 9, 864 routers,
    /// 3,456 nodes; local links all-to-all, not Aries' rows and columns);
    /// summit (OLCF Summit as CODES models it: --topology fattree --radix 36
    /// --levels 3 --nodes 3564, 11 pods, 198 leaf + 198 aggregation + 108
    /// core switches = 504, full bisection).
    #[arg(long, value_parser = ["theta", "summit"], conflicts_with_all = ["dims", "nodes", "routers_per_group", "terminals_per_router", "global_links", "groups", "radix", "levels", "top_uplinks"])]
    pub preset: Option<String>,
    /// Dragonfly: routers per group (a), joined all-to-all by local links.
    #[arg(long, value_name = "A", default_value_t = 4, value_parser = whole::<u32>(1, 255), allow_negative_numbers = true)]
    pub routers_per_group: u32,
    /// Dragonfly: terminals (nodes) per router (p).
    #[arg(long, value_name = "P", default_value_t = 2, value_parser = whole::<u32>(1, 255), allow_negative_numbers = true)]
    pub terminals_per_router: u32,
    /// Dragonfly: global links per router (h).
    #[arg(long, value_name = "H", default_value_t = 2, value_parser = whole::<u32>(1, 255), allow_negative_numbers = true)]
    pub global_links: u32,
    /// Dragonfly: groups (default the maximal a·h + 1, one global link
    /// between every pair of groups; fewer must divide a·h evenly).
    #[arg(long, value_name = "G", value_parser = whole::<u32>(2, u16::MAX as u64), allow_negative_numbers = true)]
    pub groups: Option<u32>,
    /// Routers per dimension, comma-separated (torus and mesh), e.g. 16,16 or 8,8,8.
    #[arg(long, default_value = "16,16", value_delimiter = ',', value_parser = whole::<u32>(2, u32::MAX as u64), allow_negative_numbers = true)]
    pub dims: Vec<u32>,
    /// Nodes of a hypercube (a power of two) [default: 1024]; of a fat-tree
    /// (a multiple of radix/2, of (radix/2)² on 3 levels) [default: the full
    /// tree, 2(radix/2)^levels].
    #[arg(long, value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub nodes: Option<u32>,
    /// Fat-tree: ports per switch (even; half down, half up).
    #[arg(long, default_value_t = 8, value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub radix: u32,
    /// Fat-tree: levels of switches, 2 (leaves and spines) or 3 (pods of leaves and aggregation switches, core).
    #[arg(long, default_value_t = 3, value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub levels: u32,
    /// Fat-tree: up links of each switch below the top level into it (1 to
    /// radix/2; fewer than radix/2 prunes the top level's bandwidth by
    /// radix/2 : U) [default: radix/2, full bisection].
    #[arg(long, value_name = "U", value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub top_uplinks: Option<u32>,
    /// Traffic pattern: uniform, shift, ring, transpose, bit-reversal, bit-complement, neighbour, hotspot,
    /// group-shift (dragonfly: every node of group i to a random node of group i + 1).
    #[arg(long, default_value = "uniform", value_parser = choice::<Traffic>(&["uniform", "shift", "ring", "transpose", "bit-reversal", "bit-complement", "neighbour", "hotspot", "group-shift"]))]
    pub traffic: Traffic,
    /// Offset of --traffic shift (node s sends to s + K mod N).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub shift: u32,
    /// Hot nodes (ids 0..H) of --traffic hotspot.
    #[arg(long, value_name = "H", default_value_t = 1, value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub hotspot_nodes: u32,
    /// Fraction of messages sent to a hot node (--traffic hotspot).
    #[arg(long, default_value_t = 0.1, value_parser = probability, allow_negative_numbers = true)]
    pub hotspot_fraction: f64,
    /// Message creation at each node: poisson or periodic.
    #[arg(long, default_value = "poisson", value_parser = choice::<network::Arrivals>(&["poisson", "periodic"]))]
    pub arrivals: network::Arrivals,
    /// Offered load per node, as a fraction of the injection link's bandwidth
    /// (0 to 1; above 1 floods the injection queues, and needs --messages to end).
    #[arg(long, default_value_t = 0.3, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub load: f64,
    /// Mean gap between a node's messages in ns, instead of --load (the
    /// load it offers is --message-bytes / (gap × --link-bandwidth), and may
    /// exceed 1 when --messages bounds the run: the papers' "20 ns
    /// inter-arrival" floods the injection queues).
    #[arg(long, value_name = "NS", conflicts_with = "load", value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub interarrival: Option<f64>,
    /// Messages each node creates, then stops [default: no limit].
    #[arg(long, value_name = "N", value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub messages: Option<u32>,
    /// Bytes per message.
    #[arg(long, default_value_t = 256, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub message_bytes: u32,
    /// Most bytes per packet (at most 65,535; a longer message is split into packets).
    #[arg(long, default_value_t = 256, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub packet_bytes: u32,
    /// Link bandwidth in bytes per ns (4 = 32 Gb/s).
    #[arg(long, default_value_t = 4.0, value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub link_bandwidth: f64,
    /// Link latency in ns (the lookahead between nodes; the default of
    /// every link class: --terminal-latency, --local-latency, --level-latency).
    #[arg(long, default_value_t = 8.0, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub link_latency: f64,
    /// Dragonfly: global link latency in ns [default: --link-latency].
    #[arg(long, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub global_link_latency: Option<f64>,
    /// Router delay in ns (head arrival to earliest departure).
    #[arg(long, default_value_t = 8.0, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub router_delay: f64,
    /// Virtual channels per port (a torus needs 2 or more: dateline classes;
    /// a dragonfly 3 for minimal routing, 5 for valiant and ugal: one per
    /// hop) [default: 2; dragonfly 5].
    #[arg(long, value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub vcs: Option<u32>,
    /// Buffer per virtual channel, in packets.
    #[arg(long, default_value_t = 4, value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub buffer_packets: u32,
    /// Terminal (injection and ejection) link bandwidth in bytes per ns
    /// [default: --link-bandwidth]; --load is a fraction of it.
    #[arg(long, value_name = "B", value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub terminal_bandwidth: Option<f64>,
    /// Terminal link latency in ns [default: --link-latency].
    #[arg(long, value_name = "NS", value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub terminal_latency: Option<f64>,
    /// Dragonfly: local link bandwidth in bytes per ns [default: --link-bandwidth].
    #[arg(long, value_name = "B", value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub local_bandwidth: Option<f64>,
    /// Dragonfly: local link latency in ns [default: --link-latency].
    #[arg(long, value_name = "NS", value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub local_latency: Option<f64>,
    /// Dragonfly: buffer per virtual channel behind a local link, in packets [default: --buffer-packets].
    #[arg(long, value_name = "N", value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub local_buffer_packets: Option<u32>,
    /// Dragonfly: global link bandwidth in bytes per ns [default: --link-bandwidth]
    /// (the global latency is --global-link-latency).
    #[arg(long, value_name = "B", value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub global_bandwidth: Option<f64>,
    /// Dragonfly: buffer per virtual channel behind a global link, in packets [default: --buffer-packets].
    #[arg(long, value_name = "N", value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub global_buffer_packets: Option<u32>,
    /// Fat-tree: link bandwidth per level of switch links, comma-separated:
    /// leaf to level 1, then (3 levels) level 1 to level 2, in bytes per ns
    /// [default: --link-bandwidth].
    #[arg(long, value_name = "B1,B2", value_delimiter = ',', value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub level_bandwidth: Vec<f64>,
    /// Fat-tree: link latency per level of switch links in ns, as --level-bandwidth [default: --link-latency].
    #[arg(long, value_name = "L1,L2", value_delimiter = ',', value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub level_latency: Vec<f64>,
    /// Fat-tree: buffer per virtual channel per level of switch links, in
    /// packets, as --level-bandwidth [default: --buffer-packets].
    #[arg(long, value_name = "N1,N2", value_delimiter = ',', value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub level_buffer_packets: Vec<u32>,
    /// Switch: input-buffered or output-buffered.
    #[arg(long, default_value = "input-buffered", value_parser = choice::<Switch>(&["input-buffered", "output-buffered"]))]
    pub switch: Switch,
    /// Routing: dimension-order (e-cube on a hypercube), or minimal adaptive with
    /// dimension-order escape channels (needs --vcs 3 on a torus, 2 otherwise);
    /// a dragonfly: minimal, valiant (random intermediate group) or ugal
    /// (UGAL-L, minimal or Valiant by queue occupancy at the source router);
    /// a fat-tree: updown (up port by a digit of the destination) or
    /// updown-adaptive (the least occupied up port)
    /// [default: dimension-order; dragonfly minimal; fattree updown].
    #[arg(long, value_parser = choice::<Routing>(&["dimension-order", "adaptive", "minimal", "valiant", "ugal", "updown", "updown-adaptive"]))]
    pub routing: Option<Routing>,
    /// Adaptive routing's choice among free outputs: load (most free buffers
    /// at the neighbour) or contention (fewest packets here waiting for the port).
    #[arg(long, default_value = "load", value_parser = choice::<Selection>(&["load", "contention"]))]
    pub selection: Selection,
    /// Statistics start at this time (ns).
    #[arg(long, default_value_t = 0.0, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub warmup: f64,
    /// Write per-link figures as CSV (link, source, destination, packets, busy fraction).
    #[arg(long, value_name = "FILE")]
    pub link_stats: Option<PathBuf>,
    /// Read a CODES model-net configuration (dragonfly, dragonfly_custom,
    /// dragonfly_dally, fattree, torus) as these options; the command
    /// line's replace the file's, and a table of what was taken, converted
    /// and ignored goes to stderr (docs/network.md, "CODES configurations").
    #[arg(long, value_name = "FILE.conf")]
    pub codes_config: Option<PathBuf>,
    #[command(flatten)]
    pub workload: crate::workload_args::WorkloadArgs,
}

impl NetworkArgs {
    /// Refuses parameters that cannot give a run that ends (see [`MAX_EVENTS`]).
    pub(crate) fn bounded(&self, nodes: u32, end: f64) -> Result<(), String> {
        // Each packet is a few events per hop; 16 covers a few hops.
        let packets = (self.message_bytes as f64 / self.packet_bytes as f64).ceil();
        let mut messages = end * self.offered() * self.injection_bandwidth() / self.message_bytes as f64;
        let mut what = format!("--link-bandwidth {} with --load {}", num(self.link_bandwidth), num(self.offered()));
        let mut fix = "lower --link-bandwidth, --load or --end";
        // When --messages ends the sources before --end does, it is a finite
        // workload like the generated ones: the same cap on its messages.
        if let Some(m) = self.messages.filter(|&m| (m as f64) < messages) {
            let total = nodes as u64 * m as u64;
            let max = crate::workload_args::MAX_MESSAGES;
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
            Topology::Dragonfly(_) => {
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
            Topology::Dragonfly(Dragonfly { a, p, h, g: g.unwrap_or(a * h + 1) })
        };
        // A preset's own topology may be named beside it (the README lists
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
                let k = self.radix as u64 / 2;
                // The full tree; an impossible shape is named by FatTree::new.
                let full = k.checked_pow(self.levels.min(4)).map_or(u64::MAX, |n| n.saturating_mul(2));
                let nodes = self.nodes.unwrap_or(full.min(u32::MAX as u64) as u32);
                Topology::FatTree(FatTree::new(self.radix, self.levels, nodes, self.top_uplinks)?)
            }
            (_, "torus") => Topology::Torus(self.dims.clone()),
            (_, "mesh") => Topology::Mesh(self.dims.clone()),
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
        let traffic = match self.traffic {
            Traffic::Shift(_) => Traffic::Shift(self.shift),
            Traffic::Hotspot { .. } => Traffic::Hotspot { nodes: self.hotspot_nodes, fraction: self.hotspot_fraction },
            t => t,
        };
        let is_dfly = matches!(topology, Topology::Dragonfly(_));
        let routing = self.routing.unwrap_or(match topology {
            Topology::Dragonfly(_) => Routing::Minimal,
            Topology::FatTree(_) => Routing::UpDown,
            _ => Routing::DimensionOrder,
        });
        let classes = self.classes(&topology)?;
        let m = Network {
            classes,
            topology,
            traffic,
            arrivals: self.arrivals,
            load: self.offered(),
            messages: self.messages,
            message_bytes: self.message_bytes,
            packet_bytes: self.packet_bytes,
            link_bandwidth: self.link_bandwidth,
            link_latency: self.link_latency,
            global_link_latency: self.global_link_latency.unwrap_or(self.link_latency),
            router_delay: self.router_delay,
            vcs: self.vcs.unwrap_or(if is_dfly { 5 } else { 2 }),
            buffer_packets: self.buffer_packets,
            switch: self.switch,
            routing,
            selection: self.selection,
            warmup: self.warmup,
            probe: None,
            link_stats: self.link_stats.is_some(),
            workload: None,
        };
        m.validate()?;
        Ok(m)
    }
}

/// TLM options (time in steps Δt, distances in cells).
#[derive(Args, Debug, Clone)]
pub(crate) struct TlmArgs {
    /// Grid size XxY (2-D, 4 ports per cell) or XxYxZ (3-D, 6 ports), e.g. 1000x1000x2.
    #[arg(long, default_value = "256x256", value_parser = grid_size)]
    pub size: GridSize,
    /// Reflection coefficient of the grid's edge, in [-1, 1] (0: absorbing, ±1: lossless walls).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub boundary_reflection: f64,
    /// Reflection coefficient of obstacle walls, in [-1, 1].
    #[arg(long, default_value_t = 0.5, allow_negative_numbers = true)]
    pub wall_reflection: f64,
    /// Obstacles: none, or urban (square blocks of --block-size cells between
    /// streets of --street-width, building heights drawn by --seed).
    #[arg(long, default_value = "none", value_parser = ["none", "urban"])]
    pub obstacles: String,
    /// Side of an urban block, in cells.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub block_size: u32,
    /// Width of an urban street, in cells.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..))]
    pub street_width: u32,
    /// Terrain file: a row of characters per y, one per x: '.' open, '1'-'9'
    /// a building that many cells high, '#' as high as the grid (overrides --obstacles).
    #[arg(long, value_name = "FILE")]
    pub terrain: Option<PathBuf>,
    /// Radios placed at random open ground cells (z = 0) by --seed
    /// [default: one at the centre when no source is given].
    #[arg(long, value_name = "N")]
    pub sources: Option<u32>,
    /// A radio at this cell (repeat the option for several).
    #[arg(long, value_name = "X,Y[,Z]", value_parser = position)]
    pub source_at: Vec<Position>,
    /// Radios from a file: one "X Y [Z]" per line ('#' starts a comment).
    #[arg(long, value_name = "FILE")]
    pub sources_file: Option<PathBuf>,
    /// Receivers placed at random open ground cells by --seed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub receivers: u32,
    /// A receiver at this cell (repeat the option for several).
    #[arg(long, value_name = "X,Y[,Z]", value_parser = position)]
    pub receiver_at: Vec<Position>,
    /// Receivers from a file: one "X Y [Z]" per line.
    #[arg(long, value_name = "FILE")]
    pub receivers_file: Option<PathBuf>,
    /// What the radios emit: gaussian (pulse of --width), impulse (one kick at
    /// step 0), sine (of --period, for --source-steps).
    #[arg(long, default_value = "gaussian", value_parser = ["gaussian", "impulse", "sine"])]
    pub waveform: String,
    /// Standard deviation of the Gaussian pulse, in steps.
    #[arg(long, default_value_t = 4.0, value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub width: f64,
    /// Period of the sine, in steps.
    #[arg(long, default_value_t = 16.0, value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub period: f64,
    /// Steps the sine is on (0: the whole run).
    #[arg(long, default_value_t = 0)]
    pub source_steps: u32,
    /// Peak excitation added to each incident pulse of a radio's cell.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub amplitude: f64,
    /// Pulses of magnitude at most this are not sent (saves work far from
    /// the sources, loses that much energy; 0 drops only exact zeros).
    #[arg(long, default_value_t = 0.0, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub threshold: f64,
    /// Write the field magnitude of one z-layer as a PNG image.
    #[arg(long, value_name = "FILE.png")]
    pub image: Option<PathBuf>,
    /// Step shown by --image [default: the last step].
    #[arg(long, value_name = "STEP")]
    pub image_at: Option<u32>,
    /// Z-layer shown by --image.
    #[arg(long, default_value_t = 0)]
    pub image_layer: u32,
    /// Write every receiver's node voltage per step as CSV (a column per receiver).
    #[arg(long, value_name = "FILE")]
    pub receivers_csv: Option<PathBuf>,
}

/// Extents of a TLM grid.
#[derive(Clone, Debug)]
pub(crate) struct GridSize(pub Vec<u32>);

/// `XxY` or `XxYxZ`.
fn grid_size(s: &str) -> Result<GridSize, String> {
    let v: Result<Vec<u32>, _> = s.split(['x', 'X']).map(str::parse).collect();
    match v {
        Ok(v) if (2..=3).contains(&v.len()) => Ok(GridSize(v)),
        _ => Err(format!("'{s}' is not XxY or XxYxZ with whole numbers, e.g. 256x256 or 1000x1000x2")),
    }
}

/// A cell given on the command line.
#[derive(Clone, Debug)]
pub(crate) struct Position(pub Vec<u32>);

/// `X,Y` or `X,Y,Z`.
fn position(s: &str) -> Result<Position, String> {
    let v: Result<Vec<u32>, _> = s.split(',').map(|w| w.trim().parse()).collect();
    match v {
        Ok(v) if (2..=3).contains(&v.len()) => Ok(Position(v)),
        _ => Err(format!("'{s}' is not X,Y or X,Y,Z with whole numbers")),
    }
}

/// Positions from a file of "X Y [Z]" lines.
fn positions(path: &std::path::Path) -> Result<Vec<Vec<u32>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut out = vec![];
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let p: Result<Vec<u32>, _> = line.split([' ', '\t', ',']).filter(|w| !w.is_empty()).map(str::parse).collect();
        match p {
            Ok(p) if (2..=3).contains(&p.len()) => out.push(p),
            _ => {
                return Err(format!(
                    "{}:{}: expected \"X Y [Z]\" (whole numbers), got \"{line}\"",
                    path.display(),
                    i + 1
                ))
            }
        }
    }
    Ok(out)
}

impl TlmArgs {
    /// Refuses a run that could not end in reasonable time: at most every
    /// open cell busy at every step, `2·D + 2` events each.
    pub(crate) fn bounded(&self, m: &Tlm, end: f64) -> Result<(), String> {
        let events = m.grid().open_cells() as f64 * (m.grid().ports() + 2) as f64 * end;
        let what = format!(
            "--size {} with --end {}",
            self.size.0.iter().map(u32::to_string).collect::<Vec<_>>().join("x"),
            num(end)
        );
        bounded(events, end, &what, "lower --end or --size")
    }

    /// The model; `seed` places random radios and buildings, `end` sets the
    /// default image step.
    pub(crate) fn model(&self, seed: u64, end: f64) -> Result<Tlm, String> {
        if end > (u32::MAX - 2) as f64 {
            return Err(format!("--end {end} is more steps than a TLM run counts (at most {})", u32::MAX - 2));
        }
        let dims = &self.size.0;
        let mut m = Tlm::new(dims)?;
        let layout = match (&self.terrain, self.obstacles.as_str()) {
            (Some(path), _) => {
                let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                Layout::parse_terrain(&text, dims[0], dims[1]).map_err(|e| format!("{}: {e}", path.display()))?
            }
            (None, "urban") => Layout::Urban { block: self.block_size, street: self.street_width, seed },
            _ => Layout::Open,
        };
        let mut sources: Vec<Vec<u32>> = self.source_at.iter().map(|p| p.0.clone()).collect();
        if let Some(p) = &self.sources_file {
            sources.extend(positions(p)?);
        }
        let mut receivers: Vec<Vec<u32>> = self.receiver_at.iter().map(|p| p.0.clone()).collect();
        if let Some(p) = &self.receivers_file {
            receivers.extend(positions(p)?);
        }
        m.clear_sources();
        m.set_layout(layout)?;
        for p in &sources {
            m.add_source(p)?;
        }
        let mut rng = timewarp::ReversibleRng::new(seed, u64::MAX);
        for p in random_ground_cells(&m, self.sources.unwrap_or(0), m.sources(), &mut rng)? {
            m.add_source(&p)?;
        }
        if m.sources().is_empty() && self.sources.is_none() {
            let mut centre: Vec<u32> = dims.iter().map(|&d| d / 2).collect();
            if let Some(z) = centre.get_mut(2) {
                *z = 0; // radios stand on the ground
            }
            m.add_source(&centre).map_err(|e| format!("{e} (or place radios with --source-at)"))?;
        }
        for p in &receivers {
            m.add_receiver(p)?;
        }
        for p in random_ground_cells(&m, self.receivers, &[], &mut rng)? {
            m.add_receiver(&p)?;
        }
        m.waveform = match self.waveform.as_str() {
            "impulse" => Waveform::Impulse,
            "sine" => Waveform::Sine { period: self.period, steps: self.source_steps },
            _ => Waveform::Gaussian { width: self.width },
        };
        m.amplitude = self.amplitude;
        m.boundary_reflection = self.boundary_reflection;
        m.wall_reflection = self.wall_reflection;
        m.threshold = self.threshold;
        let last = (end - 1.0).ceil().max(0.0) as u32;
        if self.image.is_some() {
            let at = self.image_at.unwrap_or(last);
            if at > last {
                return Err(format!("--image-at {at} is past the last step {last} (the run ends at {end})"));
            }
            m.snapshot = Some((at, self.image_layer));
        }
        m.validate()?;
        Ok(m)
    }
}

/// `n` distinct open ground cells (z = 0) drawn uniformly, none of them in `taken`.
fn random_ground_cells(
    m: &Tlm,
    n: u32,
    taken: &[u32],
    rng: &mut timewarp::ReversibleRng,
) -> Result<Vec<Vec<u32>>, String> {
    use timewarp::Random;
    if n == 0 {
        return Ok(vec![]);
    }
    let g = m.grid();
    let taken: std::collections::HashSet<u32> = taken.iter().copied().collect();
    let ground: Vec<u32> = (0..g.size[1])
        .flat_map(|y| (0..g.size[0]).map(move |x| g.id([x, y, 0])))
        .filter(|&c| !g.solid(c) && !taken.contains(&c))
        .collect();
    let free = ground.len() as u64;
    if n as u64 > free {
        return Err(format!("{n} random radios and receivers do not fit on {free} open ground cells"));
    }
    let mut chosen = std::collections::HashSet::new();
    let mut out = vec![];
    while out.len() < n as usize {
        let c = ground[rng.below(ground.len() as u64) as usize];
        if chosen.insert(c) {
            let [x, y, z] = g.coords(c);
            out.push(if g.dims == 3 { vec![x, y, z] } else { vec![x, y] });
        }
    }
    Ok(out)
}

impl ModelCli for PholdArgs {
    type Model = Phold;
    const NAME: &'static str = "phold";
    const ABOUT: &'static str = "PHOLD synthetic benchmark: every event schedules one new event";
    const SUMMARY: &'static str = "synthetic benchmark: every event schedules one new event (Fujimoto; ROSS's PHOLD)";
    const END: &'static str = "20";
    const END_HELP: &'static str =
        "Virtual end time, in the unit of --mean and --lookahead; events at or after it are not processed";
    fn build(&self, run: &RunInfo) -> Result<Phold, String> {
        let m = self.model()?;
        m.validate()?;
        self.bounded(m.lps, run.end, run.max_events_at_one_time)?;
        Ok(m)
    }
    fn sizing(&self) -> String {
        // With --hierarchy the LP count follows from it.
        let lps = self.model().map_or(self.lps, |m| m.lps);
        format!("--lps {lps} with --population {}", self.population)
    }
}

impl ModelCli for NetworkArgs {
    type Model = Network;
    const NAME: &'static str = "network";
    const ABOUT: &'static str = "Interconnection network: packets through credit-based virtual cut-through \
        switches on a torus, mesh, hypercube, dragonfly or fat-tree (time in ns)";
    const SUMMARY: &'static str =
        "interconnection network: torus, mesh, hypercube, dragonfly, fat-tree; credit-based virtual cut-through \
        (BigNetSim; checked against zero-load latency, hop counts, channel-load bound); synthetic traffic or \
        MPI-like traces (checked against analytic ping-pong and all-reduce times)";
    const END: &'static str = "20000";
    const END_HELP: &'static str = "Virtual end time in ns; events at or after it are not processed";
    fn build(&self, run: &RunInfo) -> Result<Network, String> {
        let mut m = self.model()?;
        // A trace workload is finite: it ends when its ranks do.
        match self.workload.build(m.topology.nodes(), self.message_bytes, run.seed)? {
            Some(w) => m.workload = Some(w),
            None => self.bounded(m.topology.nodes(), run.end)?,
        }
        m.validate()?;
        Ok(m)
    }
    fn sizing(&self) -> String {
        match (self.preset.as_deref(), self.topology.as_str()) {
            (Some(p), _) => format!("--preset {p}"),
            (_, "dragonfly") => format!(
                "--routers-per-group {} --terminals-per-router {} --global-links {}",
                self.routers_per_group, self.terminals_per_router, self.global_links
            ),
            (_, "hypercube") => format!("--nodes {}", self.nodes.unwrap_or(1024)),
            (_, "fattree") => {
                let nodes = self.nodes.map_or(String::new(), |n| format!(" --nodes {n}"));
                format!("--radix {} --levels {}{nodes}", self.radix, self.levels)
            }
            _ => format!("--dims {}", self.dims.iter().map(u32::to_string).collect::<Vec<_>>().join(",")),
        }
    }
    fn after(&self, r: &<Network as timewarp::Model>::Results) -> Result<(), String> {
        if let Some(path) = &self.link_stats {
            write_link_stats(path, &serde_json::to_value(r).map_err(|e| e.to_string())?)?;
        }
        // A trace workload whose ranks did not all finish has no application time to report.
        r.unfinished().map_or(Ok(()), Err)
    }
    fn summary(&self, r: &<Network as timewarp::Model>::Results) -> String {
        crate::workload_args::summary(r)
    }
}

impl ModelCli for TlmArgs {
    type Model = Tlm;
    const NAME: &'static str = "tlm";
    const ABOUT: &'static str = "TLM radio propagation: pulses scattered by a transmission-line matrix over a 2-D \
        or 3-D grid with obstacles (time in steps)";
    const SUMMARY: &'static str = "radio propagation by transmission-line matrix over terrain (the Blue Gene \
        paper's TLM; checked against direct time stepping, energy, phase velocity, symmetry)";
    const END: &'static str = "150";
    const END_HELP: &'static str = "Virtual end time in steps (Δt = 1); steps 0 up to it are simulated";
    fn build(&self, run: &RunInfo) -> Result<Tlm, String> {
        let m = self.model(run.seed, run.end)?;
        self.bounded(&m, run.end)?;
        Ok(m)
    }
    fn sizing(&self) -> String {
        format!("--size {}", self.size.0.iter().map(u32::to_string).collect::<Vec<_>>().join("x"))
    }
    fn after(&self, r: &timewarp_models::tlm::TlmResults) -> Result<(), String> {
        if let (Some(path), Some(field)) = (&self.image, &r.field) {
            crate::plot::picture::write_field(path, field)?;
        }
        match &self.receivers_csv {
            Some(path) => write_signals(path, r),
            None => Ok(()),
        }
    }
}

impl ModelCli for PcsArgs {
    type Model = Pcs;
    const NAME: &'static str = "pcs";
    const ABOUT: &'static str = "PCS cellular network: calls, handoffs and blocking on a grid of cells";
    const SUMMARY: &'static str =
        "cellular network: call blocking and handoffs on a wrap-around grid (ROSS's PCS; checked against Engset / Erlang-B)";
    const END: &'static str = "100";
    const END_HELP: &'static str = "Virtual end time, in the unit of --call-duration (one mean call at the \
        defaults); events at or after it are not processed";
    fn build(&self, run: &RunInfo) -> Result<Pcs, String> {
        let m = self.model();
        m.validate()?;
        self.bounded(run.end)?;
        Ok(m)
    }
    fn sizing(&self) -> String {
        format!(
            "--cells-x {} × --cells-y {} with --portables-per-cell {}",
            self.cells_x, self.cells_y, self.portables_per_cell
        )
    }
    fn summary(&self, r: &timewarp_models::pcs::PcsResults) -> String {
        let name = if r.formula == "engset" { "Engset" } else { "Erlang-B" };
        let exact = if self.move_rate == 0.0 {
            "exact without mobility"
        } else {
            "exact only with --move-rate 0; mobility raises blocking"
        };
        format!(
            "blocking: measured {:.5} of new calls; {name} {:.5} for an isolated cell ({exact})\n",
            r.blocking_probability, r.formula_blocking_probability
        )
    }
}

/// Writes every receiver's node voltage per step (0 where its cell was quiet).
fn write_signals(path: &std::path::Path, r: &timewarp_models::tlm::TlmResults) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write receiver signals to {}: {e}", path.display());
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(fail)?);
    write!(f, "step").map_err(fail)?;
    for rx in &r.receivers {
        write!(f, ",x{}_y{}_z{}", rx.x, rx.y, rx.z).map_err(fail)?;
    }
    writeln!(f).map_err(fail)?;
    let mut next = vec![0usize; r.signals.len()];
    for step in 0..r.steps as u32 {
        write!(f, "{step}").map_err(fail)?;
        for (sig, i) in r.signals.iter().zip(&mut next) {
            let v = match sig.get(*i) {
                Some(&(t, v)) if t == step => {
                    *i += 1;
                    v
                }
                _ => 0.0,
            };
            write!(f, ",{v}").map_err(fail)?;
        }
        writeln!(f).map_err(fail)?;
    }
    f.flush().map_err(fail)
}

/// Writes the network's per-link figures (`model_results.links`) as CSV.
fn write_link_stats(path: &std::path::Path, results: &Value) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write link statistics to {}: {e}", path.display());
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(fail)?);
    writeln!(f, "link,source,destination,packets,busy_fraction").map_err(fail)?;
    let links = results.get("links").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for (i, l) in links.iter().enumerate() {
        writeln!(f, "{i},{},{},{},{}", l["node"], l["neighbour"], l["packets"], l["busy"]).map_err(fail)?;
    }
    f.flush().map_err(fail)
}
