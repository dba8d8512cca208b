//! The ranks of a trace-driven workload at run time: each NIC with a rank
//! runs its program ([`Workload`]), sends through the NIC, matches arriving
//! messages to receives, and blocks in `recv`, `wait` and `waitall`. Its
//! state is a [`Rank`] in the node (rolled back with it); nothing here runs
//! under synthetic traffic.

use super::journal::{Elem, List, Logged};
use super::node::{Journal, Saved};
use super::rendezvous::Part;
use super::workload::{
    Phase, Posted, Rank, Req, DETACHED, EARLY, EXPECT, NO_REQ, POSTED, RDV, REQS, SENDING, UNEXPECTED,
};
use super::{matches, Header, Kind, Msg, Network, Node, RankResult, Results, Workload, ANY_SOURCE, ANY_TAG, NO_RANK};
use std::collections::VecDeque;
use timewarp::text::printable_within;
use timewarp::Ctx;

impl Rank {
    /// Message `k` of rank `src` is whole here: the messages of `src` now
    /// releasable in its send order (`k` and any held back behind it; none
    /// while an earlier message of `src` to this rank is still missing).
    /// Changes are saved in `log` (this is NIC `nic`'s rank). `None`: the
    /// trace has no such message.
    pub(crate) fn in_order(
        &mut self,
        log: &mut Journal,
        nic: usize,
        w: &Workload,
        src: u32,
        k: u32,
    ) -> Option<Vec<u32>> {
        let ord = |k: u32| w.send(src, k).map(|s| s.ord);
        let first = ord(k)?;
        let e = match self.expect.iter().position(|e| e.0 == src) {
            Some(e) => e,
            None => {
                Node::list(&mut self.expect, log, nic, EXPECT).push((src, 0));
                self.expect.len() - 1
            }
        };
        let mut next = self.expect[e].1;
        if first != next {
            Node::list(&mut self.early, log, nic, EARLY).push((src, k));
            return Some(vec![]);
        }
        let mut out = vec![k];
        next += 1;
        while let Some(i) = self.early.iter().position(|&(s, k)| s == src && ord(k) == Some(next)) {
            out.push(Node::list(&mut self.early, log, nic, EARLY).swap_remove(i).1);
            next += 1;
        }
        Node::list(&mut self.expect, log, nic, EXPECT).set(e, (src, next));
        Some(out)
    }
}

impl Node {
    /// Rank `nic`, whose scalars are saved first: the caller may change them.
    #[inline]
    pub(crate) fn rank_mut(&mut self, nic: usize) -> &mut Rank {
        let (c, t) = self.ranks[nic].scalars();
        self.log.save(|| Saved::RankCounters { nic: nic as u8, c });
        self.log.save(|| Saved::RankTimes { nic: nic as u8, t });
        &mut self.ranks[nic]
    }

    fn list<'a, T: Elem, L: List<T>>(items: &'a mut L, log: &'a mut Journal, nic: usize, list: u8) -> Logged<'a, T, L> {
        Logged { items, log, nic: nic as u8, list, _t: std::marker::PhantomData }
    }
    fn reqs(&mut self, nic: usize) -> Logged<'_, Req, VecDeque<Req>> {
        Self::list(&mut self.ranks[nic].reqs, &mut self.log, nic, REQS)
    }
    fn posted(&mut self, nic: usize) -> Logged<'_, Posted, Vec<Posted>> {
        Self::list(&mut self.ranks[nic].posted, &mut self.log, nic, POSTED)
    }
    fn unexpected(&mut self, nic: usize) -> Logged<'_, (u32, u32), Vec<(u32, u32)>> {
        Self::list(&mut self.ranks[nic].unexpected, &mut self.log, nic, UNEXPECTED)
    }
    pub(crate) fn rdv(&mut self, nic: usize) -> Logged<'_, Posted, Vec<Posted>> {
        Self::list(&mut self.ranks[nic].rdv, &mut self.log, nic, RDV)
    }

    /// Message `k` of rank `src` is whole at NIC `nic`: the messages of
    /// `src` now releasable in its send order (see [`Rank::in_order`]).
    pub(crate) fn in_order(&mut self, nic: usize, w: &Workload, src: u32, k: u32) -> Option<Vec<u32>> {
        self.ranks[nic].in_order(&mut self.log, nic, w, src, k)
    }
}

