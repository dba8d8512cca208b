//! The command line: its subcommands, the help texts of a program built on
//! [`App`](crate::App), and `main`'s parse-and-dispatch.

use crate::action::{self, resume_from};
use crate::args::{switches, EngineArgs};
use crate::effective::Effective;
use crate::expand::{self, Expanded};
#[cfg(feature = "models")]
use crate::network::codes;
use crate::network::curve;
use crate::procs::{launcher_rank, Procs};
use crate::registry::{Act, Models, Verify};
use crate::{html_report, partition, plot, resume, signals, sweep};
use clap::{Args, CommandFactory, FromArgMatches, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use timewarp::checkpoint::Control;

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
    /// A network's latency-load curve: each load run to steady state (BookSim's
    /// rule), the saturation throughput found, the CSV and two plots written.
    #[command(after_help = curve::AFTER_HELP)]
    Curve(curve::CurveArgs),
    /// List the models.
    List,
    /// Partition a profile (`run ... --profile-out FILE`) into a mapping
    /// for `run ... --mapping MAPPING`; prints the cut, the imbalance and
    /// the predicted remote fractions.
    Partition(partition::PartitionArgs),
    /// Plot run statistics (--stats-json; several overlay) or a sweep's CSV as PNG or SVG.
    Plot(plot::PlotArgs),
    /// Write a self-contained HTML page of a run's statistics, configuration, plots and results.
    Report(html_report::ReportArgs),
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
                         conservative, check or auto (conservative where the model declares a positive \
                         lookahead, else optimistic)",
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

/// Parses the command line `os` of program `cmd` and does what it says.
pub(crate) fn main_with(models: &Models, cmd: clap::Command, os: Vec<OsString>) -> ExitCode {
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
    match parse(models, cmd, os, lead) {
        Ok((cli, matches, expanded)) => dispatch(models, &procs, &program, cli, &matches, &expanded),
        Err(code) => code,
    }
}

/// The command line parsed (with a run file's and a CODES configuration's
/// options put in); a bad one is reported (by the `lead` process) and
/// becomes its exit code.
fn parse(
    models: &Models,
    cmd: clap::Command,
    os: Vec<OsString>,
    lead: bool,
) -> Result<(Cli, clap::ArgMatches, Expanded), ExitCode> {
    // (A resume's options replace the checkpoint's: `resume` reads them as given.)
    let os = if os.get(1).is_some_and(|c| c == "resume") { os } else { switches(os) };
    // `run --config FILE`: the file's options go in as command-line tokens.
    // Paths that are not UTF-8 reach clap as they are (a run file is only read from UTF-8 command lines).
    let utf8 = os.iter().all(|a| a.to_str().is_some());
    let argv: Vec<String> = os.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let expanded = match if utf8 { expand::expand(models, argv) } else { Ok(Expanded::plain(argv)) } {
        Ok(x) => x,
        Err(e) => {
            if lead {
                eprintln!("error: {e}");
            }
            return Err(ExitCode::from(2));
        }
    };
    // `run network --codes-config FILE.conf` (and `verify`): its options go
    // in before the command line's; a bad file is bad input (exit 1), not a
    // bad command line.
    #[cfg(feature = "models")]
    let expanded = {
        let mut expanded = expanded;
        if expand::runs_a_model(&expanded.argv) {
            let tokens = expanded.argv.split_off(2);
            match codes::put_in(models, tokens, &mut expanded.origins) {
                Ok(t) => expanded.argv.extend(t),
                Err(e) => {
                    if lead {
                        eprintln!("error: {e}");
                    }
                    return Err(ExitCode::from(1));
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
            if let Some(line) = expand::explain(&e, &expanded) {
                if lead {
                    eprintln!("error: {line}");
                }
                return Err(ExitCode::from(2));
            }
            // clap's whole message: what is wrong, the accepted values or the
            // nearest spelling, and the usage (help and version go to stdout, exit 0).
            if lead {
                let _ = e.print();
            }
            return Err(ExitCode::from(e.exit_code().clamp(0, 255) as u8));
        }
    };
    Ok((cli, matches, expanded))
}

/// `run ... --print-config`: the effective configuration as TOML.
fn print_config(models: &Models, command: &[String], program: &str, lead: bool) -> ExitCode {
    match Effective::of(models, command, true) {
        Ok(eff) => {
            if lead {
                print!("{}", eff.to_toml(program));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Does what the parsed command line says.
fn dispatch(
    models: &Models,
    procs: &Procs,
    program: &str,
    cli: Cli,
    matches: &clap::ArgMatches,
    expanded: &Expanded,
) -> ExitCode {
    let lead = procs.rank() == 0;
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
                return print_config(models, &command, program, lead);
            }
            let (entry, m) = chosen("run");
            action::run(procs, models, entry, m, command, None, None)
        }
        Cmd::Resume { file, options } => resume_from(procs, models, &file, &options, None),
        // Each run of a sweep is a process of its own; under mpirun every
        // process would run the whole sweep's runs alone.
        Cmd::Sweep(_) | Cmd::Curve(_) if procs.size() > 1 => {
            if lead {
                eprintln!("error: sweep and curve start their runs themselves, one after another; run without mpirun");
            }
            return ExitCode::from(2);
        }
        Cmd::Curve(a) => match curve::run(models, &a) {
            Err(curve::Failure::Usage(e)) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            Err(curve::Failure::Runs(e)) => Err(e),
            Ok(()) => Ok(()),
        },
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
        Cmd::Report(a) if lead => html_report::run(&a),
        Cmd::Plot(_) | Cmd::Report(_) => Ok(()),
        Cmd::Verify => {
            let (entry, m) = chosen("verify");
            let temporaries = signals::Temporaries::default();
            signals::watch(&Control::default(), signals::Pause::Never, &temporaries, lead);
            entry.dispatch(m, Act::Verify(&Verify { procs, temporaries: &temporaries }))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if lead {
                eprintln!("error: {}", expand::attribute(&e, expanded));
            }
            ExitCode::FAILURE
        }
    }
}
