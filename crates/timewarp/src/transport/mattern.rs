//! GVT across processes: Mattern's white-message counting on top of the
//! in-process round ([`Gvt`]), apart from the calls that move the counts
//! (the network's two collectives, [`Collectives`]), so that any network
//! that offers them gets the same rounds.
//!
//! A PE's *epoch* is the last round it entered phase A of, and every section
//! it sends carries it: records sent before their sender entered round `r`
//! are *white* for `r`. A round of one process goes:
//!
//! 1. **Idle** until every local PE is in phase A (each first handed over
//!    everything it had, under the old colour, and [`Gates::snapshot`]
//!    recorded how many records it sent to each process so far); then a
//!    sum over processes of those counts starts. (White records may still
//!    wait in the network's messages: they leave by its own rules, and the
//!    round waits for them in step 3.)
//! 2. **Counting** until the sum is known: its element for this process is
//!    how many white records were sent here.
//! 3. **Waiting** until that many white records arrived ([`Round::arrived`]
//!    counts records by epoch); then phase B opens to the PEs
//!    ([`Gates::gate_open`]).
//! 4. **Reporting** until the PEs' last reporter handed over the process
//!    minimum ([`Gates::process_min`]); then a gather of every process'
//!    minimum starts.
//! 5. **Gathering** until it is known: the smallest is GVT, published to
//!    the PEs; records of the next colour become white.

use std::sync::atomic::{AtomicU64, Ordering::*};

use crate::error::Error;
use crate::gvt::{Gvt, KeySlot};
use crate::key::Key;

use crate::layout::Layout;

/// What a network does for a round: two non-blocking collectives over all
/// processes (one of each in flight at a time). It must send every message
/// waiting for another process within a bounded time of its own (the
/// round's white records may still wait in them).
pub(crate) trait Collectives {
    /// Starts summing over all processes, element by element, the words
    /// `fill` writes (one per process).
    fn start_sum(&mut self, fill: impl FnOnce(&mut [u64]));
    /// The sums, once the sum in flight completed.
    fn sum_done(&mut self) -> Option<&[u64]>;
    /// Starts gathering every process' `words`.
    fn start_gather(&mut self, words: [u64; 3]);
    /// Every process' words, in rank order, once the gather completed.
    fn gather_done(&mut self) -> Option<&[u64]>;
}

/// The PEs' side of the rounds, shared by a process' PEs and whichever of
/// them runs the network.
pub(crate) struct Gates {
    /// Per local PE and destination process: records sent before phase A.
    snaps: Vec<Vec<AtomicU64>>,
    /// Rounds whose white records have all arrived (phase B may start).
    open: AtomicU64,
    /// Rounds whose process minimum is in `min`.
    reported: AtomicU64,
    min: KeySlot,
}

impl Gates {
    /// Closed gates for the PEs of the process `layout` sees from.
    pub(crate) fn new(layout: &Layout) -> Self {
        let zeros = |n: usize| (0..n).map(|_| AtomicU64::new(0)).collect();
        Gates {
            snaps: (0..layout.pes_per_process()).map(|_| zeros(layout.ranks())).collect(),
            open: AtomicU64::new(0),
            reported: AtomicU64::new(0),
            min: KeySlot::default(),
        }
    }

    /// Local PE `pe` enters phase A: `sent[q]` records it sent to process
    /// `q` so far, all of them white.
    pub(crate) fn snapshot(&self, pe: usize, sent: &[u64]) {
        for (slot, &n) in self.snaps[pe].iter().zip(sent) {
            slot.store(n, Relaxed);
        }
    }

    /// Whether the PEs may report for `round`.
    #[inline]
    pub(crate) fn gate_open(&self, round: u64) -> bool {
        self.open.load(Acquire) >= round
    }

    /// The PEs' last reporter hands over the process minimum of `round`.
    pub(crate) fn process_min(&self, round: u64, min: Key) {
        self.min.store(min);
        self.reported.store(round, Release);
    }

    /// `out[q]`: white records this process' PEs sent to process `q`.
    fn white_sent(&self, out: &mut [u64]) {
        for (q, o) in out.iter_mut().enumerate() {
            *o = self.snaps.iter().map(|pe| pe[q].load(Relaxed)).sum();
        }
    }
}

/// Where a round stands (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    Idle,
    Counting,
    Waiting { target: u64 },
    Reporting,
    Gathering,
}

/// The network's side of the rounds: the round in progress and the records
/// that arrived, by colour. Only whoever runs the network touches it.
pub(crate) struct Round {
    rank: usize,
    /// The round in progress (or next).
    round: u64,
    phase: Phase,
    /// Records arrived with epoch < round (white), == round, == round + 1.
    white: u64,
    later: [u64; 2],
}