impl Workload {
    /// Message `k` of rank `src`, if the trace has it. A rank's state and
    /// events name messages and operations by number: from a checkpoint
    /// taken over another trace they may name ones this trace does not
    /// have, which is an error of the run ([`mismatch`]), never a panic.
    #[inline]
    fn send(&self, src: u32, k: u32) -> Option<&super::SendInfo> {
        self.sends.get(src as usize)?.get(k as usize)
    }

    /// The operations of rank `r`, if the trace has that rank.
    #[inline]
    fn program(&self, r: u32) -> Option<&[super::Op]> {
        self.ops.get(r as usize).map(Vec::as_slice)
    }

    /// The rank on `node`, if the trace placed one there.
    #[inline]
    fn rank_on(&self, node: u32) -> Option<u32> {
        self.rank_of.get(node as usize).copied().filter(|&r| r != NO_RANK)
    }
}

/// Stops the run: the state of NIC `nic`'s rank refers to `what`, which
/// the trace does not have (a resume over a trace other than the one its
/// checkpoint was taken with: the checkpoint's input check refuses those).
#[cold]
#[inline(never)]
fn mismatch(ctx: &mut Ctx<'_, Network>, nic: usize, what: std::fmt::Arguments<'_>) {
    ctx.fail(format!(
        "the state of NIC {nic}'s rank does not match the trace: {what}; was the trace changed after the run \
         started (a resume reads it again)? Resume with the trace the run started with, or start a new run"
    ));
}

impl Network {
    /// [`mismatch`], for the files that build on this one (rendezvous.rs).
    #[cold]
    pub(crate) fn rank_mismatch(ctx: &mut Ctx<'_, Network>, nic: usize, what: std::fmt::Arguments<'_>) {
        mismatch(ctx, nic, what)
    }

    fn workload(&self) -> &Workload {
        self.workload.as_deref().expect("a trace workload")
    }

    /// The first events: every NIC with a rank starts its program at 0.
    #[inline(never)]
    pub(crate) fn start_ranks(&self, lp: u32, ctx: &mut Ctx<'_, Self>) -> Vec<Rank> {
        let w = self.workload();
        (0..self.topology.terminals())
            .map(|nic| {
                if self.topology.node(lp, nic).is_some_and(|x| w.rank_on(x).is_some()) {
                    ctx.send(lp, 0.0, Msg::Step { nic: nic as u8 });
                }
                Rank::default()
            })
            .collect()
    }

    /// NIC `nic`'s rank resumes (start, or the end of a compute).
    #[inline(never)]
    pub(crate) fn step(&self, n: &mut Node, nic: usize, ctx: &mut Ctx<'_, Self>) {
        n.rank_mut(nic).phase = Phase::Idle;
        self.run_rank(n, nic, ctx);
    }

