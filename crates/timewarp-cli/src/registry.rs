//! The models a program offers: each one's options (a clap-derived struct
//! implementing [`ModelCli`]) registered by type, and the command line built
//! from them at start-up. The shipped models and a model crate's own go
//! through the same path (see [`crate::App`]).
//!
//! Also the requests the type-erased dispatch hands a built model to
//! ([`Run`], [`Verify`]: [`Act`]) and the [`Action`] trait they implement
//! in `action.rs`: they are defined here, below the dispatch that names
//! them, so that the front end is a pipeline (`command` → `action` → run
//! files → `registry` → `execute` → `procs`; the whole list is in
//! docs/architecture.md), each step importing only the steps below it.

use crate::args::EngineArgs;
use crate::execute::Hooks;
use crate::procs::Procs;
use crate::signals;
use clap::{ArgMatches, Args, Command, FromArgMatches};
use serde_json::Value;
use std::marker::PhantomData;
use timewarp::checkpoint::Control;
use timewarp::Model;

/// A model's command-line front end: its options as a clap-derived struct
/// and how to build the model from them. Register it with
/// [`App::model`](crate::App::model) and the program gets `run`, `verify`,
/// `resume`, `sweep`, `plot`, `report`, run files and statistics files for it,
/// exactly as `timewarp` has them for the shipped models.
///
/// # Example
///
/// ```
/// use timewarp::{Ctx, LpId, Model};
/// use timewarp_cli::{App, ModelCli, RunInfo};
///
/// /// Each LP bounces one token to its right neighbour and counts visits.
/// struct Ring { lps: u32 }
///
/// impl Model for Ring {
///     type State = u64;
///     type Msg = ();
///     type Undo = ();
///     type Results = u64;
///     fn name(&self) -> &str { "ring" }
///     fn num_lps(&self) -> u32 { self.lps }
///     fn lookahead(&self) -> f64 { 1.0 }
///     fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> u64 {
///         if lp == 0 { ctx.send(0, 1.0, ()); }
///         0
///     }
///     fn forward(&self, visits: &mut u64, _: &(), _: &mut (), ctx: &mut Ctx<'_, Self>) {
///         *visits += 1;
///         ctx.send((ctx.lp() + 1) % self.lps, 1.0, ());
///     }
///     fn reverse(&self, visits: &mut u64, _: &(), _: &(), _: LpId, _: f64) { *visits -= 1; }
///     fn finalize(&self, _: LpId, visits: &u64, _end: f64, total: &mut u64) { *total += visits; }
/// }
///
/// /// Ring options.
/// #[derive(clap::Args, Debug, Clone)]
/// struct RingArgs {
///     /// Number of LPs.
///     #[arg(long, default_value_t = 8)]
///     lps: u32,
/// }
///
/// impl ModelCli for RingArgs {
///     type Model = Ring;
///     const NAME: &'static str = "ring";
///     const ABOUT: &'static str = "A ring of LPs passing tokens";
///     const END: &'static str = "100";
///     fn build(&self, _run: &RunInfo) -> Result<Ring, String> {
///         if self.lps == 0 { return Err("--lps must be at least 1".into()) }
///         Ok(Ring { lps: self.lps })
///     }
/// }
///
/// // In `main`: `fn main() -> std::process::ExitCode { App::new("ring").model::<RingArgs>().main() }`
/// let app = App::new("ring").model::<RingArgs>();
/// let code = app.main_from(["ring", "run", "ring", "--end", "10", "--quiet"]);
/// assert_eq!(code, std::process::ExitCode::SUCCESS);
/// ```
pub trait ModelCli: Args + std::fmt::Debug + 'static {
    /// The model these options build.
    type Model: Model;
    /// Its name on the command line (`run NAME`); lower case, no spaces.
    const NAME: &'static str;
    /// One line saying what it simulates (`run NAME --help`).
    const ABOUT: &'static str;
    /// The line `list` prints (what it is and what it is checked against).
    const SUMMARY: &'static str = Self::ABOUT;
    /// Default of `--end` (virtual time), as text.
    const END: &'static str;
    /// Help of `--end` (say the time unit).
    const END_HELP: &'static str = "Virtual end time; events at or after it are not processed";

    /// Builds the model, or says which option is wrong and how to fix it.
    /// Refuse here parameters that cannot give a finite run.
    fn build(&self, run: &RunInfo) -> Result<Self::Model, String>;

    /// The options that set the model's size, as the user wrote them
    /// (`--lps 1000`): named when a run would not fit in memory.
    fn sizing(&self) -> String {
        format!("the options of model {}", Self::NAME)
    }

    /// The files building the model reads (traces, layouts, placement
    /// files), each set with the option that names it (`--trace-dir tr`; a
    /// directory as the files read from it). A checkpoint records their
    /// sizes and hashes, and a resume whose files differ is refused, naming
    /// the file, before the model is built. A model that reads files
    /// should list them: without, a resume reads them unchecked.
    fn inputs(&self) -> Vec<timewarp::checkpoint::InputFiles> {
        Vec::new()
    }

    /// Writes the model's own output files from its results (after a
    /// `run`, before the summary is printed).
    fn after(&self, _results: &<Self::Model as Model>::Results) -> Result<(), String> {
        Ok(())
    }

    /// Text printed after the summary of a `run` (not with `--quiet`):
    /// the results set beside their expected values, say.
    fn summary(&self, _results: &<Self::Model as Model>::Results) -> String {
        String::new()
    }
}

