//! Timeline traces (`Config::timeline`): what each PE did, when, as spans
//! of wall-clock time — event batches, rollbacks, GVT rounds, fossil
//! collection, conservative windows, exchanges between processes — written
//! in the Chrome trace-event format that Perfetto and `chrome://tracing`
//! open ([`Timeline::write_chrome`]).
//!
//! Each PE (each worker of the conservative kernel, the one loop of the
//! sequential kernel) records into its own recorder: a plain vector of
//! small records with nanosecond times from one `Instant` taken when the
//! process' run started, so recording needs no lock and no atomic. A
//! recorder that is off is `None`: the kernels ask once per batch, window,
//! rollback or GVT step, never per event (the sequential loop, which has
//! no batches, is compiled twice, with and without recording).
//!
//! Memory is bounded: `Config::timeline` is the most spans of the whole
//! run, shared evenly among the tracks; a track that has its share counts
//! what it drops instead, and the trace says so.
//!
//! ```
//! use timewarp::{Config, Model, SyncMode};
//! # use timewarp::{Ctx, LpId};
//! # struct Ring;
//! # impl Model for Ring {
//! #     type State = (); type Msg = (); type Undo = (); type Results = ();
//! #     fn name(&self) -> &str { "ring" }
//! #     fn num_lps(&self) -> u32 { 4 }
//! #     fn lookahead(&self) -> f64 { 1.0 }
//! #     fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) { ctx.send(lp, 1.0, ()) }
//! #     fn forward(&self, _: &mut (), _: &(), _: &mut (), ctx: &mut Ctx<'_, Self>) {
//! #         ctx.send((ctx.lp() + 1) % 4, 1.0, ());
//! #     }
//! #     fn reverse(&self, _: &mut (), _: &(), _: &(), _: LpId, _: f64) {}
//! # }
//! let cfg = Config { sync: SyncMode::Optimistic, threads: 2, end: 50.0, timeline: Some(10_000), ..Config::default() };
//! let report = timewarp::Run::new(&Ring, &cfg).execute().unwrap();
//! let timeline = report.timeline.expect("asked for");
//! assert_eq!(timeline.tracks.len(), 2); // one per PE
//! let mut json = Vec::new();
//! timeline.write_chrome(&serde_json::json!({ "model": "ring" }), &mut json).unwrap();
//! let trace: serde_json::Value = serde_json::from_slice(&json).unwrap();
//! assert!(trace["traceEvents"].as_array().unwrap().iter().any(|e| e["name"] == "GVT round"));
//! ```

use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::layout::PeId;

/// Default of the most spans a trace holds (`--trace-limit`): 40 MB of
/// records at 40 bytes each.
pub const DEFAULT_LIMIT: usize = 1_000_000;

/// What a span covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum SpanKind {
    /// Sequential kernel: a run of 4,096 events (fewer at the end).
    Events,
    /// Optimistic kernel: one scheduler batch (count: events processed,
    /// time: the PE's GVT when it started).
    Batch,
    /// Rollback on a straggler (count: events undone, time: depth in
    /// virtual time, from the straggler to the latest event undone).
    Straggler,
    /// Rollback on an anti-message for a processed event (as [`SpanKind::Straggler`]).
    Cancellation,
    /// Rollback to make room when the optimistic event memory is used up
    /// (as [`SpanKind::Straggler`]).
    Memory,
    /// A GVT round as one PE saw it, from entering phase A to the end of
    /// its fossil collection (count: the round, time: the new GVT).
    GvtRound,
    /// Phase B of a round: draining the inboxes and reporting the local minimum.
    GvtReport,
    /// Committing and freeing the events below the new GVT (count: events
    /// committed, time: the commit horizon).
    FossilCollection,
    /// Handing messages to the MPI courier (and whatever courier work the
    /// PE did: sends, polls, receives), or a conservative window exchange.
    Exchange,
    /// Conservative kernel: handing events over and agreeing on the next
    /// window (barriers) (time: the window's lower bound).
    Sync,
    /// Conservative kernel: processing one window (count: events, time:
    /// the window's end).
    Window,
}