impl Round {
    /// Before the first round, on process `rank`.
    pub(crate) fn new(rank: usize) -> Self {
        Round { rank, round: 1, phase: Phase::Idle, white: 0, later: [0; 2] }
    }

    /// Whether the round knows that white records are still to arrive (the
    /// network should look for them at every visit). Not while the counts
    /// are being summed: nothing arriving then ends the round any sooner.
    #[inline]
    pub(crate) fn short_of_white(&self) -> bool {
        matches!(self.phase, Phase::Waiting { target } if self.white < target)
    }

    /// Counts `n` records of a section with epoch `epoch` that arrived. An
    /// epoch past the next round is a bug: no sender can be that far ahead.
    pub(crate) fn arrived(&mut self, epoch: u64, n: u64) -> Result<(), Error> {
        match epoch {
            e if e < self.round => self.white += n,
            e if e == self.round => self.later[0] += n,
            e if e == self.round + 1 => self.later[1] += n,
            e => {
                return Err(Error::Internal(format!(
                    "a message of GVT round {e} reached process {} in round {}",
                    self.rank, self.round
                )))
            }
        }
        Ok(())
    }

    /// Moves this process' part of the round on as far as it can go now.
    pub(crate) fn advance(&mut self, gates: &Gates, gvt: &Gvt, net: &mut impl Collectives) -> Result<(), Error> {
        loop {
            match self.phase {
                Phase::Idle => {
                    if !gvt.all_entered(self.round) {
                        return Ok(());
                    }
                    // Every white record of this process is in the
                    // network's messages or left (PEs hand theirs over
                    // before phase A). Those still waiting are not sent
                    // for the round: they leave as any message does (by
                    // age, size or idleness), and the round waits for them
                    // (forcing them out made a message per destination
                    // per round: 5 events a message).
                    net.start_sum(|out| gates.white_sent(out));
                    self.phase = Phase::Counting;
                }
                Phase::Counting => {
                    let Some(sums) = net.sum_done() else { return Ok(()) };
                    self.phase = Phase::Waiting { target: sums[self.rank] };
                }
                Phase::Waiting { target } => {
                    if self.white < target {
                        return Ok(());
                    }
                    if self.white > target {
                        return Err(Error::Internal(format!(
                            "process {} received {} white records in GVT round {}, {} were sent",
                            self.rank, self.white, self.round, target
                        )));
                    }
                    gates.open.store(self.round, Release);
                    self.phase = Phase::Reporting;
                }
                Phase::Reporting => {
                    if gates.reported.load(Acquire) < self.round {
                        return Ok(());
                    }
                    let k = gates.min.load();
                    net.start_gather([k.time.to_bits(), u64::from(k.age), k.tie]);
                    self.phase = Phase::Gathering;
                }
                Phase::Gathering => {
                    let Some(all) = net.gather_done() else { return Ok(()) };
                    gvt.publish(self.round, smallest(all));
                    // The next round's white records: everything sent
                    // before their senders enter it.
                    self.white += self.later[0];
                    self.later = [self.later[1], 0];
                    self.round += 1;
                    self.phase = Phase::Idle;
                }
            }
        }
    }
}

