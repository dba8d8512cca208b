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
//! source queue is unbounded; with [`Network::nic_buffer`] the router's
//! input from it is bounded and credited back, nic_buffer.rs); its receive
//! side reassembles messages.
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
//!   the Valiant route through the message's intermediate group
//!   (`--ugal-threshold T`: minimal unless `q_min · H_min > q_val · H_val + T`);
//! * **PAR**: UGAL-L at the source router, taken again at the next router
//!   of the source group while the packet is still minimal (its
//!   intermediate group kept, marked [`PAR_PENDING`]); once non-minimal,
//!   or out of the group, final.
//!
//!   On CODES's `dragonfly_custom` ([`Dragonfly::via_router`]) the
//!   intermediate of these three is a router, as CODES draws it
//!   ([`Network::custom_via`]), reached before the route goes on (up to
//!   `4D + 2` hops, `D` the local diameter); packets within a group detour
//!   through another router of it (UGAL and PAR decide at the source only).
//! * **UGAL-G**: UGAL-L's comparison at the source router with each
//!   route's `q` plus, when its first output is a local port, the occupancy
//!   of the global channel it leaves the group on, as its owner last
//!   broadcast it to the group (`Occupancy` events, rate-limited:
//!   global.rs); an event reads only its own router's state, so the
//!   information is a local link latency old or more.
//!
//! Deadlock freedom: a packet's `k`-th router-to-router hop (from 0) uses
//! virtual channel `k`, whatever the link class, so every packet climbs the
//! channels strictly and the channel dependency graph has no cycle. Minimal
//! routing needs `vcs ≥ 3`, Valiant and UGAL (-L and -G) `vcs ≥ 5`, PAR `vcs ≥ 6` (a
//! local hop before it turns Valiant); channels above the
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
//! binary traces: workload/dumpi/) or generated, collectives expanded into
//! point-to-point messages; workload/mod.rs). A rank's messages go through its
//! NIC like any other; sends are eager (complete when queued), receives
//! complete when the whole message is here, matching is by (source, tag),
//! either possibly a wildcard, in the source's send order. The ranks' state lives in the
//! node (workload/rank.rs); docs/network-workloads.md has the format and semantics.
//!
//! # Events
//!
//! `Generate` (a new message at one NIC, self), `Arrive` (a packet's head at the next
//! router), `Credit` (a buffer slot freed downstream), `Wake` (an output link
//! becomes free while packets wait for it, self), `Ready` (the next injected
//! packet reaches the router, self; multi-packet messages only) and
//! `Deliver` (last byte at the destination NIC, self), with a trace
//! workload `Step` (a rank starts or ends a compute, self), and with UGAL-G
//! `Occupancy` (a global channel's occupancy, from a router of the group)
//! and `Publish` (a rate-limited broadcast is due, self), and with
//! `--nic-buffer` `NicCredit` (a slot of a NIC's buffer at the router
//! freed, self). At zero load a hop
//! costs two events (arrive, credit). Every event between nodes has a delay
//! of at least `L` (a dragonfly: the smaller of `L` and the global link
//! latency): the model's lookahead, so conservative windows work.
//! Events within a node may have any delay (zero included). Rollback is by
//! state saving: a node's buffers live in one flat array.
//!
//! # Files
//!
//! | File | What it holds |
//! |---|---|
//! | `mod.rs` | these docs, [`Msg`], the [`Model`] impl: `init`, the event dispatch, `finalize` |
//! | `options.rs` | [`Network`], [`LinkClass`], validation, the zero-load latency formulas, per-link parameter look-ups |
//! | `choices.rs` | the choices of the multiple-choice options: [`Switch`], [`Routing`], [`Selection`], [`Arbitration`], [`Arrivals`], [`Scoring`] |
//! | `topology/` | [`Topology`] and the cubes (`mod.rs`, with ROMM's minimal quadrant), [`Dragonfly`] (wired by CODES's connection files: [`Wiring`]), [`FatTree`] (with its rails), [`SlimFly`] (with their tests): the constructions, which know nothing of the model |
//! | `route.rs` | routing a packet at a router: dimension order, Valiant, ROMM, minimal, UGAL-L, PAR, CODES's dragonfly-custom adaptive choice, UGAL-G's entry, up/down, the occupancy adaptive choices measure |
//! | `plus.rs` | routing on a Dragonfly+ as CODES's `dragonfly-plus.cxx`: the least congested spine, non-minimal-leaf, prog-adaptive |
//! | `global.rs` | UGAL-G's global information: the table's writes, its broadcasts, the choice |
//! | `switch.rs` | arbitration, virtual channels and credits; input- and output-buffered switches |
//! | `injection.rs` | the NICs: message creation, packets, injection queues, delivery |
//! | `nic_buffer.rs` | `--nic-buffer` (CODES's `cn_vc_size`): the router's bounded input from each NIC, its credits back to the NIC, the packets that wait there |
//! | `ranks.rs` | the ranks of a trace-driven workload at run time: their programs' execution, message matching, their results |
//! | `nic_credits.rs` | `--nic-buffer`'s part of the state: a NIC's credits and the packets holding a slot |
//! | `node.rs` | a router's state: buffers, links, NICs, counters, UGAL-G's table, and the records of its journal ([`Undo`]: what one write changed) |
//! | `journal.rs` | the writing methods that save what they overwrite, and `Node::restore`: the journal depends on the state, never the other way |
//! | `encoding.rs` | a node's encoding (checkpoints, digests), with the ranks and UGAL-G's table at its end |
//! | `results.rs` | [`Results`], [`RankResult`] and how `finalize` gathers them |
//! | `jobs.rs` | several jobs on one network: [`Jobs`], [`JobResult`] |
//! | `samples.rs` | `--sample-every`'s rows per router and interval, and the [`Sample`]s of the results |
//! | `series.rs` | the time series opened at run time and gathered at the end |
//! | `lp_io.rs` | `--lp-io-dir`'s counters per router (CODES's per-terminal and per-port figures) and the tables of the results |
//! | `lp_io_count.rs` | counting them at run time (delivery, a packet sent on a port) and gathering them at the end |
//! | `footprint.rs` | the network's memory before it is built: a router's heap, the NICs' source-queue backlog past what the links carry |
//! | `histogram.rs` | the latency histogram, and the split (source queueing, network) ones with their encoding |
//! | `workload/` | synthetic traffic ([`Traffic`], `traffic.rs`), trace-driven workloads (`mod.rs`), a rank's run-time state (`state.rs`), SST DUMPI traces (`dumpi/`), CODES's application skeletons (`skeletons/`: MILC, nearest neighbour, incast, Nekbone, LAMMPS, the periodic aggressor, the communication benchmarks, Jacobi 3-D) |
//!
//! The files are layered, bottom to top: `histogram.rs`, `topology/` and
//! `workload/` and `choices.rs` (what the options name), `samples.rs`, `jobs.rs`, `lp_io.rs`, `nic_credits.rs`; `node.rs` (the
//! state); `options.rs`;
//! `journal.rs`, `encoding.rs`, `results.rs`, `footprint.rs`; then the behaviour (`route.rs`,
//! `plus.rs`, `global.rs`, `switch.rs`, `injection.rs`, `nic_buffer.rs`, `ranks.rs`, `series.rs`, `lp_io_count.rs`) and `mod.rs`. A file
//! uses only files below it (`crates/timewarp/tests/module_cycles.rs`).

