//! Decoded calls to rank programs: point-to-point calls, requests and
//! waits, collectives expanded, compute gaps from the recorded clocks.

use super::decode::{Call, RankTrace};
use super::names::name;
use super::DumpiOptions;
use crate::network::workload::{Builder, Kind, Workload, ANY_SOURCE, ANY_TAG, COLLECTIVE_TAG};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// DUMPI's communicator ids.
pub(in crate::network) const COMM_WORLD: u16 = 2;
pub(in crate::network) const COMM_SELF: u16 = 3;
/// DUMPI's `MPI_REQUEST_NULL`.
pub(in crate::network) const REQUEST_NULL: i32 = 1;

/// What a rank does with its requests while its program is built.
#[derive(Default)]
pub(in crate::network) struct Requests {
    /// DUMPI request id → the rank's request number (`None`: one that
    /// completes at once, to or from `MPI_PROC_NULL`).
    of: HashMap<i32, Option<u32>>,
    /// Request numbers handed out (receives, collectives' included, and
    /// non-blocking sends take one), counted over the first `seen` operations.
    next: u32,
    seen: usize,
    /// Non-blocking requests not yet waited for (as the rank's
    /// run-time list, which a `WaitAll` empties).
    open: BTreeSet<u32>,
    /// Persistent requests (`MPI_*_init`) by DUMPI id: what `MPI_Start` posts.
    persistent: HashMap<i32, Call>,
}

impl Requests {
    /// Counts the request numbers that the operations pushed since the last
    /// call take; the number of the last one.
    fn sync(&mut self, ops: &[crate::network::workload::Op]) -> u32 {
        for o in &ops[self.seen..] {
            self.next += matches!(o.kind, Kind::Recv { .. } | Kind::Send { blocking: false, .. }) as u32;
        }
        self.seen = ops.len();
        self.next.wrapping_sub(1)
    }
}

