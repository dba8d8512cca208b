//! `timewarp curve network ... --load FROM:TO[:STEP] -o curve.csv`: a
//! latency–load curve with each point run to steady state, the saturation
//! throughput found by bisection near the knee, and the CSV and the two
//! plots (latency against load, accepted against offered) in one go.
//!
//! Each point is runs of `timewarp run network ... --load L --end E
//! --warmup 0` (this program again, as `sweep` does): the run's window is
//! cut into 10 sample periods (`model_results.batches`), and BookSim's rule
//! ([`rule`]) says whether it warmed up and settled. If not, the periods
//! are doubled (the same history, run longer) up to `--max-end`; a point
//! that never settles, or settles carrying less than it was offered, is
//! unstable: past saturation. The CSV, the pictures and the terminal's
//! lines are `output.rs`'s.

mod output;
pub(crate) mod rule;

use std::path::PathBuf;

use clap::Args;
use serde_json::Value as Json;

use crate::args::whole;
use crate::registry::Models;
use crate::rerun::{run_stats, InProcess, Progress};
use crate::run_options;
use rule::Verdict;

/// Options a curve sets itself, or that would make its runs' statistics not its own.
const REFUSED: &[&str] = &[
    "end",
    "warmup",
    "load",
    "messages",
    "stats-json",
    "stats-csv",
    "gvt-csv",
    "trace-out",
    "profile-out",
    "checkpoint-dir",
];

/// Sample periods of a run (the network model's batches).
const PERIODS: f64 = 10.0;

/// A sample period is at least this many mean packet latencies: a shorter
/// one measures packets that left in earlier periods, and the rule can
/// call a point steady before its latency is (issue 62: Theta's curve
/// said saturation 0.078 at the default 2 µs periods, 0.092 at 10 µs, its
/// latency ~5 µs).
const LATENCIES_PER_PERIOD: f64 = 4.0;

/// `timewarp curve` options.
#[derive(Args, Debug)]
pub(crate) struct CurveArgs {
    /// Offered loads (fractions of the injection bandwidth): FROM:TO[:STEP]
    /// [STEP: (TO-FROM)/10], or a list V1,V2,...
    #[arg(long, value_name = "FROM:TO[:STEP]")]
    pub load: Option<String>,
    /// Length of a sample period at first, in ns [default: 2000: a first run
    /// of 20000 ns, the network's default --end].
    #[arg(long, value_name = "NS")]
    pub sample_period: Option<f64>,
    /// The cap: the longest run of a point, in ns [default: 16 times the first].
    #[arg(long, value_name = "NS")]
    pub max_end: Option<f64>,
    /// Bisection steps between the last steady and the first unstable load [default: 4].
    #[arg(long, value_name = "N", value_parser = whole::<u32>(0, 20))]
    pub refine: Option<u32>,
    /// Relative change under which the latency has settled [default: 0.05].
    #[arg(long, value_name = "FRACTION")]
    pub threshold: Option<f64>,
    /// The CSV file; the plots go beside it (NAME-latency.png, NAME-accepted.png).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The model (network) and its fixed options, as for `timewarp run`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "MODEL [OPTIONS]")]
    pub run: Vec<String>,
}

/// The text after `curve --help`.
pub(crate) const AFTER_HELP: &str = "Example: timewarp curve network --dims 8,8 --load 0.05:0.8:0.05 -o curve.csv\n\n\
Each load runs with --warmup 0 to --end = 10 sample periods; BookSim's rule decides: warm-up lasts until the mean \
latency and accepted throughput of a period differ from the previous period's by under --threshold, then the running \
mean must hold within it for 3 periods. A point that does not settle runs again with periods twice as long, up to \
--max-end; one that never settles, or settles carrying under (1 - threshold) of what was offered, is unstable. \
The loads between the last steady and the first unstable one are bisected (--refine) and the saturation throughput \
is the highest accepted throughput of a steady load (so no steady row accepted more; an unstable row's, over its \
transient run, may be higher: the summary names that peak). Written: the CSV (a row per load: load, status, \
latency_mean in ns and accepted_throughput over the measurement, ..., saturation true on the saturation row), \
NAME-latency.png (the steady points, log \
latency) and NAME-accepted.png (every point, by status). \
Exit status 0 when the curve is written (unstable points are results), 1 when a run failed (its row says why), \
2 for a bad command line. See docs/network.md.";

/// How a curve failed: a bad command line (exit 2), or runs (exit 1).
pub(crate) enum Failure {
    Usage(String),
    Runs(String),
}

/// Curve settings.
struct Plan {
    loads: Vec<f64>,
    period: f64,
    max_end: f64,
    refine: u32,
    threshold: f64,
    output: PathBuf,
    run: Vec<String>,
}

