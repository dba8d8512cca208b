//! The `timewarp` command: run the shipped models under any synchronisation mode.

mod args;
mod config;
mod csv_stats;
mod models;
mod partition;
mod plot;
mod report;
mod resume;
mod sweep;

use args::EngineArgs;
use clap::{Parser, Subcommand};
use models::ModelCmd;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use timewarp::checkpoint::{Control, Plan, Snapshot};
use timewarp::Model;

/// Exit code of a run stopped on request (SIGINT, SIGTERM) after writing a
/// checkpoint: a batch script can tell it from a failure (1) or a usage
/// error (2) and resume.
const EXIT_CHECKPOINTED: u8 = 3;

/// timewarp: an optimistic (Time Warp) parallel discrete-event simulator.
#[derive(Parser, Debug)]
// No help screen for a missing subcommand: the error and the usage line.
#[command(name = "timewarp", version, about, propagate_version = true, arg_required_else_help = false)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Run a model and print a summary (see `timewarp run <model> --help`).
    #[command(
        arg_required_else_help = false,
        after_help = "Run files: `timewarp run --config FILE [OPTIONS]` reads the model and its options from a TOML \
file ([engine] and [model] tables, keys named like the options: threads = 2, kps-per-pe = 8; [model] name = \"phold\", \
remote = 0.5) or from a --stats-json file of an earlier run (its `config` object), to reproduce that run. Options on \
the command line replace the file's. `--print-config` prints the effective configuration as TOML and exits. \
See docs/running.md."
    )]
    Run {
        #[command(subcommand)]
        model: ModelCmd,
    },
    /// Run a model sequentially and in parallel and compare what they commit
    /// (exit 0 when identical; otherwise report the first LP and event that differ).
    #[command(arg_required_else_help = false)]
    Verify {
        #[command(subcommand)]
        model: ModelCmd,
    },
    /// Continue a run from a checkpoint written with --checkpoint-dir, to its
    /// end time (or an earlier --end), in any mode, thread or process count.
    #[command(after_help = "OPTIONS are engine options of `timewarp run <model>` (--sync, --threads, --mapping, \
--end, --queue, --batch, --gvt-interval, --kps-per-pe, --event-memory, --optimism, --stats-json, --stats-csv, --gvt-csv, --quiet, \
--checkpoint-dir, --checkpoint-every, --checkpoint-wall, --checkpoint-keep); they replace those of the run that \
wrote the checkpoint, and the others stay as they were. The model, its options and --seed come from the checkpoint.")]
    Resume {
        /// The checkpoint file (DIR/ckpt-<GVT>.twc).
        file: PathBuf,
        /// Engine options (see below).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "OPTIONS")]
        options: Vec<String>,
    },
    /// Run a model over the cartesian product of option values, one run
    /// after another, writing one CSV row per run.
    Sweep(sweep::SweepArgs),
    /// List the shipped models.
    List,
    /// Partition a profile (`run ... --profile-out FILE`) into a mapping
    /// for `run ... --mapping MAPPING`; prints the cut, the imbalance and
    /// the predicted remote fractions.
    Partition(partition::PartitionArgs),
    /// Plot run statistics (--stats-json; several overlay) or a sweep's CSV as PNG or SVG.
    Plot(plot::PlotArgs),
    /// Write a self-contained HTML page of a run's statistics, configuration, plots and results.
    Report(report::ReportArgs),
}

/// What to do with a model's typed results after a run (write its files).
type After<'a, R> = &'a dyn Fn(&R) -> Result<(), String>;

/// What to do with a model once its options are parsed (generic over the
/// model type); returns the model results when it ran the model here, after
/// handing them to `after`.
trait Action {
    /// `sizing` names the model's options that set its size (for the memory
    /// check); `params` its parsed options (written into profiles).
    fn apply<M: Model>(
        &self,
        model: &M,
        engine: &EngineArgs,
        sizing: &str,
        params: &str,
        after: After<'_, M::Results>,
    ) -> Result<Option<Value>, String>;
}

/// Nothing to do after the run.
fn nothing<R>(_: &R) -> Result<(), String> {
    Ok(())
}

/// `timewarp run` (or `resume`), in this process (and, with MPI, its peers).
struct Run<'a> {
    procs: &'a Procs,
    /// What followed `timewarp run` (a checkpoint stores it).
    command: Vec<String>,
    /// Asks the run to pause (signals).
    control: &'a Control,
    /// The checkpoint to continue from.
    /// (Taken when the model is built: its bytes go once the snapshot is decoded.)
    resume: std::cell::Cell<Option<timewarp::checkpoint::File>>,
}
struct Verify<'a> {
    procs: &'a Procs,
}

