//! Counter-based, exactly reversible random numbers (Philox2x64-10).
//!
//! Every random word is `philox2x64_10([counter, stream_id], key)[0]`, a pure
//! function of `(key, stream id, counter)` (Salmon et al., SC'11, "Parallel
//! random numbers: as easy as 1, 2, 3"). One draw advances the counter by
//! exactly 1, so undoing `n` draws is `counter -= n`: the engine records how
//! many draws each event made and rewinds on rollback by itself. Model code
//! never writes reversal code, and samplers with a variable number of draws
//! (rejection methods) are rewound the same way. No distribution caches a
//! value between calls, since a cache would not be restored by a rewind.

/// Philox 2x64 multiplier (Random123 `PHILOX_M2x64_0`).
const PHILOX_M: u64 = 0xD2B7_4407_B1CE_6E93;
/// Philox 64-bit key increment, the golden ratio (Random123 `PHILOX_W64_0`).
const PHILOX_W: u64 = 0x9E37_79B9_7F4A_7C15;
/// 2^-53, the spacing of the 53-bit uniform grid.
const TWO_POW_M53: f64 = 1.0 / (1u64 << 53) as f64;

/// Philox2x64 with 10 rounds: one 128-bit block from a 128-bit counter and a 64-bit key.
///
/// Bit-compatible with Random123's `philox2x64_R(10, ctr, key)`.
#[inline]
pub(crate) fn philox2x64_10(ctr: [u64; 2], key: u64) -> [u64; 2] {
    let [mut c0, mut c1] = ctr;
    let mut k = key;
    for round in 0..10 {
        if round > 0 {
            k = k.wrapping_add(PHILOX_W);
        }
        let product = u128::from(c0) * u128::from(PHILOX_M);
        c0 = ((product >> 64) as u64) ^ c1 ^ k;
        c1 = product as u64;
    }
    [c0, c1]
}

