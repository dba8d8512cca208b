//! `timewarp sweep`: a model run over the cartesian product of option
//! values (or, with `--zip`, over the values taken in step), one run after
//! another, one CSV row per run: the engine's figures and every scalar of
//! the model's results.
//!
//! Each run is this program started again (`timewarp run ... --quiet
//! --stats-json TMP`), not a call in this process: peak memory is a
//! process' high-water mark (it would only grow over an in-process sweep),
//! and a run that fails in any way (a refused value, a panic, running out
//! of memory) ends its own process only, becomes a row with its error, and
//! the sweep goes on. The run goes through the same parser and code path as
//! a typed `timewarp run`. Starting the runs is `rerun.rs`'s (curve's runs
//! too); the CSV and its rows are `rows.rs`'s.

use std::path::PathBuf;

use clap::Args;

mod rows;

use rows::{run_one, Csv, Figures};

use crate::args::whole;
use crate::registry::Models;
use crate::rerun::{InProcess, Progress};
use crate::run_file::with_file;
use crate::run_options::{self, Kind, Opt};

/// Options a sweep cannot take: each run's statistics are its row.
const REFUSED: &[&str] = &["stats-json", "stats-csv", "gvt-csv", "trace-out", "profile-out", "checkpoint-dir"];

/// `timewarp sweep` options.
#[derive(Args, Debug)]
pub(crate) struct SweepArgs {
    /// An option (engine or model, named as on the command line without
    /// `--`) and its values: NAME=V1,V2,... Repeat for more options; every
    /// combination runs. A list-valued option separates values with `;`
    /// (dims=8,8;16,16); a switch takes true,false.
    #[arg(long = "set", value_name = "NAME=V1,V2,...")]
    pub set: Vec<String>,
    /// Pair the --set options' values instead of crossing them: run i takes
    /// the i-th value of every --set (all must list as many values).
    #[arg(long)]
    pub zip: bool,
    /// Runs of each combination (the same seed each time: the spread of the
    /// timings; sweep --set seed=1,2,3 for different histories).
    #[arg(long, value_name = "N", value_parser = whole::<u32>(1, 1_000_000), allow_negative_numbers = true)]
    pub reps: Option<u32>,
    /// The CSV file to write (`-`: standard output).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A run file (as for `timewarp run --config`) with the model and its fixed options.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The model and its fixed options, as for `timewarp run`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "MODEL [OPTIONS]")]
    pub run: Vec<String>,
}

/// The text after `sweep --help` of program `name` whose first model is `model`.
pub(crate) fn after_help(name: &str, model: &str) -> String {
    // The shipped models' example sweeps a model option; any model has the engine's.
    let example = if model == "phold" {
        format!("{name} sweep phold --lps 1024 --sync optimistic --set remote=0.1,0.5,1.0 --set threads=1,2")
    } else {
        format!("{name} sweep {model} --sync optimistic --set threads=1,2 --set batch=8,16")
    };
    let docs = if name == "timewarp" { " (see docs/running.md)" } else { "" };
    format!(
        "Example: {example} --reps 3 -o sweep.csv\n\nThe CSV has a header row; then a row per run: the swept options \
         (by name), rep, committed_events, event_rate (committed events per second), efficiency, rolled_back_events, \
         peak_memory_bytes, wall_seconds, digest, digest_version (what defines the digest: compare digests of one \
         version only), every scalar of the model's results by its name in alphabetical order (`result.NAME` where \
         NAME is a column already), and error (empty unless the run failed). --zip pairs the --set values instead of \
         crossing them (--set sync=sequential,optimistic --set threads=1,2 --zip: two runs). A failed run is a row \
         with its error and the sweep goes on; the exit status is then 1 (0 when every run ran). Each run is the same \
         program started again{docs}."
    )
}

/// How a sweep failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A bad command line (exit 2): nothing ran.
    Usage(String),
    /// Some runs failed (or the CSV could not be written).
    Runs(String),
}