/// The smallest of the keys gathered as words (three per process).
fn smallest(words: &[u64]) -> Key {
    words
        .chunks_exact(3)
        .map(|w| Key { time: f64::from_bits(w[0]), age: w[1] as u32, tie: w[2] })
        .min()
        .unwrap_or(Key::INF)
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;
    use crate::gvt::Participant;

    /// What the processes put into their collectives, by collective number:
    /// one completes once every process started it.
    #[derive(Default)]
    struct Board {
        sums: Vec<Vec<Vec<u64>>>,
        gathers: Vec<Vec<[u64; 3]>>,
    }

    /// Collectives between processes of one test, over a shared board.
    struct Fake {
        ranks: usize,
        board: Rc<RefCell<Board>>,
        /// Collectives started so far, and the result of the last one.
        sums: usize,
        gathers: usize,
        out: Vec<u64>,
    }

    impl Fake {
        fn new(ranks: usize, board: &Rc<RefCell<Board>>) -> Self {
            Fake { ranks, board: Rc::clone(board), sums: 0, gathers: 0, out: Vec::new() }
        }
    }

    impl Collectives for Fake {
        fn start_sum(&mut self, fill: impl FnOnce(&mut [u64])) {
            let mut words = vec![0; self.ranks];
            fill(&mut words);
            let mut b = self.board.borrow_mut();
            b.sums.resize(self.sums + 1, Vec::new());
            b.sums[self.sums].push(words);
            self.sums += 1;
        }
        fn sum_done(&mut self) -> Option<&[u64]> {
            let b = self.board.borrow();
            let all = &b.sums[self.sums - 1];
            if all.len() < self.ranks {
                return None;
            }
            self.out = (0..self.ranks).map(|q| all.iter().map(|w| w[q]).sum()).collect();
            Some(&self.out)
        }
        fn start_gather(&mut self, words: [u64; 3]) {
            let mut b = self.board.borrow_mut();
            b.gathers.resize(self.gathers + 1, Vec::new());
            b.gathers[self.gathers].push(words);
            self.gathers += 1;
        }
        fn gather_done(&mut self) -> Option<&[u64]> {
            let b = self.board.borrow();
            let all = &b.gathers[self.gathers - 1];
            if all.len() < self.ranks {
                return None;
            }
            self.out = all.iter().flatten().copied().collect();
            Some(&self.out)
        }
    }

    /// One process of one PE.
    struct Process {
        gvt: Gvt,
        gates: Gates,
        round: Round,
        net: Fake,
    }

    impl Process {
        fn new(rank: usize, board: &Rc<RefCell<Board>>) -> Self {
            let layout = Layout::new(rank, 2, 1);
            Process {
                gvt: Gvt::new(1, 0.0),
                gates: Gates::new(&layout),
                round: Round::new(rank),
                net: Fake::new(2, board),
            }
        }
        /// The PE starts round `r` and enters phase A having sent `sent`.
        fn enter(&mut self, sent: &[u64]) {
            self.gvt.request();
            self.gvt.enter(&mut Participant::default());
            self.gates.snapshot(0, sent);
        }
        fn advance(&mut self) -> Result<(), Error> {
            self.round.advance(&self.gates, &self.gvt, &mut self.net)
        }
    }

    #[test]
    fn a_round_waits_for_every_white_record_and_takes_the_smallest_minimum() {
        let board = Rc::new(RefCell::new(Board::default()));
        let mut p = [Process::new(0, &board), Process::new(1, &board)];
        // Round 1: process 0 sent 3 records to process 1 before phase A.
        p[0].advance().unwrap();
        assert!(p[0].round.phase == Phase::Idle && p[0].net.sums == 0, "its PE is not in phase A");
        p[0].enter(&[0, 3]);
        p[1].enter(&[0, 0]);
        p[0].advance().unwrap();
        assert!(p[0].round.phase == Phase::Counting, "counting");
        assert!(!p[0].round.short_of_white(), "the count is not known yet");
        p[1].advance().unwrap();
        p[0].advance().unwrap();
        assert!(p[0].gates.gate_open(1), "nothing was sent to process 0");
        assert!(!p[1].gates.gate_open(1) && p[1].round.short_of_white());
        // Two white records, then five sent after their sender entered round 1.
        p[1].round.arrived(0, 2).unwrap();
        p[1].round.arrived(1, 5).unwrap();
        p[1].advance().unwrap();
        assert!(!p[1].gates.gate_open(1), "red records do not count");
        assert!(p[1].round.short_of_white(), "one white record is missing");
        p[1].round.arrived(0, 1).unwrap();
        p[1].advance().unwrap();
        assert!(p[1].gates.gate_open(1));
        // The PEs report; GVT is the smaller process minimum.
        p[0].gates.process_min(1, Key::at(5.0));
        p[0].advance().unwrap();
        assert_eq!(p[0].gvt.rounds(), 0, "the gather waits for process 1");
        p[1].gates.process_min(1, Key::at(2.0));
        p[1].advance().unwrap();
        p[0].advance().unwrap();
        assert!(p.iter().all(|q| q.gvt.rounds() == 1 && q.round.round == 2 && q.round.phase == Phase::Idle));
        assert_eq!(smallest(&board.borrow().gathers[0].concat()), Key::at(2.0));
        // Round 2: the five records of colour 1 are white now, and all arrived.
        p[0].enter(&[0, 8]);
        p[1].enter(&[0, 0]);
        p[0].advance().unwrap();
        p[1].advance().unwrap();
        assert!(p[1].gates.gate_open(2));
    }

    #[test]
    fn impossible_counts_are_errors() {
        let board = Rc::new(RefCell::new(Board::default()));
        let mut p = [Process::new(0, &board), Process::new(1, &board)];
        assert!(p[1].round.arrived(3, 1).is_err(), "round 3 cannot start before round 1 ends");
        p[1].round.arrived(0, 4).unwrap();
        p[0].enter(&[0, 3]);
        p[1].enter(&[0, 0]);
        p[0].advance().unwrap();
        let e = p[1].advance().unwrap_err().to_string();
        assert!(e.contains("received 4 white records in GVT round 1, 3 were sent"), "{e}");
    }
}
