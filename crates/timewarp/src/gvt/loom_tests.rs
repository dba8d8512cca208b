//! Model-checked GVT rounds (see the module's declaration in `gvt/mod.rs`).

use std::sync::{Arc, Mutex};

use ::loom::thread;

use super::*;
use crate::layout::Layout;
use crate::transport::{Links, NoNet, Wire};

/// The model's lookahead: every event sends one event this much later
/// to the other PE, up to [`LAST`].
const LOOKAHEAD: f64 = 1.0;
const LAST: f64 = 3.0;

/// The test's record of every event, kept outside the model (std's
/// mutex: it adds no interleavings, and its clock orders what happened
/// in the execution loom chose, whatever a thread could see of it).
#[derive(Default)]
struct Ghost {
    clock: u64,
    events: Vec<Life>,
    /// When a PE was about to enter phase A, and to report: (round, PE, clock).
    entered: Vec<(u64, usize, u64)>,
    reported: Vec<(u64, usize, u64)>,
}

/// One event: created (sent, or there at the start), taken in by its
/// PE (messages only), processed.
struct Life {
    key: Key,
    pe: usize,
    message: bool,
    born: u64,
    arrived: Option<u64>,
    died: Option<u64>,
}

impl Ghost {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }
}

/// What a PE learnt from the round: GVT, its horizon, its safe bound.
type Learnt = (Key, Key, Key);

/// One PE, the GVT-relevant skeleton of `Pe::iterate` and its hooks
/// (`kernel/optimistic/pe/round.rs`), each call to the real `Gvt`,
/// `Participant` and `Links` in the kernel's order: drain, GVT step
/// (enter; report after a drain; new GVT), a batch of one event (its
/// send noted for the round), flush, and, when the iteration did
/// nothing, ask for a round (as an idle PE does). It stops once it
/// knows the value of `rounds` rounds and has nothing left to process.
fn pe(
    me: usize,
    rounds: usize,
    gvt: &Gvt,
    mut links: Links<u64>,
    ghost: &Mutex<Ghost>,
    mut pending: Vec<(Key, u64)>,
) -> Vec<Learnt> {
    let mut part = Participant::default();
    let mut learnt = Vec::new();
    let take = |links: &mut Links<u64>, pending: &mut Vec<(Key, u64)>| {
        links.drain_with(|_, w| {
            let Wire::Event { key, msg: id, .. } = w else { unreachable!("no anti-messages here") };
            let mut g = ghost.lock().unwrap();
            let now = g.tick();
            g.events[id as usize].arrived = Some(now);
            pending.push((key, id));
        })
    };
    loop {
        let mut busy = take(&mut links, &mut pending) > 0;
        match gvt.step(&mut part, &NoNet) {
            Step::Idle => {}
            Step::Enter => {
                assert!(!part.in_a, "PE {me} enters once");
                let mut g = ghost.lock().unwrap();
                let now = g.tick();
                g.entered.push((part.current(), me, now));
                drop(g);
                gvt.enter(&mut part);
                part.sent(links.spilled_min());
                busy = true;
            }
            Step::Report => {
                assert!(part.in_a && !part.in_b, "PE {me} reports once, after entering");
                take(&mut links, &mut pending);
                let q = pending.iter().map(|e| e.0).min().unwrap_or(Key::INF);
                let transit = part.send_min.unwrap_or(Key::INF).min(links.spilled_min());
                let mut g = ghost.lock().unwrap();
                let now = g.tick();
                g.reported.push((part.current(), me, now));
                drop(g);
                gvt.report(me, &mut part, q, transit, 0.0, &NoNet);
                busy = true;
            }
            Step::New(v) => {
                // (`step` has moved `part` on to the next round.)
                assert!(!part.in_a && !part.in_b && part.current() >= 2, "PE {me} learns after reporting");
                if learnt.len() < rounds {
                    learnt.push((v, gvt.horizon(me), gvt.safe(me)));
                }
                busy = true;
            }
        }
        if let Some(i) = (0..pending.len()).min_by_key(|&i| pending[i].0) {
            let (key, id) = pending.swap_remove(i);
            let child = Key::at(key.time + LOOKAHEAD);
            let mut g = ghost.lock().unwrap();
            let now = g.tick();
            g.events[id as usize].died = Some(now);
            let sends = child.time <= LAST;
            let cid = g.events.len() as u64;
            if sends {
                g.events.push(Life { key: child, pe: 1 - me, message: true, born: now, arrived: None, died: None });
            }
            drop(g);
            if sends {
                links.send_event(1 - me, child, 0, cid);
                part.sent(child);
            }
            busy = true;
        }
        links.flush();
        if learnt.len() == rounds && pending.is_empty() {
            return learnt;
        }
        if !busy {
            gvt.request();
            thread::yield_now();
        }
    }
}

