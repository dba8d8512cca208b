//! Run files: `timewarp run --config FILE`, `--print-config`, and the
//! effective configuration recorded in `--stats-json`.
//!
//! Design: a run file is turned into command-line tokens (`[engine]
//! threads = 2` -> `--threads=2`, `[model] name = "phold"` -> `phold`,
//! `remote = 0.5` -> `--remote=0.5`, `quiet = true` -> `--quiet`) that the
//! same clap parser as a typed command line reads, so a file gets every
//! check and message of the command line. Options given on the command line
//! replace the file's options of the same name. Keys are checked against
//! the model's options before that (an unknown key, or one in the wrong
//! table, is an error naming the file, line and key, with the nearest
//! name), and a value clap refuses is traced back to its file and line.
//!
//! The effective configuration (every engine and model option, defaults
//! included) is read back from clap's matches of the expanded command line:
//! `--print-config` prints it as TOML, `--stats-json` records it under
//! `config`, and `--config` reads either form back (a statistics file's
//! `config` object leaves output destinations out, so replaying it does not
//! overwrite the file it came from).

use std::collections::BTreeMap;
use std::path::Path;

use clap::{ArgAction, Args, Command};
use serde_json::Value as Json;
use timewarp::text::{printable, printable_within};
use toml::{Spanned, Value};

use crate::args::EngineArgs;
use crate::registry::Models;

/// Options that name where a run's output goes (or how it is shown), not
/// what is simulated: a statistics file's `config` leaves them out, so that
/// a replay never overwrites the first run's files (the registry's tests
/// check that every option naming a file a run writes is here).
pub(crate) const OUTPUTS: &[&str] = &[
    "stats-json",
    "stats-csv",
    "gvt-csv",
    "trace-out",
    "trace-limit",
    "quiet",
    "profile-out",
    "checkpoint-dir",
    "checkpoint-every",
    "checkpoint-wall",
    "checkpoint-keep",
    "link-stats",
    "image",
    "image-at",
    "image-layer",
    "receivers-csv",
    "samples-csv",
];

/// How an option takes its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A switch: `true` gives it, `false` leaves it out.
    Flag,
    /// One value.
    One,
    /// One comma-separated list (`dims = [16, 16]` -> `--dims=16,16`).
    List,
    /// Given once per value (`source-at = ["1,2", [3, 4]]`).
    Repeat,
}

/// An option of `timewarp run <model>`.
#[derive(Clone, Debug)]
pub(crate) struct Opt {
    /// Its long name (`kps-per-pe`).
    pub long: String,
    /// An engine option (else the model's).
    pub engine: bool,
    pub kind: Kind,
    /// Its value names a file or folder (kept as text in a configuration).
    pub path: bool,
}

/// The clap command of `timewarp run <model>`, if `model` is one.
fn model_command(models: &Models, model: &str) -> Option<Command> {
    models.get(model).map(|e| e.command())
}

/// The options of `timewarp run <model>` (None for an unknown model).
pub(crate) fn options(models: &Models, model: &str) -> Option<Vec<Opt>> {
    let engine: Vec<String> = EngineArgs::augment_args(Command::new("engine"))
        .get_arguments()
        .filter_map(|a| a.get_long().map(String::from))
        .collect();
    let cmd = model_command(models, model)?;
    let opts = cmd
        .get_arguments()
        .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
        .filter_map(|a| {
            let long = a.get_long()?.to_string();
            let kind = match a.get_action() {
                ArgAction::SetTrue => Kind::Flag,
                _ if a.get_value_delimiter().is_some() => Kind::List,
                ArgAction::Append => Kind::Repeat,
                _ => Kind::One,
            };
            let names =
                a.get_value_names().map(|n| n.iter().map(|s| s.as_str()).collect::<String>()).unwrap_or_default();
            let path = names.contains("FILE") || names.contains("DIR");
            Some(Opt { engine: engine.contains(&long), long, kind, path })
        })
        .collect();
    Some(opts)
}

/// The closest of `names` to `key` (a typo), if any is close.
pub(crate) fn nearest<'a>(key: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    fn distance(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut prev = row[0];
            row[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let cur = row[j + 1];
                row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
                prev = cur;
            }
        }
        row[b.len()]
    }
    names.map(|n| (distance(key, n), n)).filter(|(d, n)| *d <= 2.max(n.len() / 4)).min().map(|(_, n)| n)
}

