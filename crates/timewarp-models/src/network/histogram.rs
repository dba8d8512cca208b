//! A log-linear latency histogram: 16 buckets per power of two, so a
//! percentile read from it is within ±2.2 % of the true value (exact
//! minimum, maximum and mean are kept beside it by the caller).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Buckets per power of two.
const SUB: usize = 16;
/// Powers of two covered above 1 (latencies up to 2^30 ns ≈ 1 s).
const OCTAVES: usize = 30;

/// Last bucket (values of 2^OCTAVES and more).
const LAST: usize = OCTAVES * SUB + 1;

/// Counts of values by log-linear bucket. Only the span of buckets from the
/// lowest to the highest value seen is stored (`counts[i]` is bucket
/// `first + i`): a network node's latencies fill a few dozen of the 482
/// buckets, and a node's state stays a few cache lines, not 2 KB — which
/// decides whether a large network's working set fits in the cache.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    first: u32,
    counts: Vec<u32>,
}

impl Histogram {
    fn bucket(x: f64) -> usize {
        if x.is_nan() || x < 1.0 {
            return 0;
        }
        let e = x.log2().floor() as usize;
        if e >= OCTAVES {
            return LAST;
        }
        let sub = ((x / (1u64 << e) as f64 - 1.0) * SUB as f64) as usize;
        1 + e * SUB + sub.min(SUB - 1)
    }

    /// Lower and upper edge of bucket `i`.
    fn edges(i: usize) -> (f64, f64) {
        if i == 0 {
            return (0.0, 1.0);
        }
        if i > OCTAVES * SUB {
            return ((1u64 << OCTAVES) as f64, f64::INFINITY);
        }
        let (e, sub) = ((i - 1) / SUB, (i - 1) % SUB);
        let base = (1u64 << e) as f64;
        (base * (1.0 + sub as f64 / SUB as f64), base * (1.0 + (sub + 1) as f64 / SUB as f64))
    }

    /// Counts `x`.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.add_n(Self::bucket(x), 1);
    }

    /// The stored span (first bucket, buckets): what [`unadd`](Self::unadd) restores.
    #[inline]
    pub(crate) fn span(&self) -> (u32, u32) {
        (self.first, self.counts.len() as u32)
    }

    /// Undoes [`add`](Self::add)`(x)` made when the span was `(first, len)`
    /// (an optimistic rollback): the state is exactly as before the add.
    pub(crate) fn unadd(&mut self, x: f64, first: u32, len: u32) {
        let b = Self::bucket(x) - self.first as usize;
        self.counts[b] -= 1;
        if len == 0 {
            self.counts.clear();
        } else {
            // Buckets the add put in front, then behind, of the old span.
            self.counts.drain(..(first - self.first) as usize);
            self.counts.truncate(len as usize);
        }
        self.first = first;
    }

    /// Adds `n` to bucket `b`, widening the stored span to hold it.
    fn add_n(&mut self, b: usize, n: u32) {
        let first = self.first as usize;
        if self.counts.is_empty() {
            self.first = b as u32;
            self.counts.push(n);
        } else if b < first {
            self.counts.splice(0..0, std::iter::repeat(0).take(first - b));
            self.first = b as u32;
            self.counts[0] += n;
        } else {
            if b >= first + self.counts.len() {
                self.counts.resize(b - first + 1, 0);
            }
            self.counts[b - first] += n;
        }
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        for (i, &c) in other.counts.iter().enumerate().filter(|(_, &c)| c > 0) {
            self.add_n(other.first as usize + i, c);
        }
    }

    /// Values counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().map(|&c| c as u64).sum()
    }

    /// The `q`-quantile (0..=1): the middle of the bucket holding it,
    /// clamped to `[lo, hi]` (the exact minimum and maximum); 0 when empty.
    pub fn quantile(&self, q: f64, lo: f64, hi: f64) -> f64 {
        let n = self.total();
        if n == 0 {
            return 0.0;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                let (a, b) = Self::edges(self.first as usize + i);
                let mid = if b.is_finite() { 0.5 * (a + b) } else { a };
                return mid.clamp(lo, hi);
            }
        }
        hi
    }
}

