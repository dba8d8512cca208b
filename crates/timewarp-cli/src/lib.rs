//! The `timewarp` command line as a library: `run`, `verify`, `resume`,
//! `sweep`, `plot`, `report`, run files and statistics files for any model
//! whose options implement [`ModelCli`]. The `timewarp` binary registers the
//! shipped models with [`App`]; a model crate registers its own the same way
//! and gets the whole front end:
//!
//! ```no_run
//! # use timewarp_cli::App;
//! # #[derive(clap::Args, Debug)] struct MyArgs {}
//! # impl timewarp_cli::ModelCli for MyArgs {
//! #     type Model = timewarp_models::phold::Phold;
//! #     const NAME: &'static str = "mine"; const ABOUT: &'static str = "mine"; const END: &'static str = "10";
//! #     fn build(&self, _: &timewarp_cli::RunInfo) -> Result<Self::Model, String> { Ok(Default::default()) }
//! # }
//! fn main() -> std::process::ExitCode {
//!     App::new("mine").model::<MyArgs>().main()
//! }
//! ```
//!
//! See [`ModelCli`] for a complete example, and `examples/tandem` in the
//! repository for a model crate that uses it.

mod args;
#[cfg(feature = "models")]
mod codes;
mod config;
mod csv_stats;
#[cfg(feature = "models")]
mod models;
mod partition;
mod plot;
mod registry;
mod report;
mod resume;
mod sweep;
mod trace_out;
#[cfg(feature = "models")]
mod workload_args;

use args::EngineArgs;
use clap::{Args, CommandFactory, FromArgMatches, Subcommand};
use registry::{Act, Models, Registered};
pub use registry::{ModelCli, RunInfo};
use serde_json::Value;
use std::ffi::OsString;
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
#[derive(clap::Parser, Debug)]
// No help screen for a missing subcommand: the error and the usage line.
#[command(name = "timewarp", version, propagate_version = true, arg_required_else_help = false)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Run a model and print a summary (see `timewarp run <model> --help`).
    // Its text after --help names the program (`command`).
    #[command(arg_required_else_help = false)]
    // The models are subcommands added at start-up (`App::command`).
    Run,
    /// Run a model sequentially and in parallel and compare what they commit
    /// (exit 0 when identical; otherwise report the first LP and event that differ).
    #[command(arg_required_else_help = false)]
    Verify,
    /// Continue a run from a checkpoint written with --checkpoint-dir, to its
    /// end time (or an earlier --end), in any mode, thread or process count.
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
    /// List the models.
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

/// What a model does with its typed results after a run: write its files
/// (`after`), and add to the printed summary (`summary`).
pub(crate) struct Hooks<'a, R> {
    pub after: &'a dyn Fn(&R) -> Result<(), String>,
    pub summary: &'a dyn Fn(&R) -> String,
}

/// What to do with a model once its options are parsed (generic over the
/// model type); returns the model results when it ran the model here, after
/// handing them to the hooks.
pub(crate) trait Action {
    /// `sizing` names the model's options that set its size (for the memory
    /// check); `params` its parsed options (written into profiles).
    fn apply<M: Model>(
        &self,
        model: &M,
        engine: &EngineArgs,
        sizing: &str,
        params: &str,
        hooks: Hooks<'_, M::Results>,
    ) -> Result<Option<Value>, String>;
}

/// `timewarp run` (or `resume`), in this process (and, with MPI, its peers).
pub(crate) struct Run<'a> {
    procs: &'a Procs,
    models: &'a Models,
    /// What followed `timewarp run` (a checkpoint stores it).
    command: Vec<String>,
    /// Asks the run to pause (signals).
    control: &'a Control,
    /// Temporary output files, removed if a signal ends the process.
    temporaries: &'a signals::Temporaries,
    /// The checkpoint to continue from.
    /// (Taken when the model is built: its bytes go once the snapshot is decoded.)
    resume: std::cell::Cell<Option<timewarp::checkpoint::File>>,
}
pub(crate) struct Verify<'a> {
    procs: &'a Procs,
    temporaries: &'a signals::Temporaries,
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
        trace_out::usable(engine, start.is_some())?;
        if self.procs.rank() == 0 {
            for note in engine.notes(&cfg, model.num_lps(), cfg.pes_per_process() * self.procs.size()) {
                eprintln!("{note}");
            }
        }
        // What the statistics file records to reproduce the run: the version,
        // the command line and every option's value.
        let config = config::Effective::of(self.models, &self.command, false)?
            .to_json(&std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>());
        let out = Outputs { params, config, temporaries: self.temporaries };
        execute(model, &cfg, engine, self.procs, out, hooks, Checkpoints { plan, start, control: self.control })
    }
}