/// One setting of a run file.
#[derive(Debug)]
struct Entry {
    /// Where it is: `run.toml:3: [engine] threads`.
    place: String,
    long: String,
    value: Value,
}

/// A run file's model and settings.
#[derive(Debug)]
struct RunFile {
    model: String,
    entries: Vec<Entry>,
}

/// A table of a TOML run file, its keys and values with their places.
type SpannedTable = BTreeMap<Spanned<String>, Spanned<Value>>;

/// The tables a TOML run file may have.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlFile {
    engine: Option<SpannedTable>,
    model: Option<Spanned<SpannedTable>>,
}

/// The line (from 1) of byte `offset` of `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Reads a run file: TOML, or JSON (a `--stats-json` file, or a file that
/// ends in `.json`).
fn load(models: &Models, path: &Path) -> Result<RunFile, String> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!("--config {shown}: cannot read the run file ({e}); give a TOML run file or a --stats-json file")
    })?;
    let json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) || text.trim_start().starts_with('{');
    let (model, raw) = if json { from_json(&shown, &text)? } else { from_toml(models, &shown, &text)? };
    let opts = options(models, &model.0).ok_or_else(|| {
        format!(
            "{}: [model] name = \"{}\" is no model; the models are {}",
            model.1,
            printable(&model.0),
            models.names()
        )
    })?;
    let mut entries: Vec<Entry> = Vec::new();
    for (table, key, place, value) in raw {
        let long = key.replace('_', "-");
        let Some(opt) = opts.iter().find(|o| o.long == long) else {
            let hint = match nearest(&long, opts.iter().map(|o| o.long.as_str())) {
                Some(n) if opts.iter().any(|o| o.long == n && o.engine != (table == "engine")) => {
                    let other = if table == "engine" { "model" } else { "engine" };
                    format!("did you mean `{n}` (under [{other}])?")
                }
                Some(n) => format!("did you mean `{n}`?"),
                None => format!("see `{} run {} --help` for the options", crate::program::name(), model.0),
            };
            return Err(format!("{place}: unknown key `{}` in [{table}] of {}; {hint}", printable(&key), model.0));
        };
        if opt.engine != (table == "engine") {
            let (is, goes) = if opt.engine { ("an engine", "engine") } else { ("a model", "model") };
            return Err(format!("{place}: `{key}` is {is} option; move it under [{goes}]"));
        }
        if let Some(other) = entries.iter().find(|e| e.long == long) {
            return Err(format!("{place}: `{key}` is given twice (also at {}); keep one", other.place));
        }
        entries.push(Entry { place, long, value });
    }
    Ok(RunFile { model: model.0, entries })
}