    /// Runs NIC `nic`'s rank until it blocks, computes or ends.
    pub(crate) fn run_rank(&self, n: &mut Node, nic: usize, ctx: &mut Ctx<'_, Self>) {
        let w = self.workload();
        let Some((me_node, r)) = self.topology.node(ctx.lp(), nic as u32).and_then(|x| Some((x, w.rank_on(x)?))) else {
            return mismatch(ctx, nic, format_args!("the trace has no rank on its node"));
        };
        let Some(ops) = w.program(r) else {
            return mismatch(ctx, nic, format_args!("the trace has no rank {r}"));
        };
        let now = ctx.now();
        loop {
            let rk = n.rank_mut(nic);
            let Some(op) = ops.get(rk.pc as usize) else {
                rk.phase = Phase::Done;
                rk.finish = now;
                return;
            };
            match op.kind {
                Kind::Compute(ns) => {
                    rk.pc += 1;
                    if ns > 0.0 {
                        rk.phase = Phase::Computing;
                        return ctx.send(ctx.lp(), ns, Msg::Step { nic: nic as u8 });
                    }
                }
                Kind::Send { k, blocking } => {
                    if k != rk.next_send {
                        let sent = rk.next_send;
                        return mismatch(ctx, nic, format_args!("rank {r} sent {sent} messages, its trace {k} before"));
                    }
                    rk.next_send += 1;
                    let pc = rk.pc;
                    rk.pc += 1;
                    let s = w.sends[r as usize][k as usize];
                    let rdv = s.dst != r && self.eager_limit.is_some_and(|l| s.bytes >= l);
                    // A collective's send is the send half of a sendrecv: it
                    // does not hold the rank (rendezvous.rs).
                    let detached = blocking && !op.collective.is_empty();
                    let mut req = if detached { DETACHED } else { NO_REQ };
                    if !blocking {
                        req = rk.next_req;
                        rk.next_req += 1;
                        n.reqs(nic).push((req, !rdv, pc));
                    }
                    if s.dst == r {
                        // A message to itself (DUMPI traces) never enters the network.
                        self.to_self(n, nic, r, k, ctx);
                        continue;
                    }
                    let dst = w.node_of[s.dst as usize];
                    if rdv {
                        self.request_to_send(n, nic, (me_node, dst), s.dst, k, (req, pc), ctx);
                        if blocking && !detached {
                            let rk = &mut n.ranks[nic];
                            rk.phase = Phase::Rendezvous;
                            rk.since = now;
                            return;
                        }
                        continue;
                    }
                    self.enqueue(n, nic, me_node, dst, s.bytes.max(1), k, ctx);
                }
                Kind::Recv { src, tag, blocking } => {
                    let (id, pc) = (rk.next_req, rk.pc);
                    rk.next_req += 1;
                    let Ok(found) = first_match(w, &rk.unexpected, src, tag) else {
                        return mismatch(ctx, nic, format_args!("a message waiting at rank {r} is not in the trace"));
                    };
                    let mut done = found.is_some();
                    if let Some(i) = found {
                        let (from, k) = n.unexpected(nic).remove(i);
                        if self.by_rendezvous(from, k, r) == Some(true) {
                            self.clear_to_send(n, nic, from, k, (id, pc), ctx);
                            done = false;
                        }
                    } else {
                        n.posted(nic).push((src, tag, id, pc));
                    }
                    if !blocking {
                        n.reqs(nic).push((id, done, pc));
                    } else if !done {
                        let rk = &mut n.ranks[nic];
                        rk.phase = Phase::WaitFor(id);
                        rk.since = now;
                        return;
                    }
                    n.ranks[nic].pc += 1;
                }
                Kind::Wait => match rk.reqs.front() {
                    Some(&(_, true, _)) | None => {
                        rk.pc += 1;
                        if !n.ranks[nic].reqs.is_empty() {
                            n.reqs(nic).remove(0);
                        }
                    }
                    Some(&(id, false, _)) => {
                        rk.phase = Phase::WaitFor(id);
                        rk.since = now;
                        return;
                    }
                },
                Kind::WaitAll => {
                    if rk.reqs.iter().all(|q| q.1) {
                        rk.pc += 1;
                        n.reqs(nic).clear();
                    } else {
                        rk.phase = Phase::WaitAll;
                        rk.since = now;
                        return;
                    }
                }
                Kind::WaitReq(id) => match rk.reqs.iter().position(|q| q.0 == id) {
                    Some(i) if !rk.reqs[i].1 => {
                        rk.phase = Phase::WaitFor(id);
                        rk.since = now;
                        return;
                    }
                    found => {
                        rk.pc += 1;
                        if let Some(i) = found {
                            n.reqs(nic).remove(i);
                        }
                    }
                },
                Kind::Probe { src, tag } => {
                    let Ok(found) = first_match(w, &rk.unexpected, src, tag) else {
                        return mismatch(ctx, nic, format_args!("a message waiting at rank {r} is not in the trace"));
                    };
                    if found.is_some() {
                        rk.pc += 1;
                    } else {
                        rk.phase = Phase::Probe;
                        rk.since = now;
                        return;
                    }
                }
            }
        }
    }

