//! The total order of events: `(timestamp, age, tie)`.
//!
//! Determinism across every mode rests on this order being derived from the
//! model's own history only: `tie` packs the sending LP's id and that LP's
//! send counter (both restored on rollback), never a thread, PE or rank.
//! `age` puts an event sent with zero delay after the event that sent it
//! (same timestamp, age + 1), so causality always agrees with the order and a
//! zero-delay self-message can never become a straggler of its own parent.

/// Identifier of a logical process, `0..num_lps`.
pub type LpId = u32;

/// Virtual time. Always finite and `>= 0` inside the engine.
pub type Time = f64;

/// Position of an event in the total event order.
///
/// ```
/// use timewarp::Key;
/// let a = Key::new(1.0, 0, 3, 7);
/// let b = Key::new(1.0, 1, 0, 0);
/// assert!(a < b); // same time: the older generation comes first
/// ```
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Key {
    /// Timestamp (finite, non-negative).
    pub time: Time,
    /// Zero-delay generation: 0 unless the parent event had the same timestamp.
    pub age: u32,
    /// `(sender LP << 32) | sender's send counter`.
    pub tie: u64,
}

impl Key {
    /// Builds a key from its parts.
    #[inline]
    pub fn new(time: Time, age: u32, src: LpId, seq: u32) -> Self {
        Key { time, age, tie: ((src as u64) << 32) | seq as u64 }
    }

    /// A key after every real event (GVT when nothing is left anywhere).
    pub const INF: Key = Key { time: f64::INFINITY, age: u32::MAX, tie: u64::MAX };

    /// The smallest key at time `t`.
    #[inline]
    pub fn at(time: Time) -> Self {
        Key { time, age: 0, tie: 0 }
    }

    /// The LP that sent the event.
    #[inline]
    pub fn src(&self) -> LpId {
        (self.tie >> 32) as LpId
    }

    /// The sender's send counter when it sent the event.
    #[inline]
    pub fn seq(&self) -> u32 {
        self.tie as u32
    }

    /// Time as order-preserving bits (valid because time is finite and >= 0).
    #[inline]
    pub fn time_bits(&self) -> u64 {
        self.time.to_bits()
    }
}

impl PartialEq for Key {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.time_bits() == other.time_bits() && self.age == other.age && self.tie == other.tie
    }
}

impl Eq for Key {}

impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.time_bits(), self.age, self.tie).hash(h)
    }
}

impl Ord for Key {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.time_bits(), self.age, self.tie).cmp(&(other.time_bits(), other.age, other.tie))
    }
}

impl PartialOrd for Key {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
    // The comparisons the kernels make per event, as short-circuit chains
    // (through `cmp` they were a three-way compare per field).
    #[inline]
    fn lt(&self, o: &Self) -> bool {
        let (a, b) = (self.time_bits(), o.time_bits());
        a < b || (a == b && (self.age, self.tie) < (o.age, o.tie))
    }
    #[inline]
    fn le(&self, o: &Self) -> bool {
        !o.lt(self)
    }
    #[inline]
    fn gt(&self, o: &Self) -> bool {
        o.lt(self)
    }
    #[inline]
    fn ge(&self, o: &Self) -> bool {
        !self.lt(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_time_then_age_then_sender_then_counter() {
        let k = |t, a, s, q| Key::new(t, a, s, q);
        assert!(k(0.5, 9, 9, 9) < k(1.0, 0, 0, 0));
        assert!(k(1.0, 0, 9, 9) < k(1.0, 1, 0, 0));
        assert!(k(1.0, 0, 1, 9) < k(1.0, 0, 2, 0));
        assert!(k(1.0, 0, 1, 1) < k(1.0, 0, 1, 2));
        assert_eq!(k(2.0, 3, 4, 5).src(), 4);
        assert_eq!(k(2.0, 3, 4, 5).seq(), 5);
        // Bits order agrees with float order for non-negative finite times.
        assert!(k(0.0, 0, 0, 0) < k(f64::MIN_POSITIVE, 0, 0, 0));
        assert!(k(1e300, 0, 0, 0) < k(f64::MAX, 0, 0, 0));
    }

    #[test]
    fn the_short_comparisons_agree_with_cmp() {
        let keys: Vec<Key> = [0.0, 0.5, 1.0, f64::INFINITY]
            .iter()
            .flat_map(|&t| {
                (0..2).flat_map(move |a| (0..2).flat_map(move |s| (0..2).map(move |q| Key::new(t, a, s, q))))
            })
            .collect();
        for x in &keys {
            for y in &keys {
                let o = x.cmp(y);
                assert_eq!(x < y, o.is_lt(), "{x:?} < {y:?}");
                assert_eq!(x <= y, o.is_le(), "{x:?} <= {y:?}");
                assert_eq!(x > y, o.is_gt(), "{x:?} > {y:?}");
                assert_eq!(x >= y, o.is_ge(), "{x:?} >= {y:?}");
            }
        }
    }
}