/// The model's name and where it was given, and every other setting as
/// (table, key, place, value), of a TOML run file.
#[allow(clippy::type_complexity)]
fn from_toml(
    models: &Models,
    path: &str,
    text: &str,
) -> Result<((String, String), Vec<(&'static str, String, String, Value)>), String> {
    let file: TomlFile = toml::from_str(text).map_err(|e| {
        let at = e.span().map(|s| format!(":{}", line_of(text, s.start))).unwrap_or_default();
        format!("{path}{at}: malformed run file: {}", printable_within(&e.message().trim().replace('\n', " "), 200))
    })?;
    let Some(model) = file.model else {
        return Err(format!(
            "{path}: no [model] table; name the model with [model] name = \"{}\" (one of {})",
            models.example(),
            models.names()
        ));
    };
    let model_line = line_of(text, model.span().start);
    let mut name = None;
    let mut out = Vec::new();
    for (table, entries) in [("engine", file.engine.unwrap_or_default()), ("model", model.into_inner())] {
        for (k, v) in entries {
            let place = format!("{path}:{}: [{table}] {}", line_of(text, k.span().start), printable(k.get_ref()));
            if table == "model" && k.get_ref() == "name" {
                match v.get_ref() {
                    Value::String(s) => name = Some((s.clone(), place)),
                    other => {
                        return Err(format!(
                            "{place}: the model's name must be text such as \"phold\", not {}",
                            other.type_str()
                        ))
                    }
                }
                continue;
            }
            out.push((table, k.into_inner(), place, v.into_inner()));
        }
    }
    let name = name.ok_or_else(|| {
        format!(
            "{path}:{model_line}: [model] has no name; add name = \"{}\" (one of {})",
            models.example(),
            models.names()
        )
    })?;
    Ok((name, out))
}

/// As [`from_toml`], for a JSON file: a `--stats-json` file's `config`
/// object, or an object with `engine` and `model` itself. Lines are found by
/// looking for the key after its table's name.
#[allow(clippy::type_complexity)]
fn from_json(path: &str, text: &str) -> Result<((String, String), Vec<(&'static str, String, String, Value)>), String> {
    let v: Json = serde_json::from_str(text).map_err(|e| format!("{path}: malformed JSON: {e}"))?;
    let config = v.get("config").filter(|c| c.is_object()).unwrap_or(&v);
    let Some(Json::Object(model)) = config.get("model") else {
        return Err(format!(
            "{path}: no run configuration in it: give a TOML run file, or a statistics file written by \
             `timewarp run --stats-json` (its `config` object has `engine` and `model`)"
        ));
    };
    if let Some(Json::String(v)) = config.get("version").filter(|v| *v != env!("CARGO_PKG_VERSION")) {
        eprintln!(
            "note: {path} was written by timewarp {v}, this is {}: its options are read as this version's",
            env!("CARGO_PKG_VERSION")
        );
    }
    let start = text.find("\"config\"").unwrap_or(0);
    let line = |table: &str, key: &str| {
        let t = text[start..].find(&format!("\"{table}\"")).map_or(start, |i| start + i);
        let at = text[t..].find(&format!("\"{key}\"")).map_or(t, |i| t + i);
        line_of(text, at)
    };
    let name = match model.get("name") {
        Some(Json::String(s)) => (s.clone(), format!("{path}:{}: model.name", line("model", "name"))),
        _ => return Err(format!("{path}: the configuration's model has no name (\"name\": \"phold\")")),
    };
    let mut out = Vec::new();
    let engine = match config.get("engine") {
        None | Some(Json::Null) => serde_json::Map::new(),
        Some(Json::Object(e)) => e.clone(),
        Some(_) => return Err(format!("{path}:{}: \"engine\" must be an object of options", line("engine", "engine"))),
    };
    for (table, entries) in [("engine", &engine), ("model", model)] {
        for (k, v) in entries.iter().filter(|(k, _)| !(table == "model" && k.as_str() == "name")) {
            let place = format!("{path}:{}: {table}.{}", line(table, k), printable(k));
            // null: an option that was not set.
            if let Some(value) = json_to_toml(v).map_err(|what| format!("{place}: {what} is not an option's value"))? {
                out.push((table, k.clone(), place, value));
            }
        }
    }
    Ok((name, out))
}

/// A JSON value as TOML (None for null; an object is refused).
fn json_to_toml(v: &Json) -> Result<Option<Value>, &'static str> {
    Ok(Some(match v {
        Json::Null => return Ok(None),
        Json::Bool(b) => Value::Boolean(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Float(n.as_f64().ok_or("a number out of range")?),
        },
        Json::String(s) => Value::String(s.clone()),
        Json::Array(a) => Value::Array(a.iter().filter_map(|x| json_to_toml(x).transpose()).collect::<Result<_, _>>()?),
        Json::Object(_) => return Err("an object"),
    }))
}

/// A TOML value as JSON.
fn toml_to_json(v: &Value) -> Json {
    match v {
        Value::String(s) => Json::String(s.clone()),
        Value::Integer(i) => Json::from(*i),
        Value::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
        Value::Boolean(b) => Json::Bool(*b),
        Value::Datetime(d) => Json::String(d.to_string()),
        Value::Array(a) => Json::Array(a.iter().map(toml_to_json).collect()),
        Value::Table(t) => Json::Object(t.iter().map(|(k, v)| (k.clone(), toml_to_json(v))).collect()),
    }
}

/// A scalar as the text of a command-line value.
fn scalar(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Integer(i) => Ok(i.to_string()),
        Value::Float(f) => Ok(f.to_string()),
        Value::Boolean(_) => {
            Err("expected a value, not true or false (true/false is for switches such as quiet)".into())
        }
        Value::Array(_) => Err("expected one value, not a list".into()),
        other => Err(format!("expected a number or text, not a {}", other.type_str())),
    }
}