/// What a run records besides its figures.
struct Outputs<'a> {
    /// The model's parsed options (written into profiles).
    params: &'a str,
    /// The effective configuration (the statistics file's `config`).
    config: Value,
    /// Where the output files' temporary names are registered.
    temporaries: &'a signals::Temporaries,
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
        _hooks: Hooks<'_, M::Results>,
    ) -> Result<Option<Value>, String> {
        if self.procs.size() > 1 {
            return Err(format!(
                "verify runs in one process, but this run has {} MPI processes; run `{p} run` under mpirun \
                 and compare its digest with `{p} run --sync sequential`",
                self.procs.size(),
                p = program()
            ));
        }
        if engine.checkpoint_dir.is_some() {
            return Err("verify does not write checkpoints: leave --checkpoint-dir out".into());
        }
        if engine.profile_out.is_some() {
            return Err(format!("--profile-out profiles a run; use it with `{} run`, not verify", program()));
        }
        if engine.trace_out.is_some() {
            return Err(format!("--trace-out records a run; use it with `{} run`, not verify", program()));
        }
        if engine.stats_csv.is_some() || engine.gvt_csv.is_some() {
            return Err(format!(
                "--stats-csv and --gvt-csv record a run; use them with `{} run` (verify writes both runs' \
                 statistics with --stats-json)",
                program()
            ));
        }
        if engine.sync == args::SyncArg::Sequential {
            return Err("verify compares a sequential run with a parallel one, and --sync names the parallel one: \
                        give --sync optimistic (the default), conservative or check"
                .into());
        }
        let cfg = engine.config_for(model.name(), model.num_lps())?;
        fits(model, &cfg, 1, sizing)?;
        for note in engine.notes(&cfg, model.num_lps(), cfg.pes_per_process()) {
            eprintln!("{note}");
        }
        verify(model, cfg, engine, self.temporaries).map(|()| None)
    }
}

/// The processes of this run: MPI's when built with the `mpi` feature.
pub(crate) struct Procs {
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
                 `cargo build --release -p timewarp-cli --features mpi --target-dir target/mpi` (see the README, MPI), or run it without mpirun"
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

/// A program's command line: `run`, `verify`, `resume`, `sweep`, `list`,
/// `partition`, `plot` and `report` over the models registered with
/// [`App::model`]. The `timewarp` binary is
/// `App::new("timewarp").shipped().main()`.
///
/// A program with one model may leave its name out after `run`, `verify`
/// and `sweep` (`tandem run --end 100` is `tandem run tandem --end 100`).
/// Its help and `--print-config` call it by its name, and their examples
/// use its first model.
pub struct App {
    name: &'static str,
    about: Option<&'static str>,
    models: Models,
}

/// The name of this process' program (`App::new`), for messages.
static PROGRAM: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// The program's name in messages: `timewarp`, or the [`App`]'s.
pub(crate) fn program() -> &'static str {
    PROGRAM.get().copied().unwrap_or("timewarp")
}

impl App {
    /// A program named `name` (its usage lines and `--version`), with no models yet.
    pub fn new(name: &'static str) -> Self {
        App { name, about: None, models: Models::default() }
    }

    /// What the program is, for its `--help`.
    pub fn about(mut self, about: &'static str) -> Self {
        self.about = Some(about);
        self
    }

    /// Registers the model whose options are `A`.
    ///
    /// # Panics
    ///
    /// If a model of the same name is registered already (a programming error).
    pub fn model<A: ModelCli>(mut self) -> Self {
        assert!(self.models.get(A::NAME).is_none(), "model {} registered twice", A::NAME);
        self.models.add(Box::new(Registered::<A>(std::marker::PhantomData)));
        self
    }

    /// Registers the shipped models (PHOLD, network, TLM, PCS). Cargo
    /// feature `models` (on by default): a model crate that leaves it out
    /// (`default-features = false`) builds without them, much faster.
    #[cfg(feature = "models")]
    pub fn shipped(self) -> Self {
        self.model::<models::PholdArgs>()
            .model::<models::NetworkArgs>()
            .model::<models::TlmArgs>()
            .model::<models::PcsArgs>()
    }

