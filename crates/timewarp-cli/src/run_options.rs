//! The options of `timewarp run <model>` as the front end reads them
//! (their long names, how each takes its value, which are the engine's),
//! and a value of a run file as the tokens of a command line: run files,
//! CODES configurations, sweeps and curves all put their settings in so,
//! and read a command line back as groups of tokens, one group per option.

use clap::{ArgAction, Args, Command};
use timewarp::text::printable;
use toml::Value;

use crate::args::EngineArgs;
use crate::registry::Models;

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
pub(crate) fn model_command(models: &Models, model: &str) -> Option<Command> {
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

/// A scalar as the text of a command-line value.
pub(crate) fn scalar(v: &Value) -> Result<String, String> {
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
    fn typos_find_the_nearest_name() {
        let names = ["remote", "regional", "lookahead"];
        assert_eq!(nearest("remot", names.iter().copied()), Some("remote"));
        assert_eq!(nearest("lookahed", names.iter().copied()), Some("lookahead"));
        assert_eq!(nearest("xyz", names.iter().copied()), None);
    }
}