/// A list item: a value, or a list of numbers joined by commas (`[3, 4]` -> `3,4`).
fn item(v: &Value) -> Result<String, String> {
    match v {
        Value::Array(a) => a.iter().map(scalar).collect::<Result<Vec<_>, _>>().map(|v| v.join(",")),
        v => scalar(v),
    }
}

/// The command-line tokens of option `opt` set to `v`.
pub(crate) fn tokens(opt: &Opt, v: &Value) -> Result<Vec<String>, String> {
    let flag = format!("--{}", opt.long);
    match (opt.kind, v) {
        (Kind::Flag, Value::Boolean(true)) => Ok(vec![flag]),
        (Kind::Flag, Value::Boolean(false)) => Ok(vec![]),
        (Kind::Flag, other) => Err(format!("expected true or false, not {}", describe(other))),
        (Kind::List, Value::Array(a)) => Ok(vec![format!("{flag}={}", item(&Value::Array(a.clone()))?)]),
        (Kind::Repeat, Value::Array(a)) => a.iter().map(|x| Ok(format!("{flag}={}", item(x)?))).collect(),
        (_, v) => Ok(vec![format!("{flag}={}", scalar(v)?)]),
    }
}

/// `v` as an error message shows it.
fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the text \"{}\"", printable(s)),
        Value::Array(_) => "a list".into(),
        Value::Table(_) => "a table".into(),
        v => v.to_string(),
    }
}

/// The command line after `run` as groups of (long name, tokens); `opts`
/// says which options take a value.
pub(crate) fn groups(tokens: &[String], opts: &[Opt]) -> Vec<(Option<String>, Vec<String>)> {
    crate::resume::options(tokens, |n| opts.iter().find(|o| o.long == n).map_or(true, |o| o.kind != Kind::Flag))
}

/// `base` (tokens after `run`: a model name, then options) without the
/// options named in `names`.
pub(crate) fn without(base: &[String], names: &[String], opts: &[Opt]) -> Vec<String> {
    groups(base, opts)
        .into_iter()
        .filter(|(n, _)| n.as_ref().map_or(true, |n| !names.contains(n)))
        .flat_map(|(_, g)| g)
        .collect()
}

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