impl Action for Run<'_> {
    fn apply<M: Model>(
        &self,
        model: &M,
        engine: &EngineArgs,
        sizing: &str,
        params: &str,
        after: After<'_, M::Results>,
    ) -> Result<Option<Value>, String> {
        let cfg = engine.config_for(model.name(), model.num_lps())?;
        // What a checkpoint must match: the model's tokens of the command line and the seed.
        let history = resume::identity(&self.command, engine.seed);
        let plan = engine.plan(&self.command, history.clone())?;
        let start = match self.resume.take() {
            Some(file) => Some(file.load(model, Some(&history)).map_err(|e| e.to_string())?),
            None => {
                self.procs.agree(fits(model, &cfg, self.procs.size(), sizing))?;
                None
            }
        };
        if self.procs.rank() == 0 {
            for note in engine.notes(&cfg, model.num_lps(), cfg.pes_per_process() * self.procs.size()) {
                eprintln!("{note}");
            }
        }
        // What the statistics file records to reproduce the run: the version,
        // the command line and every option's value.
        let config = config::Effective::of(&self.command, false)?
            .to_json(&std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>());
        let out = Outputs { params, config };
        execute(model, &cfg, engine, self.procs, out, after, Checkpoints { plan, start, control: self.control })
    }
}

/// What a run records besides its figures.
struct Outputs<'a> {
    /// The model's parsed options (written into profiles).
    params: &'a str,
    /// The effective configuration (the statistics file's `config`).
    config: Value,
}

/// A run's checkpoint plan, the snapshot it starts from, and what can ask it to pause.
struct Checkpoints<'a, M: Model> {
    plan: Plan,
    start: Option<Snapshot<M>>,
    control: &'a Control,
}

impl Action for Verify<'_> {
    fn apply<M: Model>(
        &self,
        model: &M,
        engine: &EngineArgs,
        sizing: &str,
        _params: &str,
        _after: After<'_, M::Results>,
    ) -> Result<Option<Value>, String> {
        if self.procs.size() > 1 {
            return Err(format!(
                "verify runs in one process, but this run has {} MPI processes; run `timewarp run` under mpirun \
                 and compare its digest with `timewarp run --sync sequential`",
                self.procs.size()
            ));
        }
        if engine.checkpoint_dir.is_some() {
            return Err("verify does not write checkpoints: leave --checkpoint-dir out".into());
        }
        if engine.profile_out.is_some() {
            return Err("--profile-out profiles a run; use it with `timewarp run`, not verify".into());
        }
        if engine.stats_csv.is_some() || engine.gvt_csv.is_some() {
            return Err("--stats-csv and --gvt-csv record a run; use them with `timewarp run` (verify writes both \
                        runs' statistics with --stats-json)"
                .into());
        }
        let cfg = engine.config_for_verify(model.name(), model.num_lps())?;
        fits(model, &cfg, 1, sizing)?;
        for note in engine.notes(&cfg, model.num_lps(), cfg.pes_per_process()) {
            eprintln!("{note}");
        }
        verify(model, cfg, engine).map(|()| None)
    }
}

/// The processes of this run: MPI's when built with the `mpi` feature.
struct Procs {
    #[cfg(feature = "mpi")]
    cluster: timewarp::mpi::Cluster,
}

impl Procs {
    fn init() -> Result<Self, String> {
        #[cfg(not(feature = "mpi"))]
        if let Some((var, size)) = mpi_launcher() {
            return Err(format!(
                "this timewarp was built without MPI, but an MPI launcher started it as one of {size} processes \
                 ({var}={size}): each would run the whole model alone; build it with \
                 `cargo build --release --features mpi` (see the README, MPI), or run it without mpirun"
            ));
        }
        Ok(Procs {
            #[cfg(feature = "mpi")]
            cluster: timewarp::mpi::Cluster::init().map_err(|e| e.to_string())?,
        })
    }
    fn rank(&self) -> usize {
        #[cfg(feature = "mpi")]
        return self.cluster.rank();
        #[cfg(not(feature = "mpi"))]
        0
    }
    fn size(&self) -> usize {
        #[cfg(feature = "mpi")]
        return self.cluster.size();
        #[cfg(not(feature = "mpi"))]
        1
    }
    /// An error on this process alone: with other processes waiting for this
    /// one, say which rank failed and end them all; else return it.
    fn alone(&self, e: String) -> String {
        #[cfg(feature = "mpi")]
        if self.size() > 1 {
            eprintln!("error (rank {}): {e}", self.rank());
            self.cluster.abort(1)
        }
        e
    }

