//! The network model's command line.

use clap::Args;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use timewarp::Rollback;
use timewarp_models::network::{self, Arbitration, Network, RailSelect, Routing, Scoring, Selection, Switch, Traffic};

use crate::args::{choice, non_negative_f64, probability, whole};
use crate::registry::{ModelCli, RunInfo};

/// `--load`'s default (a workload of ranks refuses another value).
pub(super) const LOAD: f64 = 0.3;

/// Network options (time in ns, sizes in bytes, bandwidth in bytes/ns).
#[derive(Args, Debug, Clone)]
pub(crate) struct NetworkArgs {
    /// Topology: torus (k-ary n-cube), mesh, hypercube, dragonfly,
    /// dragonfly-plus (leaves and spines per group), fattree (2 or 3 levels
    /// of --radix-port switches, nodes on the leaves), or slimfly (the MMS
    /// graph of --slimfly-q: 2q² routers, diameter 2).
    /// A preset sets its own (dragonfly for theta, fattree for summit).
    #[arg(long, default_value = "torus", value_parser = ["torus", "mesh", "hypercube", "dragonfly", "dragonfly-plus", "fattree", "slimfly"],
          default_value_ifs = [("preset", "theta", "dragonfly"), ("preset", "summit", "fattree")])]
    pub topology: String,
    /// A named machine: theta (ALCF Theta as CODES's dragonfly-custom model
    /// has it: --topology dragonfly --routers-per-group 96
    /// --terminals-per-router 4 --global-links 10 --groups 9, 864 routers,
    /// 3,456 nodes; local links all-to-all, not Aries' rows and columns);
    /// summit (OLCF Summit as CODES models it: --topology fattree --radix 36
    /// --levels 3 --nodes 3564, 11 pods, 198 leaf + 198 aggregation + 108
    /// core switches = 504, full bisection).
    #[arg(long, value_parser = ["theta", "summit"], conflicts_with_all = ["dims", "nodes", "routers_per_group", "terminals_per_router", "global_links", "groups", "radix", "levels", "top_uplinks", "rails", "rail_select", "tapering"])]
    pub preset: Option<String>,
    /// Dragonfly: routers per group (a), joined all-to-all by local links.
    #[arg(long, value_name = "A", default_value_t = 4, value_parser = whole::<u32>(1, 255), allow_negative_numbers = true)]
    pub routers_per_group: u32,
    /// Dragonfly and Slim Fly: terminals (nodes) per router (p).
    #[arg(long, value_name = "P", default_value_t = 2, value_parser = whole::<u32>(1, 255), allow_negative_numbers = true)]
    pub terminals_per_router: u32,
    /// Dragonfly: global links per router (h).
    #[arg(long, value_name = "H", default_value_t = 2, value_parser = whole::<u32>(1, 255), allow_negative_numbers = true)]
    pub global_links: u32,
    /// Dragonfly: groups (default the maximal a·h + 1, one global link
    /// between every pair of groups; fewer must divide a·h evenly).
    #[arg(long, value_name = "G", value_parser = whole::<u32>(2, u16::MAX as u64), allow_negative_numbers = true)]
    pub groups: Option<u32>,
    /// Slim Fly: the prime q of its MMS graph (4w ± 1: 3, 5, 7, 11, 13, …):
    /// 2q² routers in 2q groups of q, (3q ∓ 1)/2 network ports each.
    #[arg(long, value_name = "Q", default_value_t = 5, value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub slimfly_q: u32,
    /// Slim Fly: the generator sets X and X' of the MMS graph, each
    /// comma-separated and closed under negation mod q, as CODES's
    /// generator_set_X and generator_set_X_prime [default: MMS's, from the
    /// smallest primitive element of q].
    #[arg(long, value_name = "X1,X2,...", value_delimiter = ',', num_args = 1.., value_parser = whole::<u32>(0, u32::MAX as u64), requires = "generator_set_x_prime")]
    pub generator_set_x: Vec<u32>,
    /// Slim Fly: the generator set X' (see --generator-set-x).
    #[arg(long, value_name = "X1,X2,...", value_delimiter = ',', num_args = 1.., value_parser = whole::<u32>(0, u32::MAX as u64), requires = "generator_set_x")]
    pub generator_set_x_prime: Vec<u32>,
    /// Dragonfly+ (--topology dragonfly-plus): leaf routers per group, each
    /// with --terminals-per-router nodes and a link to every spine.
    #[arg(long, value_name = "L", default_value_t = 4, value_parser = whole::<u32>(1, 254), allow_negative_numbers = true)]
    pub leaves_per_group: u32,
    /// Dragonfly+: spine routers per group, each with --global-links links to other groups.
    #[arg(long, value_name = "S", default_value_t = 4, value_parser = whole::<u32>(1, 254), allow_negative_numbers = true)]
    pub spines_per_group: u32,
    /// Dragonfly: wire each group's routers from this CODES
    /// `intra-group-connections` file (binary `(src, dest, type)` records;
    /// with --inter-connections, instead of all-to-all groups).
    #[arg(long, value_name = "FILE")]
    pub intra_connections: Option<PathBuf>,
    /// Dragonfly: the global links from this CODES `inter-group-connections`
    /// file (binary `(src, dest)` records of global router numbers).
    #[arg(long, value_name = "FILE")]
    pub inter_connections: Option<PathBuf>,
    /// Look for the connection files' base names in this folder instead of
    /// the paths given (a CODES configuration's paths are relative to
    /// where CODES ran).
    #[arg(long, value_name = "DIR")]
    pub connections_dir: Option<PathBuf>,
    /// Which CODES model's rule picks the router that leaves a wired
    /// group: dragonfly-custom (a random gateway of the group) or
    /// dragonfly-dally (the router's own global link, else a random
    /// neighbour that has one).
    #[arg(long, value_name = "MODEL", default_value = "dragonfly-custom", value_parser = ["dragonfly-custom", "dragonfly-dally"])]
    pub connections_model: String,
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
    /// Fat-tree: rails (planes): the switches above the leaves built R
    /// times over, every node with a link into each (CODES's num_rails)
    /// [default: 1].
    #[arg(long, value_name = "R", value_parser = whole::<u32>(1, 64), allow_negative_numbers = true)]
    pub rails: Option<u32>,
    /// Fat-tree with --rails: how a node chooses a message's rail: dedicated
    /// (node n's rail is (n mod radix/2) mod R), adaptive (from the dedicated
    /// rail, one whose up links at the leaf hold fewer packets), random
    /// (uniform per message) [default: dedicated].
    #[arg(long, value_parser = choice::<RailSelect>(&["dedicated", "adaptive", "random"]))]
    pub rail_select: Option<RailSelect>,
    /// Fat-tree, --rail-select adaptive: only larger messages are weighed (CODES's rail_select_limit) [default: 32768].
    #[arg(long, value_name = "BYTES", value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub rail_select_limit: Option<u32>,
    /// Fat-tree: CODES's tapering T: T·radix/(T+1) nodes, radix/(T+1) up links per leaf [default: 1].
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    pub tapering: Option<f64>,
    /// Traffic pattern: uniform, shift, ring, transpose, bit-reversal, bit-complement, neighbour, hotspot,
    /// group-shift (dragonfly: every node of group i to a random node of group i + 1), tornado
    /// (torus/mesh: ceil(k/2)-1 steps up every dimension), permutation (a random permutation
    /// fixed by --permutation-seed), shuffle (address bits rotated left by one).
    #[arg(long, default_value = "uniform", value_parser = choice::<Traffic>(&["uniform", "shift", "ring", "transpose", "bit-reversal", "bit-complement", "neighbour", "hotspot", "group-shift", "tornado", "permutation", "shuffle"]))]
    pub traffic: Traffic,
    /// Seed of --traffic permutation (the same seed, the same permutation).
    #[arg(long, value_name = "S", default_value_t = 1, value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    pub permutation_seed: u64,
    /// Offset of --traffic shift (node s sends to s + K mod N).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub shift: u32,
    /// Hot nodes (ids 0..H) of --traffic hotspot.
    #[arg(long, value_name = "H", default_value_t = 1, value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub hotspot_nodes: u32,
    /// Fraction of messages sent to a hot node (--traffic hotspot).
    #[arg(long, default_value_t = 0.1, value_parser = probability, allow_negative_numbers = true)]
    pub hotspot_fraction: f64,
    /// Message creation at each node: poisson, periodic (each node its own
    /// random phase), in-phase (periodic, every node at the same instants,
    /// the first one gap in, as CODES's synthetic dragonfly program), bursty (on/off:
    /// bursts of --burst-length messages on average at the link's rate,
    /// silences between) or bernoulli (one message per serialisation slot
    /// with probability --load).
    #[arg(long, default_value = "poisson", value_parser = choice::<network::Arrivals>(&["poisson", "periodic", "in-phase", "bursty", "bernoulli"]))]
    pub arrivals: network::Arrivals,
    /// Mean messages per burst of --arrivals bursty.
    #[arg(long, value_name = "B", default_value_t = 8, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub burst_length: u32,
    /// Offered load per node, as a fraction of the injection link's bandwidth
    /// (0 to 1; above 1 floods the injection queues, and needs --messages to end).
    #[arg(long, default_value_t = LOAD, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub load: f64,
    /// Mean gap between a node's messages in ns, instead of --load (the
    /// load it offers is --message-bytes / (gap × --link-bandwidth), and may
    /// exceed 1 when --messages bounds the run: the papers' "20 ns
    /// inter-arrival" floods the injection queues).
    #[arg(long, value_name = "NS", conflicts_with = "load", value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub interarrival: Option<f64>,
    /// Messages each node creates, then stops; the run ends once all are
    /// delivered (give a large --end), so --load may exceed 1; at most
    /// 50,000,000 over all nodes [default: no limit].
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
    /// Virtual channels per port (a torus needs 2 or more: dateline classes,
    /// 4 for valiant and romm; a dragonfly 3 for minimal routing, 5 for
    /// valiant, ugal, ugal-g and ugal-codes, 6 for par: one per hop; a Slim Fly 2 for
    /// minimal, 4 for valiant and ugal) [default: 2; dragonfly 5, 6 with
    /// par; slimfly 4].
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
    /// Switch: input-buffered, output-buffered, or codes (CODES's routers:
    /// output queues that share the next buffer's slots with the link, and
    /// credits sent back as a packet moves into its output queue; what a
    /// --codes-config import sets).
    #[arg(long, default_value = "input-buffered", value_parser = choice::<Switch>(&["input-buffered", "output-buffered", "codes"]))]
    pub switch: Switch,
    /// Which waiting packet an output serves next: round-robin over the
    /// input queues (virtual channels and NICs), age (oldest first, counted
    /// from entering the network), or transit-first (packets from network
    /// ports before injected ones, oldest first).
    #[arg(long, default_value = "round-robin", value_parser = choice::<Arbitration>(&["round-robin", "age", "transit-first"]))]
    pub arbitration: Arbitration,
    /// Routing: dimension-order (e-cube on a hypercube), or minimal adaptive with
    /// dimension-order escape channels (needs --vcs 3 on a torus, 2 otherwise);
    /// valiant (through a random router) or romm (through a random router of
    /// the minimal quadrant: minimal routes; needs --vcs 4 on a torus, 2
    /// otherwise); a dragonfly: minimal, valiant (random intermediate group),
    /// ugal (UGAL-L, minimal or Valiant by queue occupancy at the source
    /// router), ugal-g (UGAL with the occupancy of each route's global
    /// channel, as broadcast within the group), ugal-codes (CODES's 1-D
    /// dragonfly rule: minimal unless its first output holds more than the
    /// non-minimal one's, no hop weighting) or par (progressive: UGAL-L
    /// again at the next router of the source group while still minimal;
    /// on a dragonfly-plus CODES's routings: valiant = non-minimal-spine,
    /// non-minimal-leaf, par = prog-adaptive); a fat-tree: updown (up port by a digit of the destination) or
    /// updown-adaptive (the least occupied up port); a Slim Fly: minimal,
    /// valiant (through a random router) or ugal (UGAL-L at the source)
    /// [default: dimension-order; dragonfly and slimfly minimal; fattree updown].
    #[arg(long, value_parser = choice::<Routing>(&["dimension-order", "adaptive", "minimal", "valiant", "ugal", "ugal-g", "ugal-codes", "par", "romm", "updown", "updown-adaptive", "non-minimal-leaf", "non-minimal-spine", "prog-adaptive"]))]
    pub routing: Option<Routing>,
    /// Dragonfly, ugal, ugal-g and par: bias towards the minimal route, in
    /// queued packets × hops: minimal unless q_min·H_min > q_val·H_val + T
    /// (ugal-codes: minimal when q_min <= T or q_min <= q_val).
    #[arg(long, value_name = "T", default_value_t = 0.0, allow_negative_numbers = true)]
    pub ugal_threshold: f64,
    /// Dragonfly-plus: CODES's route_scoring_metric, how candidate ports
    /// are scored: alpha (packets queued at each), beta (times the hops
    /// left from its far end) or delta (prog-adaptive's non-minimal
    /// candidate's count doubled). Also delta on a dragonfly wired by
    /// CODES's files, under ugal or par: the non-minimal count doubled
    /// (dragonfly_dally's delta, dragonfly_custom's minimal-bias=1).
    #[arg(long, default_value = "alpha", value_parser = choice::<Scoring>(&["alpha", "beta", "delta"]))]
    pub route_scoring: Scoring,
    /// Dragonfly, ugal-g: a router sends its global channels' occupancy to
    /// its group when it changes, at most once per NS ns [default: a
    /// packet's serialisation time on a global link].
    #[arg(long, value_name = "NS", allow_negative_numbers = true)]
    pub ugal_g_period: Option<f64>,
    /// Also report the p50 and p99 of the two parts of packet latency
    /// (source queueing, network latency), besides their means. Adds to
    /// every router's state (so changes the run's digest).
    #[arg(long)]
    pub split_quantiles: bool,
    /// Trace and generated workloads: MPI's protocol as CODES's replay
    /// has it. A message of fewer than BYTES bytes goes eager; one of
    /// BYTES or more by rendezvous (a 64-byte request-to-send, a 64-byte
    /// clear-to-send once a receive matches, then the data). `none`: every
    /// message eager [default: none; 8192, CODES's, with --codes-config].
    #[arg(long, value_name = "BYTES", value_parser = eager_limit)]
    pub eager_limit: Option<EagerLimit>,
    /// The NICs' bounded buffer, as CODES's `cn_vc_size`: each router's
    /// input from a NIC holds BYTES (whole packets of --packet-bytes), and
    /// the NIC sends a packet only while it holds a credit for a free one;
    /// packets wait at the NIC meanwhile. `none`: unbounded, the NIC sends
    /// at its link's rate [default: none; cn_vc_size with --codes-config].
    #[arg(long, value_name = "BYTES", value_parser = nic_buffer)]
    pub nic_buffer: Option<NicBuffer>,
    /// Adaptive routing's choice among free outputs: load (most free buffers
    /// at the neighbour) or contention (fewest packets here waiting for the port).
    #[arg(long, default_value = "load", value_parser = choice::<Selection>(&["load", "contention"]))]
    pub selection: Selection,
    /// How optimistic runs undo a router's events: incremental (each event
    /// saves what it overwrites) or state-saving (a copy of the whole router
    /// before every event; slower, kept to measure against).
    #[arg(long, default_value = "incremental", value_parser = choice::<Rollback>(&["incremental", "state-saving"]))]
    pub rollback: Rollback,
    /// Statistics start at this time (ns).
    #[arg(long, default_value_t = 0.0, value_parser = non_negative_f64, allow_negative_numbers = true)]
    pub warmup: f64,
    /// Write per-link figures as CSV (link, source, destination, packets,
    /// busy fraction, class: local/global on a dragonfly or Slim Fly,
    /// leaf-level1/level1-level2 on a fat-tree, network on a cube).
    #[arg(long, value_name = "FILE")]
    pub link_stats: Option<PathBuf>,
    /// Write CODES's LP-IO files for a dragonfly into DIR (created if
    /// needed): dragonfly-msg-stats (per terminal: bytes received, packet
    /// latency, packets, hops), dragonfly-router-traffic (bytes per router
    /// port) and dragonfly-router-stats (busy time per port), in CODES's
    /// layout; for a dragonfly_dally import (--lp-io-lps naming its LPs)
    /// dragonfly-link-stats and dragonfly-cn-stats, as CODES's Dally model
    /// (docs/codes.md, "Output files"). Not in the digest; not carried by
    /// checkpoints.
    #[arg(long, value_name = "DIR")]
    pub lp_io_dir: Option<PathBuf>,
    /// CODES's LP numbering for --lp-io-dir: one repetition of the
    /// configuration's LPGROUPS, its LP types in order as NAME=COUNT,...
    /// (`--codes-config` sets it from the file). The files' first column is
    /// then CODES's global LP id; without it, the router's LP of ours. A
    /// terminal type modelnet_dragonfly_dally selects the Dally files.
    #[arg(long, value_name = "LIST", requires = "lp_io_dir")]
    pub lp_io_lps: Option<String>,
    /// CODES's `dragonfly_custom` port slots for --lp-io-dir's
    /// dragonfly-router-traffic and -router-stats: COLS,ROW_CHANS,COL_CHANS,GLOBAL_CHANNELS
    /// (num_router_cols, num_row_chans, num_col_chans, num_global_channels;
    /// `--codes-config` sets it from a dragonfly_custom file). Without it, the
    /// router's own port order.
    #[arg(long, value_name = "C,R,K,G", requires = "lp_io_dir")]
    pub lp_io_grid: Option<String>,
    /// Record a time series in intervals of NS ns of virtual time: per
    /// interval, accepted throughput, latency mean and p99, packets in
    /// flight, the busiest links (utilisation, occupancy) and per-job
    /// figures; in `model_results.samples` of --stats-json, and as CSV with
    /// --samples-csv (docs/network-workloads.md, "Time series"). Adds to every
    /// router's state (so changes the run's digest).
    #[arg(long, value_name = "NS", value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub sample_every: Option<f64>,
    /// Write the time series of --sample-every as CSV, one row per interval.
    #[arg(long, value_name = "FILE", requires = "sample_every")]
    pub samples_csv: Option<PathBuf>,
    /// Read a CODES model-net configuration (dragonfly, dragonfly_custom,
    /// dragonfly_dally, dragonfly_plus, fattree, slimfly, torus; `.conf` or
    /// its YAML twin) as these options; the command
    /// line's replace the file's, and a table of what was taken, converted
    /// and ignored goes to stderr (docs/codes.md, "CODES configurations").
    #[arg(long, value_name = "FILE.conf")]
    pub codes_config: Option<PathBuf>,
    #[command(flatten)]
    pub workload: super::workload_args::WorkloadArgs,
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
        // The file is read into options before parsing (`run` and `verify`):
        // a path still here was never read, and a run without it would be
        // another network than the one asked for.
        if let Some(file) = &self.codes_config {
            return Err(format!(
                "--codes-config {}: this command does not read CODES configurations; use `{} run` or `verify`",
                file.display(),
                crate::program::name()
            ));
        }
        let mut m = self.model()?;
        if self.workload.has_jobs() {
            self.jobs(&mut m, run)?;
            m.validate()?;
            return Ok(m);
        }
        // A trace workload is finite: it ends when its ranks do.
        match self.workload.build(m.topology.nodes(), self.message_bytes, run.seed)? {
            Some(w) => {
                // Synthetic traffic's options would be ignored by ranks: refused.
                let synthetic = [
                    (self.messages.is_some(), "--messages"),
                    (self.interarrival.is_some(), "--interarrival"),
                    (self.load != LOAD, "--load"),
                    (self.traffic != Traffic::Uniform, "--traffic"),
                    (self.arrivals != network::Arrivals::Poisson, "--arrivals"),
                ];
                if let Some((_, option)) = synthetic.iter().find(|s| s.0) {
                    return Err(format!(
                        "{option} is for --workload synthetic (the workload is {}: its ranks send what their \
                         programs say)",
                        self.workload.workload
                    ));
                }
                m.workload = Some(w)
            }
            None => {
                self.bounded(m.topology.nodes(), run.end)?;
                self.backlog(&m, run.end)?;
                super::samples_csv::bounded(self.sample_every, run.end)?;
            }
        }
        m.validate()?;
        Ok(m)
    }
    fn inputs(&self) -> Vec<timewarp::checkpoint::InputFiles> {
        let mut inputs = self.workload.inputs();
        let named = [("intra", &self.intra_connections), ("inter", &self.inter_connections)];
        let named =
            named.into_iter().filter_map(|(o, n)| n.as_ref().map(|n| format!("--{o}-connections {}", n.display())));
        for (option, file) in named.zip(self.connection_files()) {
            inputs.push(timewarp::checkpoint::InputFiles::new(option, vec![file]));
        }
        inputs
    }
    fn sizing(&self) -> String {
        match (self.preset.as_deref(), self.topology.as_str()) {
            (Some(p), _) => format!("--preset {p}"),
            (_, "dragonfly") => format!(
                "--routers-per-group {} --terminals-per-router {} --global-links {}",
                self.routers_per_group, self.terminals_per_router, self.global_links
            ),
            (_, "dragonfly-plus") => format!(
                "--leaves-per-group {} --spines-per-group {} --terminals-per-router {} --global-links {}",
                self.leaves_per_group, self.spines_per_group, self.terminals_per_router, self.global_links
            ),
            (_, "hypercube") => format!("--nodes {}", self.nodes.unwrap_or(1024)),
            (_, "slimfly") => {
                format!("--slimfly-q {} --terminals-per-router {}", self.slimfly_q, self.terminals_per_router)
            }
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
        if let Some(path) = &self.samples_csv {
            super::samples_csv::write_csv(path, r)?;
        }
        if let Some(dir) = &self.lp_io_dir {
            let layout = super::lp_io::Layout::new(self.lp_io_lps.as_deref(), self.lp_io_grid.as_deref())?;
            let topology = if layout.needs_topology() { Some(self.model()?.topology) } else { None };
            super::lp_io::write(dir, r, &layout, topology.as_ref())?;
        }
        // A trace workload whose ranks did not all finish has no application time to report.
        r.unfinished().map_or(Ok(()), Err)
    }
    fn summary(&self, r: &<Network as timewarp::Model>::Results) -> String {
        let split = match (r.source_queueing_p50, r.source_queueing_p99, r.network_latency_p50, r.network_latency_p99) {
            (Some(q50), Some(q99), Some(n50), Some(n99)) => {
                let t = crate::readable::time_ns;
                format!(
                    "latency split: source queueing mean {}, p50 {}, p99 {}; network mean {}, p50 {}, p99 {}\n",
                    t(r.source_queueing_mean),
                    t(q50),
                    t(q99),
                    t(r.network_latency_mean),
                    t(n50),
                    t(n99)
                )
            }
            _ => String::new(),
        };
        let replay = self.workload.replay(r.ranks.len(), r.eager_limit);
        split
            + &super::workload_args::summary(r)
            + &replay
            + &super::job_args::summary(r)
            + &super::samples_csv::summary(r, self.samples_csv.as_deref())
            + &super::steady::note(r, self.warmup)
    }
}