/// The distributions of the two parts of packet latency — index 0 source
/// queueing, 1 network latency — with their exact extremes (the clamps of
/// their quantiles).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Split {
    pub(crate) parts: [Histogram; 2],
    pub(crate) min: [f64; 2],
    pub(crate) max: [f64; 2],
}

impl Default for Split {
    fn default() -> Self {
        Split { parts: Default::default(), min: [f64::INFINITY; 2], max: [f64::NEG_INFINITY; 2] }
    }
}

impl Split {
    /// Counts `x` in part `i`.
    #[inline]
    pub(crate) fn add(&mut self, i: usize, x: f64) {
        self.parts[i].add(x);
        self.min[i] = self.min[i].min(x);
        self.max[i] = self.max[i].max(x);
    }

    /// Adds every count of `other`.
    pub(crate) fn merge(&mut self, other: &Split) {
        for i in 0..2 {
            self.parts[i].merge(&other.parts[i]);
            self.min[i] = self.min[i].min(other.min[i]);
            self.max[i] = self.max[i].max(other.max[i]);
        }
    }

    /// The `q`-quantile of part `i`, clamped to its exact extremes.
    pub(crate) fn quantile(&self, i: usize, q: f64) -> f64 {
        if self.parts[i].total() == 0 {
            return 0.0;
        }
        self.parts[i].quantile(q, self.min[i], self.max[i])
    }
}

/// The flag in an encoded [`Latencies`]' first word that says the split
/// histograms follow (a bucket index is far below it).
const SPLIT_FLAG: u32 = 1 << 31;

/// A node's packet latency histogram and, when asked for
/// (`Network::split_quantiles`), the [`Split`] ones. Encoded exactly as the
/// latency histogram alone when there are none, so that a run without them
/// keeps its state digest; with them the first word carries
/// [`SPLIT_FLAG`] and the count list the split histograms after its own.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Latencies {
    pub(crate) all: Histogram,
    pub(crate) split: Option<Box<Split>>,
}

impl Latencies {
    /// An empty one, with split histograms if `split`.
    pub(crate) fn new(split: bool) -> Self {
        Latencies { all: Histogram::default(), split: split.then(Box::default) }
    }
}

