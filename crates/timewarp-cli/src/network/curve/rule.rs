//! The steady-state rule of `timewarp curve` (and of a plain network run's
//! note), after BookSim 2's `TrafficManager::_SingleSim`: the run is cut
//! into sample periods; warm-up lasts until the mean latency (and the
//! accepted throughput) of one period differs from the previous period's by
//! less than a threshold; then the measurement's running mean must change
//! by less than the threshold over `SETTLED` periods in a row. A run whose
//! periods never get there is not in a steady state: too short, or past
//! saturation, where the latency grows without bound (its relative change
//! per period does not shrink when the periods are longer).

/// Relative change under which a figure has settled (BookSim's
/// `warmup_thres` and `stopping_thres` default, 5 %).
pub(crate) const THRESHOLD: f64 = 0.05;

/// Periods in a row the running mean must hold still (BookSim: 3).
pub(crate) const SETTLED: usize = 3;

/// One sample period: measured packets delivered, their mean latency (None:
/// none), and the period's accepted throughput.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Period {
    pub packets: u64,
    pub latency: Option<f64>,
    pub accepted: f64,
}

/// What the rule found.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Warm-up took `warmup` periods; the measurement (every period after
    /// them) gives the mean latency and accepted throughput.
    Steady { warmup: usize, latency: f64, accepted: f64 },
    /// No steady state within the periods: the last relative change that
    /// was too large (per period in warm-up, of the running mean after), of
    /// which figure (`what`), and whether warm-up ended.
    Unsettled { change: f64, what: &'static str, warmed_up: bool },
}

impl Verdict {
    /// Why a run is not in a steady state, in words (None: it is).
    pub(crate) fn why(&self, periods: usize) -> Option<String> {
        match self {
            Verdict::Steady { .. } => None,
            Verdict::Unsettled { change, what, warmed_up: true } if *change < THRESHOLD => Some(format!(
                "warm-up ended too late: fewer than {SETTLED} of the {periods} sample periods were left to settle \
                 the {what}"
            )),
            Verdict::Unsettled { change, what, .. } => {
                Some(format!("the {what} still changed {:.0}% over a sample period", change.min(9.99) * 100.0))
            }
        }
    }
}

/// `|a - b| / a`, infinite where undefined.
fn change(now: f64, before: f64) -> f64 {
    let c = ((now - before) / now).abs();
    if c.is_finite() {
        c
    } else {
        f64::INFINITY
    }
}

/// The change that keeps a figure from having settled: the latency's, or
/// else the accepted throughput's.
fn worse(latency: f64, accepted: f64, threshold: f64) -> (f64, &'static str) {
    if latency >= threshold || accepted < threshold {
        (latency, "mean latency")
    } else {
        (accepted, "accepted throughput")
    }
}

/// Applies the rule to `periods` with `threshold`.
pub(crate) fn judge(periods: &[Period], threshold: f64) -> Verdict {
    let lat = |p: &Period| p.latency.unwrap_or(f64::NAN);
    let mut last = (f64::INFINITY, "mean latency");
    // Warm-up: period k against period k - 1.
    let mut warmup = None;
    for k in 1..periods.len() {
        let (a, b) = (&periods[k], &periods[k - 1]);
        let (cl, ca) = (change(lat(a), lat(b)), change(a.accepted, b.accepted));
        last = worse(cl, ca, threshold);
        if cl < threshold && ca < threshold {
            warmup = Some(k + 1);
            break;
        }
    }
    let Some(warmup) = warmup else {
        return Verdict::Unsettled { change: last.0, what: last.1, warmed_up: false };
    };
    // Measurement: the running mean from the end of warm-up, against its
    // value a period before (first: the last warm-up period's).
    let (mut n, mut sum, mut acc) = (0u64, 0.0, 0.0);
    let mut prev = (lat(&periods[warmup - 1]), periods[warmup - 1].accepted);
    let mut settled = 0;
    for (j, p) in periods[warmup..].iter().enumerate() {
        n += p.packets;
        sum += p.latency.unwrap_or(0.0) * p.packets as f64;
        acc += p.accepted;
        let now = (sum / n as f64, acc / (j + 1) as f64);
        let (cl, ca) = (change(now.0, prev.0), change(now.1, prev.1));
        if cl < threshold && ca < threshold {
            settled += 1;
        } else {
            settled = 0;
            last = worse(cl, ca, threshold);
        }
        prev = now;
    }
    if settled >= SETTLED {
        Verdict::Steady { warmup, latency: prev.0, accepted: prev.1 }
    } else {
        let what = if settled > 0 { (0.0, "mean latency") } else { last };
        Verdict::Unsettled { change: what.0, what: what.1, warmed_up: true }
    }
}

