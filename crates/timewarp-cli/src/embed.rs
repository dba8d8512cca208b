//! The command line's verbs for a program that embeds the front end in
//! another process: the Python package `timewarp` (`python/` in the
//! repository). Each call takes the tokens a user would type after the
//! verb (`phold --end 10 --threads 2`), goes through the very parser,
//! run-file and CODES-configuration expansion and code path of the
//! `timewarp` command, and gives back what the command writes to files
//! (the statistics of `--stats-json`, the sweep's CSV) as text: an option
//! the command gains, an embedding program has, and a run commits the
//! digest the command commits for the same tokens.
//!
//! Unlike the command, an embedded run watches no signals and never ends
//! the process: the embedding program stops a run with the
//! [`Control`] it passes in ([`Control::interrupt`]; the run stops at its
//! next cut, writing a checkpoint where `--checkpoint-dir` is given) and
//! gets [`Error::Interrupted`].
//!
//! ```
//! use timewarp::checkpoint::Control;
//! use timewarp_cli::embed::Embedded;
//!
//! let tw = Embedded::new(timewarp_cli::App::new("timewarp").shipped());
//! let argv: Vec<String> = ["phold", "--lps", "16", "--end", "5"].map(String::from).to_vec();
//! let stats: serde_json::Value = serde_json::from_str(&tw.run(&argv, &Control::default()).unwrap()).unwrap();
//! assert!(stats["committed_events"].as_u64().unwrap() > 0);
//! // Bad input: the command's message.
//! let bad: Vec<String> = ["phold", "--lps", "none"].map(String::from).to_vec();
//! assert!(matches!(tw.run(&bad, &Control::default()), Err(timewarp_cli::embed::Error::Input(_))));
//! ```

use crate::action::{self, Embedding};
use crate::args::switches;
use crate::network::curve;
use crate::procs::Procs;
use crate::registry::{Act, Models, Verify};
use crate::{effective, expand, run_options};
use crate::{signals, sweep};
use clap::{Args, FromArgMatches};
use serde_json::Value as Json;
use std::cell::Cell;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use timewarp::checkpoint::Control;