/// The sweep's own options, wherever they were given (after the model name
/// they reach clap as the model's tokens).
#[derive(Debug, Default)]
struct Plan {
    sets: Vec<String>,
    zip: bool,
    reps: Option<u32>,
    output: Option<PathBuf>,
    config: Option<PathBuf>,
    run: Vec<String>,
}

impl Plan {
    fn from(a: &SweepArgs) -> Result<Self, String> {
        let mut p = Plan {
            sets: a.set.clone(),
            zip: a.zip,
            reps: a.reps,
            output: a.output.clone(),
            config: a.config.clone(),
            run: Vec::new(),
        };
        let mut it = a.run.iter();
        while let Some(t) = it.next() {
            let (name, inline) = match t.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
                _ => (t.as_str(), None),
            };
            if name == "--zip" && inline.is_none() {
                p.zip = true;
                continue;
            }
            if !matches!(name, "--set" | "--reps" | "-o" | "--output" | "--config") {
                p.run.push(t.clone());
                continue;
            }
            let value = match inline {
                Some(v) => v,
                None => it.next().cloned().ok_or_else(|| format!("{name} needs a value"))?,
            };
            match name {
                "--set" => p.sets.push(value),
                "--reps" => p.reps = Some(whole::<u32>(1, 1_000_000)(&value).map_err(|e| format!("--reps: {e}"))?),
                "--config" => p.config = Some(value.into()),
                _ => p.output = Some(value.into()),
            }
        }
        Ok(p)
    }
}

/// One swept option: its name and values.
struct Axis {
    opt: Opt,
    values: Vec<String>,
}

impl Axis {
    /// `NAME=V1,V2,...` for `model`.
    fn parse(spec: &str, model: &str, opts: &[Opt]) -> Result<Self, String> {
        let Some((name, values)) = spec.split_once('=') else {
            return Err(format!("--set {spec}: expected NAME=V1,V2,... (e.g. --set remote=0.1,0.5)"));
        };
        let long = name.trim().trim_start_matches("--").replace('_', "-");
        let Some(opt) = opts.iter().find(|o| o.long == long) else {
            let hint = match run_options::nearest(&long, opts.iter().map(|o| o.long.as_str())) {
                Some(n) => format!("did you mean `{n}`?"),
                None => format!("see `{} run {model} --help` for the options", crate::program::name()),
            };
            return Err(format!("--set {spec}: {model} has no option `{long}`; {hint}"));
        };
        if REFUSED.contains(&long.as_str()) || long == "quiet" {
            return Err(format!("--set {spec}: `{long}` is not swept (each run's statistics are its row)"));
        }
        let sep = if opt.kind == Kind::List || values.contains(';') { ';' } else { ',' };
        let values: Vec<String> = values.split(sep).map(|v| v.trim().to_string()).collect();
        if values.iter().any(String::is_empty) {
            return Err(format!("--set {spec}: an empty value; give NAME=V1,V2,... with no empty item"));
        }
        if opt.kind == Kind::Flag && values.iter().any(|v| v != "true" && v != "false") {
            return Err(format!("--set {spec}: `{long}` is a switch; its values are true and false"));
        }
        Ok(Axis { opt: opt.clone(), values })
    }

    /// The tokens that set this option to `value`.
    fn tokens(&self, value: &str) -> Vec<String> {
        match (self.opt.kind, value) {
            (Kind::Flag, "true") => vec![format!("--{}", self.opt.long)],
            (Kind::Flag, _) => vec![],
            _ => vec![format!("--{}={value}", self.opt.long)],
        }
    }
}

/// Every combination of the axes' value indices, the first axis slowest.
fn product(axes: &[Axis]) -> Vec<Vec<usize>> {
    axes.iter().fold(vec![vec![]], |acc, a| {
        acc.into_iter().flat_map(|p| (0..a.values.len()).map(move |i| [p.clone(), vec![i]].concat())).collect()
    })
}