    /// The outcome of a check each process makes on its own (the machine's
    /// memory): refused on every process, it is returned (rank 0 prints it
    /// once); refused on some only, those say so and end the job.
    fn agree(&self, local: Result<(), String>) -> Result<(), String> {
        #[cfg(feature = "mpi")]
        if self.size() > 1 {
            let refused = self.cluster.count(local.is_err());
            if refused > 0 && refused < self.size() {
                if let Err(e) = local {
                    return Err(self.alone(e));
                }
                // Wait for a refusing process to end the job.
                loop {
                    std::thread::sleep(std::time::Duration::from_secs(1));
                }
            }
        }
        local
    }

    /// Runs `model` here (and on every MPI process), with checkpoints as
    /// `ck` says; the report comes back on rank 0 only.
    fn run<M: Model>(
        &self,
        model: &M,
        cfg: &timewarp::Config,
        ck: Checkpoints<'_, M>,
    ) -> Result<Option<timewarp::Report<M::Results>>, timewarp::Error> {
        let plain = ck.plan.dir.is_none() && ck.start.is_none();
        // Pausing on request needs a directory for the checkpoint.
        let none = Control::default();
        let control = if ck.plan.dir.is_some() { ck.control } else { &none };
        #[cfg(feature = "mpi")]
        return if plain {
            timewarp::mpi::run(model, cfg, &self.cluster)
        } else {
            timewarp::mpi::run_checkpointed(model, cfg, &ck.plan, control, ck.start, &self.cluster)
        };
        #[cfg(not(feature = "mpi"))]
        if plain {
            timewarp::run(model, cfg).map(Some)
        } else {
            timewarp::checkpoint::run(model, cfg, &ck.plan, control, ck.start).map(Some)
        }
    }

    /// A run's error as the command line says it; one that only this
    /// process may have hit ends the whole MPI job.
    fn failed(&self, e: timewarp::Error) -> String {
        match e {
            // The same on every process (checked before any message): each
            // returns it and rank 0 alone prints it.
            e @ (timewarp::Error::Config(_) | timewarp::Error::Option { .. }) => args::describe(&e),
            e => self.alone(args::describe(&e)),
        }
    }
}

/// The launcher variable and process count when an MPI launcher (OpenMPI,
/// MPICH / Hydra, PMIx) started this process as one of several.
#[cfg(not(feature = "mpi"))]
fn mpi_launcher() -> Option<(&'static str, u64)> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"].into_iter().find_map(|var| {
        let size: u64 = std::env::var(var).ok()?.trim().parse().ok()?;
        (size > 1).then_some((var, size))
    })
}

/// This process' rank under an MPI launcher (0 without one): only rank 0
/// speaks, so the job's error is printed once.
fn launcher_rank() -> u64 {
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"]
        .into_iter()
        .find_map(|var| std::env::var(var).ok()?.trim().parse().ok())
        .unwrap_or(0)
}

