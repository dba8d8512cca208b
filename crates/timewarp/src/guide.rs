//! # A guide for model writers
//!
//! This page walks through what a model is made of, a complete model run in
//! every mode, how to check a model, and what the errors users hit mean.
//! Every example on it is a doctest.
//!
//! ## Concepts
//!
//! - **LP** (logical process): the unit of state. A model has
//!   [`Model::num_lps`] LPs with ids ([`LpId`]) `0..num_lps`; each has a
//!   [`Model::State`] created by [`Model::init`]. LPs change state only by
//!   processing events; several LP kinds are expressed with an enum `State`.
//! - **Event**: a [`Model::Msg`] delivered to one LP at one virtual time
//!   ([`Time`]). A handler sends events with [`Ctx::send`]`(dst, delay, msg)`;
//!   the event arrives at [`Ctx::now`]` + delay`. Events at or past
//!   [`Config::end`] are never processed.
//! - **Key and ties**: events are totally ordered by [`Key`]: timestamp, then
//!   zero-delay generation, then sender LP, then the sender's send counter.
//!   The order depends only on the model's own history, never on threads or
//!   timing, so simultaneous events are processed in the same order in every
//!   mode.
//! - **Lookahead**: [`Model::lookahead`] (and per pair
//!   [`Model::lookahead_between`]) is the smallest delay of a send to *another*
//!   LP; a send to the LP itself may have any delay `>= 0`. A send below it is
//!   an [`Error::Lookahead`]. Conservative runs need it positive; optimistic
//!   runs use it too, so declare the largest value that is true.
//! - **Reverse handler and undo record**: in an optimistic run an event may be
//!   processed speculatively and later rolled back. With
//!   [`Rollback::Reverse`] (the default) the engine calls [`Model::reverse`],
//!   which must restore the state exactly; `forward` writes into a per-event
//!   [`Model::Undo`] record whatever `reverse` cannot recompute (a branch
//!   taken, an overwritten value). Sends and random draws are undone by the
//!   engine. With [`Rollback::StateSaving`] the engine clones the state
//!   before each event instead and `reverse` is never called; with
//!   [`Rollback::Incremental`] the handler saves what it overwrites (see
//!   "Three ways to undo an event" below).
//! - **Random streams**: [`Ctx::rng`]`(s)` gives stream `s` of the LP
//!   (`0..`[`Model::rng_streams`], at most [`MAX_STREAMS`]); its draws
//!   ([`Random`] methods such as [`Random::exponential`]) are a function of
//!   the seed, the LP, the stream and a counter the engine rewinds on
//!   rollback. Use no other randomness in handlers.
//! - **Commit**: [`Model::commit`] runs once per event that can no longer be
//!   rolled back, in timestamp order per LP: the only place for irreversible
//!   side effects (output, I/O, counters outside the state).
//! - **Finalize**: [`Model::finalize`] runs once per LP, in id order, on the
//!   final states and gathers [`Model::Results`], returned in
//!   [`Report::results`].
//!
//! ## A complete model: a closed queueing network
//!
//! Jobs circulate among servers. Each server (an LP) holds a queue; a job
//! arriving at an idle server starts service; when service ends the job goes
//! to a random server after a travel time of at least the lookahead.
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use timewarp::{Config, Ctx, LpId, Model, Random, SyncMode, Time};
//!
//! struct Network { servers: u32, jobs_per_server: u32, committed_departures: AtomicU64 }
//!
//! #[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
//! struct Server { queue: u32, served: u64 }
//!
//! #[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
//! enum Msg { Arrive, Depart }
//!
//! impl Model for Network {
//!     type State = Server;
//!     type Msg = Msg;
//!     type Undo = ();            // every change below can be undone from the message alone
//!     type Results = (u64, u32); // jobs served, jobs queued at the end
//!
//!     fn name(&self) -> &str { "network" }
//!     fn num_lps(&self) -> u32 { self.servers }
//!     fn lookahead(&self) -> f64 { 1.0 }
//!
//!     fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> Server {
//!         // The jobs start queued; the first starts service at once.
//!         if self.jobs_per_server > 0 {
//!             let service = ctx.rng(0).exponential(1.0);
//!             ctx.send(lp, service, Msg::Depart);
//!         }
//!         Server { queue: self.jobs_per_server, served: 0 }
//!     }
//!
//!     fn forward(&self, s: &mut Server, msg: &Msg, _: &mut (), ctx: &mut Ctx<'_, Self>) {
//!         match msg {
//!             Msg::Arrive => {
//!                 s.queue += 1;
//!                 if s.queue == 1 {
//!                     let service = ctx.rng(0).exponential(1.0);
//!                     ctx.send(ctx.lp(), service, Msg::Depart);
//!                 }
//!             }
//!             Msg::Depart => {
//!                 s.queue -= 1;
//!                 s.served += 1;
//!                 let next = ctx.rng(0).below(self.servers as u64) as LpId;
//!                 let travel = self.lookahead() + ctx.rng(0).exponential(0.5);
//!                 ctx.send(next, travel, Msg::Arrive);
//!                 if s.queue > 0 {
//!                     let service = ctx.rng(0).exponential(1.0);
//!                     ctx.send(ctx.lp(), service, Msg::Depart);
//!                 }
//!             }
//!         }
//!     }
//!
//!     fn reverse(&self, s: &mut Server, msg: &Msg, _: &(), _: LpId, _: Time) {
//!         // Sends and random draws are undone by the engine.
//!         match msg {
//!             Msg::Arrive => s.queue -= 1,
//!             Msg::Depart => { s.queue += 1; s.served -= 1; }
//!         }
//!     }
//!
//!     fn commit(&self, msg: &Msg, _: &(), _: LpId, _: Time) {
//!         if let Msg::Depart = msg {
//!             self.committed_departures.fetch_add(1, Ordering::Relaxed);
//!         }
//!     }
//!
//!     fn finalize(&self, _: LpId, s: &Server, _end: Time, r: &mut (u64, u32)) {
//!         r.0 += s.served;
//!         r.1 += s.queue;
//!     }
//! }
//!
//! let network = || Network { servers: 16, jobs_per_server: 2, committed_departures: AtomicU64::new(0) };
//!
//! let seq_model = network();
//! let seq = timewarp::Run::new(&seq_model, &Config { end: 50.0, seed: 1, ..Config::default() }).execute().unwrap();
//!
//! let opt_model = network();
//! let cfg = Config { sync: SyncMode::Optimistic, threads: 2, end: 50.0, seed: 1, ..Config::default() };
//! let opt = timewarp::Run::new(&opt_model, &cfg).execute().unwrap();
//!
//! // The same committed history, whatever the mode.
//! assert_eq!(seq.stats.digest, opt.stats.digest);
//! assert_eq!(seq.results, opt.results);
//! // `commit` saw each committed departure exactly once, despite rollbacks.
//! assert_eq!(seq.results.0, seq_model.committed_departures.load(Ordering::Relaxed));
//! assert_eq!(opt.results.0, opt_model.committed_departures.load(Ordering::Relaxed));
//! ```
//!
//! ## Choosing a mode
//!
//! [`Config::sync`] picks the [`SyncMode`]:
//!
//! - [`SyncMode::Sequential`] (the default): one event queue, no rollback
//!   machinery. The baseline, and the reference for the others.
//! - [`SyncMode::Check`]: sequential, but every event is run forward,
//!   reversed, compared with a snapshot of the LP state and run again. Use it
//!   on every model with a reverse handler before running it optimistically.
//! - [`SyncMode::Optimistic`]: Time Warp on [`Config::threads`] worker
//!   threads. Works with any lookahead, needs a correct `reverse` (or
//!   [`Rollback::StateSaving`], or the saves of [`Rollback::Incremental`]). [`Config::optimism`] ([`Optimism`]) and
//!   [`Config::scheduling`] ([`Scheduling`]) tune it.
//! - [`SyncMode::Conservative`]: lookahead windows on worker threads, no
//!   rollback; needs a positive lookahead, and gains with a large one.
//!
//! All modes commit the same history: compare [`Stats::digest`].
//!
//! ## Three ways to undo an event
//!
//! An optimistic run must be able to undo any processed event. The model
//! picks how with [`Model::ROLLBACK`] (or per run with [`Model::rollback`]):
//!
//! | [`Rollback`] | the model writes | a rollback costs | choose it for |
//! |---|---|---|---|
//! | `Reverse` (default) | [`Model::reverse`] and an undo record | what `reverse` computes | small, exactly invertible changes (counters, PHOLD, PCS) |
//! | `StateSaving` | nothing | a clone of the LP state, before *every* event | tiny states (a few words) |
//! | `Incremental` | a [`Ctx::save`] before each write, and [`Model::restore`] | what the event wrote | large states whose handlers are hard to invert (a router's buffers) |
//!
//! Under `Incremental` an event's saved entries ([`Model::Undo`] values:
//! which field, and its old value) go to a journal per kernel process; a
//! rollback hands them back newest first to [`Model::restore`], fossil
//! collection drops them with their event, and sequential and conservative
//! runs save nothing ([`Ctx::saving`] says whether to bother).
//! [`SyncMode::Check`] restores every event's entries and compares the state
//! with a snapshot, so a write without a `save` is found at once. A model
//! that saves one entry in every event can keep it in the event's own undo
//! record instead (the handler's third argument, kept for every speculative
//! event anyway) with [`Model::RESTORE_RECORD`]: the journal then holds one
//! entry fewer per event. Entries are kept until their event commits, so
//! their size is most of what speculation costs in memory: keep
//! [`Model::Undo`] small (the network's is 32 bytes; what is larger is
//! saved as two entries).
//! [`Stats::saved_entries`] counts the entries of processed events.
//!
//! ```
//! use timewarp::{Config, Ctx, LpId, Model, Random, Rollback, SyncMode};
//!
//! /// A histogram of 1,000 bins per LP; each event adds to one bin.
//! struct Bins;
//! #[derive(Clone, Copy, Debug, Default)]
//! struct Old { bin: u16, count: u32 }
//!
//! impl Model for Bins {
//!     type State = Vec<u32>;
//!     type Msg = ();
//!     type Undo = Old;
//!     type Results = u64;
//!     const ROLLBACK: Rollback = Rollback::Incremental;
//!     fn name(&self) -> &str { "bins" }
//!     fn num_lps(&self) -> u32 { 8 }
//!     fn lookahead(&self) -> f64 { 0.1 }
//!     fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> Vec<u32> {
//!         ctx.send(lp, 1.0, ());
//!         vec![0; 1000]
//!     }
//!     fn forward(&self, bins: &mut Vec<u32>, _: &(), _: &mut Old, ctx: &mut Ctx<'_, Self>) {
//!         let bin = ctx.rng(0).below(1000) as usize;
//!         // Save before writing; without a journal (sequential) it is a no-op.
//!         ctx.save(Old { bin: bin as u16, count: bins[bin] });
//!         bins[bin] += 1;
//!         let to = ctx.rng(0).below(8) as LpId;
//!         let delay = 0.1 + ctx.rng(0).exponential(1.0);
//!         ctx.send(to, delay, ());
//!     }
//!     fn restore(&self, bins: &mut Vec<u32>, old: &Old) {
//!         bins[old.bin as usize] = old.count;
//!     }
//!     fn finalize(&self, _: LpId, bins: &Vec<u32>, _: f64, total: &mut u64) {
//!         *total += bins.iter().map(|&c| c as u64).sum::<u64>();
//!     }
//! }
//!
//! let seq = timewarp::Run::new(&Bins, &Config { end: 100.0, ..Config::default() }).execute().unwrap();
//! for (sync, threads) in [(SyncMode::Check, 1), (SyncMode::Optimistic, 2)] {
//!     let cfg = Config { end: 100.0, sync, threads, ..Config::default() };
//!     let r = timewarp::Run::new(&Bins, &cfg).execute().unwrap();
//!     assert_eq!(r.stats.digest, seq.stats.digest);
//!     assert_eq!(r.results, seq.results);
//! }
//! ```
//!
//! The network model (`timewarp_models::network`, its `journal.rs`) is the
//! full-size example: every write to a router goes through a method that
//! saves what it overwrites. docs/history/performance-2026-11.md ("Optimistic networks")
//! measures the three ways on PCS and on the network model.
//!
//! ## A command line for your model
//!
//! The `timewarp-cli` crate turns a model into a program with every engine
//! option and the `run`, `verify`, `resume`, `sweep`, `plot` and `report`
//! commands of `timewarp`: put the model's parameters in a clap-derived
//! struct, implement `timewarp_cli::ModelCli` for it (name, description,
//! default `--end`, and `build`, which makes the model from the options or
//! says which option is wrong), and write
//! `timewarp_cli::App::new("mymodel").model::<MyArgs>().main()` in `main`.
//! `examples/tandem/src/main.rs` in the repository is a complete example.
//!
//! A crate of your own outside the timewarp workspace does not get the
//! workspace's release profile (cargo reads profiles only from the root
//! manifest of the workspace it builds), and the engine, monomorphised for
//! your model, is compiled with yours. To build it as the project builds
//! and measures its own binaries, copy the profile into your `Cargo.toml`:
//!
//! ```toml
//! [profile.release]
//! codegen-units = 1 # the engine's kernels and your handlers in one unit,
//! lto = "thin"      # inlined across crates
//! debug = 1         # line tables for profilers
//! panic = "unwind"  # the default: a panicking handler becomes an error naming its LP
//! ```
//!
//! `examples/tandem/README.md` ("Start your own model from it") says why,
//! and what it changed for that model (little: 687 against 674
//! instructions per event).
//!
//! ## Checking a model: `--sync check` and `verify`
//!
//! Check mode catches a reverse handler that does not restore the state, at
//! the first event where it fails, as [`Error::Check`]:
//!
//! ```
//! use timewarp::{Config, Ctx, Error, LpId, Model, SyncMode, Time};
//!
//! struct Leaky;
//! impl Model for Leaky {
//!     type State = u64; type Msg = (); type Undo = (); type Results = ();
//!     fn name(&self) -> &str { "leaky" }
//!     fn num_lps(&self) -> u32 { 2 }
//!     fn lookahead(&self) -> f64 { 1.0 }
//!     fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> u64 { ctx.send(lp, 1.0, ()); 0 }
//!     fn forward(&self, n: &mut u64, _: &(), _: &mut (), ctx: &mut Ctx<'_, Self>) {
//!         *n += 1;
//!         ctx.send(1 - ctx.lp(), 1.0, ());
//!     }
//!     fn reverse(&self, _n: &mut u64, _: &(), _: &(), _: LpId, _: Time) {
//!         // Bug: forgets `*n -= 1`.
//!     }
//! }
//!
//! let check = Config { sync: SyncMode::Check, end: 10.0, ..Config::default() };
//! let err = timewarp::Run::new(&Leaky, &check).execute().unwrap_err();
//! assert!(matches!(err, Error::Check { .. }), "{err}");
//! ```
//!
//! [`verify::verify`](crate::verify::verify) runs a model sequentially and
//! under a parallel configuration and, if the digests differ, names the first
//! LP and committed event where the runs part ways
//! ([`verify::Divergence`](crate::verify::Divergence)):
//!
//! ```
//! # use std::sync::atomic::AtomicU64;
//! use timewarp::{Config, SyncMode};
//! # use timewarp::{Ctx, LpId, Model, Random, Time};
//! # struct Ring;
//! # impl Model for Ring {
//! #     type State = u64; type Msg = (); type Undo = (); type Results = ();
//! #     fn name(&self) -> &str { "ring" }
//! #     fn num_lps(&self) -> u32 { 8 }
//! #     fn lookahead(&self) -> f64 { 1.0 }
//! #     fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> u64 { ctx.send(lp, 1.0, ()); 0 }
//! #     fn forward(&self, n: &mut u64, _: &(), _: &mut (), ctx: &mut Ctx<'_, Self>) {
//! #         *n += 1;
//! #         let d = 1.0 + ctx.rng(0).exponential(1.0);
//! #         ctx.send((ctx.lp() + 1) % 8, d, ());
//! #     }
//! #     fn reverse(&self, n: &mut u64, _: &(), _: &(), _: LpId, _: Time) { *n -= 1; }
//! # }
//! # let model = Ring;
//! let par = Config { sync: SyncMode::Optimistic, threads: 2, end: 50.0, ..Config::default() };
//! let verdict = timewarp::verify::verify(&model, &par).unwrap();
//! assert_eq!(verdict.sequential.digest, verdict.parallel.digest);
//! if let Some(d) = verdict.divergence {
//!     panic!("modes disagree: {d}");
//! }
//! ```
//!
//! ## Troubleshooting
//!
//! Every failure is an [`Error`]; its message names the LP and time where
//! that applies.
//!
//! - [`Error::BadDelay`] — *"event sent with delay …; delays must be finite
//!   and >= 0 (an event cannot be scheduled into the past)"*: a handler passed
//!   a negative, NaN or infinite delay to [`Ctx::send`]. Delays are relative
//!   to [`Ctx::now`]; compute them as such.
//! - [`Error::Lookahead`] — *"sent with delay … below the model's lookahead"*:
//!   a send to another LP was shorter than [`Model::lookahead`] or
//!   [`Model::lookahead_between`]. Raise the delay or declare a smaller
//!   lookahead.
//! - [`Error::Neighbours`]: in a conservative run, a send to an LP on another
//!   PE that [`Model::neighbours`] did not list. List it, or run
//!   optimistically.
//! - [`Error::BadDestination`]: a send to an LP id `>= num_lps`.
//! - [`Error::Model`]: the model reported a broken invariant with
//!   [`Ctx::fail`]. [`Error::Panic`]: a handler panicked (in an optimistic
//!   run, only an event that is committed stops the run).
//! - [`Error::Stalled`] — *"events in a row at this one virtual time; the run
//!   cannot advance"*: events keep scheduling events with delay 0. Give the
//!   model positive delays, or raise [`Config::max_events_at_one_time`]
//!   (default [`MAX_EVENTS_AT_ONE_TIME`]; 0: no limit).
//! - A slow optimistic run whose statistics show most iterations
//!   `throttled`: its event budget binds. Without [`Config::event_memory`]
//!   the budget follows the run (from [`EVENT_MEMORY_FACTOR`]` × batch ×
//!   gvt_interval` up to each PE's live pending events); a larger
//!   [`Config::event_memory`] buys speed with memory. ([`Error::EventMemory`]
//!   is no longer raised: a full budget throttles, it never fails.)
//! - [`Error::Memory`]: the run needs more memory than the machine has or
//!   the process may use (`ulimit -v`, `ulimit -d`; checked before
//!   allocating, from [`Model::initial_events`] and
//!   [`Model::state_heap_bytes`]).
//! - [`Error::Check`]: check mode found a `reverse` that does not restore the
//!   state; the message gives the LP, the event and what differs. Fix
//!   `reverse`, record what it needs in the undo record, or use
//!   [`Rollback::StateSaving`].
//! - [`Error::Config`] / [`Error::Option`]: an invalid configuration; the
//!   message names the option.
//! - **Different results across modes** (digests differ, or
//!   [`verify::verify`](crate::verify::verify) reports a divergence): the
//!   model is not deterministic in the engine's sense. Usual causes: a
//!   `reverse` that is not exact (run [`SyncMode::Check`]; `verify` runs it
//!   for you and puts what it finds, the field named, in
//!   [`Divergence::check`](crate::verify::Divergence::check)), randomness that
//!   does not come from [`Ctx::rng`], handler behaviour depending on state
//!   shared outside the LP (globals, interior mutability), or side effects
//!   in `forward` that belong in [`Model::commit`].

// In scope only for the intra-doc links above.
#[allow(unused_imports)]
use crate::{
    Config, Ctx, Error, Key, LpId, Model, Optimism, Random, Report, Rollback, Scheduling, Stats, SyncMode, Time,
    EVENT_MEMORY_FACTOR, MAX_EVENTS_AT_ONE_TIME, MAX_STREAMS,
};
