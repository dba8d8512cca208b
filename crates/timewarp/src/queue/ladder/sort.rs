//! Sorting a bucket as it becomes Bottom: descending key order, the
//! smallest key last (Bottom is popped from the back).
//!
//! Most buckets are small and in no useful order: a comparison sort. Large
//! ones often come in a pattern worth using: one sorted run (a sequential
//! TLM step), a few (TLM on several PEs), or one time step of a synchronous
//! model whose events share their time and age and differ only in their
//! sender and its counter (TLM's other half-step: thousands of events a few
//! dozen places from where they belong, which the comparison sort took
//! about 150 instructions an event to order). The last are ordered by a
//! counting sort on the sender, which keeps each sender's events in the
//! order they came, and checked.

use crate::queue::Entry;

/// Buffers reused from one sort to the next (no allocation per bucket).
#[derive(Debug)]
pub(super) struct Scratch<P> {
    /// Per sender (offset from the lowest): how many, then where they go.
    counts: Vec<u32>,
    /// The bucket in its new order, swapped with it.
    spare: Vec<Entry<P>>,
}

impl<P> Default for Scratch<P> {
    fn default() -> Self {
        Scratch { counts: Vec::new(), spare: Vec::new() }
    }
}

/// Senders per event above which the counting sort's table would cost
/// more than the comparison sort it replaces.
const SPREAD: usize = 16;

/// Orders `v` by descending key.
#[inline]
pub(super) fn sort_desc<P: Copy>(bucket: &mut Vec<Entry<P>>, s: &mut Scratch<P>) {
    // A slice for the small buckets: its length and start stay in registers.
    let v = bucket.as_mut_slice();
    if v.len() <= 16 {
        // Insertion sort: buckets are small.
        for i in 1..v.len() {
            let x = v[i];
            let k = x.ord();
            let mut j = i;
            while j > 0 && v[j - 1].ord() < k {
                v[j] = v[j - 1];
                j -= 1;
            }
            v[j] = x;
        }
    } else if v.len() < 256 {
        // Small buckets (PHOLD's, a network's) are in no order worth a scan.
        v.sort_unstable_by_key(|e| std::cmp::Reverse(e.ord()));
    } else {
        // One run (a sequential TLM step) is only reversed; a few (TLM on
        // 2 to 16 PEs) go to a merge sort, O(n log runs), where the
        // pattern-defeating quicksort took 3.5 times as long as on random
        // input. Keys are unique; direction changes count runs (up to twice
        // over), the scan stopping at the cap (runs shorter than about 32
        // on average: short ones cost a full scan).
        let (n, cap) = (v.len(), v.len() / 64);
        let mut up = v[0].ord() < v[1].ord();
        let first_up = up;
        let mut changes = 0;
        for i in 2..n {
            let u = v[i - 1].ord() < v[i].ord();
            if u != up {
                changes += 1;
                up = u;
                if changes > cap {
                    break;
                }
            }
        }
        if changes == 0 {
            if first_up {
                v.reverse();
            }
        } else if changes <= cap {
            v.sort_by_key(|e| std::cmp::Reverse(e.ord()));
        } else if !by_sender(bucket, s) {
            bucket.sort_unstable_by_key(|e| std::cmp::Reverse(e.ord()));
        }
    }
}