fn main() -> ExitCode {
    let procs = match Procs::init() {
        Ok(p) => p,
        Err(e) => {
            if launcher_rank() == 0 {
                eprintln!("error: {e}");
            }
            return ExitCode::FAILURE;
        }
    };
    let lead = procs.rank() == 0;
    // `run --config FILE`: the file's options go in as command-line tokens.
    let os: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Paths that are not UTF-8 reach clap as they are (a run file is only read from UTF-8 command lines).
    let utf8 = os.iter().all(|a| a.to_str().is_some());
    let argv: Vec<String> = os.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let expanded = match if utf8 { config::expand(argv) } else { Ok(config::Expanded::plain(argv)) } {
        Ok(x) => x,
        Err(e) => {
            if lead {
                eprintln!("error: {e}");
            }
            return ExitCode::from(2);
        }
    };
    let parsed = if utf8 { Cli::try_parse_from(&expanded.argv) } else { Cli::try_parse_from(&os) };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // A value from the run file: one line naming its file, line and key.
            if let Some(line) = config::explain(&e, &expanded) {
                if lead {
                    eprintln!("error: {line}");
                }
                return ExitCode::from(2);
            }
            // clap's whole message: what is wrong, the accepted values or the
            // nearest spelling, and the usage (help and version go to stdout, exit 0).
            if lead {
                let _ = e.print();
            }
            return ExitCode::from(e.exit_code().clamp(0, 255) as u8);
        }
    };
    let result = match cli.cmd {
        Cmd::List => {
            for (name, what) in models::MODELS.iter().filter(|_| lead) {
                println!("{name:<8} {what}");
            }
            Ok(())
        }
        Cmd::Run { model } => {
            // What followed `run` (with the run file's options put in): a
            // checkpoint stores it, a resume parses it again.
            let command: Vec<String> = expanded.argv[2..].to_vec();
            if expanded.print {
                return match config::Effective::of(&command, true) {
                    Ok(eff) => {
                        if lead {
                            print!("{}", eff.to_toml());
                        }
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        ExitCode::FAILURE
                    }
                };
            }
            let control = Control::default();
            signals::watch(&control, model.engine().checkpoint_dir.is_some() && procs.size() == 1);
            dispatch(model, &Run { procs: &procs, command, control: &control, resume: None.into() })
        }
        Cmd::Resume { file, options } => resume(&procs, &file, &options),
        // Each run of a sweep is a process of its own; under mpirun every
        // process would run the whole sweep's runs alone.
        Cmd::Sweep(_) if procs.size() > 1 => {
            if lead {
                eprintln!("error: sweep starts its runs itself, one after another; run it without mpirun");
            }
            return ExitCode::from(2);
        }
        Cmd::Sweep(a) => match sweep::run(&a) {
            Err(sweep::Failure::Usage(e)) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            Err(sweep::Failure::Runs(e)) => Err(e),
            Ok(()) => Ok(()),
        },
        Cmd::Partition(a) if lead => partition::run(&a),
        Cmd::Partition(_) => Ok(()),
        Cmd::Plot(a) if lead => plot::run(&a),
        Cmd::Report(a) if lead => report::run(&a),
        Cmd::Plot(_) | Cmd::Report(_) => Ok(()),
        Cmd::Verify { model } => dispatch(model, &Verify { procs: &procs }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if lead {
                eprintln!("error: {e}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Builds the chosen model from its options and applies `action` to it.
fn dispatch(cmd: ModelCmd, action: &impl Action) -> Result<(), String> {
    match cmd {
        ModelCmd::Phold { model, engine } => {
            let m = model.model()?;
            m.validate()?;
            model.bounded(m.lps, engine.end(), engine.max_events_at_one_time)?;
            let sizing = format!("--lps {} with --population {}", m.lps, model.population);
            action.apply(&m, &engine, &sizing, &format!("{model:?}"), &nothing).map(drop)
        }
        ModelCmd::Network { model, engine } => {
            let m = model.model()?;
            model.bounded(m.topology.nodes(), engine.end())?;
            let sizing = match (model.preset.as_deref(), model.topology.as_str()) {
                (Some(p), _) => format!("--preset {p}"),
                (_, "dragonfly") => format!(
                    "--routers-per-group {} --terminals-per-router {} --global-links {}",
                    model.routers_per_group, model.terminals_per_router, model.global_links
                ),
                (_, "hypercube") => format!("--nodes {}", model.nodes),
                _ => format!("--dims {}", model.dims.iter().map(u32::to_string).collect::<Vec<_>>().join(",")),
            };
            let results = action.apply(&m, &engine, &sizing, &format!("{model:?}"), &nothing)?;
            match (&model.link_stats, results) {
                (Some(path), Some(r)) => write_link_stats(path, &r),
                _ => Ok(()),
            }
        }
        ModelCmd::Pcs { model, engine } => {
            let m = model.model();
            m.validate()?;
            model.bounded(engine.end())?;
            let sizing = format!(
                "--cells-x {} × --cells-y {} with --portables-per-cell {}",
                model.cells_x, model.cells_y, model.portables_per_cell
            );
            action.apply(&m, &engine, &sizing, &format!("{model:?}"), &nothing).map(drop)
        }
        ModelCmd::Tlm { model, engine } => {
            let end = engine.end();
            let m = model.model(engine.seed, end)?;
            model.bounded(&m, end)?;
            let after = |r: &timewarp_models::tlm::TlmResults| {
                if let (Some(path), Some(field)) = (&model.image, &r.field) {
                    plot::picture::write_field(path, field)?;
                }
                match &model.receivers_csv {
                    Some(path) => write_signals(path, r),
                    None => Ok(()),
                }
            };
            let sizing = format!("--size {}", model.size.0.iter().map(u32::to_string).collect::<Vec<_>>().join("x"));
            action.apply(&m, &engine, &sizing, &format!("{model:?}"), &after).map(drop)
        }
    }
}

/// `timewarp resume FILE [OPTIONS]`: the checkpoint's command line with
/// `options` in place, run from the checkpoint.
fn resume(procs: &Procs, file: &Path, options: &[String]) -> Result<(), String> {
    let ck = timewarp::checkpoint::File::open(file).map_err(|e| e.to_string())?;
    if ck.header.command.is_empty() {
        return Err(format!(
            "checkpoint {}: written by a program other than the timewarp command (no command line in it); \
             resume it with that program (timewarp::checkpoint::File::load)",
            file.display()
        ));
    }
    let command = resume::merge(&ck.header.command, options)?;
    let argv = ["timewarp", "run"].into_iter().map(String::from).chain(command.iter().cloned());
    let model = match Cli::try_parse_from(argv) {
        Ok(Cli { cmd: Cmd::Run { model } }) => model,
        Ok(_) => return Err("resume: the checkpoint's command line is not a run".into()),
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => {
            let _ = e.print();
            return Ok(());
        }
        Err(e) => return Err(format!("resume: {}", e.render().to_string().trim_start_matches("error: ").trim_end())),
    };
    let control = Control::default();
    signals::watch(&control, model.engine().checkpoint_dir.is_some() && procs.size() == 1);
    dispatch(model, &Run { procs, command, control: &control, resume: Some(ck).into() })
}

/// Writes every receiver's node voltage per step (0 where its cell was quiet).
fn write_signals(path: &std::path::Path, r: &timewarp_models::tlm::TlmResults) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write receiver signals to {}: {e}", path.display());
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(fail)?);
    write!(f, "step").map_err(fail)?;
    for rx in &r.receivers {
        write!(f, ",x{}_y{}_z{}", rx.x, rx.y, rx.z).map_err(fail)?;
    }
    writeln!(f).map_err(fail)?;
    let mut next = vec![0usize; r.signals.len()];
    for step in 0..r.steps as u32 {
        write!(f, "{step}").map_err(fail)?;
        for (sig, i) in r.signals.iter().zip(&mut next) {
            let v = match sig.get(*i) {
                Some(&(t, v)) if t == step => {
                    *i += 1;
                    v
                }
                _ => 0.0,
            };
            write!(f, ",{v}").map_err(fail)?;
        }
        writeln!(f).map_err(fail)?;
    }
    f.flush().map_err(fail)
}

/// Refuses a configuration that cannot fit in this machine's memory, naming
/// the options that make it big (`sizing` for the model's size), before
/// anything is allocated. One of `processes` processes holds its share.
fn fits<M: Model>(model: &M, cfg: &timewarp::Config, processes: usize, sizing: &str) -> Result<(), String> {
    use timewarp::memory::{human, machine_memory, Estimate};
    let Some(have) = machine_memory() else { return Ok(()) };
    let e = Estimate::of(model, cfg, processes);
    if e.total() <= have {
        return Ok(());
    }
    let (what, fix) = if e.rings > e.lps.saturating_add(e.events) {
        (format!("--threads {}", cfg.threads), "use fewer threads")
    } else {
        (sizing.to_string(), "make the model smaller")
    };
    Err(format!(
        "{what} needs about {} of memory (LP records {}, initial events {}, rings between threads {}), \
         but this machine has {}; {fix}",
        human(e.total()),
        human(e.lps),
        human(e.events),
        human(e.rings),
        human(have)
    ))
}

/// Writes the network's per-link figures (`model_results.links`) as CSV.
fn write_link_stats(path: &std::path::Path, results: &Value) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write link statistics to {}: {e}", path.display());
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(fail)?);
    writeln!(f, "link,source,destination,packets,busy_fraction").map_err(fail)?;
    let links = results.get("links").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for (i, l) in links.iter().enumerate() {
        writeln!(f, "{i},{},{},{},{}", l["node"], l["neighbour"], l["packets"], l["busy"]).map_err(fail)?;
    }
    f.flush().map_err(fail)
}