/// The axes' values taken in step: run i takes value i of each (`--zip`).
fn zipped(axes: &[Axis]) -> Result<Vec<Vec<usize>>, String> {
    let n = axes.first().map_or(0, |a| a.values.len());
    if let Some(b) = axes.iter().find(|a| a.values.len() != n) {
        let counts: Vec<String> = axes.iter().map(|a| format!("{} has {}", a.opt.long, a.values.len())).collect();
        return Err(format!(
            "--zip pairs the i-th values of every --set, so each needs as many values ({}); give `{}` {n} values, \
             or leave --zip out for every combination",
            counts.join(", "),
            b.opt.long
        ));
    }
    Ok((0..n).map(|i| vec![i; axes.len()]).collect())
}

/// `timewarp sweep`.
pub(crate) fn run(models: &Models, a: &SweepArgs) -> Result<(), Failure> {
    run_with(models, a, None)
}

/// `timewarp sweep`, each run started again or made by `in_process`.
pub(crate) fn run_with(models: &Models, a: &SweepArgs, in_process: Option<InProcess>) -> Result<(), Failure> {
    let p = Plan::from(a).map_err(Failure::Usage)?;
    // `timewarp sweep phold --help`: the model's options, which a sweep takes.
    if p.run.iter().any(|t| t == "--help" || t == "-h") {
        match p.run.first().and_then(|m| models.get(m)) {
            Some(entry) => {
                if let Err(e) = entry.command().try_get_matches_from(&p.run) {
                    let _ = e.print();
                }
            }
            None => eprintln!("sweep: name a model before --help (one of {})", models.names()),
        }
        return Ok(());
    }
    let Some(output) = p.output.clone() else {
        return Err(Failure::Usage("sweep needs -o FILE: the CSV file to write (- for standard output)".into()));
    };
    if p.sets.is_empty() {
        return Err(Failure::Usage(
            "sweep needs at least one --set NAME=V1,V2,... (e.g. --set remote=0.1,0.5 --set threads=1,2)".into(),
        ));
    }
    let base = match &p.config {
        Some(file) => with_file(models, file, &p.run, &mut Vec::new()).map_err(Failure::Usage)?,
        None => p.run.clone(),
    };
    let model = match base.first() {
        Some(m) if !m.starts_with('-') => m.clone(),
        _ => {
            return Err(Failure::Usage(format!(
                "sweep needs a model: {} sweep <model> --set NAME=V1,V2,... -o FILE (or --config FILE)",
                crate::program::name()
            )))
        }
    };
    let Some(opts) = run_options::options(models, &model) else {
        return Err(Failure::Usage(format!("sweep: no model `{model}`; see `{} list`", crate::program::name())));
    };
    let axes: Vec<Axis> =
        p.sets.iter().map(|s| Axis::parse(s, &model, &opts)).collect::<Result<_, _>>().map_err(Failure::Usage)?;
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.opt.long == a.opt.long) {
            return Err(Failure::Usage(format!("--set {}: given twice; list all its values in one --set", a.opt.long)));
        }
    }
    // The fixed options must make a valid run by themselves (clap's checks).
    let entry = models.get(&model).expect("options found it");
    if let Err(e) = entry.command().try_get_matches_from(&base) {
        let text = e.render().to_string();
        let first = text.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
        return Err(Failure::Usage(format!("sweep: {first} (in the options of every run)")));
    }
    let given: Vec<String> = run_options::groups(&base, &opts).into_iter().filter_map(|(n, _)| n).collect();
    if let Some(r) = REFUSED.iter().find(|r| given.iter().any(|g| g == *r)) {
        return Err(Failure::Usage(format!(
            "sweep: leave --{r} out: each run's statistics are its row of the CSV (run one point with `{} run` \
             for its files)",
            crate::program::name()
        )));
    }
    let names: Vec<String> = axes.iter().map(|a| a.opt.long.clone()).collect();
    let fixed = run_options::without(&base, &names, &opts);
    let exe = match in_process {
        Some(_) => PathBuf::new(),
        None => {
            std::env::current_exe().map_err(|e| Failure::Runs(format!("cannot find this program to run it: {e}")))?
        }
    };

    let points = if p.zip { zipped(&axes).map_err(Failure::Usage)? } else { product(&axes) };
    let mut csv = Csv::open(&output, &names).map_err(Failure::Runs)?;
    let reps = p.reps.unwrap_or(1);
    let total = points.len() * reps as usize;
    let progress = Progress::new();
    let (mut done, mut failed) = (0, 0);
    for point in &points {
        let values: Vec<&str> = axes.iter().zip(point).map(|(a, &i)| a.values[i].as_str()).collect();
        let label: Vec<String> = names.iter().zip(&values).map(|(n, v)| format!("{n}={v}")).collect();
        for rep in 1..=reps {
            progress.show(&format!("sweep: run {}/{total}: {} rep {rep}", done + 1, label.join(" ")));
            let mut tokens = fixed.clone();
            for (a, v) in axes.iter().zip(&values) {
                tokens.extend(a.tokens(v));
            }
            let outcome = match in_process {
                Some(r) => r(&tokens).map(|json| Figures::of(&json)),
                None => run_one(&exe, &tokens),
            };
            failed += usize::from(outcome.is_err());
            csv.row(&values, rep, outcome).map_err(Failure::Runs)?;
            done += 1;
        }
    }
    progress.clear();
    csv.finish().map_err(Failure::Runs)?;
    let shown = if output.as_os_str() == "-" { "standard output".into() } else { output.display().to_string() };
    let line = format!("sweep: {total} runs, {failed} failed; written to {shown}");
    if output.as_os_str() == "-" {
        eprintln!("{line}");
    } else if in_process.is_none() {
        // (An embedding program reads the file it named and says what it wants.)
        println!("{line}");
    }
    if failed > 0 {
        return Err(Failure::Runs(format!("{failed} of {total} runs failed; the error column of {shown} says why")));
    }
    Ok(())
}