impl SpanKind {
    /// The span's name in the trace.
    pub fn name(self) -> &'static str {
        match self {
            SpanKind::Events => "events",
            SpanKind::Batch => "batch",
            SpanKind::Straggler | SpanKind::Cancellation | SpanKind::Memory => "rollback",
            SpanKind::GvtRound => "GVT round",
            SpanKind::GvtReport => "GVT report",
            SpanKind::FossilCollection => "fossil collection",
            SpanKind::Exchange => "exchange",
            SpanKind::Sync => "sync",
            SpanKind::Window => "window",
        }
    }

    /// The span's arguments in the trace.
    fn args(self, count: u64, time: f64) -> Value {
        let rollback = |cause| json!({ "cause": cause, "events_undone": count, "depth": time });
        match self {
            SpanKind::Events => json!({ "events": count, "virtual_time": time }),
            SpanKind::Batch => json!({ "events": count, "gvt": time }),
            SpanKind::Straggler => rollback("straggler"),
            SpanKind::Cancellation => rollback("anti-message"),
            SpanKind::Memory => rollback("event memory"),
            SpanKind::GvtRound => json!({ "round": count, "gvt": time }),
            SpanKind::GvtReport => json!({}),
            SpanKind::FossilCollection => json!({ "committed": count, "horizon": time }),
            SpanKind::Exchange => json!({}),
            SpanKind::Sync => json!({ "window_start": time }),
            SpanKind::Window => json!({ "events": count, "window_end": time }),
        }
    }
}

/// Events per span of the sequential kernel (a power of two: a mask test).
pub(crate) const SEQUENTIAL_CHUNK: u64 = 1 << 12;

/// One span: a kind, wall-clock nanoseconds since the process' run
/// started, and two figures whose meaning the kind gives.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Span {
    /// What the span covers.
    pub kind: SpanKind,
    /// Start, in nanoseconds since the run started.
    pub start: u64,
    /// End (at least `start`).
    pub end: u64,
    /// A count (events, round; see [`SpanKind`]).
    pub count: u64,
    /// A virtual time (see [`SpanKind`]).
    pub time: f64,
}

/// The spans of one PE.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Track {
    /// The MPI rank (0 in one process).
    pub rank: u32,
    /// The PE (global over all processes; the worker in the conservative kernel).
    pub pe: u32,
    /// Spans in the order they ended (children before their parents).
    pub spans: Vec<Span>,
    /// Spans not recorded because the track had its share of the limit.
    pub dropped: u64,
}

/// A run's timeline: one track per PE.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Timeline {
    /// The tracks, by rank, then PE.
    pub tracks: Vec<Track>,
    /// The limit the run had (`Config::timeline`).
    pub limit: usize,
}

/// Records the spans of one track. `None` where tracing is off.
pub(crate) struct Recorder {
    t0: Instant,
    cap: usize,
    track: Track,
}

impl Recorder {
    /// The recorder of PE `pe` of process `rank`, one of `tracks` tracks
    /// of the run, timed from `t0`; `None` when `cfg` records no timeline.
    pub(crate) fn new(cfg: &crate::Config, t0: Instant, tracks: usize, rank: usize, pe: PeId) -> Option<Box<Self>> {
        let limit = cfg.timeline?;
        let cap = (limit / tracks.max(1)).max(1);
        let track = Track { rank: rank as u32, pe: u32::from(pe), spans: Vec::new(), dropped: 0 };
        Some(Box::new(Recorder { t0, cap, track }))
    }

    /// Nanoseconds since the run started.
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        self.t0.elapsed().as_nanos() as u64
    }

    /// Records a span from `start` to now.
    #[inline]
    pub(crate) fn push(&mut self, kind: SpanKind, start: u64, count: u64, time: f64) {
        let end = self.now().max(start);
        self.push_at(Span { kind, start, end, count, time });
    }

    /// Records `span` if the track has room left (a vector grown as
    /// needed: a short run never holds its whole share).
    pub(crate) fn push_at(&mut self, span: Span) {
        if self.track.spans.len() < self.cap {
            self.track.spans.push(span);
        } else {
            self.track.dropped += 1;
        }
    }

    /// The recorded track.
    pub(crate) fn finish(self) -> Track {
        self.track
    }
}

/// Where a kernel keeps its recorder: the time a span started is taken
/// only when one is on (one predictable branch when off).
pub(crate) trait Trace {
    /// Now, or `None` when off.
    fn mark(&self) -> Option<u64>;
    /// Records a span begun at `from` (a [`mark`](Trace::mark)), if any.
    fn span(&mut self, from: Option<u64>, kind: SpanKind, count: u64, time: f64);
}