/// `timewarp verify`: sequential against the requested parallel configuration.
fn verify<M: Model>(model: &M, mut cfg: timewarp::Config, engine: &EngineArgs) -> Result<(), String> {
    cfg.progress = false;
    let stats_out = engine.stats_json.as_deref().map(StatsOut::open).transpose()?;
    let v = match timewarp::verify::verify(model, &cfg) {
        Ok(v) => v,
        Err(e) => {
            if let Some(out) = stats_out {
                out.discard();
            }
            return Err(args::describe(&e));
        }
    };
    let par = format!("{} with {} thread(s)", cfg.sync.name(), cfg.threads);
    let line = match &v.divergence {
        None => format!(
            "verify: OK: sequential and {par} commit the same history ({} events, digest {}, efficiency {:.1}%)",
            v.sequential.committed_events,
            v.sequential.digest,
            100.0 * v.parallel.efficiency
        ),
        Some(d) => format!(
            "verify: MISMATCH between sequential (digest {}, {} events) and {par} (digest {}, {} events): {d}",
            v.sequential.digest, v.sequential.committed_events, v.parallel.digest, v.parallel.committed_events
        ),
    };
    // Both runs' statistics, whatever the verdict.
    if let Some(out) = stats_out {
        let json = serde_json::json!({
            "identical": v.divergence.is_none(),
            "divergence": v.divergence.as_ref().map(ToString::to_string),
            "sequential": v.sequential,
            "parallel": v.parallel,
        });
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

/// The model's scalar results as rows; arrays (per-cell figures, say) are
/// left to `--stats-json`.
fn results_text(results: &serde_json::Value) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    match results {
        serde_json::Value::Object(map) => {
            let rows: Vec<_> = map.iter().filter(|(_, v)| !v.is_array() && !v.is_object()).collect();
            if rows.is_empty() {
                return out;
            }
            out.push_str("model results:\n");
            let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
            for (k, v) in rows {
                let _ = writeln!(out, "  {k:<w$}  {v}");
            }
            if map.values().any(|v| v.is_array() || v.is_object()) {
                out.push_str("  (per-item figures: --stats-json FILE, key model_results)\n");
            }
        }
        serde_json::Value::Null => {}
        other => {
            let _ = writeln!(out, "model results  {other}");
        }
    }
    out
}

/// Where `--stats-json` goes. A file is written through a temporary file
/// in its folder and renamed at the end, so a failed write (a full disk)
/// leaves no truncated JSON behind; a path that is no regular file
/// (`/dev/stdout`, a pipe) is written directly; `-` is standard output.
enum StatsOut {
    Stdout,
    Direct(PathBuf, std::fs::File),
    Renamed { path: PathBuf, tmp: PathBuf, file: std::fs::File },
}

impl StatsOut {
    /// Opens the destination before the run: a bad path should not cost a whole run.
    fn open(path: &Path) -> Result<Self, String> {
        let fail = |e: std::io::Error| format!("cannot write statistics to {}: {e}", path.display());
        if path.as_os_str() == "-" {
            return Ok(StatsOut::Stdout);
        }
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            let file = std::fs::OpenOptions::new().write(true).open(path).map_err(fail)?;
            return Ok(StatsOut::Direct(path.to_path_buf(), file));
        }
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let file = std::fs::File::create(&tmp).map_err(fail)?;
        Ok(StatsOut::Renamed { path: path.to_path_buf(), tmp, file })
    }

    /// True when the statistics take standard output (the summary then goes to stderr).
    fn is_stdout(&self) -> bool {
        matches!(self, StatsOut::Stdout)
    }

    /// Writes `text` and puts it in place.
    fn write(self, text: &str) -> Result<(), String> {
        fn at(p: &Path) -> impl Fn(std::io::Error) -> String + '_ {
            move |e| format!("cannot write statistics to {}: {e}", p.display())
        }
        match self {
            StatsOut::Stdout => {
                let mut out = std::io::stdout().lock();
                writeln!(out, "{text}").and_then(|()| out.flush()).map_err(at(Path::new("standard output")))
            }
            StatsOut::Direct(path, mut file) => writeln!(file, "{text}").and_then(|()| file.flush()).map_err(at(&path)),
            StatsOut::Renamed { path, tmp, mut file } => {
                let written = writeln!(file, "{text}")
                    .and_then(|()| file.sync_all())
                    .and_then(|()| std::fs::rename(&tmp, &path))
                    .map_err(at(&path));
                if written.is_err() {
                    let _ = std::fs::remove_file(&tmp);
                }
                written
            }
        }
    }

    /// Removes the temporary file of a run that ended without statistics.
    fn discard(self) {
        self.remove_temporary();
    }

    /// Removes the temporary file (before the process exits with it open).
    fn remove_temporary(&self) {
        if let StatsOut::Renamed { tmp, .. } = self {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Runs one model with the engine options and prints / writes the results.
fn execute<M: Model>(
    model: &M,
    cfg: &timewarp::Config,
    engine: &EngineArgs,
    procs: &Procs,
    rec: Outputs<'_>,
    after: After<'_, M::Results>,
    ck: Checkpoints<'_, M>,
) -> Result<Option<Value>, String> {
    let params = rec.params;
    // Every output file is opened before the run: a bad path should not cost a whole run.
    let open = |p: &Option<PathBuf>| match p {
        Some(p) if procs.rank() == 0 => StatsOut::open(p).map(Some).map_err(|e| procs.alone(e)),
        _ => Ok(None),
    };
    let stats_out = open(&engine.stats_json)?;
    let csv_outs = [open(&engine.stats_csv)?, open(&engine.gvt_csv)?];
    let run = match &engine.profile_out {
        Some(path) => partition::profile(model, cfg, procs.size(), path, params, engine.quiet),
        None => procs.run(model, cfg, ck).map_err(|e| match e {
            timewarp::Error::Interrupted { checkpoint: Some(_) } => {
                for out in stats_out.iter().chain(csv_outs.iter().flatten()) {
                    out.remove_temporary();
                }
                eprintln!("{e}");
                std::process::exit(EXIT_CHECKPOINTED.into())
            }
            e => procs.failed(e),
        }),
    };
    let report = match run {
        Ok(Some(r)) => r,
        other => {
            for out in stats_out.into_iter().chain(csv_outs.into_iter().flatten()) {
                out.discard();
            }
            return other.map(|_| None);
        }
    };
    after(&report.results)?;
    let results = serde_json::to_value(&report.results).map_err(|e| e.to_string())?;
    let summary = format!("{}{}", report.stats.table(), results_text(&results));
    let to_stdout = stats_out.iter().chain(csv_outs.iter().flatten()).any(StatsOut::is_stdout);
    if !engine.quiet {
        if to_stdout {
            eprint!("{summary}");
        } else {
            print!("{summary}");
        }
    }
    if let Some(out) = stats_out {
        let mut json = serde_json::to_value(&report.stats).map_err(|e| e.to_string())?;
        json["model_results"] = results.clone();
        json["config"] = rec.config;
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        if let Err(e) = out.write(&text) {
            // The run's figures are not lost with the file: they go to stderr.
            if engine.quiet {
                eprint!("{summary}");
            }
            return Err(e);
        }
    }
    let [pes, gvt] = csv_outs;
    for (file, text) in [(pes, csv_stats::pes(&report.stats)), (gvt, csv_stats::gvt(&report.stats))] {
        if let Some(file) = file {
            file.write(text?.trim_end_matches('\n'))?;
        }
    }
    Ok(Some(results))
}

/// SIGINT and SIGTERM.
mod signals {
    use timewarp::checkpoint::Control;

    /// Watches for SIGINT and SIGTERM. With `pausable` (a checkpoint
    /// directory, one process) the first asks `control` to pause: the run
    /// writes a checkpoint at its next cut and stops; otherwise, or at a
    /// second signal, the process ends at once with 128 + the signal number
    /// (no statistics file is written: it is only ever renamed into place).
    pub(crate) fn watch(control: &Control, pausable: bool) {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            return; // the default action still ends the process
        };
        let control = control.clone();
        let spawned = std::thread::Builder::new().name("timewarp signals".into()).spawn(move || {
            let mut asked = false;
            for sig in signals.forever() {
                if pausable && !asked {
                    eprintln!(
                        "\ninterrupted: writing a checkpoint at the next GVT, then stopping (interrupt again to stop \
                         at once, without it)"
                    );
                    control.interrupt();
                    asked = true;
                    continue;
                }
                if asked {
                    eprintln!("\ninterrupted again: stopped without a checkpoint");
                } else {
                    eprintln!("\ninterrupted: stopped (give --checkpoint-dir to be able to stop with a checkpoint and resume)");
                }
                std::process::exit(128 + sig);
            }
        });
        drop(spawned);
    }
}
