//! What `run`, `verify` and `resume` do with a model once its options are
//! parsed: the [`Action`]s of [`Run`] and [`Verify`] (the requests, which
//! the registry's type-erased dispatch names, are defined there).

use crate::args::{self, switches, EngineArgs};
use crate::effective::Effective;
use crate::execute::{execute, Hooks, Outputs};
use crate::procs::{Checkpoints, Procs};
use crate::registry::{self, Act, Action, Entry, Models, Run, Verify};
use crate::stats_out::StatsOut;
use crate::{program, resume, signals, trace_out};
use clap::ArgMatches;
use serde_json::Value;
use std::ffi::OsString;
use std::path::Path;
use timewarp::checkpoint::{Control, InputFiles};
use timewarp::Model;

impl Run<'_> {
    /// Checks `inputs`, the files the model's build and the engine options
    /// are about to read, against the checkpoint a resume starts from (on
    /// every process, each reads them), and keeps their fingerprints for
    /// this run's checkpoints.
    pub(crate) fn inputs(&self, engine: &EngineArgs, inputs: Vec<InputFiles>) -> Result<(), String> {
        let resume = self.resume.take();
        let found = match &resume {
            Some(ck) => self.procs.agree(ck.check_inputs(&inputs).map_err(|e| e.to_string())),
            // Only rank 0 writes checkpoints.
            None if engine.checkpoint_dir.is_some() && self.procs.rank() == 0 => {
                Ok(timewarp::checkpoint::fingerprint(&inputs))
            }
            None => Ok(Vec::new()),
        };
        self.resume.set(resume);
        self.inputs.set(found?);
        Ok(())
    }
}

impl Action for Run<'_> {
    fn apply<M: Model>(
        &self,
        model: &M,
        engine: &EngineArgs,
        sizing: &str,
        params: &str,
        hooks: Hooks<'_, M::Results>,
    ) -> Result<Option<Value>, String> {
        // `--sync auto` becomes a mode before anything reads it. The rule
        // reads only the options and the model: every process picks the same.
        let engine = &engine.resolve(model, self.procs.size(), false);
        if let (Some(c), 0, false) = (&engine.auto, self.procs.rank(), engine.quiet) {
            eprintln!("{}", c.line());
        }
        let mut cfg = engine.config_for(model.name(), model.num_lps())?;
        if self.embedded {
            // The embedding program shows progress its own way (a sink), if at all.
            cfg.progress = false;
            cfg.progress_sink = self.progress.clone();
        }
        // What a checkpoint must match: the model's tokens of the command line and the seed.
        let history = resume::identity(&self.command, engine.seed);
        let mut plan = engine.plan(&self.command, history.clone())?;
        plan.inputs = self.inputs.take();
        let start = match self.resume.take() {
            Some(file) => Some(file.load(model, Some(&history)).map_err(|e| e.to_string())?),
            None => {
                self.procs.agree(fits(model, &cfg, self.procs.size(), sizing))?;
                None
            }
        };
        trace_out::usable(engine, start.is_some())?;
        if self.procs.rank() == 0 {
            for note in engine.notes(&cfg, model.num_lps(), cfg.pes_per_process() * self.procs.size()) {
                eprintln!("{note}");
            }
        }
        // What the statistics file records to reproduce the run: the version,
        // the command line and every option's value.
        let config = Effective::of(self.models, &self.command, false)?
            .to_json(&std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>());
        let out = Outputs { params, config, temporaries: self.temporaries };
        self.started.set(true);
        let ck = Checkpoints { plan, start, control: self.control, stoppable: self.embedded };
        execute(model, &cfg, engine, self.procs, out, hooks, ck)
    }
}