/// `--eager-limit`: bytes, or `none` (every message eager).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EagerLimit(pub Option<u32>);

fn eager_limit(s: &str) -> Result<EagerLimit, String> {
    if s == "none" {
        return Ok(EagerLimit(None));
    }
    s.parse::<u32>().map(|b| EagerLimit(Some(b))).map_err(|_| {
        format!("expected a message size in bytes (0 to {}) or `none` (every message eager), got `{s}`", u32::MAX)
    })
}

/// `--nic-buffer`: bytes, or `none` (unbounded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NicBuffer(pub Option<u32>);

fn nic_buffer(s: &str) -> Result<NicBuffer, String> {
    if s == "none" {
        return Ok(NicBuffer(None));
    }
    s.parse::<u32>().map(|b| NicBuffer(Some(b))).map_err(|_| {
        format!("expected the buffer's size in bytes (1 to {}) or `none` (an unbounded NIC), got `{s}`", u32::MAX)
    })
}

/// Writes the network's per-link figures (`model_results.links`) as CSV.
fn write_link_stats(path: &std::path::Path, results: &Value) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write link statistics to {}: {e}", path.display());
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(fail)?);
    writeln!(f, "link,source,destination,packets,busy_fraction,class").map_err(fail)?;
    let links = results.get("links").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for (i, l) in links.iter().enumerate() {
        let class = l["class"].as_str().unwrap_or_default();
        writeln!(f, "{i},{},{},{},{},{class}", l["node"], l["neighbour"], l["packets"], l["busy"]).map_err(fail)?;
    }
    f.flush().map_err(fail)
}