/// Why an embedded call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Bad input: the tokens, a run file, a CODES configuration or the
    /// model's options were refused before anything ran (the command exits
    /// with 2 or 1). The message is the command's, without `error: `.
    Input(String),
    /// The run (or a sweep's run, or the output) failed; the command's message.
    Run(String),
    /// Stopped by [`Control::interrupt`]; what the run says (the checkpoint
    /// it wrote, if any, and how to resume).
    Interrupted(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Input(e) | Error::Run(e) | Error::Interrupted(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for Error {}

/// One option of `run MODEL`, for discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionInfo {
    /// Its long name on the command line (`kps-per-pe`).
    pub name: String,
    /// An engine option (else the model's own).
    pub engine: bool,
    /// How it takes its value: `flag` (a switch), `one`, `list`
    /// (comma-separated) or `repeat` (given once per value).
    pub kind: &'static str,
    /// Its default, as text, if it has one.
    pub default: Option<String>,
    /// Its help line.
    pub help: String,
}

/// A program's models, to run in this process: built from the [`App`](crate::App)
/// the program would run as a command.
pub struct Embedded {
    name: &'static str,
    models: Models,
    progress: Option<timewarp::ProgressSink>,
}

impl Embedded {
    /// The verbs of `app`'s command line, in this process.
    pub fn new(app: crate::App) -> Self {
        let (name, models) = app.into_parts();
        crate::program::set_name(name);
        Embedded { name, models, progress: None }
    }

    /// Runs ([`run`](Self::run), [`resume`](Self::resume)) report their
    /// progress to `sink` (virtual time against end time, for a progress
    /// bar of the embedding program's own, read from another thread while
    /// the run goes on); the command's terminal progress bar stays off in
    /// embedded runs either way.
    pub fn with_progress(mut self, sink: timewarp::ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }

    /// The models: each one's name and the line `list` prints.
    pub fn models(&self) -> Vec<(&'static str, &'static str)> {
        self.models.iter().map(|e| (e.name(), e.summary())).collect()
    }

    /// The options of `run model`, in the order of its `--help` (None for an unknown model).
    pub fn options(&self, model: &str) -> Option<Vec<OptionInfo>> {
        let opts = run_options::options(&self.models, model)?;
        let cmd = self.models.get(model)?.command();
        let info = cmd
            .get_arguments()
            .filter_map(|a| {
                let long = a.get_long()?;
                let o = opts.iter().find(|o| o.long == long)?;
                let kind = match o.kind {
                    run_options::Kind::Flag => "flag",
                    run_options::Kind::One => "one",
                    run_options::Kind::List => "list",
                    run_options::Kind::Repeat => "repeat",
                };
                let default = (!a.get_default_values().is_empty() && o.kind != run_options::Kind::Flag).then(|| {
                    a.get_default_values()
                        .iter()
                        .map(|v| v.to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join(",")
                });
                let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                Some(OptionInfo { name: long.to_string(), engine: o.engine, kind, default, help })
            })
            .collect();
        Some(info)
    }

    /// `timewarp run ARGS... --stats-json FILE`: the run's statistics file
    /// (JSON text). `args` start with the model's name (or `--config FILE`);
    /// without a `--stats-json` of theirs the statistics go through a
    /// temporary file.
    ///
    /// With `--print-config` among `args`: the effective configuration as
    /// TOML (what the command prints), and nothing run.
    pub fn run(&self, args: &[String], control: &Control) -> Result<String, Error> {
        if args.iter().any(|t| t == "--print-config") {
            let (_, expanded) = self.parse("run", args)?;
            let eff = effective::Effective::of(&self.models, &expanded.argv[2..], true).map_err(Error::Input)?;
            return Ok(eff.to_toml(self.name));
        }
        let (args, stats) = with_stats(args)?;
        let (matches, expanded) = self.parse("run", &args)?;
        let (name, m) = matches.subcommand().ok_or_else(|| Error::Input("name a model".into()))?;
        let entry = self.models.get(name).ok_or_else(|| Error::Input(format!("no model {name}")))?;
        let procs = Procs::init().map_err(Error::Input)?;
        let started = Cell::new(false);
        let embedding = Embedding { control, started: &started, progress: self.progress.as_ref() };
        let command = expanded.argv[2..].to_vec();
        let done = action::run(&procs, &self.models, entry, m, command, None, Some(&embedding));
        let done = done.map_err(|e| expand::attribute(&e, &expanded));
        finish(done, &stats, control, started.get())
    }

    /// `timewarp resume FILE OPTIONS...`: the run continued from checkpoint
    /// `file` with `options` in place; its statistics file (JSON text).
    pub fn resume(&self, file: &Path, options: &[String], control: &Control) -> Result<String, Error> {
        let (options, stats) = with_stats(options)?;
        let procs = Procs::init().map_err(Error::Input)?;
        let started = Cell::new(false);
        let embedding = Embedding { control, started: &started, progress: self.progress.as_ref() };
        let done = action::resume_from(&procs, &self.models, file, &options, Some(&embedding));
        finish(done, &stats, control, started.get())
    }

    /// `timewarp verify ARGS... --stats-json FILE`: both runs' statistics
    /// and the verdict (JSON text: `identical`, `divergence`, `sequential`,
    /// `parallel`), also when they differ. Runs to its end: `control` is
    /// not looked at.
    pub fn verify(&self, args: &[String], _control: &Control) -> Result<String, Error> {
        let (args, stats) = with_stats(args)?;
        let (matches, expanded) = self.parse("verify", &args)?;
        let (name, m) = matches.subcommand().ok_or_else(|| Error::Input("name a model".into()))?;
        let entry = self.models.get(name).ok_or_else(|| Error::Input(format!("no model {name}")))?;
        let procs = Procs::init().map_err(Error::Input)?;
        let temporaries = signals::Temporaries::default();
        let done = entry.dispatch(m, Act::Verify(&Verify { procs: &procs, temporaries: &temporaries }));
        let text = stats.read();
        match (done, text) {
            // A mismatch is an answer, not a failure: the file says it.
            (_, Some(Ok(t))) => Ok(t),
            (Err(e), _) => Err(Error::Input(expand::attribute(&e, &expanded))),
            (Ok(()), Some(Err(e))) => Err(Error::Run(e)),
            (Ok(()), None) => Err(Error::Run("verify wrote no statistics".into())),
        }
    }

    /// `timewarp sweep ARGS... -o FILE`, each run in this process (stopped
    /// by `control`): the CSV text. A run that fails is a row with its
    /// error, as in the command, and the sweep goes on; then the CSV is
    /// still returned, with the failure count in [`Error::Run`] only when
    /// none could be written.
    pub fn sweep(&self, args: &[String], control: &Control) -> Result<String, Error> {
        let out = Temp::new("sweep", "csv")?;
        let argv = ["sweep".to_string()].into_iter().chain(args.iter().cloned());
        let mut a = parse_args::<sweep::SweepArgs>(argv)?;
        if a.output.is_some() || a.run.iter().any(|t| t == "-o" || t == "--output" || t.starts_with("--output=")) {
            return Err(Error::Input("sweep: the CSV is returned; leave -o out".into()));
        }
        a.output = Some(out.path.clone());
        let one = |tokens: &[String]| self.one(tokens, control);
        let done = sweep::run_with(&self.models, &a, Some(&one));
        self.table(
            done.map_err(|f| match f {
                sweep::Failure::Usage(e) => Error::Input(e),
                sweep::Failure::Runs(e) => Error::Run(e),
            }),
            &out,
            control,
        )
    }

    /// `timewarp curve network ARGS... -o FILE.csv`, each run in this
    /// process: the CSV text (the two plots are written beside `output`,
    /// as the command writes them).
    pub fn curve(&self, args: &[String], output: &Path, control: &Control) -> Result<String, Error> {
        let argv = ["curve".to_string()].into_iter().chain(args.iter().cloned());
        let mut a = parse_args::<curve::CurveArgs>(argv)?;
        a.output = Some(output.to_path_buf());
        let one = |tokens: &[String]| self.one(tokens, control);
        let done = curve::run_with(&self.models, &a, Some(&one));
        let out = Temp { path: output.to_path_buf(), keep: true };
        self.table(
            done.map_err(|f| match f {
                curve::Failure::Usage(e) => Error::Input(e),
                curve::Failure::Runs(e) => Error::Run(e),
            }),
            &out,
            control,
        )
    }

    /// `timewarp plot ARGS...`: the statistics files (or a CSV) drawn as
    /// the command draws them, to its `-o FILE` (PNG or SVG by the name;
    /// default: the first file with `.png`). The options are the
    /// command's (`--links`, `--samples`, `--map`, `--size`, `--x`, ...).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("timewarp-embed-plot-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// use timewarp::checkpoint::Control;
    /// use timewarp_cli::embed::Embedded;
    ///
    /// let tw = Embedded::new(timewarp_cli::App::new("timewarp").shipped());
    /// let stats = dir.join("stats.json");
    /// let run: Vec<String> = ["phold", "--lps", "16", "--end", "5", "--quiet", "--stats-json"].map(String::from).to_vec();
    /// tw.run(&[run, vec![stats.display().to_string()]].concat(), &Control::default()).unwrap();
    /// let (svg, html) = (dir.join("run.svg"), dir.join("run.html"));
    /// tw.plot(&[stats.display().to_string(), "-o".into(), svg.display().to_string()]).unwrap();
    /// tw.report(&[stats.display().to_string(), "-o".into(), html.display().to_string()]).unwrap();
    /// assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    /// assert!(std::fs::read_to_string(&html).unwrap().contains("<html"));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn plot(&self, args: &[String]) -> Result<(), Error> {
        let a = parse_args::<crate::plot::PlotArgs>(verb("plot", args))?;
        crate::plot::run(&a).map_err(Error::Run)
    }

    /// `timewarp report FILE -o OUT.html`: the statistics file `FILE` as
    /// the command's self-contained HTML page (default: `FILE` with `.html`).
    pub fn report(&self, args: &[String]) -> Result<(), Error> {
        let a = parse_args::<crate::html_report::ReportArgs>(verb("report", args))?;
        crate::html_report::run(&a).map_err(Error::Run)
    }

    /// One run of a sweep or a curve: its statistics or its error line.
    fn one(&self, tokens: &[String], control: &Control) -> Result<Json, String> {
        let args: Vec<String> = tokens.iter().cloned().chain(["--quiet".to_string()]).collect();
        let text = self.run(&args, control).map_err(|e| e.to_string())?;
        serde_json::from_str(&text).map_err(|e| format!("the run's statistics could not be read: {e}"))
    }

    /// The CSV a sweep or a curve wrote, whether or not some runs failed.
    fn table(&self, done: Result<(), Error>, out: &Temp, control: &Control) -> Result<String, Error> {
        if control.interrupted() {
            return Err(Error::Interrupted("interrupted: stopped".into()));
        }
        match (done, std::fs::read_to_string(&out.path)) {
            (Err(e @ Error::Input(_)), _) => Err(e),
            (_, Ok(text)) => Ok(text),
            (Err(e), Err(_)) => Err(e),
            (Ok(()), Err(e)) => Err(Error::Run(format!("cannot read {}: {e}", out.path.display()))),
        }
    }

    /// The command line `verb args...` parsed as the command parses it (run
    /// file and CODES configuration put in): the matches below `verb`.
    fn parse(&self, verb: &str, args: &[String]) -> Result<(clap::ArgMatches, expand::Expanded), Error> {
        let os: Vec<OsString> =
            [self.name, verb].into_iter().map(String::from).chain(args.iter().cloned()).map(OsString::from).collect();
        let argv: Vec<String> = switches(os).into_iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let expanded = expand::expand(&self.models, argv).map_err(Error::Input)?;
        #[cfg(feature = "models")]
        let expanded = {
            let mut expanded = expanded;
            let tokens = expanded.argv.split_off(2);
            let t = crate::network::codes::put_in(&self.models, tokens, &mut expanded.origins).map_err(Error::Input)?;
            expanded.argv.extend(t);
            expanded
        };
        let cmd = crate::command::command(self.name, &self.models);
        let all = match cmd.try_get_matches_from(&expanded.argv) {
            Ok(m) => m,
            Err(e) => {
                let line = expand::explain(&e, &expanded).unwrap_or_else(|| clap_line(&e));
                return Err(Error::Input(line));
            }
        };
        let m = all.subcommand_matches(verb).cloned().ok_or_else(|| Error::Input(format!("not a {verb}")))?;
        Ok((m, expanded))
    }
}

/// clap's error as one line (with its tip, if any), without `error: `.
fn clap_line(e: &clap::Error) -> String {
    let text = crate::registry::clap_message(e);
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default().to_string();
    match lines.find(|l| l.starts_with("tip:")) {
        Some(tip) => format!("{first} ({tip})"),
        None => first,
    }
}

/// `verb args...`, for [`parse_args`].
fn verb(verb: &str, args: &[String]) -> Vec<String> {
    [verb.to_string()].into_iter().chain(args.iter().cloned()).collect()
}

/// `A`'s options parsed from `argv` (the verb first).
fn parse_args<A: Args + FromArgMatches>(argv: impl IntoIterator<Item = String>) -> Result<A, Error> {
    let cmd = A::augment_args(clap::Command::new("verb").no_binary_name(false));
    cmd.try_get_matches_from(argv).and_then(|m| A::from_arg_matches(&m)).map_err(|e| Error::Input(clap_line(&e)))
}

/// The statistics file of a run: the user's `--stats-json`, or a temporary one.
struct Stats {
    file: Temp,
}

impl Stats {
    /// Its text, if it was written.
    fn read(&self) -> Option<Result<String, String>> {
        match std::fs::read_to_string(&self.file.path) {
            Ok(t) if t.trim().is_empty() => None,
            Ok(t) => Some(Ok(t)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => Some(Err(format!("cannot read the statistics {}: {e}", self.file.path.display()))),
        }
    }
}

/// `args` with a `--stats-json` to read back: theirs, or a temporary file's.
fn with_stats(args: &[String]) -> Result<(Vec<String>, Stats), Error> {
    let mut given = None;
    for (i, t) in args.iter().enumerate() {
        if t == "--stats-json" {
            given = args.get(i + 1).cloned();
        } else if let Some(v) = t.strip_prefix("--stats-json=") {
            given = Some(v.to_string());
        }
    }
    match given {
        Some(p) if p == "-" => {
            Err(Error::Input("--stats-json -: the statistics are returned; give a file or leave it out".into()))
        }
        Some(p) => Ok((args.to_vec(), Stats { file: Temp { path: PathBuf::from(p), keep: true } })),
        None => {
            let file = Temp::new("stats", "json")?;
            let args =
                args.iter().cloned().chain(["--stats-json".to_string(), file.path.display().to_string()]).collect();
            Ok((args, Stats { file }))
        }
    }
}

/// A run's outcome with its statistics file read back.
fn finish(done: Result<(), String>, stats: &Stats, control: &Control, started: bool) -> Result<String, Error> {
    match done {
        Err(e) if control.interrupted() => Err(Error::Interrupted(e)),
        Err(e) if started => Err(Error::Run(e)),
        Err(e) => Err(Error::Input(e)),
        // A help or --print-config (resume --help) writes none.
        Ok(()) => match stats.read() {
            Some(r) => r.map_err(Error::Run),
            None => Ok(String::new()),
        },
    }
}

/// A file in the temporary folder, removed when dropped (unless `keep`).
struct Temp {
    path: PathBuf,
    keep: bool,
}

impl Temp {
    /// A new empty file `timewarp-WHAT-PID-N.EXT`, made here so that no other takes its name.
    fn new(what: &str, ext: &str) -> Result<Self, Error> {
        let dir = std::env::temp_dir();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        for n in 0..1000u32 {
            let path = dir.join(format!("timewarp-{what}-{}-{}.{ext}", std::process::id(), nanos.wrapping_add(n)));
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(_) => return Ok(Temp { path, keep: false }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::Run(format!("cannot make a temporary file in {}: {e}", dir.display()))),
            }
        }
        Err(Error::Run(format!("cannot make a temporary file in {}", dir.display())))
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