/// `FROM:TO[:STEP]` or `V1,V2,...` as loads.
fn loads(spec: &str) -> Result<Vec<f64>, String> {
    let bad = |why: &str| format!("--load {spec}: {why}; give FROM:TO[:STEP] (e.g. 0.05:0.8:0.05) or V1,V2,...");
    let num = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| bad("not a number"));
    let out: Vec<f64> = if spec.contains(':') {
        let parts: Vec<&str> = spec.split(':').collect();
        let (from, to) = match parts.as_slice() {
            [a, b] | [a, b, _] => (num(a)?, num(b)?),
            _ => return Err(bad("too many parts")),
        };
        let step = match parts.get(2) {
            Some(s) => num(s)?,
            None => (to - from) / 10.0,
        };
        if to < from || step <= 0.0 && to > from {
            return Err(bad("TO must not be below FROM, and STEP must be positive"));
        }
        let n = if to > from { ((to - from) / step + 1e-9).floor() as usize } else { 0 };
        if n > 1000 {
            return Err(bad("more than 1000 loads"));
        }
        // Rounded to 1e-9: 0.1 + 2 * 0.1 reads 0.3 in the CSV and the run.
        (0..=n).map(|i| ((from + i as f64 * step) * 1e9).round() / 1e9).collect()
    } else {
        spec.split(',').map(num).collect::<Result<_, _>>()?
    };
    if let Some(v) = out.iter().find(|v| **v <= 0.0 || **v > 1.0) {
        return Err(bad(&format!("{v} is not in (0, 1], the injection link's share")));
    }
    // Ascending, once each: past the first unstable load the rest are known past the knee.
    let mut out = out;
    out.sort_by(f64::total_cmp);
    out.dedup();
    Ok(out)
}

impl Plan {
    /// The curve's own options, wherever they were given (after the model
    /// name they reach clap as the model's tokens).
    fn from(a: &CurveArgs) -> Result<Plan, String> {
        let mut load = a.load.clone();
        let (mut period, mut max_end, mut refine, mut threshold, mut output) =
            (a.sample_period, a.max_end, a.refine, a.threshold, a.output.clone());
        let mut run = Vec::new();
        let mut it = a.run.iter();
        while let Some(t) = it.next() {
            let (name, inline) = match t.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
                _ => (t.as_str(), None),
            };
            let ours = ["--load", "--sample-period", "--max-end", "--refine", "--threshold", "-o", "--output"];
            if !ours.contains(&name) {
                run.push(t.clone());
                continue;
            }
            let v = match inline {
                Some(v) => v,
                None => it.next().cloned().ok_or_else(|| format!("{name} needs a value"))?,
            };
            let ns = |v: &str| {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .ok_or_else(|| format!("{name} {v}: give a time in ns above 0"))
            };
            match name {
                "--load" => load = Some(v),
                "--sample-period" => period = Some(ns(&v)?),
                "--max-end" => max_end = Some(ns(&v)?),
                "--refine" => refine = Some(whole::<u32>(0, 20)(&v).map_err(|e| format!("--refine: {e}"))?),
                "--threshold" => {
                    threshold = Some(v.parse().map_err(|_| format!("--threshold {v}: give a fraction (e.g. 0.05)"))?)
                }
                _ => output = Some(v.into()),
            }
        }
        let load = load.ok_or("curve needs --load FROM:TO[:STEP] (e.g. --load 0.05:0.8:0.05)")?;
        let output = output.ok_or("curve needs -o FILE.csv: the CSV (the plots go beside it)")?;
        if output.as_os_str() == "-" {
            return Err("curve writes plots beside its CSV: give -o FILE.csv, not -".into());
        }
        let period = period.unwrap_or(2_000.0);
        if !(period.is_finite() && period > 0.0) {
            return Err("--sample-period: give a time in ns above 0".into());
        }
        let max_end = max_end.unwrap_or(16.0 * PERIODS * period);
        if max_end < PERIODS * period {
            return Err(format!(
                "--max-end {max_end} is shorter than one run of 10 sample periods ({}): raise it or lower --sample-period",
                PERIODS * period
            ));
        }
        let threshold = threshold.unwrap_or(rule::THRESHOLD);
        if !(threshold > 0.0 && threshold < 1.0) {
            return Err("--threshold: give a fraction between 0 and 1 (e.g. 0.05)".into());
        }
        Ok(Plan { loads: loads(&load)?, period, max_end, refine: refine.unwrap_or(4), threshold, output, run })
    }
}

/// One load's outcome.
#[derive(Debug, Clone)]
struct Point {
    load: f64,
    refined: bool,
    /// The last run's statistics and the rule's verdict on it, or the run's error.
    outcome: Result<(Json, Verdict), String>,
    period: f64,
    /// Why it is unstable though it settled (it carried less than offered).
    short: Option<f64>,
    /// Its period stayed shorter than [`LATENCIES_PER_PERIOD`] mean
    /// latencies (the cap, --max-end, stopped it): its latency.
    brief: Option<f64>,
}