#[cfg(all(test, feature = "models"))]
mod tests {
    use super::*;

    #[test]
    fn the_product_varies_the_last_option_fastest() {
        let opts = run_options::options(&crate::shipped(), "phold").unwrap();
        let axes = vec![
            Axis::parse("remote=0.1,0.5", "phold", &opts).unwrap(),
            Axis::parse("threads=1,2,4", "phold", &opts).unwrap(),
        ];
        let p = product(&axes);
        assert_eq!(p.len(), 6);
        assert_eq!(p[0], vec![0, 0]);
        assert_eq!(p[1], vec![0, 1]);
        assert_eq!(p[5], vec![1, 2]);
    }

    #[test]
    fn zip_takes_the_values_in_step_and_needs_equal_lists() {
        let opts = run_options::options(&crate::shipped(), "phold").unwrap();
        let axes = vec![
            Axis::parse("sync=sequential,optimistic", "phold", &opts).unwrap(),
            Axis::parse("threads=1,2", "phold", &opts).unwrap(),
        ];
        assert_eq!(zipped(&axes).unwrap(), vec![vec![0, 0], vec![1, 1]]);
        let uneven = vec![axes.into_iter().next().unwrap(), Axis::parse("threads=1,2,4", "phold", &opts).unwrap()];
        assert!(zipped(&uneven).unwrap_err().contains("sync has 2, threads has 3"));
    }

    #[test]
    fn axes_take_lists_switches_and_refuse_typos() {
        let opts = run_options::options(&crate::shipped(), "network").unwrap();
        let dims = Axis::parse("dims=8,8;16,16", "network", &opts).unwrap();
        assert_eq!(dims.values, vec!["8,8", "16,16"]);
        assert_eq!(dims.tokens("8,8"), vec!["--dims=8,8"]);
        let phold = run_options::options(&crate::shipped(), "phold").unwrap();
        let flag = Axis::parse("interleave=true,false", "phold", &phold).unwrap();
        assert_eq!(flag.tokens("true"), vec!["--interleave"]);
        assert!(flag.tokens("false").is_empty());
        let e = Axis::parse("remot=0.1", "phold", &phold).err().unwrap();
        assert!(e.contains("did you mean `remote`"), "{e}");
        assert!(Axis::parse("remote", "phold", &phold).err().unwrap().contains("NAME=V1,V2"));
        assert!(Axis::parse("remote=0.1,,0.2", "phold", &phold).err().unwrap().contains("empty"));
        assert!(Axis::parse("stats-json=a,b", "phold", &phold).err().unwrap().contains("not swept"));
    }
}
