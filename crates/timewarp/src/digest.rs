//! Digests of committed history and final state.
//!
//! Each LP folds its committed events (timestamp, age, tie-breaker) in commit
//! order into a 64-bit running hash; the run digest folds, in LP-id order,
//! every LP's history hash, committed count and serialised final state. The
//! result does not depend on how LPs were spread over PEs, threads or ranks.
//!
//! The definition is numbered, [`DIGEST_VERSION`]: statistics files and
//! checkpoints record it, and digests of different versions are never compared.

use serde::Serialize;

/// Version of the digest's definition, recorded in `Stats::digest_version`
/// (`--stats-json`) and in checkpoint headers.
///
/// A digest folds, per LP, every committed event's key (timestamp, age,
/// tie-breaker) in commit order (`fold_event`), the LP's committed count
/// and its final state hashed from its postcard encoding ([`hash_value`]);
/// then every LP in id order. Bump this number whenever any of that changes
/// (a hash function, what is folded, the order, the encoding): two digests
/// are comparable only when their versions are equal, so an old file's
/// digest is then reported as of another version instead of as a mismatch,
/// and a checkpoint, whose LP records carry partial digests, is refused
/// rather than resumed into a digest of neither definition. A model's own
/// change of state or behaviour changes its digests without a bump.
/// Version 0 means unknown: a file written before versions were recorded.
pub const DIGEST_VERSION: u32 = 1;

/// SplitMix64 finaliser: a strong 64-bit bijective mix.
#[inline]
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The inverse of [`mix64`].
#[inline]
fn unmix64(mut z: u64) -> u64 {
    z ^= (z >> 31) ^ (z >> 62);
    z = z.wrapping_mul(0x3196_42b2_d24d_8ec3);
    z ^= (z >> 27) ^ (z >> 54);
    z = z.wrapping_mul(0x96de_1b17_3f11_9089);
    z ^ (z >> 30) ^ (z >> 60)
}

/// Folds `x` into the running hash `h` (order-dependent).
#[inline]
pub fn fold(h: u64, x: u64) -> u64 {
    mix64(h.rotate_left(23) ^ x.wrapping_add(0x9e37_79b9_7f4a_7c15))
}

/// Folds one committed event into an LP's history hash.
#[inline]
pub(crate) fn fold_event(h: u64, key: &crate::Key) -> u64 {
    // Two mixes, not three: age is folded into the tie-breaker word with an
    // odd multiplier (distinct (tie, age) pairs collide only by 2^-64 chance).
    fold(fold(h, key.time.to_bits()), tie_word(key))
}

/// What [`fold_event`] folds of a key besides its time.
#[inline]
fn tie_word(key: &crate::Key) -> u64 {
    key.tie ^ (key.age as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Takes the newest event, `key`, back out of an LP's history hash `h`:
/// `unfold_event(fold_event(h, key), key) == h`. The optimistic kernel
/// folds an event when it processes it and unfolds it if it is undone,
/// so that committing needs no look at the event.
#[inline]
pub(crate) fn unfold_event(h: u64, key: &crate::Key) -> u64 {
    let unfold = |h: u64, x: u64| (unmix64(h) ^ x.wrapping_add(0x9e37_79b9_7f4a_7c15)).rotate_right(23);
    unfold(unfold(h, tie_word(key)), key.time.to_bits())
}

/// A `std::io::Write` sink that hashes what is written to it.
#[derive(Default)]
pub(crate) struct HashWriter {
    /// Running hash.
    h: u64,
    buf: u64,
    n: u32,
}

impl std::io::Write for HashWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        for &b in bytes {
            self.buf = (self.buf << 8) | b as u64;
            self.n += 1;
            if self.n == 8 {
                self.h = fold(self.h, self.buf);
                self.buf = 0;
                self.n = 0;
            }
        }
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl HashWriter {
    /// Final hash including any partial word.
    pub(crate) fn finish(&self) -> u64 {
        fold(fold(self.h, self.buf), self.n as u64)
    }
}

/// Hash of a serialisable value: of its postcard encoding (compact, and
/// exact: floats by their bits), or of its JSON encoding for the rare value
/// postcard cannot encode (a sequence of unknown length).
pub fn hash_value<T: Serialize>(v: &T) -> u64 {
    let mut w = HashWriter::default();
    if postcard::to_io(v, &mut w).is_err() {
        w = HashWriter::default();
        // Writing to a HashWriter cannot fail; a state JSON cannot encode
        // either (a map with non-string keys) still gets a stable, if weaker, hash.
        let _ = serde_json::to_writer(&mut w, v);
    }
    w.finish()
}

/// Per-LP summary that enters the run digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct LpDigest {
    /// Running hash of the committed history.
    pub history: u64,
    /// Number of committed events.
    pub committed: u64,
    /// Hash of the final state.
    pub state: u64,
}

/// Folds per-LP digests (in LP-id order) into the run digest, as hex.
pub(crate) fn run_digest<I: IntoIterator<Item = LpDigest>>(lps: I) -> String {
    let mut h = 0x7477_6172_7021_u64; // "twarp!"
    for (i, d) in lps.into_iter().enumerate() {
        h = fold(fold(fold(fold(h, i as u64), d.history), d.committed), d.state);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_unfolds_out_of_a_history() {
        // The inverse constants are the multipliers' inverses modulo 2^64.
        assert_eq!(0xbf58_476d_1ce4_e5b9u64.wrapping_mul(0x96de_1b17_3f11_9089), 1);
        assert_eq!(0x94d0_49bb_1331_11ebu64.wrapping_mul(0x3196_42b2_d24d_8ec3), 1);
        let mut h = 0x1234_5678_9abc_def0u64;
        let mut keys = Vec::new();
        for i in 0..1000u64 {
            let k =
                crate::Key { time: i as f64 * 0.37, age: (i % 7) as u32, tie: i.wrapping_mul(0x9e37_79b9_7f4a_7c15) };
            let before = h;
            h = fold_event(h, &k);
            assert_eq!(unmix64(mix64(i.wrapping_mul(h))), i.wrapping_mul(h));
            assert_eq!(unfold_event(h, &k), before);
            keys.push((before, k));
        }
        // Undone newest first, as a rollback does.
        for (before, k) in keys.iter().rev() {
            h = unfold_event(h, k);
            assert_eq!(h, *before);
        }
    }

    #[test]
    fn digest_depends_on_order_history_and_state() {
        let a = LpDigest { history: 1, committed: 2, state: 3 };
        let b = LpDigest { history: 4, committed: 5, state: 6 };
        let base = run_digest([a, b]);
        assert_eq!(base, run_digest([a, b]));
        assert_ne!(base, run_digest([b, a]));
        assert_ne!(base, run_digest([a, LpDigest { state: 7, ..b }]));
        assert_ne!(hash_value(&(1.0f64, 2u32)), hash_value(&(1.0f64, 3u32)));
        let k1 = crate::Key::new(1.0, 0, 1, 2);
        let k2 = crate::Key::new(1.0, 0, 1, 3);
        assert_ne!(fold_event(0, &k1), fold_event(0, &k2));
        assert_ne!(fold_event(fold_event(0, &k1), &k2), fold_event(fold_event(0, &k2), &k1));
    }
}
