//! A command line with its run file put in: `--config FILE` and
//! `--print-config` taken out of `timewarp run ...` (or `verify ...`) and
//! the file's options put in as tokens, with where each came from, so that
//! an error about a value names the file's line, not a flag never typed.

use std::path::Path;

use timewarp::text::{printable, printable_within};

use crate::registry::Models;
use crate::run_file::with_file;

/// A command line with its run file put in.
#[derive(Debug, Default)]
pub(crate) struct Expanded {
    /// The whole command line for clap (`timewarp run phold --threads=2 ...`).
    pub argv: Vec<String>,
    /// `--print-config` was given.
    pub print: bool,
    /// Options that came from the file (or a CODES configuration): long name and place.
    pub(crate) origins: Vec<(String, String)>,
}

impl Expanded {
    /// A command line left as it is.
    pub(crate) fn plain(argv: Vec<String>) -> Self {
        Expanded { argv, ..Expanded::default() }
    }
}

/// The commands that run a model from its options (`run` and `verify`):
/// each reads run files and CODES configurations the same way, so that
/// `verify` checks exactly the configuration `run` would run.
pub(crate) fn runs_a_model(argv: &[String]) -> bool {
    matches!(argv.get(1).map(String::as_str), Some("run" | "verify"))
}

/// Takes `--config FILE` and `--print-config` out of `timewarp run ...`
/// (or `verify ...`) and puts the file's options in. Other commands pass
/// through.
pub(crate) fn expand(models: &Models, argv: Vec<String>) -> Result<Expanded, String> {
    if !runs_a_model(&argv) {
        return Ok(Expanded::plain(argv));
    }
    let (file, print, rest) = take_config(&argv[2..])?;
    if print && argv[1] == "verify" {
        let p = crate::program::name();
        return Err(format!("--print-config prints a run's configuration: use `{p} run ... --print-config`"));
    }
    let mut x = Expanded { print, ..Expanded::default() };
    let tokens = match file {
        None => rest,
        Some(path) => with_file(models, Path::new(&path), &rest, &mut x.origins)?,
    };
    x.argv = argv[..2].iter().cloned().chain(tokens).collect();
    Ok(x)
}

/// `--config FILE` (or `--config=FILE`), `--print-config`, and the other tokens.
fn take_config(tokens: &[String]) -> Result<(Option<String>, bool, Vec<String>), String> {
    let (mut file, mut print, mut rest) = (None, false, Vec::new());
    let mut it = tokens.iter();
    while let Some(t) = it.next() {
        let path = match t.as_str() {
            "--print-config" => {
                print = true;
                continue;
            }
            "--config" => {
                let p = crate::program::name();
                Some(it.next().cloned().ok_or(format!("--config needs a file: {p} run --config run.toml [OPTIONS]"))?)
            }
            t => t.strip_prefix("--config=").map(String::from),
        };
        match path {
            Some(p) if file.is_some() => return Err(format!("--config {p}: one run file at a time")),
            Some(p) => file = Some(p),
            None => rest.push(t.clone()),
        }
    }
    Ok((file, print, rest))
}

/// clap's error about an option that came from the run file, as one line
/// naming the file, line and key.
pub(crate) fn explain(e: &clap::Error, x: &Expanded) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else { return None };
    let long = arg.trim_start_matches('-').split([' ', '=']).next()?;
    let (_, place) = x.origins.iter().find(|(l, _)| l == long)?;
    let mut text = e.render().to_string();
    // clap quotes the file's value as it is: escape and bound it (and a
    // value with a line break must not cut the message at it).
    if let Some(ContextValue::String(v)) = e.get(ContextKind::InvalidValue) {
        if !v.is_empty() {
            text = text.replace(v.as_str(), &printable(v));
        }
    }
    let first = text.lines().next().unwrap_or_default().trim_start_matches("error: ");
    Some(format!("{place}: {}", printable_within(first, 400)))
}

/// Error `e` of a run with, for each option it names that a run file or a
/// CODES configuration set (not the command line), where that value came
/// from: the user is sent to the file's line, not to a flag never typed.
pub(crate) fn attribute(e: &str, x: &Expanded) -> String {
    let mut from: Vec<String> = Vec::new();
    for (long, place) in &x.origins {
        let flag = format!("--{long}");
        let whole = |i: usize| !e[i + flag.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-');
        if e.match_indices(&flag).any(|(i, _)| whole(i)) && !from.iter().any(|f| f.starts_with(&format!("{flag} "))) {
            from.push(format!("{flag} is from {place}"));
        }
    }
    if from.is_empty() {
        e.to_string()
    } else {
        format!("{e} ({})", from.join("; "))
    }
}