/// The engine settings a model may need to build itself.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RunInfo {
    /// Virtual end time (`--end`).
    pub end: f64,
    /// The run's seed (`--seed`).
    pub seed: u64,
    /// `--max-events-at-one-time` (0: no limit): whether a model whose
    /// events can all fall at one time still ends.
    pub max_events_at_one_time: u64,
}

impl RunInfo {
    pub(crate) fn of(engine: &EngineArgs) -> Self {
        RunInfo { end: engine.end(), seed: engine.seed, max_events_at_one_time: engine.max_events_at_one_time }
    }
}

/// clap's message for `e` without its `error: ` prefix, to be put in a message of ours.
pub(crate) fn clap_message(e: &clap::Error) -> String {
    e.render().to_string().trim_start_matches("error: ").trim_end().to_string()
}

/// What `run` or `verify` does with a model once built (generic over the
/// model type, so it stays out of the object-safe [`Entry`]). The requests
/// are defined here, below the dispatch that names them; what they do is
/// `action.rs`'s ([`Action`] for each).
pub(crate) enum Act<'a, 'b> {
    Run(&'a Run<'b>),
    Verify(&'a Verify<'b>),
}

/// `timewarp run` (or `resume`), in this process (and, with MPI, its peers).
pub(crate) struct Run<'a> {
    pub(crate) procs: &'a Procs,
    pub(crate) models: &'a Models,
    /// What followed `timewarp run` (a checkpoint stores it).
    pub(crate) command: Vec<String>,
    /// Asks the run to pause (signals).
    pub(crate) control: &'a Control,
    /// Temporary output files, removed if a signal ends the process.
    pub(crate) temporaries: &'a signals::Temporaries,
    /// The checkpoint to continue from.
    /// (Taken when the model is built: its bytes go once the snapshot is decoded.)
    pub(crate) resume: std::cell::Cell<Option<timewarp::checkpoint::File>>,
    /// The fingerprints of the run's input files, for its checkpoints to record.
    pub(crate) inputs: std::cell::Cell<Vec<timewarp::checkpoint::Input>>,
    /// Run for an embedding program ([`crate::embed`]): the run takes
    /// `control` even without a checkpoint directory (a stop request ends it
    /// at its next cut), and an interruption is returned as an error instead
    /// of ending the process. The command line's runs leave it false.
    pub(crate) embedded: bool,
    /// Where an embedded run reports its progress ([`crate::embed::Embedded::with_progress`]).
    pub(crate) progress: Option<timewarp::ProgressSink>,
    /// Set when the model is built and its run about to start: an error
    /// before it is one of the input (an embedding program tells them apart).
    pub(crate) started: std::cell::Cell<bool>,
}

/// `timewarp verify`: sequential against parallel, in this process.
pub(crate) struct Verify<'a> {
    pub(crate) procs: &'a Procs,
    pub(crate) temporaries: &'a signals::Temporaries,
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

/// A registered model, its type erased: the command line and dispatch.
pub(crate) trait Entry {
    fn name(&self) -> &'static str;
    fn summary(&self) -> &'static str;
    /// `run NAME`'s command: the model's options, then the engine's.
    fn command(&self) -> Command;
    /// Parses `m` (matches of [`Entry::command`]), builds the model and applies `act`.
    fn dispatch(&self, m: &ArgMatches, act: Act<'_, '_>) -> Result<(), String>;
}

/// The [`Entry`] of options type `A`.
pub(crate) struct Registered<A>(pub PhantomData<fn() -> A>);

