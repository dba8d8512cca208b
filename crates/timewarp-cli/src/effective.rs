//! The effective configuration of a run (every engine and model option,
//! defaults included), read back from clap's matches of the expanded
//! command line: `--print-config` prints it as TOML, `--stats-json` records
//! it under `config`, and `--config` reads either form back (a statistics
//! file's `config` object leaves output destinations out, so replaying it
//! does not overwrite the file it came from).

use serde_json::Value as Json;
use toml::Value;

use crate::registry::Models;
use crate::run_file::toml_to_json;
use crate::run_options::{model_command, options, Kind};

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
    "lp-io-dir",
    "lp-io-lps",
    "lp-io-grid",
    "image",
    "image-at",
    "image-layer",
    "receivers-csv",
    "samples-csv",
];

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
}