    /// A whole message arrived at this NIC: released in its source's send
    /// order (earlier ones held back until their predecessors arrive), then
    /// matched to the oldest posted receive of its source and tag.
    #[inline(never)]
    pub(crate) fn message_arrived(&self, n: &mut Node, p: &Header, ctx: &mut Ctx<'_, Self>) {
        let w = self.workload();
        let nic = (p.dst % self.topology.terminals()) as usize;
        let Some(src) = w.rank_on(p.src) else {
            return mismatch(ctx, nic, format_args!("a message from node {}, where the trace has no rank", p.src));
        };
        if self.eager_limit.is_none() {
            return self.to_self(n, nic, src, p.msg, ctx);
        }
        match Part::of(p.msg) {
            Part::Envelope(k) => self.to_self(n, nic, src, k, ctx),
            Part::Data(k) => self.data_arrived(n, nic, src, k, ctx),
            Part::Clear(k) => match w.rank_on(p.dst) {
                Some(me) => self.cleared(n, nic, (p.dst, me), src, k, ctx),
                None => mismatch(ctx, nic, format_args!("a clear-to-send to node {}, without a rank", p.dst)),
            },
        }
    }

    /// Message `k` of rank `src` is here (NIC `nic`): sent by another rank,
    /// or by this one to itself, at once.
    #[inline(never)]
    fn to_self(&self, n: &mut Node, nic: usize, src: u32, k: u32, ctx: &mut Ctx<'_, Self>) {
        let Some(released) = n.in_order(nic, self.workload(), src, k) else {
            return mismatch(ctx, nic, format_args!("message {k} of rank {src}, which the trace does not have"));
        };
        for k in released {
            self.release(n, nic, src, k, ctx);
        }
    }

    /// Message `k` of rank `src`, in order: completes a posted receive or waits.
    fn release(&self, n: &mut Node, nic: usize, src: u32, k: u32, ctx: &mut Ctx<'_, Self>) {
        // `in_order` released only messages the trace has.
        let Some(tag) = self.workload().send(src, k).map(|s| s.tag) else {
            return mismatch(ctx, nic, format_args!("message {k} of rank {src}, which the trace does not have"));
        };
        let Some(i) = n.ranks[nic].posted.iter().position(|q| matches(q.0, q.1, src, tag)) else {
            n.unexpected(nic).push((src, k));
            if n.ranks[nic].phase == Phase::Probe {
                self.probed(n, nic, src, tag, ctx);
            }
            return;
        };
        let (_, _, id, pc) = n.posted(nic).remove(i);
        if self.eager_limit.is_some() {
            let me = self.topology.node(ctx.lp(), nic as u32).and_then(|x| self.workload().rank_on(x));
            if me.and_then(|me| self.by_rendezvous(src, k, me)) == Some(true) {
                return self.clear_to_send(n, nic, src, k, (id, pc), ctx);
            }
        }
        self.complete(n, nic, id, ctx);
    }

    /// Request `id` of NIC `nic`'s rank is complete: the rank goes on if
    /// it waits for it (or, in `waitall`, for it last).
    pub(crate) fn complete(&self, n: &mut Node, nic: usize, id: u32, ctx: &mut Ctx<'_, Self>) {
        if let Some(j) = n.ranks[nic].reqs.iter().position(|q| q.0 == id) {
            let q = n.ranks[nic].reqs[j];
            n.reqs(nic).set(j, (q.0, true, q.2));
        }
        let rk = n.rank_mut(nic);
        let resume = match rk.phase {
            Phase::WaitFor(w) => w == id,
            Phase::WaitAll => rk.reqs.iter().all(|q| q.1),
            _ => false,
        };
        if resume {
            let now = ctx.now();
            rk.comm += now - rk.since;
            rk.pc += 1;
            let all = rk.phase == Phase::WaitAll;
            rk.phase = Phase::Idle;
            match all {
                true => n.reqs(nic).clear(),
                false => n.reqs(nic).retain(|q| q.0 != id),
            }
            self.run_rank(n, nic, ctx);
        }
    }

    /// A message of `src` with `tag` joined the unexpected queue of NIC
    /// `nic`'s rank, which is blocked in a probe: it goes on if it matches.
    fn probed(&self, n: &mut Node, nic: usize, src: u32, tag: u32, ctx: &mut Ctx<'_, Self>) {
        let w = self.workload();
        let pc = n.ranks[nic].pc;
        let op = self.topology.node(ctx.lp(), nic as u32).and_then(|x| w.program(w.rank_on(x)?)?.get(pc as usize));
        let Some(op) = op.map(|o| o.kind) else {
            return mismatch(
                ctx,
                nic,
                format_args!("it is blocked in a probe at operation {pc}, which the trace lacks"),
            );
        };
        if let Kind::Probe { src: want, tag: want_tag } = op {
            if matches(want, want_tag, src, tag) {
                let rk = n.rank_mut(nic);
                rk.comm += ctx.now() - rk.since;
                rk.pc += 1;
                rk.phase = Phase::Idle;
                self.run_rank(n, nic, ctx);
            }
        }
    }