impl Point {
    fn stable(&self) -> bool {
        matches!(&self.outcome, Ok((_, Verdict::Steady { .. }))) && self.short.is_none()
    }

    fn results(&self) -> Option<&Json> {
        self.outcome.as_ref().ok().map(|(j, _)| &j["model_results"])
    }

    /// The latency and accepted throughput: over the measurement when
    /// steady, else over the whole (transient) run.
    fn figures(&self) -> (f64, f64) {
        match &self.outcome {
            Ok((_, Verdict::Steady { latency, accepted, .. })) => (*latency, *accepted),
            Ok((j, _)) => {
                let r = &j["model_results"];
                (r["latency_mean"].as_f64().unwrap_or(0.0), r["accepted_throughput"].as_f64().unwrap_or(0.0))
            }
            Err(_) => (f64::NAN, f64::NAN),
        }
    }

    /// Whether the network carried what the point offered (within
    /// `threshold`) in the run's second half ([`rule::late_accepted`]).
    fn carried(&self, threshold: f64) -> bool {
        let Some(r) = self.results() else { return false };
        let offered = r["measured_offered_load"].as_f64().unwrap_or(self.load);
        rule::late_accepted(&rule::periods(r)) >= (1.0 - threshold) * offered
    }

    fn status(&self) -> &'static str {
        match (&self.outcome, self.stable()) {
            (Err(_), _) => "error",
            (_, true) => "steady",
            _ => "unstable",
        }
    }
}

/// The runs: this program, the fixed options, the settings.
struct Runner<'a> {
    exe: PathBuf,
    in_process: Option<InProcess<'a>>,
    fixed: Vec<String>,
    plan: &'a Plan,
    progress: Progress,
}

impl Runner<'_> {
    /// Runs `load` to steady state: periods doubled until the rule is met
    /// or the run would pass the cap (`escalate` false: one run only).
    fn point(&self, load: f64, refined: bool, escalate: bool) -> Point {
        let mut period = self.plan.period;
        loop {
            let end = PERIODS * period;
            self.progress.show(&format!("curve: load {load}: a run to {end} ns"));
            let mut tokens = self.fixed.clone();
            tokens.extend([format!("--load={load}"), format!("--end={end}"), "--warmup=0".into()]);
            let stats = match self.in_process {
                Some(r) => r(&tokens),
                None => run_stats(&self.exe, &tokens),
            };
            let outcome = stats.and_then(|j| {
                let periods = rule::periods(&j["model_results"]);
                if periods.is_empty() {
                    return Err("the run has no sample periods (model_results.batches): a curve needs open \
                                synthetic traffic, not a trace, a generated workload or --messages"
                        .into());
                }
                let v = rule::judge(&periods, self.plan.threshold);
                Ok((j, v))
            });
            let latency = match &outcome {
                Ok((j, _)) => j["model_results"]["latency_mean"].as_f64().filter(|l| l.is_finite()),
                Err(_) => None,
            };
            // A period shorter than a few latencies is grown like an unsettled one.
            let brief = latency.filter(|&l| period < LATENCIES_PER_PERIOD * l);
            let steady = matches!(outcome, Ok((_, Verdict::Steady { .. }))) && brief.is_none();
            let next = 2.0 * PERIODS * period;
            if steady || outcome.is_err() || !escalate || next > self.plan.max_end * (1.0 + 1e-12) {
                let mut p = Point { load, refined, outcome, period, short: None, brief };
                if let (true, Some(r)) = (steady, p.results()) {
                    let offered = r["measured_offered_load"].as_f64().unwrap_or(load);
                    let (_, accepted) = p.figures();
                    if accepted < (1.0 - self.plan.threshold) * offered {
                        p.short = Some(offered);
                    }
                }
                return p;
            }
            period *= 2.0;
        }
    }
}

/// `timewarp curve`.
pub(crate) fn run(models: &Models, a: &CurveArgs) -> Result<(), Failure> {
    run_with(models, a, None)
}