    /// Runs the command line of this process; returns its exit code.
    pub fn main(self) -> ExitCode {
        self.main_from(std::env::args_os())
    }

    /// Runs the command line `args` (the program's name first); returns its exit code.
    pub fn main_from<I, T>(self, args: I) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        let os: Vec<OsString> = args.into_iter().map(Into::into).collect();
        let _ = PROGRAM.set(self.name);
        main_with(&self.models, self.command(), self.single(os))
    }

    /// The whole command line, with every model under `run` and `verify`.
    fn command(&self) -> clap::Command {
        let c = command(self.name, &self.models);
        match self.about {
            Some(a) => c.about(a),
            None => c,
        }
    }

    /// With one model, its name put in after `run`, `verify` and `sweep` where left out.
    fn single(&self, mut os: Vec<OsString>) -> Vec<OsString> {
        let mut it = self.models.iter();
        let (Some(only), None) = (it.next(), it.next()) else { return os };
        let takes_model = os.get(1).is_some_and(|c| ["run", "verify", "sweep"].iter().any(|s| c == *s));
        if takes_model && os.get(2).map_or(true, |t| t.to_str().is_some_and(|t| t.starts_with('-'))) {
            let help = os.get(2).is_some_and(|t| t == "--help" || t == "-h");
            // `run --help` still lists the model (and `run --config F` reads its name from the file).
            if !help
                && !os[2..].iter().any(|t| t == "--config" || t.to_str().is_some_and(|t| t.starts_with("--config=")))
            {
                os.insert(2, only.name().into());
            }
        }
        os
    }
}

/// The shipped models (unit tests).
#[cfg(all(test, feature = "models"))]
pub(crate) fn shipped() -> Models {
    App::new("timewarp").shipped().models
}

/// The command line of program `name` with `models` under `run` and `verify`.
pub(crate) fn command(name: &'static str, models: &Models) -> clap::Command {
    let add = |c: clap::Command| c.subcommand_required(true).subcommands(models.iter().map(|e| e.command()));
    let example = models.example();
    let docs = if name == "timewarp" { " See docs/running.md." } else { "" };
    let run_help = format!(
        "Run files: `{name} run --config FILE [OPTIONS]` reads the model and its options from a TOML file ([engine] \
         and [model] tables, keys named like the options: threads = 2, kps-per-pe = 8; [model] name = \"{example}\" \
         and the model's options) or from a --stats-json file of an earlier run (its `config` object), to reproduce \
         that run. Options on the command line replace the file's. `--print-config` prints the effective \
         configuration as TOML and exits.{docs}"
    );
    let changeable = resume::changeable_names().iter().map(|n| format!("--{n}")).collect::<Vec<_>>().join(", ");
    let resume_help = format!(
        "OPTIONS are the engine options of `{name} run <model>` but --seed ({changeable}); they replace those of \
         the run that wrote the checkpoint, and the others stay as they were. The model, its options and --seed \
         come from the checkpoint."
    );
    let cmd = Cli::command()
        .name(name)
        .bin_name(name)
        .mut_subcommand("run", |c| {
            add(c.about(format!("Run a model and print a summary (see `{name} run <model> --help`)")))
                .after_help(run_help)
        })
        // verify's --sync names its parallel half (the other is sequential).
        .mut_subcommand("verify", |c| {
            add(c).mut_subcommands(|m| {
                m.mut_arg("sync", |a| {
                    a.default_value("optimistic").help(
                        "Synchronisation mode of the parallel run (compared with a sequential run): optimistic, \
                         conservative or check",
                    )
                })
            })
        })
        .mut_subcommand("resume", |c| c.after_help(resume_help))
        .mut_subcommand("sweep", |c| c.after_help(sweep::after_help(name, example)));
    if name == "timewarp" {
        return cmd;
    }
    // Another program built on App: its help names it, not `timewarp`.
    let engine: Vec<String> = EngineArgs::augment_args(clap::Command::new("engine"))
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .collect();
    renamed(cmd, name, &engine, false)
}