mod choices;
mod encoding;
mod footprint;
mod global;
mod global_table;
mod histogram;
mod injection;
mod jobs;
mod journal;
mod lp_io;
mod lp_io_count;
#[cfg(test)]
mod lp_io_tests;
mod nic_buffer;
#[cfg(test)]
mod nic_buffer_tests;
mod nic_credits;
mod node;
mod options;
mod packet;
mod plus;
mod ranks;
mod rendezvous;
mod results;
mod route;
mod samples;
mod series;
mod switch;
#[cfg(test)]
mod switch_tests;
#[cfg(test)]
mod tests;
mod topology;
mod workload;

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use timewarp::{Ctx, LpId, Model, Rollback};

pub use choices::{Arbitration, Arrivals, Routing, Scoring, Selection, Switch};
pub use histogram::Histogram;
pub use jobs::{Alone, Job, JobResult, Jobs, NO_JOB};
pub use lp_io::{LpIoRouter, LpIoTables, LpIoTerminal};
pub use node::Node;
pub use node::Undo;
pub use options::{LinkClass, Network};
pub use packet::{Header, Packet};
pub use rendezvous::{CODES_EAGER_LIMIT, CONTROL_BYTES};
pub use results::{Batch, LinkStat, RankResult, Results};
pub use route::SFLY_UGAL_CANDIDATES;
pub use samples::{JobSample, Sample, SampleLink, BUSIEST, MAX_SAMPLES};
pub use topology::connections::{ExitRule, Wiring};
pub use topology::{
    Dragonfly, FatTree, Hop, RailSelect, SlimFly, Step, Topology, CODES_RAIL_SELECT_LIMIT, NO_VIA, PAR_PENDING,
    RAIL_KEPT,
};
pub use workload::skeletons;
pub use workload::{
    grid3, matches, read_mapping, trace_file, DumpiOptions, DumpiTime, Kind, Mapping, Op, SendInfo, Traffic, Workload,
    ANY_SOURCE, ANY_TAG, COLLECTIVE_TAG, MAX_RANK_SENDS, NO_RANK,
};