    /// NIC `nic` of router `lp`'s rank figures, if it has a rank.
    pub(crate) fn rank_result(&self, lp: u32, nic: usize, n: &Node) -> Option<RankResult> {
        let w = self.workload();
        let node = self.topology.node(lp, nic as u32)?;
        let r = w.rank_on(node)?;
        let rk = n.ranks.get(nic)?;
        let done = rk.phase == Phase::Done;
        Some(RankResult {
            rank: r,
            node,
            finish_ns: done.then_some(rk.finish),
            comm_ns: rk.comm,
            waiting: (!done).then(|| self.describe(r, rk)),
        })
    }

    /// What an unfinished rank is doing, for the error message.
    fn describe(&self, r: u32, rk: &Rank) -> String {
        let w = self.workload();
        let ops = w.program(r).unwrap_or_default();
        let unit = if w.unit.is_empty() { "line" } else { w.unit };
        // A state from another trace may name an operation this one lacks.
        let kind = |pc: u32| ops.get(pc as usize).map(|o| o.kind);
        let at = |pc: u32| {
            let Some(op) = ops.get(pc as usize) else {
                return format!(" at operation {pc}, past the trace's {}", ops.len());
            };
            let mut s = String::new();
            if !op.collective.is_empty() {
                s += &format!(" in {}", op.collective);
            }
            if op.line > 0 {
                s += &format!(" ({unit} {})", op.line);
            }
            s
        };
        let recv = |id: u32| match rk.posted.iter().find(|q| q.2 == id) {
            Some(&(src, tag, _, pc)) => format!("recv from {} tag {}{}", src_name(src), tag_name(tag), at(pc)),
            None => match rk.rdv.iter().find(|q| q.2 == id) {
                Some(&(to, _, _, pc)) if to & SENDING != 0 => {
                    format!("isend to {}{} (rendezvous: no clear-to-send yet)", to & !SENDING, at(pc))
                }
                Some(&(src, _, _, pc)) => format!("recv from {}{} (rendezvous: its data not here yet)", src, at(pc)),
                None => "a request".into(),
            },
        };
        match rk.phase {
            Phase::Idle => format!("rank {r} has not started"),
            Phase::Computing => format!("rank {r} is computing{}", at(rk.pc.saturating_sub(1))),
            Phase::WaitFor(id) => match kind(rk.pc) {
                Some(Kind::Wait | Kind::WaitReq(_)) => {
                    format!("rank {r} waits in wait{} for {}", at(rk.pc), recv(id))
                }
                _ => format!("rank {r} waits in {}", recv(id)),
            },
            Phase::WaitAll => {
                let open: Vec<String> = rk.reqs.iter().filter(|q| !q.1).map(|q| recv(q.0)).collect();
                format!("rank {r} waits in waitall{} for {}", at(rk.pc), open.join(", "))
            }
            Phase::Done => format!("rank {r} finished"),
            Phase::Rendezvous => match rk.rdv.iter().find(|q| q.0 & SENDING != 0 && q.2 == NO_REQ) {
                Some(&(to, _, _, pc)) => {
                    format!("rank {r} waits in send to {}{} (rendezvous: no clear-to-send yet)", to & !SENDING, at(pc))
                }
                None => format!("rank {r} waits in a send"),
            },
            Phase::Probe => match kind(rk.pc) {
                Some(Kind::Probe { src, tag }) => {
                    format!("rank {r} waits in probe from {} tag {}{}", src_name(src), tag_name(tag), at(rk.pc))
                }
                _ => format!("rank {r} waits in a probe"),
            },
        }
    }
}