/// The mean accepted throughput of the second half of `periods`. Over a
/// whole run the network falls short of the offered load by what is still
/// in flight at the end (Little's law: rate × latency), a lot when the run
/// is a few latencies long; past saturation every period falls short,
/// however late (issue 61: "past saturation" at 5 % load on Theta, end
/// 20 µs).
pub(crate) fn late_accepted(periods: &[Period]) -> f64 {
    let half = &periods[periods.len() / 2..];
    half.iter().map(|p| p.accepted).sum::<f64>() / half.len().max(1) as f64
}

/// The sample periods of a network run's `model_results` (its `batches`).
pub(crate) fn periods(results: &serde_json::Value) -> Vec<Period> {
    let Some(list) = results["batches"].as_array() else { return Vec::new() };
    list.iter()
        .map(|b| Period {
            packets: b["packets"].as_u64().unwrap_or(0),
            latency: b["latency_mean"].as_f64(),
            accepted: b["accepted_throughput"].as_f64().unwrap_or(0.0),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(latency: f64, accepted: f64) -> Period {
        Period { packets: 100, latency: Some(latency), accepted }
    }

    #[test]
    fn a_settled_series_warms_up_then_measures_the_rest() {
        // A transient (latency climbing to 200), then flat within 1 %.
        let s =
            [p(120.0, 0.2), p(170.0, 0.3), p(199.0, 0.3), p(200.0, 0.3), p(201.0, 0.3), p(199.0, 0.3), p(200.0, 0.3)];
        match judge(&s, THRESHOLD) {
            Verdict::Steady { warmup, latency, accepted } => {
                assert_eq!(warmup, 4, "period 3 against 2 changed under 5 %: periods 0 to 3 warmed up");
                assert!((latency - 200.0).abs() < 1e-9 && (accepted - 0.3).abs() < 1e-12);
            }
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn latency_growing_without_bound_never_settles_whatever_the_period() {
        // Past saturation: latency grows linearly, so period k's mean is
        // about k + 1/2 periods' growth; its relative change stays above 5 %
        // for ten periods however long each is.
        for scale in [1.0, 10.0, 1000.0] {
            let s: Vec<Period> = (0..10).map(|k| p(scale * (k as f64 + 0.5), 0.45)).collect();
            assert!(matches!(judge(&s, THRESHOLD), Verdict::Unsettled { warmed_up: false, .. }), "{scale}");
        }
    }

    #[test]
    fn the_figure_that_did_not_settle_is_named() {
        // Latency flat, throughput still climbing: warm-up never ends.
        let s: Vec<Period> = (0..10).map(|k| p(100.0, 0.1 * (k + 1) as f64)).collect();
        match judge(&s, THRESHOLD) {
            Verdict::Unsettled { what, change, warmed_up: false } => {
                assert_eq!(what, "accepted throughput");
                assert!((change - 0.1).abs() < 1e-9, "{change}: 1.0 against 0.9");
            }
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn settling_needs_three_quiet_periods_and_an_empty_period_is_not_quiet() {
        let short = [p(100.0, 0.1), p(100.0, 0.1), p(100.0, 0.1), p(100.0, 0.1)];
        let v = judge(&short, THRESHOLD);
        assert!(matches!(v, Verdict::Unsettled { warmed_up: true, .. }));
        assert!(v.why(4).unwrap().contains("warm-up ended too late"), "{v:?}");
        let growing: Vec<Period> = (0..10).map(|k| p(k as f64 + 0.5, 0.45)).collect();
        assert!(judge(&growing, THRESHOLD).why(10).unwrap().contains("mean latency still changed 11%"));
        let mut gap = vec![p(100.0, 0.1); 10];
        gap[1].latency = None;
        gap[2].latency = None;
        gap[1].packets = 0;
        gap[2].packets = 0;
        // Warm-up ends at the second full period after the gap.
        assert!(matches!(judge(&gap, THRESHOLD), Verdict::Steady { warmup: 5, .. }));
        assert!(matches!(judge(&[], THRESHOLD), Verdict::Unsettled { warmed_up: false, .. }));
    }
}