impl Trace for Option<Box<Recorder>> {
    #[inline]
    fn mark(&self) -> Option<u64> {
        self.as_ref().map(|r| r.now())
    }

    #[inline]
    fn span(&mut self, from: Option<u64>, kind: SpanKind, count: u64, time: f64) {
        if let (Some(r), Some(start)) = (self.as_mut(), from) {
            r.push(kind, start, count, time);
        }
    }
}

impl Timeline {
    /// The timeline of `tracks` (recorders of a run with `cfg`), or `None`
    /// when the run recorded none.
    pub(crate) fn gather(cfg: &crate::Config, tracks: impl Iterator<Item = Option<Box<Recorder>>>) -> Option<Self> {
        let limit = cfg.timeline?;
        let tracks = tracks.flatten().map(|r| r.finish()).collect();
        Some(Timeline { tracks, limit })
    }

    /// Adds the tracks of `other` (another process') and keeps rank, PE order.
    pub fn merge(&mut self, other: Timeline) {
        self.tracks.extend(other.tracks);
        self.tracks.sort_by_key(|t| (t.rank, t.pe));
    }

    /// Spans recorded, all tracks together.
    pub fn spans(&self) -> usize {
        self.tracks.iter().map(|t| t.spans.len()).sum()
    }

    /// Spans dropped for the limit, all tracks together.
    pub fn dropped(&self) -> u64 {
        self.tracks.iter().map(|t| t.dropped).sum()
    }

