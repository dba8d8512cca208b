//! Commit horizons and safe bounds, and when a round is open.

use super::*;

fn k(time: f64, tie: u64) -> Key {
    Key { time, age: 0, tie }
}

/// The commit horizons of `horizons`.
fn commit(pending: &[Key], transit: Key, lookahead: f64) -> Vec<Key> {
    horizons(pending, transit, lookahead).into_iter().map(|(h, _)| h).collect()
}

/// The safe bounds of `horizons`.
fn safe(pending: &[Key], transit: Key, lookahead: f64) -> Vec<Key> {
    horizons(pending, transit, lookahead).into_iter().map(|(_, s)| s).collect()
}

#[test]
fn each_pe_commits_its_own_ties_when_the_others_are_a_lookahead_away() {
    // Two PEs in one step of ties: GVT stops at PE 0's next tie, PE 1
    // may commit all its own (PE 0 can send it nothing before time 6).
    let pending = [k(5.0, 10), k(5.0, 100)];
    assert_eq!(commit(&pending, Key::INF, 1.0), vec![k(5.0, 10), k(5.0, 100)]);
    // What is in transit binds everyone.
    assert_eq!(commit(&pending, k(5.0, 50), 1.0), vec![k(5.0, 10), k(5.0, 50)]);
    // Without lookahead the horizon is GVT.
    assert_eq!(commit(&pending, Key::INF, 0.0), vec![k(5.0, 10), k(5.0, 10)]);
    // Another PE further on in time: its reach is its time plus the lookahead.
    assert_eq!(commit(&[k(5.0, 1), k(9.0, 1)], Key::INF, 1.0), vec![k(5.0, 1), Key::at(6.0)]);
    // Three PEs: each is bound by the nearest other one.
    let h = commit(&[k(5.0, 1), k(5.5, 1), k(7.0, 1)], Key::INF, 1.0);
    assert_eq!(h, vec![k(5.0, 1), k(5.5, 1), Key::at(6.0)]);
    // Idle PEs (nothing pending) reach nothing.
    assert_eq!(commit(&[Key::INF, k(3.0, 7)], Key::INF, 1.0), vec![Key::at(4.0), k(3.0, 7)]);
    assert_eq!(commit(&[Key::INF, Key::INF], Key::INF, 1.0), vec![Key::INF, Key::INF]);
}

#[test]
fn a_pe_processes_safely_up_to_what_the_others_and_its_own_sends_can_reach() {
    // PE 0 at 5, PE 1 at 9, lookahead 1: PE 1 can send PE 0 nothing
    // before 10, but PE 0 may send PE 1 an event at 6 that sends back at
    // 7; PE 1 is bound by PE 0's reach, 6.
    assert_eq!(safe(&[k(5.0, 1), k(9.0, 1)], Key::INF, 1.0), vec![Key::at(7.0), Key::at(6.0)]);
    // What is in transit binds everyone; the safe bound is never below the horizon.
    let (pending, transit) = ([k(5.0, 1), k(9.0, 1)], k(6.5, 3));
    assert_eq!(safe(&pending, transit, 1.0), vec![transit, Key::at(6.0)]);
    for (h, s) in horizons(&pending, transit, 1.0) {
        assert!(h <= s);
    }
    // Without lookahead nothing beyond GVT is safe.
    assert_eq!(safe(&[k(5.0, 1), k(9.0, 1)], Key::INF, 0.0), vec![k(5.0, 1), k(5.0, 1)]);
    // A PE alone: nothing can reach it.
    assert_eq!(safe(&[k(5.0, 1)], Key::INF, 1.0), vec![Key::INF]);
    assert_eq!(safe(&[k(5.0, 1)], Key::INF, 0.0), vec![Key::INF]);
}

#[test]
fn a_gvt_round_is_open_from_its_request_until_its_value_is_published() {
    let gvt = Gvt::new(2, 0.0);
    assert!(!gvt.round_open());
    gvt.request();
    assert!(gvt.round_open());
    gvt.request(); // one round at a time
    gvt.publish(1, crate::key::Key::at(1.0));
    assert!(!gvt.round_open());
    gvt.request();
    assert!(gvt.round_open());
}