/// `c`'s help texts with the program called `name` instead of `timewarp`:
/// its own and its options' (within a model, `in_model`, only the engine
/// options', named by `engine`; a model's own texts are its author's).
fn renamed(c: clap::Command, name: &str, engine: &[String], in_model: bool) -> clap::Command {
    let ours = |s: &clap::builder::StyledStr| s.to_string().replace("timewarp", name);
    let mut c = c;
    if !in_model {
        if let Some(t) = c.get_about().map(ours) {
            c = c.about(t);
        }
        if let Some(t) = c.get_long_about().map(ours) {
            c = c.long_about(t);
        }
        if let Some(t) = c.get_after_help().map(ours) {
            c = c.after_help(t);
        }
    }
    let models_below = ["run", "verify"].contains(&c.get_name());
    c.mut_args(|a| {
        if in_model && !engine.iter().any(|e| e == a.get_id().as_str()) {
            return a;
        }
        let (help, long) = (a.get_help().map(ours), a.get_long_help().map(ours));
        let a = match help {
            Some(h) => a.help(h),
            None => a,
        };
        match long {
            Some(h) => a.long_help(h),
            None => a,
        }
    })
    .mut_subcommands(|s| renamed(s, name, engine, in_model || models_below))
}

fn main_with(models: &Models, cmd: clap::Command, os: Vec<OsString>) -> ExitCode {
    let program = cmd.get_name().to_string();
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
    // (A resume's options replace the checkpoint's: `resume` reads them as given.)
    let os = if os.get(1).is_some_and(|c| c == "resume") { os } else { switches(os) };
    // `run --config FILE`: the file's options go in as command-line tokens.
    // Paths that are not UTF-8 reach clap as they are (a run file is only read from UTF-8 command lines).
    let utf8 = os.iter().all(|a| a.to_str().is_some());
    let argv: Vec<String> = os.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let expanded = match if utf8 { config::expand(models, argv) } else { Ok(config::Expanded::plain(argv)) } {
        Ok(x) => x,
        Err(e) => {
            if lead {
                eprintln!("error: {e}");
            }
            return ExitCode::from(2);
        }
    };
    // `run network --codes-config FILE.conf`: its options go in before the
    // command line's; a bad file is bad input (exit 1), not a bad command line.
    #[cfg(feature = "models")]
    let expanded = {
        let mut expanded = expanded;
        if expanded.argv.get(1).map(String::as_str) == Some("run") {
            let tokens = expanded.argv.split_off(2);
            match codes::put_in(models, tokens, &mut expanded.origins) {
                Ok(t) => expanded.argv.extend(t),
                Err(e) => {
                    if lead {
                        eprintln!("error: {e}");
                    }
                    return ExitCode::from(1);
                }
            }
        }
        expanded
    };
    let parsed = if utf8 { cmd.try_get_matches_from(&expanded.argv) } else { cmd.try_get_matches_from(&os) };
    let parsed = parsed.and_then(|m| Ok((Cli::from_arg_matches(&m)?, m)));
    let (cli, matches) = match parsed {
        Ok(x) => x,
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
    // The model and its options under `run` or `verify`.
    let chosen = |sub: &str| {
        let (name, m) = matches.subcommand_matches(sub).and_then(|r| r.subcommand()).expect("a model is required");
        (models.get(name).expect("only registered models parse"), m)
    };
    let result = match cli.cmd {
        Cmd::List => {
            for e in models.iter().filter(|_| lead) {
                println!("{:<8} {}", e.name(), e.summary());
            }
            Ok(())
        }
        Cmd::Run => {
            // What followed `run` (with the run file's options put in): a
            // checkpoint stores it, a resume parses it again.
            let command: Vec<String> = expanded.argv[2..].to_vec();
            if expanded.print {
                return match config::Effective::of(models, &command, true) {
                    Ok(eff) => {
                        if lead {
                            print!("{}", eff.to_toml(&program));
                        }
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        ExitCode::FAILURE
                    }
                };
            }
            let (entry, m) = chosen("run");
            let control = Control::default();
            let temporaries = signals::Temporaries::default();
            signals::watch(&control, signals::Pause::of(m, &procs), &temporaries, lead);
            let run = Run {
                procs: &procs,
                models,
                command,
                control: &control,
                temporaries: &temporaries,
                resume: None.into(),
            };
            entry.dispatch(m, Act::Run(&run))
        }
        Cmd::Resume { file, options } => resume(&procs, models, &file, &options),
        // Each run of a sweep is a process of its own; under mpirun every
        // process would run the whole sweep's runs alone.
        Cmd::Sweep(_) if procs.size() > 1 => {
            if lead {
                eprintln!("error: sweep starts its runs itself, one after another; run it without mpirun");
            }
            return ExitCode::from(2);
        }
        Cmd::Sweep(a) => match sweep::run(models, &a) {
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
        Cmd::Verify => {
            let (entry, m) = chosen("verify");
            let temporaries = signals::Temporaries::default();
            signals::watch(&Control::default(), signals::Pause::Never, &temporaries, lead);
            entry.dispatch(m, Act::Verify(&Verify { procs: &procs, temporaries: &temporaries }))
        }
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

/// `os` with the engine's switches given a value as clap takes them:
/// `--quiet=true` as `--quiet`, `--quiet=false` left out (a script can pass
/// `--quiet=$QUIET`; clap's switches take no value).
fn switches(os: Vec<OsString>) -> Vec<OsString> {
    let flags: Vec<String> = EngineArgs::augment_args(clap::Command::new("engine"))
        .get_arguments()
        .filter(|a| matches!(a.get_action(), clap::ArgAction::SetTrue))
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    let mut out = Vec::with_capacity(os.len());
    let mut rest = false; // after `--`: values, not options
    for t in os {
        let switch =
            t.to_str().filter(|_| !rest).and_then(|s| s.split_once('=')).filter(|(f, _)| flags.iter().any(|x| x == f));
        rest |= t == "--";
        match switch {
            Some((f, "true")) => out.push(OsString::from(f)),
            Some((_, "false")) => {}
            _ => out.push(t),
        }
    }
    out
}

/// `timewarp resume FILE [OPTIONS]`: the checkpoint's command line with
/// `options` in place, run from the checkpoint.
fn resume(procs: &Procs, models: &Models, file: &Path, options: &[String]) -> Result<(), String> {
    let ck = timewarp::checkpoint::File::open(file).map_err(|e| e.to_string())?;
    if ck.header.command.is_empty() {
        return Err(format!(
            "checkpoint {}: written by a program other than the timewarp command (no command line in it); \
             resume it with that program (timewarp::checkpoint::File::load)",
            file.display()
        ));
    }
    let command = resume::merge(&ck.header.command, options)?;
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
    let control = Control::default();
    let temporaries = signals::Temporaries::default();
    signals::watch(&control, signals::Pause::of(&m, procs), &temporaries, procs.rank() == 0);
    let run = Run { procs, models, command, control: &control, temporaries: &temporaries, resume: Some(ck).into() };
    entry.dispatch(&m, Act::Run(&run))
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
        Err(e) => {
            if let Some(out) = stats_out {
                out.discard();
            }
            return Err(args::describe(&e));
        }
    };
    let par = match cfg.pes {
        Some(pes) if pes != cfg.threads => format!("{} with {} thread(s) on {pes} PEs", cfg.sync.name(), cfg.threads),
        _ => format!("{} with {} thread(s)", cfg.sync.name(), cfg.threads),
    };
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

/// Where `--stats-json` (or another output file: the CSVs, the timeline
/// trace) goes. A file is written through a temporary file in its folder
/// and renamed at the end, so a failed write (a full disk) leaves no
/// truncated file behind; a path that is no regular file (`/dev/stdout`, a
/// pipe) is written directly; `-` is standard output.
struct StatsOut {
    /// What the file holds, for error messages ("statistics").
    what: &'static str,
    to: Dest,
    /// Where the temporary file is registered (a signal removes it).
    temporaries: signals::Temporaries,
}

/// Where a [`StatsOut`] writes.
enum Dest {
    Stdout,
    Direct(PathBuf, std::fs::File),
    Renamed { path: PathBuf, tmp: PathBuf, file: std::fs::File },
}

impl StatsOut {
    /// Opens the destination of statistics before the run: a bad path should not cost a whole run.
    fn open(path: &Path, temporaries: &signals::Temporaries) -> Result<Self, String> {
        Self::open_for(path, "statistics", temporaries)
    }

    /// As [`open`](Self::open), for a file holding `what`.
    fn open_for(path: &Path, what: &'static str, temporaries: &signals::Temporaries) -> Result<Self, String> {
        let fail = |e: std::io::Error| format!("cannot write {what} to {}: {e}", path.display());
        let temporaries = temporaries.clone();
        if path.as_os_str() == "-" {
            return Ok(StatsOut { what, to: Dest::Stdout, temporaries });
        }
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            let file = std::fs::OpenOptions::new().write(true).open(path).map_err(fail)?;
            return Ok(StatsOut { what, to: Dest::Direct(path.to_path_buf(), file), temporaries });
        }
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        // Registered before it exists: a signal between the two finds nothing to remove.
        temporaries.add(&tmp);
        let file = std::fs::File::create(&tmp).map_err(|e| {
            temporaries.forget(&tmp);
            fail(e)
        })?;
        Ok(StatsOut { what, to: Dest::Renamed { path: path.to_path_buf(), tmp, file }, temporaries })
    }

    /// True when the statistics take standard output (the summary then goes to stderr).
    fn is_stdout(&self) -> bool {
        matches!(self.to, Dest::Stdout)
    }

    /// Writes `text` and a newline and puts it in place.
    fn write(self, text: &str) -> Result<(), String> {
        self.write_with(|w| writeln!(w, "{text}"))
    }

    /// Writes what `body` writes (through a buffer) and puts it in place.
    fn write_with(self, body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), String> {
        let what = self.what;
        let at = |p: &Path| {
            let p = p.display().to_string();
            move |e: std::io::Error| format!("cannot write {what} to {p}: {e}")
        };
        fn buffered<W: Write>(w: W, body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<W> {
            let mut b = std::io::BufWriter::new(w);
            body(&mut b)?;
            b.flush()?;
            b.into_inner().map_err(|e| e.into_error())
        }
        match self.to {
            Dest::Stdout => {
                buffered(std::io::stdout().lock(), body).map(drop).map_err(at(Path::new("standard output")))
            }
            Dest::Direct(path, file) => buffered(file, body).map(drop).map_err(at(&path)),
            Dest::Renamed { path, tmp, file } => {
                let written = buffered(file, body).and_then(|f| f.sync_all());
                // Renamed with the signal handler held off: it removes the
                // temporary file either before (no file) or not at all.
                let mut held = self.temporaries.hold();
                let written = written.and_then(|()| std::fs::rename(&tmp, &path)).map_err(at(&path));
                if written.is_err() {
                    let _ = std::fs::remove_file(&tmp);
                }
                held.retain(|p| p != &tmp);
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
        if let Dest::Renamed { tmp, .. } = &self.to {
            let _ = std::fs::remove_file(tmp);
            self.temporaries.forget(tmp);
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
    hooks: Hooks<'_, M::Results>,
    ck: Checkpoints<'_, M>,
) -> Result<Option<Value>, String> {
    let params = rec.params;
    // Every output file is opened before the run: a bad path should not cost a whole run.
    let open = |p: &Option<PathBuf>| match p {
        Some(p) if procs.rank() == 0 => StatsOut::open(p, rec.temporaries).map(Some).map_err(|e| procs.alone(e)),
        _ => Ok(None),
    };
    let stats_out = open(&engine.stats_json)?;
    let csv_outs = [open(&engine.stats_csv)?, open(&engine.gvt_csv)?];
    let trace_out = match &engine.trace_out {
        Some(p) if procs.rank() == 0 => {
            Some(StatsOut::open_for(p, "the timeline trace", rec.temporaries).map_err(|e| procs.alone(e))?)
        }
        _ => None,
    };
    let control = ck.control;
    let run = match &engine.profile_out {
        Some(path) => partition::profile(model, cfg, procs.size(), path, params, engine.quiet),
        None => procs.run(model, cfg, ck).map_err(|e| match e {
            timewarp::Error::Interrupted { checkpoint: Some(p) } => {
                for out in stats_out.iter().chain(csv_outs.iter().flatten()).chain(&trace_out) {
                    out.remove_temporary();
                }
                // The engine's text names `timewarp`; this program may be another App.
                eprintln!("interrupted; wrote checkpoint {p}; continue with: {} resume {p}", program());
                std::process::exit(EXIT_CHECKPOINTED.into())
            }
            e => procs.failed(e),
        }),
    };
    let report = match run {
        Ok(Some(r)) => r,
        other => {
            for out in stats_out.into_iter().chain(csv_outs.into_iter().flatten()).chain(trace_out) {
                out.discard();
            }
            return other.map(|_| None);
        }
    };
    if control.interrupted() {
        eprintln!(
            "interrupted, but the run ended before its next cut: it finished, its results are complete and there is \
             nothing to resume (no checkpoint written)"
        );
    }
    (hooks.after)(&report.results)?;
    let results = serde_json::to_value(&report.results).map_err(|e| e.to_string())?;
    let summary = format!("{}{}{}", report.stats.table(), results_text(&results), (hooks.summary)(&report.results));
    let to_stdout = stats_out.iter().chain(csv_outs.iter().flatten()).chain(&trace_out).any(StatsOut::is_stdout);
    if !engine.quiet {
        if to_stdout {
            eprint!("{summary}");
        } else {
            print!("{summary}");
        }
    }
    // Every file is written even when an earlier one fails (the others keep
    // the run's figures); the first failure is the error.
    let mut failed: Option<String> = None;
    let mut keep = |written: Result<(), String>| {
        if let Err(e) = written {
            failed.get_or_insert(e);
        }
    };
    if let Some(out) = trace_out {
        keep(trace_out::write(out, &report, &rec.config, engine));
    }
    if let Some(out) = stats_out {
        let mut json = serde_json::to_value(&report.stats).map_err(|e| e.to_string())?;
        json["model_results"] = results.clone();
        json["config"] = rec.config;
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        keep(out.write(&text));
    }
    let [pes, gvt] = csv_outs;
    if let (Some(_), Some(why), false) = (&gvt, csv_stats::no_gvt_series(&report.stats), engine.quiet) {
        eprintln!("note: --gvt-csv holds only its header: {why}");
    }
    for (file, text) in [(pes, csv_stats::pes(&report.stats)), (gvt, csv_stats::gvt(&report.stats))] {
        if let Some(file) = file {
            match text {
                Ok(text) => keep(file.write(text.trim_end_matches('\n'))),
                Err(e) => {
                    file.discard();
                    keep(Err(e));
                }
            }
        }
    }
    if let Some(e) = failed {
        // The run's figures are not lost with a file: a quiet run prints them on stderr.
        if engine.quiet {
            eprint!("{summary}");
        }
        return Err(e);
    }
    Ok(Some(results))
}

/// SIGINT and SIGTERM.
mod signals {
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex, MutexGuard};
    use timewarp::checkpoint::Control;

    /// What a first signal does.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub(crate) enum Pause {
        /// Writes a checkpoint at the next cut, then stops (a checkpoint directory, one process).
        Checkpoint,
        /// Stops at once: no checkpoint directory was given.
        NoDirectory,
        /// Stops at once: under MPI the processes cannot agree on a moment
        /// to pause on a signal (only at `--checkpoint-every` marks).
        Processes,
        /// Stops at once (a command that writes no checkpoints).
        Never,
    }

    impl Pause {
        /// For a run of the model options `m` on `procs`.
        pub(crate) fn of(m: &clap::ArgMatches, procs: &super::Procs) -> Pause {
            match (m.get_one::<PathBuf>("checkpoint_dir").is_some(), procs.size() == 1) {
                (false, _) => Pause::NoDirectory,
                (true, true) => Pause::Checkpoint,
                (true, false) => Pause::Processes,
            }
        }

        /// What a signal that stops the process at once says.
        pub(crate) fn stopped(self) -> &'static str {
            match self {
                Pause::NoDirectory => {
                    "interrupted: stopped (give --checkpoint-dir to be able to stop with a checkpoint and resume)"
                }
                Pause::Processes => {
                    "interrupted: stopped without a checkpoint (under MPI a signal cannot pause the run: its \
                     processes would have to agree on the moment; resume from the newest checkpoint \
                     --checkpoint-every wrote, if any)"
                }
                Pause::Checkpoint | Pause::Never => "interrupted: stopped",
            }
        }
    }

    /// Temporary output files (statistics written to a temporary name,
    /// then renamed), which a signal that ends the process removes.
    #[derive(Clone, Default)]
    pub(crate) struct Temporaries(Arc<Mutex<Vec<PathBuf>>>);

    impl Temporaries {
        pub(crate) fn add(&self, p: &Path) {
            self.hold().push(p.to_path_buf());
        }

        pub(crate) fn forget(&self, p: &Path) {
            self.hold().retain(|q| q != p);
        }

        /// The list, with the signal handler held off until the guard goes.
        pub(crate) fn hold(&self) -> MutexGuard<'_, Vec<PathBuf>> {
            self.0.lock().unwrap_or_else(|p| p.into_inner())
        }
    }

    /// Watches for SIGINT and SIGTERM. With [`Pause::Checkpoint`] the first
    /// asks `control` to pause: the run writes a checkpoint at its next cut
    /// and stops; otherwise, or at a second signal, the process removes the
    /// `temporaries` and ends at once with 128 + the signal number (no
    /// statistics file is written: it is only ever renamed into place).
    /// Only the `lead` process (rank 0) says so.
    pub(crate) fn watch(control: &Control, pause: Pause, temporaries: &Temporaries, lead: bool) {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            return; // the default action still ends the process
        };
        let control = control.clone();
        let temporaries = temporaries.clone();
        let spawned = std::thread::Builder::new().name("timewarp signals".into()).spawn(move || {
            let mut asked = false;
            for sig in signals.forever() {
                if pause == Pause::Checkpoint && !asked {
                    eprintln!(
                        "\ninterrupted: writing a checkpoint at the next GVT, then stopping (interrupt again to stop \
                         at once, without it)"
                    );
                    control.interrupt();
                    asked = true;
                    continue;
                }
                // Held until the process ends: no rename slips in between.
                let held = temporaries.hold();
                for p in held.iter() {
                    let _ = std::fs::remove_file(p);
                }
                if lead {
                    if asked {
                        eprintln!("\ninterrupted again: stopped without a checkpoint");
                    } else {
                        eprintln!("\n{}", pause.stopped());
                    }
                }
                std::process::exit(128 + sig);
            }
        });
        drop(spawned);
    }
}

#[cfg(all(test, feature = "models"))]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<OsString> {
        s.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn a_program_with_one_model_may_leave_its_name_out() {
        let one = App::new("p").model::<models::PcsArgs>();
        assert_eq!(one.single(argv("p run --end 5")), argv("p run pcs --end 5"));
        assert_eq!(one.single(argv("p run")), argv("p run pcs"));
        assert_eq!(one.single(argv("p sweep --set end=1,2 -o -")), argv("p sweep pcs --set end=1,2 -o -"));
        assert_eq!(one.single(argv("p verify --threads 2")), argv("p verify pcs --threads 2"));
        // Given, asking for the list, or named by a run file: as it is.
        for same in ["p run pcs --end 5", "p run --help", "p run --config r.toml", "p run --config=r.toml", "p list"] {
            assert_eq!(one.single(argv(same)), argv(same), "{same}");
        }
        let many = App::new("timewarp").shipped();
        assert_eq!(many.single(argv("timewarp run --end 5")), argv("timewarp run --end 5"));
    }

    #[test]
    fn every_model_is_under_run_and_verify_with_the_engine_options() {
        let app = App::new("timewarp").shipped();
        let cmd = app.command();
        for verb in ["run", "verify"] {
            let names: Vec<_> = cmd.find_subcommand(verb).unwrap().get_subcommands().map(|c| c.get_name()).collect();
            assert_eq!(names, ["phold", "network", "tlm", "pcs"]);
        }
        let phold = cmd.find_subcommand("run").unwrap().find_subcommand("phold").unwrap();
        let end = phold.get_arguments().find(|a| a.get_id() == "end").unwrap();
        assert_eq!(end.get_default_values(), ["20"]);
        assert!(phold.get_arguments().any(|a| a.get_id() == "threads"));
        assert!(phold.get_arguments().any(|a| a.get_id() == "remote"));
    }

    #[test]
    fn a_signal_says_truly_why_it_stops_without_a_checkpoint() {
        use signals::Pause;
        let procs = Procs::init().unwrap();
        let m = |args: &[&str]| {
            let cmd = command("timewarp", &shipped());
            let all = cmd.try_get_matches_from(args).unwrap();
            let run = all.subcommand_matches("run").unwrap().subcommand().unwrap().1.clone();
            Pause::of(&run, &procs)
        };
        assert_eq!(m(&["timewarp", "run", "phold", "--checkpoint-dir", "ck"]), Pause::Checkpoint);
        assert_eq!(m(&["timewarp", "run", "phold"]), Pause::NoDirectory);
        assert!(Pause::NoDirectory.stopped().contains("give --checkpoint-dir"));
        // Under MPI a directory was given: the message must not ask for one.
        let mpi = Pause::Processes.stopped();
        assert!(!mpi.contains("give --checkpoint-dir") && mpi.contains("under MPI"), "{mpi}");
    }

    #[test]
    #[should_panic(expected = "registered twice")]
    fn a_model_registered_twice_is_a_programming_error() {
        let _ = App::new("p").model::<models::PcsArgs>().model::<models::PcsArgs>();
    }
}