/// Derives a well-mixed 64-bit key from a user seed (splitmix64 finaliser), so seeds 1,2,3 give unrelated keys.
///
/// This is the first output of splitmix64 started from state `seed`.
pub(crate) fn key_from_seed(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A source of 64-bit random words; every distribution is a provided method,
/// so any source (a borrowed engine stream or an owned one) gets all of them.
///
/// Each method documents how many draws (calls to [`Random::next_u64`]) it
/// makes. Domain errors (such as `below(0)` or a negative mean) are
/// programming errors and panic with the method name and the bad value.
///
/// # Example: draw, rewind, identical redraw
///
/// ```
/// use timewarp::{Random, ReversibleRng};
///
/// let mut rng = ReversibleRng::new(7, 3);
/// let start = rng;
/// let x = rng.normal(0.0, 1.0); // rejection sampler: variable draw count
/// let k = rng.poisson(4.5);
/// let used = rng.draws() - start.draws();
///
/// rng.rewind(used); // roll the event back
/// assert_eq!(rng, start);
/// assert_eq!(rng.normal(0.0, 1.0).to_bits(), x.to_bits());
/// assert_eq!(rng.poisson(4.5), k);
/// assert_eq!(rng.draws(), start.draws() + used);
/// ```
pub trait Random {
    /// Next 64 random bits (advances the draw counter by exactly 1).
    fn next_u64(&mut self) -> u64;

    /// Uniform in [0, 1): 53 high bits * 2^-53. Exactly 1 draw.
    fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * TWO_POW_M53
    }

    /// Uniform in (0, 1] (safe for ln): (53 high bits + 1) * 2^-53. Exactly 1 draw.
    fn uniform_open0(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 * TWO_POW_M53
    }

    /// Uniform integer in [0, n) without bias (Lemire's multiply-shift with rejection).
    ///
    /// Draws: at least 1; each draw is rejected with probability below
    /// `n / 2^64` (so practically always 1 for small `n`, up to 2 on average
    /// for `n` just above 2^63). Panics if `n == 0`.
    fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Random::below: n must be > 0, got {n}");
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n; // 2^64 mod n
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }

    /// Uniform integer in [lo, hi] inclusive (ROSS's tw_rand_integer).
    ///
    /// Unlike ROSS this is exactly unbiased. Draws: as [`Random::below`] with
    /// `n = hi - lo + 1`; exactly 1 for the full `i64` range. Panics if `lo > hi`.
    fn integer(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(lo <= hi, "Random::integer: need lo <= hi, got lo = {lo}, hi = {hi}");
        let span = hi.wrapping_sub(lo) as u64; // hi - lo, exact as unsigned
        if span == u64::MAX {
            return self.next_u64() as i64;
        }
        lo.wrapping_add(self.below(span + 1) as i64)
    }

    /// Bernoulli(p): `true` with probability `p`.
    ///
    /// Exactly 1 draw, even for `p` = 0 or 1. Panics unless `0 <= p <= 1`.
    fn bernoulli(&mut self, p: f64) -> bool {
        assert!((0.0..=1.0).contains(&p), "Random::bernoulli: p must be in [0, 1], got {p}");
        self.uniform() < p
    }

    /// Exponential with the given mean (one draw): -mean * ln(u), u in (0,1].
    ///
    /// Exactly 1 draw. Panics if `mean` is negative or NaN.
    fn exponential(&mut self, mean: f64) -> f64 {
        assert!(mean >= 0.0, "Random::exponential: mean must be >= 0, got {mean}");
        -mean * self.uniform_open0().ln()
    }

    /// Normal(mean, sd) by the Marsaglia polar method.
    ///
    /// Draws: variable, 2 per attempt with acceptance probability pi/4, so
    /// 8/pi ~ 2.55 on average. Only one value of each accepted pair is used:
    /// caching the second would break rewinding. Panics if `sd` is negative
    /// or either argument is NaN.
    fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        assert!(
            sd >= 0.0 && !mean.is_nan(),
            "Random::normal: need sd >= 0 and mean not NaN, got mean = {mean}, sd = {sd}"
        );
        loop {
            let u = 2.0 * self.uniform() - 1.0;
            let v = 2.0 * self.uniform() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                return mean + sd * u * (-2.0 * s.ln() / s).sqrt();
            }
        }
    }

    /// Pareto (Type I) with shape alpha > 0 and scale x_m > 0: x_m / u^(1/alpha).
    ///
    /// `u` is in (0, 1], so the result is in [x_m, inf). Exactly 1 draw.
    /// Panics unless `shape > 0` and `scale > 0`.
    fn pareto(&mut self, shape: f64, scale: f64) -> f64 {
        assert!(shape > 0.0, "Random::pareto: shape must be > 0, got {shape}");
        assert!(scale > 0.0, "Random::pareto: scale must be > 0, got {scale}");
        scale / self.uniform_open0().powf(1.0 / shape)
    }

    /// Poisson(lambda): Knuth's multiplication method for lambda < 30, Hörmann's
    /// PTRS transformed rejection (1993) otherwise.
    ///
    /// Draws: 0 for `lambda == 0`; `k + 1` for a Knuth result `k` (lambda + 1
    /// on average); PTRS uses 2 per attempt, about 2.3 on average. Panics if
    /// `lambda` is negative, NaN or infinite.
    fn poisson(&mut self, lambda: f64) -> u64 {
        assert!(lambda >= 0.0 && lambda.is_finite(), "Random::poisson: lambda must be finite and >= 0, got {lambda}");
        if lambda == 0.0 {
            return 0;
        }
        if lambda < 30.0 {
            let limit = (-lambda).exp();
            let mut k = 0;
            let mut p = self.uniform();
            while p > limit {
                k += 1;
                p *= self.uniform();
            }
            return k;
        }
        // PTRS, W. Hörmann, Insurance: Math. and Economics 12 (1993) 39-45.
        let log_lambda = lambda.ln();
        let b = 0.931 + 2.53 * lambda.sqrt();
        let a = -0.059 + 0.02483 * b;
        let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
        let v_r = 0.9277 - 3.6224 / (b - 2.0);
        loop {
            let u = self.uniform() - 0.5;
            let v = self.uniform();
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + lambda + 0.43).floor();
            if us >= 0.07 && v <= v_r {
                return k as u64;
            }
            if k < 0.0 || (us < 0.013 && v > us) {
                continue; // also catches us == 0, where k is -inf or NaN
            }
            let lhs = v.ln() + inv_alpha.ln() - (a / (us * us) + b).ln();
            if lhs <= -lambda + k * log_lambda - ln_factorial(k) {
                return k as u64;
            }
        }
    }
}