use histogram::Latencies;
use node::{Counts, Link, Nic, Queues};
use node::{Journal, Saved};

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
    /// UGAL-G: the occupancy of global channel `link` of this router's
    /// group is `q` (broadcast by its owner).
    #[allow(missing_docs)]
    Occupancy { link: u16, q: u16 },
    /// UGAL-G: this router's rate-limited broadcast is due (self).
    Publish,
    /// `--nic-buffer`: a slot of NIC `nic`'s terminal buffer at this router
    /// freed (self; nic_buffer.rs).
    #[allow(missing_docs)]
    NicCredit { nic: u8 },
}

impl Model for Network {
    type State = Node;
    type Msg = Msg;
    type Undo = Undo;
    type Results = Results;
    const ROLLBACK: Rollback = Rollback::Incremental;
    /// Every event's first entry (`events += 1`) goes in its record.
    const RESTORE_RECORD: bool = true;

    fn rollback(&self) -> Rollback {
        self.rollback
    }

    fn name(&self) -> &str {
        "network"
    }
    fn num_lps(&self) -> u32 {
        self.topology.routers()
    }
    fn lookahead(&self) -> f64 {
        let links = match self.topology {
            Topology::Dragonfly(_) | Topology::SlimFly(_) => self.class_latency(1).min(self.class_latency(2)),
            Topology::FatTree(f) if f.levels == 3 => self.class_latency(1).min(self.class_latency(2)),
            _ => self.class_latency(1),
        };
        // CODES's credits take less than a link's latency.
        if self.switch == Switch::Codes {
            links.min(self.codes_credit_delay())
        } else {
            links
        }
    }
    fn neighbours(&self, lp: LpId) -> Option<Vec<LpId>> {
        Some(self.topology.neighbours(lp))
    }
    fn rng_streams(&self) -> u32 {
        2
    }

