//! Unit tests of the network's journal (journal/): writes undone from
//! the entries they saved, and from an event's own record, give the node
//! back exactly.

use super::*;
use crate::network::packet::Header;

#[test]
fn a_waiting_list_undone_from_its_journal_is_the_list_it_was() {
    // Six input queues join and leave two outputs' waiting lists in a
    // fixed pseudo-random order (heads, middles and tails leave, and a
    // queue that left keeps a stale link); every change, undone from
    // the entries it saved, gives back the node exactly, links included.
    let mut n = Node::bare(Queues::new(6, 4), 2);
    n.log.on = true;
    let mut on: Vec<Option<usize>> = vec![None; 6];
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut left_stale = 0;
    for step in 0..2_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let q = (x % 6) as usize;
        let before = n.clone();
        let mark = n.log.entries.len();
        match on[q] {
            None => {
                let o = ((x >> 8) % 2) as usize;
                n.wait_for(q, o);
                on[q] = Some(o);
            }
            Some(o) => {
                let stale = n.input.lanes[q].wait != NIL;
                n.done_waiting(q, o);
                on[q] = None;
                left_stale += stale as usize;
            }
        }
        for o in 0..2 {
            let mut listed: Vec<usize> = n.waiting(o).collect();
            listed.sort_unstable();
            let expected: Vec<usize> = (0..6).filter(|&q| on[q] == Some(o)).collect();
            assert_eq!(listed, expected, "step {step}: output {o}'s list");
            assert_eq!(n.links[o].heads as usize, expected.len(), "step {step}: output {o}'s heads");
        }
        let mut undone = n.clone();
        for e in n.log.entries.as_slice()[mark..].iter().rev() {
            undone.restore(&e.0);
        }
        assert!(undone == before, "step {step}: not undone");
    }
    assert!(left_stale > 100, "queues left the middle of a list only {left_stale} times");
}

#[test]
fn an_arrival_is_undone_from_its_journal_then_its_record() {
    // Arrivals into empty and non-empty queues, into a reused slot
    // (whose old packet the journal keeps) and into a new one (the pool
    // grows); each, undone from its journal entries and then its
    // record, as the engine does, gives the node back exactly.
    let mut n = Node::bare(Queues::new(3, 4), 1);
    let pkt = |i: u32| Packet::arrived(&Header { created: i as f64, src: i, dst: 2 * i, ..Header::default() });
    let mut grew = 0;
    for step in 0..40u32 {
        let q = (step % 3) as usize;
        if step % 4 == 3 && n.input.len(q) > 0 {
            // Frees a slot (not undone: the node's history before the event).
            n.log.on = false;
            n.pop(false, q);
        }
        if n.input.len(q) == 4 {
            continue;
        }
        n.log.on = true;
        let before = n.clone();
        let mark = n.log.entries.len();
        let slots = n.input.slots.len();
        n.counts.events += 1;
        let mut undo = Undo(Saved::Event);
        assert!(n.arrive(q, pkt(step), &mut undo).is_some());
        grew += (n.input.slots.len() > slots) as usize;
        assert!(matches!(undo.0, Saved::Arrived { .. }), "step {step}: {undo:?}");
        let mut undone = n.clone();
        for e in n.log.entries.as_slice()[mark..].iter().rev() {
            undone.restore(&e.0);
        }
        undone.restore(&undo.0);
        assert!(undone == before, "step {step}: not undone");
    }
    assert!(grew > 0 && grew < 30, "the pool grew {grew} times");
}

#[test]
fn a_credit_or_a_wake_up_is_undone_from_its_record_alone() {
    // What `Network::forward` does for these events: the count, then
    // the event's one write, recorded in the event's own undo record;
    // nothing goes in the journal, and the record gives the node back.
    let mut n = Node::bare(Queues::new(4, 4), 3);
    n.log.on = true;
    n.input.lanes[2].credits = 3;
    n.links[1].wake = 7.5;
    for event in 0..2 {
        let before = n.clone();
        n.counts.events += 1;
        let mut undo = Undo(Saved::Event);
        if event == 0 {
            n.credit_event(2, &mut undo);
            assert_eq!(n.input.lanes[2].credits, 4);
        } else {
            n.wake_event(1, 7.5, &mut undo);
            assert_eq!(n.links[1].wake, -1.0);
        }
        assert_eq!(n.log.entries.len(), 0, "event {event}: a journal entry");
        let mut undone = n.clone();
        undone.restore(&undo.0);
        assert!(undone == before, "event {event}: not undone");
    }
}