impl Network {
    /// Adds router `lp`'s ranks to the results (kept in rank order) and
    /// the application time once every rank is in.
    pub(crate) fn finalize_ranks(&self, lp: u32, n: &Node, r: &mut Results) {
        for nic in 0..n.ranks.len() {
            if let Some(x) = self.rank_result(lp, nic, n) {
                r.ranks.push(x);
            }
        }
        if let Some(limit) = self.eager_limit {
            r.eager_limit = Some(limit);
            let control: u64 = n.ranks.iter().map(|x| x.control as u64).sum();
            *r.rendezvous_messages.get_or_insert(0) += control;
        }
        if r.notes.is_empty() {
            r.notes.clone_from(&self.workload().notes);
        }
        // Appends to a sorted list: near linear.
        r.ranks.sort_by_key(|x| x.rank);
        let all = r.ranks.len() as u32 == self.workload().ranks();
        r.app_time_ns = if all && r.ranks.iter().all(|x| x.finish_ns.is_some()) {
            Some(r.ranks.iter().filter_map(|x| x.finish_ns).fold(0.0, f64::max))
        } else {
            None
        };
    }
}

impl Results {
    /// With a trace workload whose ranks did not all finish: an error
    /// naming each unfinished rank and what it waits for (`end`: the
    /// run's end time, named when packets or computes were still pending,
    /// so the run stopped there rather than in a deadlock).
    pub fn unfinished(&self) -> Option<String> {
        let waiting: Vec<&str> = self.ranks.iter().filter_map(|x| x.waiting.as_deref()).collect();
        if waiting.is_empty() {
            return None;
        }
        let computing = waiting.iter().any(|w| w.contains("is computing") || w.contains("not started"));
        let why = if self.in_flight_packets > 0 || computing {
            "the run reached its end time (--end) before the application finished; raise --end".to_string()
        } else {
            "deadlock: no event is left that could complete these operations".to_string()
        };
        // One line of bounded length however many ranks wait: the first few
        // in full (each cut at 160 characters), then the others' numbers.
        const SHOWN: usize = 3;
        let shown: Vec<String> = waiting.iter().take(SHOWN).map(|w| printable_within(w, 160)).collect();
        let rest: Vec<u32> = self.ranks.iter().filter(|x| x.waiting.is_some()).map(|x| x.rank).skip(SHOWN).collect();
        let more = match rest.len() {
            0 => String::new(),
            1 => format!("; and rank {}", rest[0]),
            n => format!("; and {n} more: ranks {}", spans(&rest, 8)),
        };
        Some(format!(
            "{} of {} ranks did not finish ({why}): {}{more}",
            waiting.len(),
            self.ranks.len(),
            shown.join("; ")
        ))
    }
}

/// The first of the messages `unexpected` lists (source, number) that a
/// receive from `src` with `tag` matches; `Err` when the trace lacks one
/// listed before it (a state from another trace).
fn first_match(w: &Workload, unexpected: &[(u32, u32)], src: u32, tag: u32) -> Result<Option<usize>, ()> {
    for (i, &(s, k)) in unexpected.iter().enumerate() {
        match w.send(s, k) {
            None => return Err(()),
            Some(m) if matches(src, tag, s, m.tag) => return Ok(Some(i)),
            Some(_) => {}
        }
    }
    Ok(None)
}

/// Sorted `ranks` as runs (`3–9, 12, 14–15`): the first `limit` runs, then `…`.
fn spans(ranks: &[u32], limit: usize) -> String {
    let mut runs: Vec<(u32, u32)> = vec![];
    for &r in ranks {
        match runs.last_mut() {
            Some(last) if last.1 + 1 == r => last.1 = r,
            _ => runs.push((r, r)),
        }
    }
    let mut out: Vec<String> =
        runs.iter().take(limit).map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}–{b}") }).collect();
    if runs.len() > limit {
        out.push("…".into());
    }
    out.join(", ")
}

/// A source as the trace wrote it.
fn src_name(src: u32) -> String {
    if src == ANY_SOURCE {
        "any".into()
    } else {
        src.to_string()
    }
}

/// A tag as the trace wrote it (collectives' tags by their number).
fn tag_name(tag: u32) -> String {
    if tag == ANY_TAG {
        "any".into()
    } else if tag >= super::COLLECTIVE_TAG {
        format!("(collective #{})", tag - super::COLLECTIVE_TAG)
    } else {
        tag.to_string()
    }
}