/// The tokens of run file `path` with the command line's `rest` (which may
/// start with the same model name) replacing its options.
pub(crate) fn with_file(
    models: &Models,
    path: &Path,
    rest: &[String],
    origins: &mut Vec<(String, String)>,
) -> Result<Vec<String>, String> {
    let f = load(models, path)?;
    let mut rest = rest;
    if let Some(first) = rest.first().filter(|t| !t.starts_with('-')) {
        if *first != f.model {
            return Err(format!(
                "--config {} runs model {}, but the command line names {first}; leave the model name out (or \
                 change [model] name)",
                path.display(),
                f.model
            ));
        }
        rest = &rest[1..];
    }
    let opts = options(models, &f.model).unwrap_or_default();
    let given: Vec<String> = groups(rest, &opts).into_iter().filter_map(|(n, _)| n).collect();
    let mut base = vec![f.model.clone()];
    for e in f.entries.iter().filter(|e| !given.contains(&e.long)) {
        let opt = opts.iter().find(|o| o.long == e.long).expect("checked by load");
        base.extend(tokens(opt, &e.value).map_err(|what| format!("{}: {what}", e.place))?);
        origins.push((e.long.clone(), e.place.clone()));
    }
    Ok(base.into_iter().chain(rest.iter().cloned()).collect())
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

/// The effective configuration of a run: the model, and every option's
/// value (None where an option without default is not set).
pub(crate) struct Effective {
    pub model: String,
    pub engine: Vec<(String, Option<Value>)>,
    pub params: Vec<(String, Option<Value>)>,
}

/// Text that reads as a number, as a number; other text (and paths) as text.
fn typed(s: &str, path: bool) -> Value {
    if !path {
        if let Ok(i) = s.parse::<i64>() {
            return Value::Integer(i);
        }
        if let Some(f) = s.parse::<f64>().ok().filter(|f| f.is_finite()) {
            return Value::Float(f);
        }
    }
    Value::String(s.to_string())
}

/// Whether an option given on the command line `m` conflicts with `a` (either way round).
fn excluded(cmd: &clap::Command, a: &clap::Arg, m: &clap::ArgMatches) -> bool {
    let given = |b: &clap::Arg| m.value_source(b.get_id().as_str()) == Some(clap::parser::ValueSource::CommandLine);
    cmd.get_arg_conflicts_with(a).into_iter().any(given)
        || cmd
            .get_arguments()
            .any(|b| given(b) && cmd.get_arg_conflicts_with(b).iter().any(|c| c.get_id() == a.get_id()))
}

impl Effective {
    /// The configuration of `timewarp run` followed by `command` (a model
    /// name and options); `outputs` keeps output destinations in.
    pub(crate) fn of(models: &Models, command: &[String], outputs: bool) -> Result<Self, String> {
        let model = command.first().ok_or("the command line names no model")?.as_str();
        let cmd = model_command(models, model)
            .ok_or_else(|| format!("no model {model}; the models are {}", models.names()))?;
        let m = cmd.clone().try_get_matches_from(command).map_err(|e| e.to_string())?;
        let opts = options(models, model).unwrap_or_default();
        let mut eff = Effective { model: model.to_string(), engine: vec![], params: vec![] };
        for a in cmd.get_arguments() {
            let Some(opt) = a.get_long().and_then(|l| opts.iter().find(|o| o.long == l)) else { continue };
            if !outputs && OUTPUTS.contains(&opt.long.as_str()) {
                continue;
            }
            let id = a.get_id().as_str();
            // A default beside an option given that excludes it (a shape
            // option beside --preset) is not set: written out, it would be refused.
            let defaulted = m.value_source(id) == Some(clap::parser::ValueSource::DefaultValue);
            if defaulted && excluded(&cmd, a, &m) {
                let list = if opt.engine { &mut eff.engine } else { &mut eff.params };
                list.push((opt.long.clone(), None));
                continue;
            }
            let value = match opt.kind {
                Kind::Flag => Some(Value::Boolean(m.get_flag(id))),
                kind => m.get_raw(id).map(|vals| {
                    let vals: Vec<Value> = vals.map(|v| typed(&v.to_string_lossy(), opt.path)).collect();
                    match (kind, vals.len()) {
                        (Kind::One, 1) => vals.into_iter().next().expect("one value"),
                        _ => Value::Array(vals),
                    }
                }),
            };
            let list = if opt.engine { &mut eff.engine } else { &mut eff.params };
            list.push((opt.long.clone(), value));
        }
        Ok(eff)
    }

    /// As a TOML run file of program `program` (unset options as comments).
    pub(crate) fn to_toml(&self, program: &str) -> String {
        let mut out = format!(
            "# {program} {}: effective configuration (run it with: {program} run --config FILE)\n\n[engine]\n",
            env!("CARGO_PKG_VERSION")
        );
        let line = |(k, v): &(String, Option<Value>)| match v {
            Some(v) => format!("{k} = {v}\n"),
            None => format!("# {k}: not set\n"),
        };
        out.extend(self.engine.iter().map(line));
        out.push_str(&format!("\n[model]\nname = \"{}\"\n", self.model));
        out.extend(self.params.iter().map(line));
        out
    }

    /// As the `config` object of a statistics file.
    pub(crate) fn to_json(&self, command_line: &[String]) -> Json {
        let table = |list: &[(String, Option<Value>)]| -> serde_json::Map<String, Json> {
            list.iter().map(|(k, v)| (k.clone(), v.as_ref().map_or(Json::Null, toml_to_json))).collect()
        };
        let mut model = serde_json::Map::new();
        model.insert("name".into(), Json::String(self.model.clone()));
        model.extend(table(&self.params));
        serde_json::json!({
            "version": env!("CARGO_PKG_VERSION"),
            "command": command_line,
            "engine": table(&self.engine),
            "model": model,
        })
    }
}

#[cfg(all(test, feature = "models"))]
mod tests {
    use super::*;
    use crate::shipped;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn values_become_tokens_by_the_option_s_kind() {
        let opts = options(&shipped(), "phold").unwrap();
        let o = |n: &str| opts.iter().find(|o| o.long == n).unwrap().clone();
        assert_eq!(tokens(&o("threads"), &Value::Integer(2)).unwrap(), v("--threads=2"));
        assert_eq!(tokens(&o("alpha"), &Value::Float(-2.5)).unwrap(), v("--alpha=-2.5"));
        assert_eq!(tokens(&o("quiet"), &Value::Boolean(true)).unwrap(), v("--quiet"));
        assert!(tokens(&o("quiet"), &Value::Boolean(false)).unwrap().is_empty());
        let list = Value::Array(vec![Value::Integer(3), Value::Integer(4), Value::Integer(2)]);
        assert_eq!(tokens(&o("hierarchy"), &list).unwrap(), v("--hierarchy=3,4,2"));
        assert!(tokens(&o("threads"), &Value::Boolean(true)).unwrap_err().contains("not true or false"));
        assert!(tokens(&o("quiet"), &Value::Integer(1)).unwrap_err().contains("expected true or false"));
        assert!(tokens(&o("threads"), &list).unwrap_err().contains("not a list"));
        let tlm = options(&shipped(), "tlm").unwrap();
        let at = tlm.iter().find(|o| o.long == "source-at").unwrap();
        assert_eq!(at.kind, Kind::Repeat);
        let two = Value::Array(vec![Value::String("1,2".into()), list]);
        assert_eq!(tokens(at, &two).unwrap(), v("--source-at=1,2 --source-at=3,4,2"));
    }

    #[test]
    fn options_are_taken_out_by_name() {
        let opts = options(&shipped(), "phold").unwrap();
        let names = vec!["threads".to_string(), "quiet".to_string()];
        assert_eq!(without(&v("phold --threads=2 --lps 64 -q --end 5"), &names, &opts), v("phold --lps 64 --end 5"));
    }

    #[test]
    fn effective_configuration_has_every_option_and_reads_back() {
        let eff =
            Effective::of(&shipped(), &v("phold --lps 64 --threads 2 --hierarchy 3,4,2 --stats-json x.json"), false)
                .unwrap();
        let get = |list: &[(String, Option<Value>)], k: &str| list.iter().find(|(n, _)| n == k).unwrap().1.clone();
        assert_eq!(get(&eff.engine, "batch"), Some(Value::Integer(16)));
        assert_eq!(get(&eff.engine, "gvt-interval"), Some(Value::Integer(16)));
        assert_eq!(get(&eff.engine, "end"), Some(Value::Integer(20)));
        assert_eq!(get(&eff.engine, "kps-per-pe"), None);
        assert_eq!(get(&eff.params, "remote"), Some(Value::Float(0.1)));
        assert_eq!(get(&eff.params, "interleave"), Some(Value::Boolean(false)));
        assert!(eff.engine.iter().all(|(k, _)| k != "stats-json"), "outputs are left out");
        let text = eff.to_toml("timewarp");
        assert!(text.contains("hierarchy = [3, 4, 2]"), "{text}");
        let file: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(file["model"]["name"].as_str(), Some("phold"));
    }

    /// A number a run file or statistics file records reads back with the
    /// same bits through both forms (a derived latency such as
    /// 1907.3486328124998 once read back as 1907.3486328125).
    #[test]
    fn numbers_written_to_run_files_read_back_exactly() {
        let back = |f: f64| {
            let json = serde_json::to_string(&toml_to_json(&Value::Float(f))).unwrap();
            let from_json = json_to_toml(&serde_json::from_str(&json).unwrap()).unwrap().unwrap();
            let text = format!("x = {}", Value::Float(f));
            let from_toml = toml::from_str::<toml::Table>(&text).unwrap()["x"].clone();
            [from_json, from_toml].map(|v| scalar(&v).unwrap().parse::<f64>().unwrap().to_bits())
        };
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut cases = vec![1907.3486328124998, 0.1, 1.0 / 3.0, 2.0 / 1.0737418240, 5e-324, 1.7976931348623157e308];
        for _ in 0..20_000 {
            // splitmix64: bit patterns over every exponent.
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            cases.push(f64::from_bits(z ^ (z >> 31)));
        }
        for f in cases.into_iter().filter(|f| f.is_finite()) {
            assert_eq!(back(f), [f.to_bits(); 2], "{f:?}");
        }
    }

    #[test]
    fn typos_find_the_nearest_name() {
        let names = ["remote", "regional", "lookahead"];
        assert_eq!(nearest("remot", names.iter().copied()), Some("remote"));
        assert_eq!(nearest("lookahed", names.iter().copied()), Some("lookahead"));
        assert_eq!(nearest("xyz", names.iter().copied()), None);
    }
}