impl<A: ModelCli> Entry for Registered<A> {
    fn name(&self) -> &'static str {
        A::NAME
    }
    fn summary(&self) -> &'static str {
        A::SUMMARY
    }
    fn command(&self) -> Command {
        // The options structs' doc comments would set the about: set it last.
        EngineArgs::augment_args(A::augment_args(Command::new(A::NAME)))
            .mut_arg("end", |a| a.default_value(A::END).help(A::END_HELP))
            .about(A::ABOUT)
            .long_about(None)
    }
    fn dispatch(&self, m: &ArgMatches, act: Act<'_, '_>) -> Result<(), String> {
        let fail = |e: clap::Error| clap_message(&e);
        let args = A::from_arg_matches(m).map_err(fail)?;
        let engine = EngineArgs::from_arg_matches(m).map_err(fail)?;
        // Before the build reads them: a resume checks them against its checkpoint.
        if let Act::Run(run) = &act {
            run.inputs(&engine, args.inputs().into_iter().chain(engine.inputs()).collect())?;
        }
        let model = args.build(&RunInfo::of(&engine))?;
        let (sizing, params) = (args.sizing(), format!("{args:?}"));
        let after = |r: &<A::Model as Model>::Results| args.after(r);
        let summary = |r: &<A::Model as Model>::Results| args.summary(r);
        let hooks = Hooks { after: &after, summary: &summary };
        match act {
            Act::Run(run) => Action::apply(run, &model, &engine, &sizing, &params, hooks),
            Act::Verify(v) => Action::apply(v, &model, &engine, &sizing, &params, hooks),
        }
        .map(drop)
    }
}

/// The models of a program, in the order registered.
#[derive(Default)]
pub(crate) struct Models {
    entries: Vec<Box<dyn Entry>>,
}

impl Models {
    pub(crate) fn add(&mut self, e: Box<dyn Entry>) {
        self.entries.push(e);
    }
    pub(crate) fn iter(&self) -> impl Iterator<Item = &dyn Entry> {
        self.entries.iter().map(|e| &**e)
    }
    pub(crate) fn get(&self, name: &str) -> Option<&dyn Entry> {
        self.iter().find(|e| e.name() == name)
    }
    /// The models' names, for messages.
    pub(crate) fn names(&self) -> String {
        self.iter().map(|e| e.name()).collect::<Vec<_>>().join(", ")
    }
    /// The first model's name (examples in messages).
    pub(crate) fn example(&self) -> &'static str {
        self.iter().next().map_or("phold", |e| e.name())
    }
}

#[cfg(all(test, feature = "models"))]
mod tests {
    use super::*;
    use crate::models::{PcsArgs, PholdArgs, TlmArgs};
    use crate::network::NetworkArgs;

    /// Options whose value names a file a run reads at start: each is
    /// fingerprinted by a checkpoint (`--codes-config` is stored resolved,
    /// as the options it gives, and not read again).
    const INPUTS: &[&str] = &[
        "mapping",
        "trace-dir",
        "rank-mapping",
        "terrain",
        "sources-file",
        "receivers-file",
        "codes-config",
        "intra-connections",
        "inter-connections",
        "connections-dir",
        "codes-workload",
        "codes-alloc",
    ];
    // Options whose value names a file or directory a run writes: the run
    // file's list, which a replay leaves out.
    use crate::effective::OUTPUTS;

    /// The options `A`'s inputs name, given `args` after the model's name.
    fn named<A: ModelCli>(args: &[&str]) -> Vec<String> {
        let cmd = Registered::<A>(PhantomData).command();
        let m = cmd.try_get_matches_from(std::iter::once(A::NAME).chain(args.iter().copied())).unwrap();
        let (a, e) = (A::from_arg_matches(&m).unwrap(), EngineArgs::from_arg_matches(&m).unwrap());
        a.inputs().into_iter().chain(e.inputs()).map(|i| i.option).collect()
    }

    /// Every option of model `A` that names a file or directory is an
    /// input or an output; each input read at start is one a checkpoint
    /// records, named by the option and its value.
    fn classified<A: ModelCli>() {
        let cmd = Registered::<A>(PhantomData).command();
        for a in cmd.get_arguments() {
            let value = a.get_value_names().map(|n| n.join(" ")).unwrap_or_default();
            let Some(long) = a.get_long().filter(|_| value.contains("FILE") || value.contains("DIR")) else {
                continue;
            };
            assert!(
                INPUTS.contains(&long) || OUTPUTS.contains(&long),
                "{} --{long} {value}: an input (fingerprint it: ModelCli::inputs) or an output? List it here",
                A::NAME
            );
            // --connections-dir only says where --intra/--inter-connections' files are.
            if INPUTS.contains(&long) && !["codes-config", "connections-dir"].contains(&long) {
                let flag = format!("--{long}");
                let given = format!("{flag} some/file");
                assert!(named::<A>(&[&flag, "some/file"]).contains(&given), "{} {given}", A::NAME);
            }
        }
    }

    #[test]
    fn every_file_an_option_makes_a_run_read_is_a_checkpoint_input() {
        classified::<PholdArgs>();
        classified::<NetworkArgs>();
        classified::<TlmArgs>();
        classified::<PcsArgs>();
        // Values that name no file are no input.
        assert!(named::<NetworkArgs>(&["--mapping", "random", "--rank-mapping", "linear"]).is_empty());
        assert!(named::<PholdArgs>(&[]).is_empty());
    }
}
