//! [`App`], the front door: a program's command line over the models
//! registered with it (the shipped ones, or a model crate's own).

use crate::registry::{ModelCli, Models, Registered};
use crate::{command, program};
#[cfg(feature = "models")]
use crate::{models, network};
use std::ffi::OsString;
use std::process::ExitCode;

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
            .model::<network::NetworkArgs>()
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
        program::set_name(self.name);
        command::main_with(&self.models, self.command(), self.single(os))
    }

    /// The program's name and its models, for [`Embedded`](crate::embed::Embedded).
    pub(crate) fn into_parts(self) -> (&'static str, Models) {
        (self.name, self.models)
    }

    /// The whole command line, with every model under `run` and `verify`.
    fn command(&self) -> clap::Command {
        let c = command::command(self.name, &self.models);
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

#[cfg(all(test, feature = "models"))]
mod tests {
    use super::*;
    use crate::command::command;
    use crate::procs::Procs;

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
        use crate::signals::Pause;
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
