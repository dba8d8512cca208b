//! Run files: `timewarp run --config FILE` reads a TOML run file, or the
//! `config` object of a `--stats-json` file, as the options of a run.
//!
//! Design: a run file is turned into command-line tokens (`[engine]
//! threads = 2` -> `--threads=2`, `[model] name = "phold"` -> `phold`,
//! `remote = 0.5` -> `--remote=0.5`, `quiet = true` -> `--quiet`) that the
//! same clap parser as a typed command line reads, so a file gets every
//! check and message of the command line. Options given on the command line
//! replace the file's options of the same name. Keys are checked against
//! the model's options before that (an unknown key, or one in the wrong
//! table, is an error naming the file, line and key, with the nearest
//! name), and a value clap refuses is traced back to its file and line
//! (`expand.rs`). A statistics file's `config` object is the effective
//! configuration (`effective.rs`), which leaves output destinations out, so
//! replaying it does not overwrite the file it came from.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value as Json;
use timewarp::text::{printable, printable_within};
use toml::{Spanned, Value};

use crate::registry::Models;
use crate::run_options::{groups, nearest, options, tokens};

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
pub(crate) fn toml_to_json(v: &Value) -> Json {
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

#[cfg(all(test, feature = "models"))]
mod tests {
    use super::*;
    use crate::run_options::scalar;

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
}