/// Orders `v` (at least two events) by descending sender, each sender's
/// events taken in the reverse of the order they came, if every event has
/// the same time and age and the senders are not spread too thin; then
/// checks the whole order. False (`v` a permutation of what it was) when
/// it does not apply or the check fails: a sender's events came out of
/// their counter's order. Out of line: `sort_desc` stays small where it
/// is inlined, for the many tiny buckets of other models.
#[inline(never)]
fn by_sender<P: Copy>(v: &mut Vec<Entry<P>>, s: &mut Scratch<P>) -> bool {
    let (time, age) = (v[0].time.to_bits(), v[0].age);
    // Most buckets that are not one time step show it at once.
    let same = |e: &Entry<P>| e.time.to_bits() == time && e.age == age;
    if !same(&v[v.len() / 2]) || !same(&v[v.len() - 1]) {
        return false;
    }
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    for e in v.iter() {
        if !same(e) {
            return false;
        }
        let src = (e.tie >> 32) as u32;
        lo = lo.min(src);
        hi = hi.max(src);
    }
    let span = (hi - lo) as usize + 1;
    if span > SPREAD * v.len() {
        return false;
    }
    // Slot of sender `src`: `hi - src` (the highest sender first).
    s.counts.clear();
    s.counts.resize(span + 1, 0);
    for e in v.iter() {
        s.counts[(hi - (e.tie >> 32) as u32) as usize + 1] += 1;
    }
    for k in 1..=span {
        s.counts[k] += s.counts[k - 1];
    }
    s.spare.clear();
    s.spare.extend_from_slice(v);
    // Taken from the back: a sender pushes its events in counter order,
    // which must come out descending.
    for e in v.iter().rev() {
        let k = (hi - (e.tie >> 32) as u32) as usize;
        s.spare[s.counts[k] as usize] = *e;
        s.counts[k] += 1;
    }
    std::mem::swap(v, &mut s.spare);
    v.windows(2).all(|w| w[0].ord() > w[1].ord())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Key;

    fn e(t: f64, age: u32, tie: u64) -> Entry {
        Entry::new(Key { time: t, age, tie }, 0)
    }

    fn check(mut v: Vec<Entry>, what: &str) {
        let mut want: Vec<_> = v.iter().map(|x| x.ord()).collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        sort_desc(&mut v, &mut Scratch::default());
        assert_eq!(v.iter().map(|x| x.ord()).collect::<Vec<_>>(), want, "{what}");
    }

    /// A simple congruential generator: the same numbers every run.
    fn lcg(x: &mut u64) -> u64 {
        *x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *x >> 8
    }

    #[test]
    fn orders_one_run_a_few_runs_and_random_buckets() {
        let n = 1000u64;
        let asc: Vec<Entry> = (0..n).map(|i| e(5.0, 0, i)).collect();
        check(asc.clone(), "one ascending run (reversed)");
        check(asc.iter().rev().copied().collect(), "one descending run (kept)");
        for runs in [2u64, 3, 16, 64] {
            // `runs` ascending runs of interleaved ties, as senders push them.
            let v: Vec<Entry> = (0..runs).flat_map(|r| (0..n / runs).map(move |i| e(5.0, 0, i * runs + r))).collect();
            check(v, &format!("{runs} runs"));
        }
        let mut x = 12345u64;
        let random: Vec<Entry> = (0..n).map(|_| lcg(&mut x)).map(|r| e(5.0, (r >> 54) as u32, r)).collect();
        check(random, "random");
        check(vec![e(1.0, 0, 2), e(1.0, 0, 1)], "two");
    }

    /// A time step of a synchronous model: one time and age, each sender's
    /// events pushed in counter order, senders in a shuffled order.
    fn step(senders: u64, per: u64, spread: u64, seed: u64) -> Vec<Entry> {
        let mut x = seed;
        let mut order: Vec<u64> = (0..senders).map(|i| 1000 + i * spread).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, (lcg(&mut x) % (i as u64 + 1)) as usize);
        }
        // Each sender's counter continues from where it was: unrelated across senders.
        order
            .iter()
            .flat_map(|&src| (0..per).map(move |q| e(7.5, 3, src << 32 | (src * 7919 + q) & 0xFFFF_FFFF)))
            .collect()
    }

    #[test]
    fn a_time_step_is_ordered_by_sender_in_one_counting_pass() {
        for (senders, per, spread) in [(400, 4, 1), (300, 1, 5), (1000, 2, 3)] {
            let mut v = step(senders, per, spread, senders);
            let mut want: Vec<_> = v.iter().map(|x| x.ord()).collect();
            want.sort_unstable_by(|a, b| b.cmp(a));
            assert!(by_sender(&mut v, &mut Scratch::default()), "{senders} senders of {per}");
            assert_eq!(v.iter().map(|x| x.ord()).collect::<Vec<_>>(), want);
            check(step(senders, per, spread, senders + 1), "a time step");
        }
    }

    #[test]
    fn what_the_counting_pass_cannot_order_goes_to_the_comparison_sort() {
        let s = &mut Scratch::default();
        // A sender's events out of counter order: the check fails, and the
        // bucket is still a permutation that sort_desc then orders.
        let mut v = step(300, 3, 1, 9);
        v.swap(0, 1);
        let before: std::collections::BTreeSet<_> = v.iter().map(|x| x.ord()).collect();
        assert!(!by_sender(&mut v, s));
        assert_eq!(v.iter().map(|x| x.ord()).collect::<std::collections::BTreeSet<_>>(), before);
        let mut w = step(300, 3, 1, 9);
        w.swap(0, 1);
        check(w, "a sender out of order");
        // Two times, two ages, or senders spread thinner than SPREAD: not applied.
        let mut two = step(300, 2, 1, 3);
        two[5].time = 8.0;
        assert!(!by_sender(&mut two, s));
        let mut ages = step(300, 2, 1, 3);
        ages[7].age = 4;
        assert!(!by_sender(&mut ages, s));
        assert!(!by_sender(&mut step(300, 1, SPREAD as u64 + 2, 3), s));
        for (i, v) in [two, ages].into_iter().enumerate() {
            check(v, &format!("mixed {i}"));
        }
    }
}
