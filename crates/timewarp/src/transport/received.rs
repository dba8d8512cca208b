//! What a PE remembers of the events each other PE sent it, so that an
//! anti-message, which names its event by channel number, finds it.

use std::collections::VecDeque;

/// What a PE remembers of the events one other PE sent it: their
/// incarnations by channel number, so an anti-message finds its event in
/// O(1). Entries arrive in channel order (append only) and leave from the
/// front once GVT has passed their timestamp (the event is committed or was
/// cancelled by then, and no anti-message can still come for it). Compared
/// with a hash map of every received event this touches memory sequentially.
#[derive(Default)]
pub(crate) struct Received {
    /// Channel number of the front entry.
    base: u32,
    /// (timestamp, incarnation) per channel number from `base`.
    slots: VecDeque<(f64, u32)>,
}

impl Received {
    /// Records event number `cseq` (the next on the channel).
    #[inline]
    pub(crate) fn push(&mut self, cseq: u32, time: f64, inc: u32) {
        debug_assert_eq!(cseq, self.base.wrapping_add(self.slots.len() as u32), "channel numbers arrive in order");
        self.slots.push_back((time, inc));
    }

    /// Incarnation of event number `cseq`, if it is still remembered.
    pub(crate) fn get(&self, cseq: u32) -> Option<u32> {
        self.slots.get(cseq.wrapping_sub(self.base) as usize).map(|s| s.1)
    }

    /// Forgets the front entries whose timestamp is below GVT time `t`;
    /// returns how many.
    pub(crate) fn trim(&mut self, t: f64) -> usize {
        let before = self.slots.len();
        while self.slots.front().is_some_and(|s| s.0 < t) {
            self.slots.pop_front();
            self.base = self.base.wrapping_add(1);
        }
        before - self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_found_by_channel_number_until_gvt_passes_them() {
        let mut r = Received::default();
        r.push(0, 1.0, 10);
        r.push(1, 2.0, 11);
        r.push(2, 3.0, 12);
        assert_eq!((r.get(1), r.get(3)), (Some(11), None));
        assert_eq!(r.trim(2.5), 2);
        assert_eq!((r.get(0), r.get(1), r.get(2)), (None, None, Some(12)));
        r.push(3, 4.0, 13);
        assert_eq!(r.get(3), Some(13));
    }
}