    /// Writes the trace in the Chrome trace-event format (JSON object
    /// form), one event per line: `traceEvents` holds a complete event
    /// (`"ph": "X"`, times in microseconds) per span with `pid` = rank and
    /// `tid` = PE, and metadata events naming each process ("rank 0") and
    /// thread ("PE 3", with the spans dropped for the limit if any);
    /// `otherData` carries `about` (the caller's description of the run),
    /// the limit, the spans recorded and dropped. Within a track spans are
    /// sorted by start, longer first, so a parent precedes its children.
    /// Events are written one at a time: a trace of a million spans is never
    /// a JSON tree in memory.
    pub fn write_chrome(&self, about: &Value, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let us = |ns: u64| ns as f64 / 1000.0;
        let mut first = true;
        let mut event = |out: &mut dyn std::io::Write, e: Value| -> std::io::Result<()> {
            out.write_all(if first { b"\n" } else { b",\n" })?;
            first = false;
            serde_json::to_writer(&mut *out, &e).map_err(std::io::Error::from)
        };
        out.write_all(b"{\"traceEvents\":[")?;
        let mut ranks: Vec<u32> = self.tracks.iter().map(|t| t.rank).collect();
        ranks.dedup();
        for r in ranks {
            let name = format!("rank {r}");
            event(out, json!({ "ph": "M", "name": "process_name", "pid": r, "tid": 0, "args": { "name": name } }))?;
            event(
                out,
                json!({ "ph": "M", "name": "process_sort_index", "pid": r, "tid": 0, "args": { "sort_index": r } }),
            )?;
        }
        for t in &self.tracks {
            let name = if t.dropped > 0 {
                format!("PE {} ({} spans dropped: trace limit)", t.pe, t.dropped)
            } else {
                format!("PE {}", t.pe)
            };
            let (pid, tid) = (t.rank, t.pe);
            event(out, json!({ "ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": { "name": name } }))?;
            let sort = json!({ "ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid, "args": { "sort_index": tid } });
            event(out, sort)?;
            let mut spans: Vec<&Span> = t.spans.iter().collect();
            spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
            for s in spans {
                event(
                    out,
                    json!({
                        "ph": "X",
                        "name": s.kind.name(),
                        "ts": us(s.start),
                        "dur": us(s.end - s.start),
                        "pid": pid,
                        "tid": tid,
                        "args": s.kind.args(s.count, s.time),
                    }),
                )?;
            }
        }
        let other = json!({
            "about": about,
            "trace_limit": self.limit,
            "spans": self.spans(),
            "dropped_spans": self.dropped(),
            "truncated": self.dropped() > 0,
        });
        out.write_all(b"\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":")?;
        serde_json::to_writer(&mut *out, &other).map_err(std::io::Error::from)?;
        out.write_all(b"}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chrome(tl: &Timeline, about: Value) -> Value {
        let mut bytes = Vec::new();
        tl.write_chrome(&about, &mut bytes).unwrap();
        serde_json::from_slice(&bytes).expect("valid JSON")
    }

    fn cfg(limit: usize) -> crate::Config {
        crate::Config { timeline: Some(limit), ..Default::default() }
    }

    #[test]
    fn off_records_nothing_and_takes_no_time() {
        let mut r = Recorder::new(&crate::Config::default(), Instant::now(), 1, 0, PeId::new(0));
        assert!(r.is_none());
        assert_eq!(r.mark(), None);
        r.span(Some(5), SpanKind::Batch, 1, 0.0); // no recorder: nothing happens
        assert!(Timeline::gather(&crate::Config::default(), std::iter::once(r)).is_none());
    }

    #[test]
    fn each_track_keeps_its_share_of_the_limit_and_counts_the_rest() {
        let t0 = Instant::now();
        let mut recs: Vec<_> = (0..4).map(|pe| Recorder::new(&cfg(10), t0, 4, 0, PeId::new(pe))).collect();
        for r in &mut recs {
            for i in 0..7 {
                let m = r.mark();
                r.span(m, SpanKind::Batch, i, 0.0);
            }
        }
        let tl = Timeline::gather(&cfg(10), recs.into_iter()).unwrap();
        assert_eq!(tl.tracks.len(), 4);
        assert!(tl.tracks.iter().all(|t| t.spans.len() == 2 && t.dropped == 5));
        assert!(tl.spans() <= 10);
        let j = chrome(&tl, json!({}));
        assert_eq!(j["otherData"]["truncated"], true);
        assert_eq!(j["otherData"]["dropped_spans"], 20);
        // A limit below the track count still gives every track one span.
        assert_eq!(Recorder::new(&cfg(1), t0, 4, 0, PeId::new(0)).unwrap().cap, 1);
    }

    #[test]
    fn chrome_json_names_tracks_and_puts_parents_before_children() {
        let mut r = Recorder::new(&cfg(100), Instant::now(), 1, 1, PeId::new(3)).unwrap();
        r.push_at(Span { kind: SpanKind::Straggler, start: 2_000, end: 3_000, count: 4, time: 0.5 });
        r.push_at(Span { kind: SpanKind::Batch, start: 2_000, end: 9_500, count: 16, time: 1.0 });
        let tl = Timeline { tracks: vec![r.finish()], limit: 100 };
        let j = chrome(&tl, json!({ "model": "test" }));
        let ev = j["traceEvents"].as_array().unwrap();
        let names: Vec<_> = ev.iter().filter(|e| e["ph"] == "M").map(|e| e["args"]["name"].clone()).collect();
        assert!(names.contains(&json!("rank 1")) && names.contains(&json!("PE 3")), "{names:?}");
        let spans: Vec<_> = ev.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(spans[0]["name"], "batch");
        assert_eq!(spans[0]["ts"], 2.0);
        assert_eq!(spans[0]["dur"], 7.5);
        assert_eq!((spans[0]["pid"].clone(), spans[0]["tid"].clone()), (json!(1), json!(3)));
        assert_eq!(spans[1]["name"], "rollback");
        assert_eq!(spans[1]["args"]["events_undone"], 4);
        assert_eq!(spans[1]["args"]["cause"], "straggler");
        assert_eq!(j["displayTimeUnit"], "ns");
        assert_eq!(j["otherData"]["about"]["model"], "test");
        assert_eq!(j["otherData"]["truncated"], false);
    }

    #[test]
    fn merge_orders_tracks_by_rank_and_pe() {
        let track = |rank, pe| Track { rank, pe, ..Default::default() };
        let mut a = Timeline { tracks: vec![track(0, 0), track(0, 1)], limit: 10 };
        a.merge(Timeline { tracks: vec![track(1, 3), track(1, 2)], limit: 10 });
        let order: Vec<_> = a.tracks.iter().map(|t| (t.rank, t.pe)).collect();
        assert_eq!(order, [(0, 0), (0, 1), (1, 2), (1, 3)]);
    }
}