/// ln(k!) for an integral `k >= 0`: exact product below 10, else Stirling's
/// series for ln Gamma(k + 1) (truncation error below 1e-12).
fn ln_factorial(k: f64) -> f64 {
    if k < 10.0 {
        let (mut f, mut i) = (1.0_f64, 2.0);
        while i <= k {
            f *= i;
            i += 1.0;
        }
        return f.ln();
    }
    let x = k + 1.0;
    let (r, r2) = (1.0 / x, 1.0 / (x * x));
    let series = r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 / 1680.0)));
    (x - 0.5) * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI).ln() + series
}

/// A stream borrowed from the engine: key and stream id fixed, counter lives in the engine's LP table.
///
/// Draw `i` of the stream is `philox2x64_10([i, id], key)[0]`; the counter
/// is advanced in place, so the engine rewinds the stream by decreasing its
/// stored counter by the number of draws an event made.
#[derive(Debug)]
pub struct Stream<'a> {
    key: u64,
    id: u64,
    counter: &'a mut u64,
}

impl<'a> Stream<'a> {
    /// Borrows the counter of stream `id` under `key`.
    pub fn new(key: u64, id: u64, counter: &'a mut u64) -> Self {
        Stream { key, id, counter }
    }

    /// Current counter value: the number of draws made so far on this stream.
    pub fn counter(&self) -> u64 {
        *self.counter
    }
}

impl Random for Stream<'_> {
    /// `philox2x64_10([counter, id], key)[0]`, then `counter += 1`.
    #[inline]
    fn next_u64(&mut self) -> u64 {
        let block = philox2x64_10([*self.counter, self.id], self.key);
        *self.counter = self.counter.wrapping_add(1);
        block[0]
    }
}

/// An owned reversible stream (for tests, tools and models that want one outside the engine).
///
/// Produces exactly the sequence of a [`Stream`] with the same key, id and counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReversibleRng {
    /// Philox key (derived from the seed when built with [`ReversibleRng::new`]).
    pub key: u64,
    /// Stream id: the second counter word.
    pub id: u64,
    /// Number of draws made so far: the first counter word.
    pub counter: u64,
}

impl ReversibleRng {
    /// Stream `id` of the key derived from `seed`, at counter 0.
    pub fn new(seed: u64, id: u64) -> Self {
        ReversibleRng { key: key_from_seed(seed), id, counter: 0 }
    }

    /// Undoes the last `draws` draws. Panics if more draws are undone than were made.
    pub fn rewind(&mut self, draws: u64) {
        self.counter = self.counter.checked_sub(draws).unwrap_or_else(|| {
            panic!("ReversibleRng::rewind: cannot rewind {draws} draws, only {} made", self.counter)
        });
    }

    /// Number of draws made so far (the counter).
    pub fn draws(&self) -> u64 {
        self.counter
    }
}