impl Action for Verify<'_> {
    fn apply<M: Model>(
        &self,
        model: &M,
        engine: &EngineArgs,
        sizing: &str,
        _params: &str,
        _hooks: Hooks<'_, M::Results>,
    ) -> Result<Option<Value>, String> {
        if self.procs.size() > 1 {
            return Err(format!(
                "verify runs in one process, but this run has {} MPI processes; run `{p} run` under mpirun \
                 and compare its digest with `{p} run --sync sequential`",
                self.procs.size(),
                p = program::name()
            ));
        }
        if engine.checkpoint_dir.is_some() {
            return Err("verify does not write checkpoints: leave --checkpoint-dir out".into());
        }
        if engine.profile_out.is_some() {
            return Err(format!("--profile-out profiles a run; use it with `{} run`, not verify", program::name()));
        }
        if engine.trace_out.is_some() {
            return Err(format!("--trace-out records a run; use it with `{} run`, not verify", program::name()));
        }
        if engine.stats_csv.is_some() || engine.gvt_csv.is_some() {
            return Err(format!(
                "--stats-csv and --gvt-csv record a run; use them with `{} run` (verify writes both runs' \
                 statistics with --stats-json)",
                program::name()
            ));
        }
        if engine.sync == args::SyncArg::Sequential {
            return Err("verify compares a sequential run with a parallel one, and --sync names the parallel one: \
                        give --sync optimistic (the default), conservative, check or auto"
                .into());
        }
        // auto: the parallel mode it would pick with more than one thread.
        let engine = &engine.resolve(model, 1, true);
        if let (Some(c), false) = (&engine.auto, engine.quiet) {
            eprintln!("{}", c.line());
        }
        let cfg = engine.config_for(model.name(), model.num_lps())?;
        fits(model, &cfg, 1, sizing)?;
        for note in engine.notes(&cfg, model.num_lps(), cfg.pes_per_process()) {
            eprintln!("{note}");
        }
        verify(model, cfg, engine, self.temporaries).map(|()| None)
    }
}

/// `timewarp resume FILE [OPTIONS]`: the checkpoint's command line with
/// `options` in place, run from the checkpoint (`embedded`: as [`run`]'s).
pub(crate) fn resume_from(
    procs: &Procs,
    models: &Models,
    file: &Path,
    options: &[String],
    embedded: Option<&Embedding>,
) -> Result<(), String> {
    let ck = timewarp::checkpoint::File::open(file).map_err(|e| e.to_string())?;
    if ck.header.command.is_empty() {
        return Err(format!(
            "checkpoint {}: written by a program other than the timewarp command (no command line in it); \
             resume it with that program (timewarp::checkpoint::File::load)",
            file.display()
        ));
    }
    let command = resume::merge(&ck.header.command, options)?;
    // The network's LP-IO counters are out of the router's encoding (so of
    // checkpoints): refused now rather than after the whole run.
    if command.iter().any(|a| a == "--lp-io-dir" || a.starts_with("--lp-io-dir=")) {
        return Err(format!(
            "checkpoint {}: its run writes --lp-io-dir, whose counters checkpoints do not carry; \
             run it again from the start (timewarp run {})",
            file.display(),
            ck.header.command.join(" ")
        ));
    }
    // `--quiet=false` has replaced a stored `--quiet`; now it goes.
    let command: Vec<String> = switches(command.into_iter().map(OsString::from).collect())
        .iter()
        .map(|t| t.to_string_lossy().into_owned())
        .collect();
    let entry = command.first().and_then(|name| models.get(name)).ok_or_else(|| {
        format!(
            "checkpoint {}: its model {:?} is not one of this program's ({})",
            file.display(),
            command.first().map(String::as_str).unwrap_or_default(),
            models.names()
        )
    })?;
    let m = match entry.command().try_get_matches_from(&command) {
        Ok(m) => m,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => {
            let _ = e.print();
            return Ok(());
        }
        // One line: clap's usage hints would point at `resume`'s own options.
        Err(e) => {
            let m = registry::clap_message(&e);
            return Err(format!("resume: {}", m.lines().next().unwrap_or_default()));
        }
    };
    run(procs, models, entry, &m, command, Some(ck), embedded)
}

/// An embedded run's stop request and where it says that its model was
/// built (errors before are the input's).
pub(crate) struct Embedding<'a> {
    pub(crate) control: &'a Control,
    pub(crate) started: &'a std::cell::Cell<bool>,
    /// Where the run reports its progress (the embedding program's bar).
    pub(crate) progress: Option<&'a timewarp::ProgressSink>,
}

