//! # Tandem queues: the timewarp model to copy when you start your own
//!
//! A series ("tandem") network of `stations` single-server FIFO queues.
//! Customers arrive at station 0 as a Poisson stream of rate `lambda`, are
//! served at every station for an exponential time of rate `mu`, travel for
//! a fixed `hop` time to the next station, and leave after the last one.
//! By Jackson's theorem each station is an M/M/1 queue with arrival rate
//! `lambda`, so its mean number in system is `rho / (1 - rho)` with
//! `rho = lambda / mu`: a known answer, checked by `tests/analytic.rs`.
//!
//! ## How the model maps onto the engine
//!
//! * **LPs**: one per station; LP `i` is station `i`. LP 0 also hosts the
//!   external source of customers.
//! * **Messages** ([`Msg`]): `Source` (LP 0 only: draw the next batch of
//!   external arrivals) and `Arrival` (a customer reaches a station).
//! * **State** ([`Station`]): counters and time integrals of one station.
//! * **Undo record** ([`Undo`]): what `reverse` needs to undo `forward`.
//! * **Results** ([`Results`]): per-station estimates, built by `finalize`.
//!
//! ## Lookahead, and why there is no `Departure` event
//!
//! The engine checks that every send to *another* LP has a delay of at
//! least the model's [`lookahead`](Model::lookahead) (a send to the LP
//! itself may have any delay >= 0: it never crosses to another PE);
//! conservative synchronisation needs that lookahead to be positive. A
//! textbook M/M/1 model schedules its own `Departure` after an exponential
//! service time (a self-send, so any delay is fine) and sends the customer on
//! when it departs: two events per customer and station.
//!
//! With one server and FIFO order one event does: a customer's departure
//! time is known the moment it arrives (Lindley's recursion,
//! `start = max(arrival, free_at)`, `departure = start + service`), so the
//! `Arrival` handler sends the customer straight on to the next station at
//! `departure + hop`. The source likewise draws its arrivals one window of
//! length `hop` ahead. Every send is then at least `hop` ahead, and
//! `lookahead() = hop` (Nicol's "pre-computed service times" for FCFS
//! queueing networks). If your model cannot know its future like this (several
//! servers, priorities, preemption), use ordinary self-scheduled events: they
//! may have any delay, and only sends to other LPs must keep the lookahead.
//!
//! ## Time integrals
//!
//! Because a customer's whole stay is known at its arrival, the area under
//! the number-in-system curve is accumulated per customer:
//! `∫_0^T N(t) dt = Σ (min(departure, T) - arrival)` over the customers that
//! arrive before the end time `T` (the same for the busy time of the server).
//! The integrals are therefore exact over `[0, T)` with no closing step, and
//! `finalize` just divides by `T`. `T` is the run's `Config::end`, read from
//! [`Ctx::end_time`], so the model and the configuration cannot disagree.
#![warn(missing_docs)]

use serde::{Deserialize, Serialize};
use timewarp::{Ctx, LpId, Model, Random};

/// Random stream of the service times (every station).
const SERVICE: u32 = 0;
/// Random stream of the external arrivals (LP 0 only). A separate stream
/// keeps the arrival sequence unchanged when you change the service part.
const SOURCE: u32 = 1;

/// The model's parameters. The model object is shared read-only by all
/// handlers: put parameters here, never mutable state.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tandem {
    /// Number of stations (= number of LPs).
    pub stations: u32,
    /// Arrival rate of the external Poisson stream into station 0.
    pub lambda: f64,
    /// Service rate of every station.
    pub mu: f64,
    /// Travel time from a station to the next (> 0); the model's lookahead.
    pub hop: f64,
}

impl Default for Tandem {
    /// Four stations at load `rho = 0.8`, one time unit between stations.
    fn default() -> Self {
        Tandem { stations: 4, lambda: 0.8, mu: 1.0, hop: 1.0 }
    }
}