impl Random for ReversibleRng {
    #[inline]
    fn next_u64(&mut self) -> u64 {
        Stream::new(self.key, self.id, &mut self.counter).next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 200_000;

    #[test]
    fn philox_known_answers() {
        // Random123 kat_vectors, "philox2x64 10" lines: (ctr, key) -> output.
        let m = u64::MAX;
        let kat: [([u64; 2], u64, [u64; 2]); 4] = [
            ([0, 0], 0, [0xca00a0459843d731, 0x66c24222c9a845b5]),
            ([m, m], m, [0x65b021d60cd8310f, 0x4d02f3222f86df20]),
            ([0x243f6a8885a308d3, 0x13198a2e03707344], 0xa4093822299f31d0, [0x0a5e742c2997341c, 0xb0f883d38000de5d]),
            // Extended vector set (random123-manual examples/kat_vectors).
            ([1, 0], 1, [0xd9942a5c25dce933, 0x512c1502dbacf1a2]),
        ];
        for (ctr, key, want) in kat {
            assert_eq!(philox2x64_10(ctr, key), want, "{ctr:x?} {key:x}");
        }
    }

    #[test]
    fn key_from_seed_is_splitmix64() {
        assert_eq!(key_from_seed(0), 0xE220A8397B1DCDAF); // splitmix64(0), first output
        let keys = [1, 2, 3].map(key_from_seed);
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            let flipped = (keys[i] ^ keys[j]).count_ones();
            assert!((12..=52).contains(&flipped), "{i},{j}: {flipped} bits");
        }
    }

    /// Draws `n` values, rewinds, redraws; values, final counter and the
    /// rewound state must match exactly. Returns the number of draws used.
    fn check_rewind(n: usize, mut draw: impl FnMut(&mut ReversibleRng) -> u64) -> u64 {
        let mut rng = ReversibleRng::new(2024, 5);
        rng.counter = 1_000; // start mid-stream
        let start = rng;
        let first: Vec<u64> = (0..n).map(|_| draw(&mut rng)).collect();
        let end = rng;
        rng.rewind(rng.counter - start.counter);
        assert_eq!(rng, start, "state after rewind");
        let second: Vec<u64> = (0..n).map(|_| draw(&mut rng)).collect();
        assert_eq!(first, second, "values after rewind");
        assert_eq!(rng, end, "final counter after redraw");
        end.counter - start.counter
    }

    #[test]
    fn every_distribution_rewinds_exactly() {
        let n = 1_000;
        let big = (1u64 << 63) + 1; // ~50% rejection in `below`
        assert_eq!(check_rewind(n, |r| r.next_u64()), n as u64);
        assert_eq!(check_rewind(n, |r| r.uniform().to_bits()), n as u64);
        assert_eq!(check_rewind(n, |r| r.uniform_open0().to_bits()), n as u64);
        assert_eq!(check_rewind(n, |r| r.below(10)), n as u64);
        assert!(check_rewind(n, |r| r.below(big)) > n as u64 + 300); // variable
        assert_eq!(check_rewind(n, |r| r.integer(-5, 5) as u64), n as u64);
        assert_eq!(check_rewind(n, |r| r.integer(i64::MIN, i64::MAX) as u64), n as u64);
        assert_eq!(check_rewind(n, |r| r.bernoulli(0.3) as u64), n as u64);
        assert_eq!(check_rewind(n, |r| r.exponential(2.0).to_bits()), n as u64);
        assert_eq!(check_rewind(n, |r| r.pareto(3.0, 2.0).to_bits()), n as u64);
        assert!(check_rewind(n, |r| r.normal(1.0, 3.0).to_bits()) > 2 * n as u64); // variable
        assert_eq!(check_rewind(n, |r| r.poisson(0.0)), 0);
        for lambda in [0.5, 3.0, 29.9, 30.0, 100.0, 1e6] {
            let used = check_rewind(n, |r| r.poisson(lambda));
            assert!(used > n as u64, "poisson({lambda}) used {used} draws");
        }
        // Mixed and varying-length draws: a different N and all samplers interleaved.
        check_rewind(37, |r| {
            let k = r.poisson(7.0);
            (0..k).map(|_| r.normal(0.0, 1.0).to_bits()).fold(k, u64::wrapping_add)
        });
    }