#[test]
fn a_round_never_passes_an_event_that_can_still_happen() {
    rounds_among_two_pes(1, false);
}

#[test]
fn a_round_never_passes_an_event_that_can_still_happen_with_doorbells() {
    // Phase B then reads only the rings whose bits are set.
    rounds_among_two_pes(1, true);
}

#[test]
fn a_second_round_reads_none_of_the_first_ones_values() {
    // Every slot then holds the first round's value while the second
    // is written: one read too early would be a value of the past.
    rounds_among_two_pes(2, false);
}

/// Two PEs, PE 0 with an event at 1, PE 1 at 1.5; each event sends one
/// to the other PE a lookahead later (rings of one slot: a send may
/// wait for room, and count as in flight). Both PEs ask for a round
/// when idle, so a round may start at any point of the run; they stop
/// after `rounds`. Whatever the interleaving, in every round: no PE
/// reports before every PE has entered, both learn the same GVT, and
/// no event alive once the last PE reported (pending, in a ring,
/// waiting for room, or sent later) is below GVT or its PE's horizon;
/// none that reaches a PE after its report is below its safe bound.
/// And GVT is no lower than the earliest event alive when the first PE
/// entered (a value read before it was written would be), so it never
/// goes back.
fn rounds_among_two_pes(rounds: usize, bells: bool) {
    ::loom::model(move || {
        let gvt = Arc::new(Gvt::new(2, LOOKAHEAD));
        let ghost = Arc::new(Mutex::new(Ghost::default()));
        let mut links = Links::<u64>::mesh(&Layout::new(0, 1, 2), 1, bells);
        let starts = [1.0, 1.5];
        {
            let mut g = ghost.lock().unwrap();
            for (pe, &t) in starts.iter().enumerate() {
                g.events.push(Life { key: Key::at(t), pe, message: false, born: 0, arrived: None, died: None });
            }
        }
        let l1 = links.pop().expect("PE 1");
        let other = {
            let (gvt, ghost) = (gvt.clone(), ghost.clone());
            thread::spawn(move || pe(1, rounds, &gvt, l1, &ghost, vec![(Key::at(starts[1]), 1)]))
        };
        let l0 = links.pop().expect("PE 0");
        let learnt = [pe(0, rounds, &gvt, l0, &ghost, vec![(Key::at(starts[0]), 0)]), other.join().expect("PE 1")];
        let g = ghost.lock().unwrap();
        for round in 1..=rounds {
            check_round(&g, round as u64, [learnt[0][round - 1], learnt[1][round - 1]]);
            if round > 1 {
                assert!(learnt[0][round - 1].0 >= learnt[0][round - 2].0, "GVT went back");
            }
        }
    });
}

/// The properties of round `round`, where PE `i` learnt `learnt[i]`.
fn check_round(g: &Ghost, round: u64, learnt: [Learnt; 2]) {
    let value = learnt[0].0;
    assert_eq!(learnt[1].0, value, "both PEs learn the same GVT");
    let of_round = |marks: &[(u64, usize, u64)]| -> Vec<(usize, u64)> {
        marks.iter().filter(|m| m.0 == round).map(|m| (m.1, m.2)).collect()
    };
    let (entered, reported) = (of_round(&g.entered), of_round(&g.reported));
    assert_eq!((entered.len(), reported.len()), (2, 2), "each PE enters and reports once");
    let last_entry = entered.iter().map(|m| m.1).max().expect("entries");
    let last_report = reported.iter().map(|m| m.1).max().expect("reports");
    assert!(reported.iter().all(|m| m.1 > last_entry), "a PE reported before all had entered");
    let first_entry = entered.iter().map(|m| m.1).min().expect("entries");
    let alive = |e: &&Life| e.born <= first_entry && e.died.map_or(true, |d| d > first_entry);
    let earliest = g.events.iter().filter(alive).map(|e| e.key).min().unwrap_or(Key::INF);
    assert!(value >= earliest, "GVT {} below every event alive when the round began ({})", value.time, earliest.time);
    for (i, e) in g.events.iter().enumerate() {
        let (_, horizon, safe) = learnt[e.pe];
        if e.died.map_or(true, |d| d > last_report) {
            assert!(e.key >= value, "event {i} at {} alive after the round, GVT {}", e.key.time, value.time);
            assert!(e.key >= horizon, "event {i} at {} below PE {}'s horizon {}", e.key.time, e.pe, horizon.time);
        }
        let reported = reported.iter().find(|m| m.0 == e.pe).expect("every PE reports").1;
        if e.message && e.arrived.map_or(true, |a| a > reported) {
            assert!(
                e.key >= safe,
                "event {i} at {} reached PE {} below its safe bound {}",
                e.key.time,
                e.pe,
                safe.time
            );
        }
    }
}