/// `timewarp run` of `entry` with its options `m` (`command`, what followed
/// `run`, as a checkpoint stores it), from the start or from `resume`, with
/// the signals watched (pause at a cut, or stop); `embedded`, by an
/// embedding program ([`crate::embed`]): no signals watched, stopped by its
/// control, interrupted without ending the process.
pub(crate) fn run(
    procs: &Procs,
    models: &Models,
    entry: &dyn Entry,
    m: &ArgMatches,
    command: Vec<String>,
    resume: Option<timewarp::checkpoint::File>,
    embedded: Option<&Embedding>,
) -> Result<(), String> {
    let own = Control::default();
    let temporaries = signals::Temporaries::default();
    let control = match embedded {
        Some(e) => e.control,
        None => {
            signals::watch(&own, signals::Pause::of(m, procs), &temporaries, procs.rank() == 0);
            &own
        }
    };
    let run = Run {
        procs,
        models,
        command,
        control,
        temporaries: &temporaries,
        resume: resume.into(),
        inputs: Default::default(),
        embedded: embedded.is_some(),
        progress: embedded.and_then(|e| e.progress.cloned()),
        started: Default::default(),
    };
    let done = entry.dispatch(m, Act::Run(&run));
    if let Some(e) = embedded {
        e.started.set(run.started.get());
    }
    done
}

/// Refuses a configuration that cannot fit in this machine's memory or
/// under the process's limit (`ulimit -v`), naming the options that make it
/// big (`sizing` for the model's size), before anything is allocated. One
/// of `processes` processes holds its share.
fn fits<M: Model>(model: &M, cfg: &timewarp::Config, processes: usize, sizing: &str) -> Result<(), String> {
    use timewarp::memory::{human, Estimate, Limit};
    let Some(limit) = Limit::current() else { return Ok(()) };
    let e = Estimate::of(model, cfg, processes);
    if limit.fits(e.total(), cfg.threads) {
        return Ok(());
    }
    let (what, fix) = if e.rings > e.lps.saturating_add(e.events) {
        (format!("--threads {}", cfg.threads), "use fewer threads".to_string())
    } else {
        let more = if cfg!(feature = "mpi") { ", more MPI processes" } else { "" };
        (sizing.to_string(), format!("make the model smaller{more}{}", limit.remedy()))
    };
    Err(format!(
        "{what} needs about {} of memory (model state {}, initial events {}, rings between threads {}), \
         but {}; {fix}",
        human(e.total()),
        human(e.lps),
        human(e.events),
        human(e.rings),
        limit.describe(),
    ))
}

/// `timewarp verify`: sequential against the requested parallel configuration.
fn verify<M: Model>(
    model: &M,
    mut cfg: timewarp::Config,
    engine: &EngineArgs,
    temporaries: &signals::Temporaries,
) -> Result<(), String> {
    cfg.progress = false;
    let stats_out = engine.stats_json.as_deref().map(|p| StatsOut::open(p, temporaries)).transpose()?;
    let v = match timewarp::verify::verify(model, &cfg) {
        Ok(v) => v,
        Err(e) => return Err(args::describe(&e)),
    };
    let par = match cfg.pes {
        Some(pes) if pes != cfg.threads => format!("{} with {} thread(s) on {pes} PEs", cfg.sync.name(), cfg.threads),
        _ => format!("{} with {} thread(s)", cfg.sync.name(), cfg.threads),
    };
    let line = match &v.divergence {
        None => format!(
            "verify: OK: sequential and {par} commit the same history ({} events, digest {}, efficiency {})",
            crate::readable::count(v.sequential.committed_events),
            v.sequential.digest,
            timewarp::text::percent(v.parallel.efficiency)
        ),
        Some(d) => format!(
            "verify: MISMATCH between sequential (digest {}, {} events) and {par} (digest {}, {} events): {d}",
            v.sequential.digest, v.sequential.committed_events, v.parallel.digest, v.parallel.committed_events
        ),
    };
    // Both runs' statistics, whatever the verdict.
    if let Some(out) = stats_out {
        let mut json = serde_json::json!({
            "identical": v.divergence.is_none(),
            "divergence": v.divergence.as_ref().map(ToString::to_string),
            "sequential": v.sequential,
            "parallel": v.parallel,
        });
        crate::auto::keys(&mut json, engine.auto.as_ref());
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        let to_stdout = out.is_stdout();
        out.write(&text)?;
        if v.divergence.is_none() && !engine.quiet {
            if to_stdout {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        }
    } else if v.divergence.is_none() && !engine.quiet {
        println!("{line}");
    }
    match v.divergence {
        None => Ok(()),
        Some(_) => Err(line),
    }
}