/// `timewarp curve`, each run started again or made by `in_process`.
pub(crate) fn run_with(models: &Models, a: &CurveArgs, in_process: Option<InProcess>) -> Result<(), Failure> {
    let plan = Plan::from(a).map_err(Failure::Usage)?;
    let model = match plan.run.first() {
        Some(m) if !m.starts_with('-') => m.clone(),
        _ => {
            return Err(Failure::Usage(format!(
                "curve needs the network model: {} curve network [OPTIONS] --load FROM:TO -o curve.csv",
                crate::program::name()
            )))
        }
    };
    if model != "network" || models.get(&model).is_none() {
        return Err(Failure::Usage(format!(
            "curve runs the network model (offered load against latency), not `{model}`; for other options use \
             `{} sweep`",
            crate::program::name()
        )));
    }
    let opts = run_options::options(models, &model).expect("registered");
    let entry = models.get(&model).expect("registered");
    if let Err(e) = entry.command().try_get_matches_from(&plan.run) {
        let text = e.render().to_string();
        let first = text.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
        return Err(Failure::Usage(format!("curve: {first} (in the options of every run)")));
    }
    let given: Vec<String> = run_options::groups(&plan.run, &opts).into_iter().filter_map(|(n, _)| n).collect();
    if let Some(r) = REFUSED.iter().find(|r| given.iter().any(|g| g == *r)) {
        return Err(Failure::Usage(format!(
            "curve: leave --{r} out: the curve sets each run's load, length and warm-up itself and writes its own \
             files (use --load FROM:TO for the loads, --sample-period and --max-end for the lengths)"
        )));
    }
    let exe = match in_process {
        Some(_) => PathBuf::new(),
        None => {
            std::env::current_exe().map_err(|e| Failure::Runs(format!("cannot find this program to run it: {e}")))?
        }
    };
    let r = Runner { exe, in_process, fixed: plan.run.clone(), plan: &plan, progress: Progress::new() };
    let mut points: Vec<Point> = Vec::new();
    for &load in &plan.loads {
        // Past the first unstable load, one run a point: they are past the knee.
        let past = points.iter().any(|p| p.outcome.is_ok() && !p.stable());
        points.push(r.point(load, false, !past));
    }
    // Bisection between the highest steady load below the first unstable one and it.
    let first_bad = points.iter().find(|p| p.outcome.is_ok() && !p.stable()).map(|p| p.load);
    if let Some(mut hi) = first_bad {
        if let Some(mut lo) = points.iter().filter(|p| p.stable() && p.load < hi).map(|p| p.load).reduce(f64::max) {
            for _ in 0..plan.refine {
                let mid = ((lo + hi) / 2.0 * 1e9).round() / 1e9;
                if mid <= lo || mid >= hi {
                    break;
                }
                let p = r.point(mid, true, true);
                if p.outcome.is_err() {
                    points.push(p);
                    break;
                }
                if p.stable() {
                    lo = mid;
                } else {
                    hi = mid;
                }
                points.push(p);
            }
        }
    }
    r.progress.clear();
    points.sort_by(|a, b| a.load.total_cmp(&b.load));
    // Points whose periods the cap kept short of their latency, though the
    // network carried what they offered: their latency, and whether they
    // are steady, are not known (past saturation, where it carries less,
    // every period is short of a latency that grows without bound).
    let brief: Vec<&Point> = points.iter().filter(|p| p.brief.is_some() && p.carried(plan.threshold)).collect();
    if let Some(p) = brief.first() {
        eprintln!(
            "warning: {} point(s) that carried their load measured over sample periods shorter than \
             {LATENCIES_PER_PERIOD} mean latencies (load {}: periods of {} against a latency of {}): their latency \
             and status are not reliable; raise --max-end (or --sample-period)",
            brief.len(),
            p.load,
            crate::readable::time_ns(p.period),
            crate::readable::time_ns(p.brief.unwrap_or(0.0))
        );
    }
    let text = output::csv(&points).map_err(Failure::Runs)?;
    std::fs::write(&plan.output, &text)
        .map_err(|e| Failure::Runs(format!("cannot write the curve to {}: {e}", plan.output.display())))?;
    let pictures = output::pictures(&plan.output, &text).map_err(Failure::Runs)?;
    print!("{}", output::summary(&points, &plan));
    let names: Vec<String> = std::iter::once(&plan.output).chain(&pictures).map(|p| p.display().to_string()).collect();
    println!("written: {}", names.join(", "));
    let failed = points.iter().filter(|p| p.outcome.is_err()).count();
    if failed > 0 {
        return Err(Failure::Runs(format!(
            "{failed} of {} runs failed; the error column of {} says why",
            points.len(),
            plan.output.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_specs_give_ranges_and_lists_and_refuse_the_rest() {
        assert_eq!(loads("0.1:0.3:0.1").unwrap(), vec![0.1, 0.2, 0.3]);
        assert_eq!(loads("0.1:0.2").unwrap().len(), 11);
        assert_eq!(loads("0.5,0.25,0.5").unwrap(), vec![0.25, 0.5]);
        assert_eq!(loads("0.4:0.4").unwrap(), vec![0.4]);
        for bad in ["0.5:0.1", "a:b", "0:0.5", "0.1:1.5:0.5", "0.1:0.2:0", "1:2:3:4", "0.1:0.9:0.0001"] {
            assert!(loads(bad).unwrap_err().contains("FROM:TO"), "{bad}");
        }
    }
}