impl Tandem {
    /// Checks the parameters, saying what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.stations == 0 {
            return Err("stations must be at least 1".into());
        }
        if !(self.lambda.is_finite() && self.lambda > 0.0) {
            return Err(format!("lambda must be a finite number > 0, got {}", self.lambda));
        }
        if !(self.mu.is_finite() && self.mu > 0.0) {
            return Err(format!("mu must be a finite number > 0, got {}", self.mu));
        }
        if !(self.hop.is_finite() && self.hop > 0.0) {
            return Err(format!("hop must be a finite number > 0, got {}", self.hop));
        }
        // One `Source` event draws about lambda * hop numbers; the engine
        // can rewind at most 65,535 draws per event and stream.
        if self.lambda * self.hop > 1000.0 {
            return Err(format!(
                "lambda * hop must be at most 1000 (arrivals drawn per source event), got {}",
                self.lambda * self.hop
            ));
        }
        Ok(())
    }

    /// Load of every station, `lambda / mu`.
    pub fn rho(&self) -> f64 {
        self.lambda / self.mu
    }

    /// Mean number in system of every station in steady state, `rho / (1 - rho)`
    /// (Jackson's theorem); `None` when `rho >= 1` (the queues grow without bound).
    pub fn analytic_mean_in_system(&self) -> Option<f64> {
        let rho = self.rho();
        (rho < 1.0).then(|| rho / (1.0 - rho))
    }

    /// Sends to station 0 the external arrivals whose delays from now fall in
    /// `[from, to)`: a Poisson stream restarted at `from`, which is exact
    /// because exponential gaps are memoryless. Working with delays rather
    /// than absolute times keeps every delay `>= from` despite rounding.
    fn emit_arrivals(&self, ctx: &mut Ctx<'_, Self>, from: f64, to: f64) {
        let mean_gap = 1.0 / self.lambda; // `exponential` takes the mean
        let mut delay = from + ctx.rng(SOURCE).exponential(mean_gap);
        while delay < to {
            ctx.send(0, delay, Msg::Arrival);
            delay += ctx.rng(SOURCE).exponential(mean_gap);
        }
    }

    /// A customer arrives at this station: decide its whole stay now.
    fn arrive(&self, s: &mut Station, undo: &mut Undo, ctx: &mut Ctx<'_, Self>) {
        let now = ctx.now();
        let end = ctx.end_time();

        // Save every value this handler overwrites. Floating-point `x += y`
        // is not undone exactly by `x -= y`, so `reverse` restores these
        // instead of recomputing them. (Counters are integers: `-= 1` is exact.)
        *undo = Undo { free_at: s.free_at, area: s.area, busy_time: s.busy_time, ..Undo::default() };

        // Lindley's recursion: FIFO, one server. `free_at` is when the server
        // finishes the customers already accepted (it is busy iff free_at > now).
        // Random draws need no undo: the engine rewinds the streams itself.
        let start = s.free_at.max(now);
        let departure = start + ctx.rng(SERVICE).exponential(1.0 / self.mu);
        s.free_at = departure;

        // The customer is in the system during [now, departure) and in
        // service during [start, departure); clip both at the end time.
        s.arrivals += 1;
        s.area += departure.min(end) - now;
        s.busy_time += departure.min(end) - start.min(end);
        if departure < end {
            s.departures += 1;
            undo.departed = true; // branch flag for `reverse` (ROSS's `tw_bf`)
        }

        // Move on to the next station, or leave the network after the last.
        let next = ctx.lp() + 1;
        if next < self.stations {
            // departure >= now, so this delay is >= hop: the lookahead holds.
            let delay = (departure - now) + self.hop;
            // The engine silently drops sends at or past the end time. Count the
            // customers that left in time but are still travelling at the end,
            // with the engine's own arithmetic (`now + delay >= end`), so the
            // conservation test can balance the books exactly.
            if undo.departed && now + delay >= end {
                s.in_transit += 1;
                undo.in_transit = true;
            }
            ctx.send(next, delay, Msg::Arrival);
        }
    }
}

/// What an event carries. Several kinds: an enum (it must be `Copy`, so
/// keep it small; here the customer itself needs no data).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// LP 0 only, every `hop` time units: draw the external arrivals due
    /// between `hop` and `2 * hop` from now and schedule the next `Source`.
    Source,
    /// A customer reaches this station (from the source or the previous station).
    Arrival,
}

/// State of one station (one LP). It must be `Clone` and `Serialize`: check
/// mode compares it before and after `forward` + `reverse`, and the run
/// digest hashes it at the end.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Station {
    /// Customers that arrived.
    pub arrivals: u64,
    /// Customers whose service ended before the end time.
    pub departures: u64,
    /// Customers that left before the end time but reach the next station
    /// only at or after it (travelling when the run stops).
    pub in_transit: u64,
    /// When the server finishes the work accepted so far.
    pub free_at: f64,
    /// Time integral of the number in system over `[0, end)`.
    pub area: f64,
    /// Time integral of the busy indicator over `[0, end)`.
    pub busy_time: f64,
    /// The run's end time, kept because `finalize` has no `Ctx`.
    pub end: f64,
}