impl Serialize for Latencies {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Some(sp) = &self.split else { return (self.all.first, &self.all.counts).serialize(s) };
        let mut words = vec![self.all.counts.len() as u32];
        words.extend(&self.all.counts);
        for h in &sp.parts {
            words.extend([h.first, h.counts.len() as u32]);
            words.extend(&h.counts);
        }
        for x in sp.min.iter().chain(&sp.max) {
            let b = x.to_bits();
            words.extend([b as u32, (b >> 32) as u32]);
        }
        (self.all.first | SPLIT_FLAG, words).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Latencies {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (first, words): (u32, Vec<u32>) = Deserialize::deserialize(d)?;
        if first & SPLIT_FLAG == 0 {
            return Ok(Latencies { all: Histogram { first, counts: words }, split: None });
        }
        let bad = || serde::de::Error::custom("a truncated split latency histogram");
        let mut w = words.into_iter();
        let mut take = |n: usize| -> Result<Vec<u32>, D::Error> {
            let v: Vec<u32> = w.by_ref().take(n).collect();
            if v.len() == n {
                Ok(v)
            } else {
                Err(bad())
            }
        };
        let n = take(1)?[0] as usize;
        let all = Histogram { first: first & !SPLIT_FLAG, counts: take(n)? };
        let mut sp = Split::default();
        for h in &mut sp.parts {
            let head = take(2)?;
            *h = Histogram { first: head[0], counts: take(head[1] as usize)? };
        }
        for x in sp.min.iter_mut().chain(sp.max.iter_mut()) {
            let b = take(2)?;
            *x = f64::from_bits(b[0] as u64 | (b[1] as u64) << 32);
        }
        Ok(Latencies { all, split: Some(Box::new(sp)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_within_the_bucket_resolution() {
        let mut h = Histogram::default();
        let xs: Vec<f64> = (1..=10_000).map(|i| i as f64 * 0.37).collect();
        for &x in &xs {
            h.add(x);
        }
        for q in [0.01, 0.5, 0.9, 0.99] {
            let exact = xs[((q * xs.len() as f64).ceil() as usize).max(1) - 1];
            let got = h.quantile(q, xs[0], xs[xs.len() - 1]);
            assert!((got / exact - 1.0).abs() <= 0.5 / SUB as f64 + 1e-9 || exact < 1.0, "q {q}: {got} vs {exact}");
        }
        let mut two = h.clone();
        two.merge(&h);
        assert_eq!(two.total(), 20_000);
    }

    #[test]
    fn the_stored_span_grows_either_way_and_merges_like_full_counts() {
        // Against a reference: full counts per bucket.
        let xs = [300.0, 299.0, 5000.0, 12.0, 0.5, 2e9, 300.0, 77.0];
        let mut full = vec![0u64; LAST + 1];
        let (mut a, mut b) = (Histogram::default(), Histogram::default());
        for (k, &x) in xs.iter().enumerate() {
            full[Histogram::bucket(x)] += 1;
            if k % 2 == 0 {
                a.add(x)
            } else {
                b.add(x)
            }
        }
        a.merge(&b);
        assert_eq!(a.total(), xs.len() as u64);
        for (i, &c) in full.iter().enumerate() {
            let stored = i.checked_sub(a.first as usize).and_then(|j| a.counts.get(j)).copied().unwrap_or(0);
            assert_eq!(stored as u64, c, "bucket {i}");
        }
        assert_eq!(a.quantile(0.0, 0.5, 2e9), 0.5);
        assert_eq!(a.quantile(1.0, 0.5, 2e9), (1u64 << OCTAVES) as f64, "the open last bucket reads as its edge");
        assert!(Histogram::default().counts.capacity() == 0, "an empty histogram allocates nothing");
    }

    #[test]
    fn buckets_tile_the_line() {
        for i in 1..OCTAVES * SUB {
            assert_eq!(Histogram::edges(i).1, Histogram::edges(i + 1).0);
            let (a, b) = Histogram::edges(i);
            assert_eq!(Histogram::bucket(a), i);
            assert_eq!(Histogram::bucket(0.5 * (a + b)), i);
        }
    }

    #[test]
    fn latencies_without_split_encode_as_the_histogram_alone_and_with_it_round_trip() {
        let mut l = Latencies::new(false);
        for x in [300.0, 12.0, 5000.0] {
            l.all.add(x);
        }
        // The state digest hashes the postcard encoding: unchanged.
        assert_eq!(timewarp::digest::hash_value(&l), timewarp::digest::hash_value(&l.all));
        let trip = |l: &Latencies| -> Latencies { serde_json::from_str(&serde_json::to_string(l).unwrap()).unwrap() };
        let back = trip(&l);
        assert_eq!(back, l);
        let mut l = Latencies::new(true);
        assert_eq!(trip(&l), l, "empty split");
        l.all.add(77.0);
        let sp = l.split.as_deref_mut().unwrap();
        sp.add(0, 3.5);
        sp.add(1, 90.0);
        sp.add(1, 1e6);
        assert_eq!(trip(&l), l);
        assert_ne!(timewarp::digest::hash_value(&l), timewarp::digest::hash_value(&l.all));
        assert_eq!(l.split.as_ref().unwrap().quantile(1, 0.0), 90.0);
    }
}