    #[test]
    fn engine_rolls_back_streams_by_draw_counts() {
        let key = key_from_seed(42);
        let mut counters = [0u64; 3]; // the engine's LP table
        let mut log = Vec::new(); // per event: (lp, draws, values)
        let run_event = |counters: &mut [u64; 3], ev: usize| {
            let lp = ev % 3;
            let mut s = Stream::new(key, lp as u64, &mut counters[lp]);
            let before = s.counter();
            let v = [s.poisson(2.0 + ev as f64), s.normal(0.0, 1.0).to_bits(), s.below(7)];
            (lp, s.counter() - before, v)
        };
        for ev in 0..30 {
            log.push(run_event(&mut counters, ev));
        }
        let after = counters;
        for &(lp, draws, _) in log[18..].iter().rev() {
            counters[lp] -= draws; // rollback of the last 12 events
        }
        for (ev, logged) in log.iter().enumerate().skip(18) {
            assert_eq!(run_event(&mut counters, ev), *logged, "event {ev}");
        }
        assert_eq!(counters, after);
    }

    #[test]
    fn streams_are_functions_of_key_id_counter() {
        let key = key_from_seed(9);
        let seq = |key, id| {
            let mut c = 0;
            let mut s = Stream::new(key, id, &mut c);
            (0..16).map(|_| s.next_u64()).collect::<Vec<_>>()
        };
        assert_ne!(seq(key, 0), seq(key, 1));
        assert_ne!(seq(key, 0), seq(key_from_seed(10), 0));
        assert_eq!(seq(key, 4), seq(key, 4));
        let mut owned = ReversibleRng { key, id: 4, counter: 12_345 };
        let mut c = 12_345;
        assert_eq!(Stream::new(key, 4, &mut c).next_u64(), owned.next_u64());
        assert_eq!(owned.counter, 12_346);
        assert_eq!(c, 12_346);
        assert_eq!(ReversibleRng::new(9, 4).key, key);
        let expected = philox2x64_10([12_345, 4], key)[0];
        owned.rewind(1);
        assert_eq!(owned.next_u64(), expected);
    }

    /// Asserts sample mean (and variance, if given) within 5 standard errors,
    /// both standard errors estimated from the sample itself.
    fn check_moments(name: &str, xs: &[f64], mean: f64, var: Option<f64>) {
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        let s2 = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
        let m4 = xs.iter().map(|x| (x - m).powi(4)).sum::<f64>() / n;
        let se_mean = (s2 / n).sqrt();
        assert!((m - mean).abs() < 5.0 * se_mean, "{name}: mean {m}, want {mean} (SE {se_mean})");
        if let Some(var) = var {
            let se_var = ((m4 - s2 * s2) / n).sqrt();
            assert!((s2 - var).abs() < 5.0 * se_var, "{name}: var {s2}, want {var} (SE {se_var})");
        }
    }

    fn sample(seed: u64, n: usize, mut f: impl FnMut(&mut ReversibleRng) -> f64) -> Vec<f64> {
        let mut rng = ReversibleRng::new(seed, 0);
        (0..n).map(|_| f(&mut rng)).collect()
    }

    type Draw = fn(&mut ReversibleRng) -> f64;

    #[test]
    fn moments_match_distributions() {
        let cases: [(&str, Draw, f64, Option<f64>); 6] = [
            ("uniform", |r| r.uniform(), 0.5, Some(1.0 / 12.0)),
            ("uniform_open0", |r| r.uniform_open0(), 0.5, Some(1.0 / 12.0)),
            ("exponential", |r| r.exponential(2.0), 2.0, Some(4.0)),
            ("normal", |r| r.normal(1.0, 3.0), 1.0, Some(9.0)),
            ("pareto", |r| r.pareto(3.0, 2.0), 3.0, None), // 4th moment infinite
            ("bernoulli", |r| r.bernoulli(0.3) as u8 as f64, 0.3, Some(0.21)),
        ];
        for (seed, (name, f, mean, var)) in cases.into_iter().enumerate() {
            check_moments(name, &sample(seed as u64, N, f), mean, var);
        }
        for (i, lambda) in [3.0, 29.9, 30.0, 100.0, 1e6].into_iter().enumerate() {
            let xs = sample(10 + i as u64, N, |r| r.poisson(lambda) as f64);
            check_moments(&format!("poisson({lambda})"), &xs, lambda, Some(lambda));
        }
    }