/// Per-event undo record: written by `forward`, read by `reverse` of the
/// same event. It is stored with every event, so keep it small and `Copy`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Undo {
    /// `free_at` before the event.
    free_at: f64,
    /// `area` before the event.
    area: f64,
    /// `busy_time` before the event.
    busy_time: f64,
    /// The event counted a departure.
    departed: bool,
    /// The event counted a customer in transit.
    in_transit: bool,
}

/// Results of one station, estimated over `[0, end)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StationResults {
    /// Customers that arrived.
    pub arrivals: u64,
    /// Customers that departed.
    pub departures: u64,
    /// Customers in the station at the end.
    pub in_system: u64,
    /// Customers travelling from this station to the next at the end.
    pub in_transit: u64,
    /// Time-average number in system, `L = area / end`.
    pub mean_in_system: f64,
    /// Fraction of time the server was busy (estimates `rho`).
    pub utilisation: f64,
    /// Departures per time unit (estimates `lambda`).
    pub throughput: f64,
}

/// What `finalize` gathers: one entry per station, in LP order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Results {
    /// Station `i` is `stations[i]`.
    pub stations: Vec<StationResults>,
}

impl Results {
    /// Customers still in the network at the end: in a station or travelling.
    pub fn in_network(&self) -> u64 {
        self.stations.iter().map(|s| s.in_system + s.in_transit).sum()
    }
}

impl Model for Tandem {
    type State = Station;
    type Msg = Msg;
    type Undo = Undo;
    type Results = Results;
    // `const ROLLBACK` is left at its default, `Rollback::Reverse`: the engine
    // undoes speculative events with `reverse` below.

    fn name(&self) -> &str {
        "tandem"
    }

    fn num_lps(&self) -> u32 {
        self.stations
    }

    /// Every send is at least `hop` ahead (see the module docs).
    fn lookahead(&self) -> f64 {
        self.hop
    }

    fn rng_streams(&self) -> u32 {
        2 // SERVICE and SOURCE
    }

    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> Station {
        if lp == 0 {
            // Sends from `init` need only a delay >= 0: draw the arrivals of
            // [0, hop) here and start the `Source` chain at time 0, which
            // covers [hop, 2 hop), [2 hop, 3 hop), and so on.
            self.emit_arrivals(ctx, 0.0, self.hop);
            ctx.send(0, 0.0, Msg::Source);
        }
        Station { end: ctx.end_time(), ..Station::default() }
    }

    fn forward(&self, s: &mut Station, msg: &Msg, undo: &mut Undo, ctx: &mut Ctx<'_, Self>) {
        match msg {
            Msg::Source => {
                self.emit_arrivals(ctx, self.hop, 2.0 * self.hop);
                ctx.send(0, self.hop, Msg::Source);
            }
            Msg::Arrival => self.arrive(s, undo, ctx),
        }
    }

    /// Undoes `forward` exactly, newest change first. The engine itself
    /// cancels the event's sends and rewinds its random draws.
    fn reverse(&self, s: &mut Station, msg: &Msg, undo: &Undo, _lp: LpId, _now: f64) {
        match msg {
            Msg::Source => {} // changed no state
            Msg::Arrival => {
                if undo.in_transit {
                    s.in_transit -= 1;
                }
                if undo.departed {
                    s.departures -= 1;
                }
                s.arrivals -= 1;
                s.busy_time = undo.busy_time;
                s.area = undo.area;
                s.free_at = undo.free_at;
            }
        }
    }

    /// Called once per LP, in LP order, on the final committed state.
    fn finalize(&self, _lp: LpId, s: &Station, _end: f64, r: &mut Results) {
        r.stations.push(StationResults {
            arrivals: s.arrivals,
            departures: s.departures,
            in_system: s.arrivals - s.departures,
            in_transit: s.in_transit,
            mean_in_system: s.area / s.end,
            utilisation: s.busy_time / s.end,
            throughput: s.departures as f64 / s.end,
        });
    }
}