    fn state_heap_bytes(&self) -> u64 {
        footprint::state_heap_bytes(self)
    }

    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> Node {
        let ports = self.ports();
        let v = self.vcs as usize;
        let b = self.max_buffer() as u16;
        let out_cap = if self.switch.output_queued() { b } else { 0 };
        let nics = self.topology.terminals();
        match self.probe {
            Some((src, _)) if src / nics == lp => ctx.send(lp, 0.0, Msg::Generate { nic: (src % nics) as u8 }),
            None if self.load > 0.0 && (self.workload.is_none() || self.jobs.is_some()) => {
                // Only a fat-tree's leaves have NICs behind their slots.
                for nic in 0..self.topology.nics(lp) {
                    if !self.generates(lp, nic) {
                        continue;
                    }
                    let first = self.next_gap(true, &mut ctx.rng(1));
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
            inject: vec![
                Nic { queue: VecDeque::new(), wake: -1.0, next: 0.0, next_msg: 0, sent_bytes_w: 0 };
                nics as usize
            ],
            output: Queues::new(if out_cap > 0 { outs * v } else { 0 }, out_cap.max(1)),
            links: vec![Link::default(); outs],
            partial: Vec::new(),
            counts: Counts { max_credits: b, hist: Latencies::new(self.split_quantiles), ..Counts::default() },
            ranks: if self.workload.is_some() { self.start_ranks(lp, ctx) } else { Vec::new() },
            global: match &self.topology {
                Topology::Dragonfly(d) if self.routing == Routing::UgalG => {
                    Some(Box::new(global_table::Global::new(d)))
                }
                _ => None,
            },
            samples: (self.sample_every.is_some() || self.job_count() > 0).then(|| Box::new(self.new_series())),
            lp_io: self.lp_io.then(|| Box::new(lp_io::LpIo::new(outs, self.topology.terminals()))),
            nic_buf: match self.nic_slots() {
                Some(credits) => vec![node::NicBuf { credits, sent: 0 }; nics as usize],
                None => Vec::new(),
            },
            log: Journal::default(),
        }
    }

    fn forward(&self, n: &mut Node, msg: &Msg, undo: &mut Undo, ctx: &mut Ctx<'_, Self>) {
        // Writes are saved only where they may be rolled back (journal.rs).
        n.log.on = ctx.saving();
        // The event's count, undone from its record, not the journal: set
        // together, so a handler that panics later leaves them consistent.
        n.counts.events += 1;
        if !n.log.on {
            // Nothing is saved (sequential, conservative): no journal to
            // lend, and the handler inlined here rather than called through
            // `save_into`'s closure (issue 60: 20 instructions an event).
            return self.handle(n, msg, undo, ctx);
        }
        n.log.record(undo, || Saved::Event);
        // The node's writes go straight into the engine's journal.
        ctx.save_into(n, |n| &mut n.log.entries, |n, ctx| self.handle(n, msg, undo, ctx));
    }

    fn restore(&self, n: &mut Node, e: &Undo) {
        n.restore(&e.0);
    }

    fn finalize(&self, lp: LpId, n: &Node, end: f64, r: &mut Results) {
        self.finalize_node(lp, n, end, r);
        if n.samples.is_some() {
            self.finalize_series(lp, n, end, r);
        }
        if let Some(io) = n.lp_io.as_deref() {
            self.finalize_lp_io(lp, io, r);
        }
        if self.jobs.is_some() && lp as u64 + 1 == self.num_lps() as u64 {
            self.finalize_jobs(r);
        }
    }
}

impl Network {
    /// One event: [`Model::forward`] less the journal's set-up and hand-over.
    #[inline(always)]
    fn handle(&self, n: &mut Node, msg: &Msg, undo: &mut Undo, ctx: &mut Ctx<'_, Self>) {
        // The model's option first: a run without a time series reads nothing of the node.
        if let Some(t) = self.sample_every {
            if ctx.now() >= n.samples.as_deref().map_or(0, |s| s.rows.len()) as f64 * t {
                self.sample_tick(n, ctx);
            }
        }
        let v = self.vcs as usize;
        match *msg {
            Msg::Generate { nic } => self.generate(n, nic as usize, ctx),
            Msg::Arrive { pkt, port, vc } => {
                let mut pkt = Packet::arrived(&pkt);
                self.route(n, ctx.lp(), &mut pkt);
                let q = port as usize * v + vc as usize;
                let full = n.input.len(q) >= self.buffer_of(ctx.lp(), port as usize) as usize;
                let Some(len) = (if full { None } else { n.arrive(q, pkt, undo) }) else {
                    return ctx.fail(format!(
                        "flow control violated: a packet arrived at the full buffer of input port {port}, virtual channel {vc}"
                    ));
                };
                if len as u16 > n.counts.max_input {
                    n.save_maxes();
                    n.counts.max_input = len as u16;
                }
                if n.lp_io.is_some() {
                    self.lp_io_arrived(n, &pkt, ctx.lp(), ctx.now());
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
                n.credit_event(q, undo);
                n.lp_io_unbusy(port as usize, ctx.now());
                if c + 1 > n.counts.max_credits {
                    n.save_maxes();
                    n.counts.max_credits = c + 1;
                }
                self.try_output(n, port as usize, None, ctx);
            }
            Msg::Wake { port } => {
                // A wake-up whose link was taken at its time by an event
                // ordered before it (a credit, an arrival) is stale: the
                // wake-up for the link's new free time is already pending.
                // Acting on it would clear that one's mark and schedule
                // a duplicate, and duplicates multiplied past saturation
                // (30-50 wake-ups per packet hop).
                if n.links[port as usize].wake != ctx.now() {
                    return;
                }
                n.wake_event(port as usize, ctx.now(), undo);
                self.try_output(n, port as usize, None, ctx);
            }
            Msg::Ready { nic } => {
                n.save_nic(nic as usize);
                n.inject[nic as usize].wake = -1.0;
                if self.decides_on_arrival() {
                    self.decide_on_arrival(n, nic as usize, ctx.lp(), ctx.now());
                }
                if n.lp_io.is_some() {
                    // The head has reached the router (injection.rs, `injection_head`).
                    if let Some(h) = n.inject[nic as usize].queue.front().copied() {
                        self.lp_io_arrived(n, &h, ctx.lp(), ctx.now());
                    }
                }
                self.try_input(n, self.ports() * v + nic as usize, ctx);
            }
            Msg::Deliver { pkt } => {
                let whole = self.deliver(n, &pkt, ctx.now(), ctx.end_time());
                if n.lp_io.is_some() {
                    self.lp_io_delivered(ctx.lp(), n, &pkt, ctx.now(), whole);
                }
                if whole && self.workload.is_some() && self.of_ranks(&pkt) {
                    self.message_arrived(n, &pkt, ctx);
                }
            }
            Msg::Step { nic } => self.step(n, nic as usize, ctx),
            Msg::Occupancy { link, q } => return n.set_seen(link as usize, q),
            Msg::Publish => {}
            Msg::NicCredit { nic } => self.nic_credit(n, nic as usize, ctx),
        }
        if self.routing == Routing::UgalG {
            if let Topology::Dragonfly(d) = &self.topology {
                self.publish(d, n, matches!(msg, Msg::Publish), ctx);
            }
        }
    }
}