    /// Pearson chi-square of `counts` against `probs`, and the statistic's 0.999
    /// quantile for `len - 1` degrees of freedom (Wilson-Hilferty, z = 3.09).
    fn chi_square(counts: &[u64], probs: &[f64]) -> (f64, f64) {
        let n = counts.iter().sum::<u64>() as f64;
        let stat = counts.iter().zip(probs).map(|(&c, &p)| (c as f64 - n * p).powi(2) / (n * p));
        let h = 2.0 / (9.0 * (counts.len() - 1) as f64);
        (stat.sum(), (counts.len() - 1) as f64 * (1.0 - h + 3.09 * h.sqrt()).powi(3))
    }

    #[test]
    fn below_10_passes_chi_square() {
        let mut rng = ReversibleRng::new(11, 0);
        let mut counts = [0u64; 10];
        for _ in 0..100_000 {
            counts[rng.below(10) as usize] += 1;
        }
        let (chi2, limit) = chi_square(&counts, &[0.1; 10]);
        assert!(chi2 < limit, "chi2 {chi2} >= {limit}: {counts:?}");
    }

    #[test]
    fn poisson_matches_pmf_chi_square() {
        for (seed, lambda) in [(20, 3.0), (21, 29.9), (22, 30.0), (23, 100.0)] {
            let mut rng = ReversibleRng::new(seed, 0);
            let top = (lambda + 10.0 * f64::sqrt(lambda) + 10.0) as usize;
            let mut hist = vec![0u64; top + 1];
            for _ in 0..N {
                hist[(rng.poisson(lambda) as usize).min(top)] += 1;
            }
            // pmf by recurrence (independent of ln_factorial); bins pooled to >= 20 expected.
            let (mut counts, mut probs, mut c, mut p, mut pmf) = (vec![], vec![], 0, 0.0, 1.0);
            for (k, &h) in hist.iter().enumerate() {
                pmf = if k == 0 { (-lambda).exp() } else { pmf * lambda / k as f64 };
                (c, p) = (c + h, p + pmf);
                if p * N as f64 >= 20.0 {
                    counts.push(std::mem::take(&mut c));
                    probs.push(std::mem::take(&mut p));
                }
            }
            *counts.last_mut().unwrap() += c; // upper tail joins the last bin
            *probs.last_mut().unwrap() = 1.0 - probs[..probs.len() - 1].iter().sum::<f64>();
            let (chi2, limit) = chi_square(&counts, &probs);
            assert!(chi2 < limit, "poisson({lambda}): chi2 {chi2} >= {limit}");
        }
    }