/// Builds the rank programs from the decoded traces.
pub(in crate::network) fn convert(traces: &[RankTrace], opt: &DumpiOptions, title: String) -> Result<Workload, String> {
    let p = traces.len() as u32;
    let mut b = Builder::new(p);
    // Calls not modelled, by name, over all ranks.
    let mut skipped: BTreeMap<String, u64> = BTreeMap::new();
    for (r, t) in traces.iter().enumerate() {
        let r = r as u32;
        let mut q = Requests::default();
        // Communicators that name MPI_COMM_WORLD's ranks: it and its duplicates.
        let mut worlds: BTreeSet<u16> = [COMM_WORLD].into();
        // The end of the last call modelled (Init's exit: the program starts there).
        let mut anchor: Option<u64> = None;
        'records: for (i, rec) in t.records.iter().enumerate() {
            let line = i as u32 + 1;
            let call = name(rec.label);
            // Communicators this record makes (true) or frees (false) a
            // name of MPI_COMM_WORLD, applied after it.
            let mut comms: Vec<(u16, bool)> = vec![];
            let refuse = |why: String| format!("rank {r}: {call} (call {line}) {why}");
            let bytes = |count: i32, dt: u16| -> Result<u32, String> {
                let size = *t.sizes.get(dt as usize).unwrap_or(&0) as u64;
                if size == 0 && count > 0 {
                    return Err(refuse(format!("uses datatype {dt}, whose size the trace does not give")));
                }
                u32::try_from(count.max(0) as u64 * size)
                    .map_err(|_| refuse(format!("moves {count} x {size} bytes, more than 2^32")))
            };
            let world = |comm: u16| {
                if worlds.contains(&comm) {
                    Ok(true)
                } else if comm == COMM_SELF {
                    Ok(false)
                } else {
                    Err(refuse(format!(
                        "uses communicator {comm}: only MPI_COMM_WORLD and its duplicates are modelled"
                    )))
                }
            };
            // A peer rank: `None` for MPI_PROC_NULL (negative, but not ANY_SOURCE).
            let peer = |x: i32, what: &str| -> Result<Option<u32>, String> {
                if x < 0 {
                    return Ok(None);
                }
                if x as u32 >= p {
                    return Err(refuse(format!("names {what} {x}, not a rank of the trace's {p}")));
                }
                Ok(Some(x as u32))
            };
            let tag = |x: i32, any: bool| -> Result<u32, String> {
                match x {
                    -1 if any => Ok(ANY_TAG),
                    x if x >= 0 && (x as u32) < COLLECTIVE_TAG => Ok(x as u32),
                    _ => Err(refuse(format!("has tag {x}"))),
                }
            };
            let source = |x: i32| if x == -1 { Ok(Some(ANY_SOURCE)) } else { peer(x, "source") };
            // A rooted collective's root (`None`: on MPI_COMM_SELF, nothing to do).
            let rooted = |comm: u16, root: i32| -> Result<Option<u32>, String> {
                if !world(comm)? {
                    return Ok(None);
                }
                if root < 0 || root as u32 >= p {
                    return Err(refuse(format!("has root {root}, not a rank of the trace's {p}")));
                }
                Ok(Some(root as u32))
            };
            // Bytes per rank from one count for all or one per rank (`needed`:
            // this rank uses them).
            let per_rank = |counts: &[i32], dt: u16, needed: bool| -> Result<Vec<u32>, String> {
                match counts.len() {
                    _ if !needed => Ok(vec![]),
                    1 => Ok(vec![bytes(counts[0], dt)?; p as usize]),
                    n if n == p as usize => counts.iter().map(|&c| bytes(c, dt)).collect(),
                    n => Err(refuse(format!("has {n} counts for the trace's {p} ranks"))),
                }
            };
            // The computation since the last modelled call ends at this call's entry.
            let gap = |b: &mut Builder, anchor: &mut Option<u64>| {
                if let (Some(a), Some(e)) = (*anchor, rec.entry) {
                    let ns = e.saturating_sub(a) as f64 * opt.compute_scale;
                    if ns > 0.0 {
                        b.push(r, Kind::Compute(ns), line, "");
                    }
                }
                *anchor = rec.exit;
            };
            let mut skip = |what: String| *skipped.entry(what).or_insert(0) += 1;
            // Waits for request `id` of DUMPI (nothing for MPI_REQUEST_NULL
            // and those to or from MPI_PROC_NULL).
            let wait = |b: &mut Builder, q: &mut Requests, ids: &[i32]| -> Result<(), String> {
                let mut mine = vec![];
                for &id in ids {
                    if id == REQUEST_NULL {
                        continue;
                    }
                    match q.of.remove(&id) {
                        Some(Some(n)) => mine.push(n),
                        Some(None) => {}
                        None => return Err(refuse(format!("waits for request {id}, which no modelled call started"))),
                    }
                }
                // The requests named are open and distinct (each left `of`
                // as it was taken): all of them when as many as are open.
                if !mine.is_empty() && mine.len() == q.open.len() {
                    b.push(r, Kind::WaitAll, line, "");
                } else {
                    for &n in &mine {
                        b.push(r, Kind::WaitReq(n), line, "");
                    }
                }
                for n in &mine {
                    q.open.remove(n);
                }
                Ok(())
            };
            // Start: the persistent requests' operations, as Isend/Irecv.
            let started: Vec<Call>;
            let calls = match &rec.call {
                Call::Start { reqs } => {
                    started = reqs
                        .iter()
                        .map(|id| match q.persistent.get(id) {
                            Some(&Call::Persistent { send: true, count, dt, peer, tag, comm, req }) => {
                                Ok(Call::Isend { count, dt, dest: peer, tag, comm, req })
                            }
                            Some(&Call::Persistent { send: false, peer, tag, comm, req, .. }) => {
                                Ok(Call::Irecv { src: peer, tag, comm, req })
                            }
                            _ => Err(refuse(format!("starts request {id}, which no MPI_*_init call made"))),
                        })
                        .collect::<Result<_, _>>()?;
                    &started[..]
                }
                c => std::slice::from_ref(c),
            };
            for c in calls {
                match *c {
                    Call::Init => anchor = rec.exit,
                    Call::Finalize => {
                        gap(&mut b, &mut anchor);
                        break 'records;
                    }
                    Call::Local => skip(call.clone()),
                    Call::Send { count, dt, dest, tag: t, comm }
                    | Call::Isend { count, dt, dest, tag: t, comm, .. } => {
                        let blocking = matches!(*c, Call::Send { .. });
                        let (_, n, t) = (world(comm)?, bytes(count, dt)?, tag(t, false)?);
                        let dest = peer(dest, "destination")?;
                        gap(&mut b, &mut anchor);
                        if let Some(d) = dest {
                            b.send(r, d, n, t, blocking, (line, ""));
                        }
                        if let Call::Isend { req, .. } = *c {
                            let last = q.sync(&b.ops[r as usize]);
                            let mine = dest.map(|_| last);
                            q.open.extend(mine);
                            q.of.insert(req, mine);
                        }
                    }
                    Call::Recv { src, tag: t, comm } | Call::Irecv { src, tag: t, comm, .. } => {
                        let blocking = matches!(*c, Call::Recv { .. });
                        let (_, src, t) = (world(comm)?, source(src)?, tag(t, true)?);
                        gap(&mut b, &mut anchor);
                        let mine = src.map(|s| {
                            b.push(r, Kind::Recv { src: s, tag: t, blocking }, line, "");
                            q.sync(&b.ops[r as usize])
                        });
                        if let Call::Irecv { req, .. } = *c {
                            q.open.extend(mine);
                            q.of.insert(req, mine);
                        }
                    }
                    Call::Sendrecv { count, dt, dest, stag, src, rtag, comm } => {
                        world(comm)?;
                        let (n, st, rt) = (bytes(count, dt)?, tag(stag, false)?, tag(rtag, true)?);
                        let (dest, src) = (peer(dest, "destination")?, source(src)?);
                        gap(&mut b, &mut anchor);
                        // Named, so that under rendezvous its send does not
                        // hold the rank (rendezvous.rs): both halves proceed.
                        if let Some(d) = dest {
                            b.send(r, d, n, st, true, (line, "sendrecv"));
                        }
                        if let Some(s) = src {
                            b.push(r, Kind::Recv { src: s, tag: rt, blocking: true }, line, "sendrecv");
                        }
                    }
                    Call::Wait { req, flag } => {
                        if flag == 0 {
                            skip(format!("{call} (not complete)"));
                        } else {
                            gap(&mut b, &mut anchor);
                            wait(&mut b, &mut q, &[req])?;
                        }
                    }
                    Call::Any { ref reqs, index, flag } => match reqs.get(index.max(0) as usize) {
                        Some(&req) if flag != 0 && index >= 0 => {
                            gap(&mut b, &mut anchor);
                            wait(&mut b, &mut q, &[req])?;
                        }
                        _ => skip(format!("{call} (none complete)")),
                    },
                    Call::All { ref reqs, flag } => {
                        if flag == 0 {
                            skip(format!("{call} (not complete)"));
                        } else {
                            gap(&mut b, &mut anchor);
                            wait(&mut b, &mut q, reqs)?;
                        }
                    }
                    Call::Some { ref reqs, ref indices } => {
                        let done: Vec<i32> =
                            indices.iter().filter_map(|&i| reqs.get(i.max(0) as usize).copied()).collect();
                        if done.is_empty() {
                            skip(format!("{call} (none complete)"));
                        } else {
                            gap(&mut b, &mut anchor);
                            wait(&mut b, &mut q, &done)?;
                        }
                    }
                    Call::RequestFree { req } => {
                        // Freed, never waited for: it stays open in the rank.
                        q.of.remove(&req);
                        q.persistent.remove(&req);
                        skip(call.clone());
                    }
                    Call::Probe { src, tag: t, comm, flag } => {
                        let (_, src, t) = (world(comm)?, source(src)?, tag(t, true)?);
                        if flag == 0 {
                            skip(format!("{call} (nothing found)"));
                        } else if let Some(s) = src {
                            gap(&mut b, &mut anchor);
                            b.push(r, Kind::Probe { src: s, tag: t }, line, "");
                        }
                    }
                    Call::Barrier { comm } => {
                        if world(comm)? {
                            gap(&mut b, &mut anchor);
                            b.barrier(r, p, line);
                        }
                    }
                    Call::Bcast { count, dt, root, comm } | Call::Reduce { count, dt, root, comm } => {
                        let n = bytes(count, dt)?;
                        if world(comm)? {
                            if root < 0 || root as u32 >= p {
                                return Err(refuse(format!("has root {root}, not a rank of the trace's {p}")));
                            }
                            gap(&mut b, &mut anchor);
                            if matches!(*c, Call::Bcast { .. }) {
                                b.bcast(r, p, root as u32, n, line);
                            } else {
                                b.reduce(r, p, root as u32, n, line);
                            }
                        }
                    }
                    Call::Allreduce { count, dt, comm } => {
                        let n = bytes(count, dt)?;
                        if world(comm)? {
                            gap(&mut b, &mut anchor);
                            b.allreduce(r, p, n, line);
                        }
                    }
                    Call::Alltoall { count, dt, comm } => {
                        let n = bytes(count, dt)?;
                        if world(comm)? {
                            gap(&mut b, &mut anchor);
                            b.alltoall(r, p, n, line);
                        }
                    }
                    Call::Gather { count, dt, root, comm } => {
                        let n = bytes(count, dt)?;
                        if let Some(root) = rooted(comm, root)? {
                            gap(&mut b, &mut anchor);
                            let tag = b.collective_tag(r);
                            if r != root {
                                b.send(r, root, n, tag, true, (line, "gather"));
                            }
                            for i in (0..p).filter(|&i| r == root && i != root) {
                                b.push(r, Kind::Recv { src: i, tag, blocking: true }, line, "gather");
                            }
                        }
                    }
                    Call::Scatter { ref counts, dt, root, comm } => {
                        if let Some(root) = rooted(comm, root)? {
                            let n = per_rank(counts, dt, r == root)?;
                            gap(&mut b, &mut anchor);
                            let tag = b.collective_tag(r);
                            for i in (0..p).filter(|&i| r == root && i != root) {
                                b.send(r, i, n[i as usize], tag, true, (line, "scatter"));
                            }
                            if r != root {
                                b.push(r, Kind::Recv { src: root, tag, blocking: true }, line, "scatter");
                            }
                        }
                    }
                    Call::Allgather { ref counts, dt, comm } => {
                        let n = per_rank(counts, dt, true)?;
                        if world(comm)? {
                            gap(&mut b, &mut anchor);
                            let tag = b.collective_tag(r);
                            // The ring: in step s, the block of rank r − s goes to r + 1.
                            for s in 0..p.saturating_sub(1) {
                                let block = n[((r + p - s) % p) as usize];
                                b.send(r, (r + 1) % p, block, tag, true, (line, "allgather"));
                                b.push(r, Kind::Recv { src: (r + p - 1) % p, tag, blocking: true }, line, "allgather");
                            }
                        }
                    }
                    Call::Alltoallv { ref counts, dt, comm } => {
                        let what = if rec.label == 66 { "reduce_scatter" } else { "alltoallv" };
                        let n = per_rank(counts, dt, true)?;
                        if world(comm)? {
                            gap(&mut b, &mut anchor);
                            let tag = b.collective_tag(r);
                            for i in 1..p {
                                b.send(r, (r + i) % p, n[((r + i) % p) as usize], tag, true, (line, what));
                                b.push(r, Kind::Recv { src: (r + p - i) % p, tag, blocking: true }, line, what);
                            }
                        }
                    }
                    Call::Scan { count, dt, comm } => {
                        let n = bytes(count, dt)?;
                        if world(comm)? {
                            gap(&mut b, &mut anchor);
                            let tag = b.collective_tag(r);
                            if r > 0 {
                                b.push(r, Kind::Recv { src: r - 1, tag, blocking: true }, line, "scan");
                            }
                            if r + 1 < p {
                                b.send(r, r + 1, n, tag, true, (line, "scan"));
                            }
                        }
                    }
                    Call::Persistent { req, .. } => {
                        q.persistent.insert(req, c.clone());
                    }
                    Call::Start { .. } => unreachable!("Start is expanded above"),
                    Call::CommAlias { old, new, cart } => {
                        let whole = cart.map_or(true, |(ranks, reorder)| ranks == p as i64 && reorder == 0);
                        comms.push((new, worlds.contains(&old) && whole));
                        skip(call.clone());
                    }
                    Call::CommOther { new } => {
                        comms.push((new, false));
                        skip(call.clone());
                    }
                    Call::CommFree { comm } => {
                        if comm != COMM_WORLD {
                            comms.push((comm, false));
                        }
                        skip(call.clone());
                    }
                    Call::Cancel => {
                        return Err(refuse("is not modelled: a cancelled message cannot be replayed".into()))
                    }
                }
            }
            for (comm, world) in comms {
                if world {
                    worlds.insert(comm);
                } else {
                    worlds.remove(&comm);
                }
            }
        }
    }
    let mut w = b.finish(title);
    w.unit = "call";
    if !skipped.is_empty() {
        let list: Vec<String> = skipped.iter().map(|(k, n)| format!("{k} x{n}")).collect();
        w.notes.push(format!("note: DUMPI calls not modelled (their time counts as computation): {}", list.join(", ")));
    }
    Ok(w)
}
