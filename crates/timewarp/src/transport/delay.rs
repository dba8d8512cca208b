//! A cluster's link on one machine, for measurement (`--emulate-latency`,
//! `--emulate-bandwidth`): each message a process sends to another is held
//! back by its sender until the moment it would have arrived over a link
//! of that latency, the process' outbound bytes leaving one after another
//! at that bandwidth (the α–β model: a message of `n` bytes takes
//! `α + n / β` once the link is free).
//!
//! The hold is at the sender, so no clock is shared between processes; a
//! held message leaves at the sender's first courier visit past its
//! moment (visits come once per batch, a few microseconds apart while
//! PEs work). Only event messages are held: the collectives of GVT rounds
//! travel at the machine's own speed (see docs/scaling.md).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::config::LinkEmulation;

/// Messages held back by the emulated link, in the order they leave.
pub(crate) struct Delay<T> {
    latency: Duration,
    /// Nanoseconds per byte (0: no bandwidth cap).
    ns_per_byte: f64,
    /// When the emulated link has finished sending what it was given.
    free: Option<Instant>,
    held: VecDeque<(Instant, T)>,
}

impl<T> Delay<T> {
    /// The link `e` describes; `None` when it emulates nothing.
    pub(crate) fn new(e: &LinkEmulation) -> Option<Self> {
        e.is_on().then(|| Delay {
            latency: Duration::from_nanos((e.latency_us * 1e3).round() as u64),
            ns_per_byte: e.bandwidth_gbs.map_or(0.0, |b| 1.0 / b),
            free: None,
            held: VecDeque::new(),
        })
    }

    /// Holds `item`, a message of `bytes` bytes sent at `now`; returns when
    /// it arrives. The link sends one message at a time, so arrival times
    /// never decrease and the queue stays in order.
    pub(crate) fn hold(&mut self, now: Instant, bytes: usize, item: T) -> Instant {
        let start = self.free.map_or(now, |f| f.max(now));
        let sent = start + Duration::from_nanos((bytes as f64 * self.ns_per_byte).round() as u64);
        self.free = Some(sent);
        let at = sent + self.latency;
        self.held.push_back((at, item));
        at
    }

    /// The next message whose moment has come by `now`.
    pub(crate) fn due(&mut self, now: Instant) -> Option<T> {
        if self.held.front().is_some_and(|(at, _)| *at <= now) {
            self.held.pop_front().map(|(_, m)| m)
        } else {
            None
        }
    }

    /// Every message still held, whatever its moment (the run's end).
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        self.held.drain(..).map(|(_, m)| m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(latency_us: f64, bandwidth_gbs: Option<f64>) -> Delay<u32> {
        Delay::new(&LinkEmulation { latency_us, bandwidth_gbs }).unwrap()
    }

    #[test]
    fn nothing_emulated_is_no_delay_at_all() {
        assert!(Delay::<u32>::new(&LinkEmulation::default()).is_none());
    }

    #[test]
    fn a_message_arrives_one_latency_later() {
        let mut d = link(10.0, None);
        let t0 = Instant::now();
        assert_eq!(d.hold(t0, 1 << 20, 1), t0 + Duration::from_micros(10));
        assert_eq!(d.due(t0 + Duration::from_micros(9)), None, "not before its latency");
        assert_eq!(d.due(t0 + Duration::from_micros(10)), Some(1));
        assert_eq!(d.drain().count(), 0);
    }

    #[test]
    fn bytes_leave_one_after_another_at_the_bandwidth() {
        // 1 GB/s: 1,000 bytes take 1 µs on the wire, then 2 µs of latency.
        let mut d = link(2.0, Some(1.0));
        let t0 = Instant::now();
        let us = |n: u64| t0 + Duration::from_nanos(n * 1000);
        assert_eq!(d.hold(t0, 1000, 1), us(3));
        // Sent while the first is still on the wire: it waits for it.
        assert_eq!(d.hold(t0, 1000, 2), us(4));
        // Sent after the link went idle: only its own time.
        assert_eq!(d.hold(us(10), 1000, 3), us(13));
        assert_eq!(d.due(us(4)), Some(1));
        assert_eq!(d.due(us(4)), Some(2));
        assert_eq!(d.due(us(4)), None);
        assert_eq!(d.drain().collect::<Vec<_>>(), [3], "the end takes what is left");
    }
}