    #[test]
    fn integer_ranges_and_endpoints() {
        let mut rng = ReversibleRng::new(12, 0);
        let mut seen = [false; 7];
        for _ in 0..1_000 {
            let x = rng.integer(-3, 3);
            assert!((-3..=3).contains(&x));
            seen[(x + 3) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(rng.integer(5, 5), 5);
        assert_eq!(rng.below(1), 0);
        assert!(rng.below(u64::MAX) < u64::MAX);
        // Endpoints through a fixed source: every source gets every method.
        struct Fixed(u64);
        impl Random for Fixed {
            fn next_u64(&mut self) -> u64 {
                self.0
            }
        }
        assert_eq!(Fixed(0).uniform(), 0.0);
        assert!(Fixed(u64::MAX).uniform() < 1.0);
        assert_eq!(Fixed(0).uniform_open0(), TWO_POW_M53);
        assert_eq!(Fixed(u64::MAX).uniform_open0(), 1.0);
        assert!(Fixed(0).exponential(1.0).is_finite());
        assert!(Fixed(0).pareto(0.5, 1.0).is_finite());
        assert!(!Fixed(u64::MAX).bernoulli(1.0 - TWO_POW_M53) && Fixed(u64::MAX).bernoulli(1.0));
    }

    fn correlation(xs: &[f64], ys: &[f64]) -> f64 {
        let n = xs.len() as f64;
        let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
        let cov: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
        let vx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
        let vy: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
        cov / (vx * vy).sqrt()
    }

    #[test]
    fn streams_are_uncorrelated() {
        let draw = |key, id| {
            let mut c = 0;
            let mut s = Stream::new(key, id, &mut c);
            (0..N).map(|_| s.uniform()).collect::<Vec<_>>()
        };
        let (k1, k2) = (key_from_seed(1), key_from_seed(2));
        let a = draw(k1, 0);
        let limit = 5.0 / (N as f64).sqrt(); // 5 SE of r under independence
        for (what, b) in [("ids 0/1", draw(k1, 1)), ("seeds 1/2", draw(k2, 0))] {
            let r = correlation(&a, &b);
            assert!(r.abs() < limit, "{what}: r = {r}, limit {limit}");
        }
        let r = correlation(&a[..N - 1], &a[1..]);
        assert!(r.abs() < limit, "lag-1 autocorrelation {r}");
    }

    #[test]
    fn ln_factorial_matches_log_sum() {
        let mut exact = 0.0_f64;
        for k in 0..400u32 {
            if k > 0 {
                exact += f64::from(k).ln();
            }
            let got = ln_factorial(f64::from(k));
            assert!((got - exact).abs() <= 1e-12 * exact.max(1.0), "ln({k}!) = {got}, want {exact}");
        }
    }

    #[test]
    fn domain_errors_panic_with_name_and_value() {
        let cases: [(&str, &str, Draw); 10] = [
            ("Random::below", "got 0", |r| r.below(0) as f64),
            ("Random::exponential", "got -1", |r| r.exponential(-1.0)),
            ("Random::exponential", "got NaN", |r| r.exponential(f64::NAN)),
            ("Random::poisson", "got -2", |r| r.poisson(-2.0) as f64),
            ("Random::poisson", "got NaN", |r| r.poisson(f64::NAN) as f64),
            ("Random::pareto", "shape must be > 0, got 0", |r| r.pareto(0.0, 1.0)),
            ("Random::pareto", "scale must be > 0, got -1", |r| r.pareto(1.0, -1.0)),
            ("Random::normal", "sd = -1", |r| r.normal(0.0, -1.0)),
            ("Random::bernoulli", "got 1.5", |r| r.bernoulli(1.5) as u8 as f64),
            ("Random::integer", "lo = 2, hi = 1", |r| r.integer(2, 1) as f64),
        ];
        for (name, value, f) in cases {
            let err = std::panic::catch_unwind(|| f(&mut ReversibleRng::new(0, 0))).unwrap_err();
            let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
            assert!(msg.contains(name) && msg.contains(value), "{msg:?}: {name} {value}");
        }
    }

    #[test]
    #[should_panic(expected = "ReversibleRng::rewind: cannot rewind 2 draws, only 1 made")]
    fn rewind_past_start_panics() {
        let mut rng = ReversibleRng::new(0, 0);
        rng.next_u64();
        rng.rewind(2);
    }

    /// `cargo test --release -- --ignored --nocapture ns_per_draw`
    #[test]
    #[ignore = "timing, not a check"]
    fn ns_per_draw() {
        use std::hint::black_box;
        use std::time::Instant;
        let mut rng = ReversibleRng::new(1, 0);
        let mut time = |name: &str, f: &mut dyn FnMut(&mut ReversibleRng) -> f64| {
            let (n, c0, t) = (5_000_000u32, rng.counter, Instant::now());
            for _ in 0..n {
                black_box(f(&mut rng));
            }
            let ns = t.elapsed().as_nanos() as f64 / f64::from(n);
            let per = (rng.counter - c0) as f64 / f64::from(n);
            println!("{name:>14}: {ns:6.2} ns/call, {per:.3} draws/call");
        };
        time("next_u64", &mut |r| r.next_u64() as f64);
        time("uniform", &mut |r| r.uniform());
        time("exponential", &mut |r| r.exponential(1.0));
        time("below(10)", &mut |r| r.below(10) as f64);
        time("normal", &mut |r| r.normal(0.0, 1.0));
        time("poisson(3)", &mut |r| r.poisson(3.0) as f64);
        time("poisson(100)", &mut |r| r.poisson(100.0) as f64);
    }
}
