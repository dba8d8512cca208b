//! `timewarp resume`: the command line a checkpoint was written under, with
//! the engine options a resume may change put in.
//!
//! A checkpoint stores the options after `timewarp run` (model name, model
//! options, engine options). A resume parses them again, so the model is
//! rebuilt exactly, its checks and output files included; the options given
//! to `resume` replace the engine options of the same name. Model options
//! and `--seed` define the model's history and cannot change.

use std::collections::HashMap;

use clap::{Args, Command};

use crate::args::EngineArgs;

/// Engine options a resume may change: their long names, and whether each takes a value.
fn changeable() -> HashMap<String, bool> {
    EngineArgs::augment_args(Command::new("engine"))
        .get_arguments()
        .filter_map(|a| Some((a.get_long()?.to_string(), a.get_action().takes_values())))
        .filter(|(name, _)| name != "seed")
        .collect()
}

/// The long names of the engine options a resume may change, in their order.
pub(crate) fn changeable_names() -> Vec<String> {
    EngineArgs::augment_args(Command::new("engine"))
        .get_arguments()
        .filter_map(|a| a.get_long().map(str::to_string))
        .filter(|name| name != "seed")
        .collect()
}

/// `-q` as `--quiet`: an engine option's short form as its long one.
fn long_form(t: &str) -> String {
    let Some(c) = t.strip_prefix('-').filter(|r| r.len() == 1 && !t.starts_with("--")).and_then(|r| r.chars().next())
    else {
        return t.to_string();
    };
    EngineArgs::augment_args(Command::new("engine"))
        .get_arguments()
        .find(|a| a.get_short() == Some(c))
        .and_then(|a| a.get_long().map(|l| format!("--{l}")))
        .unwrap_or_else(|| t.to_string())
}

/// `tokens` as (option name, its tokens), in order; a token that is no
/// option (a model name) stands alone.
pub(crate) fn options(tokens: &[String], takes_value: impl Fn(&str) -> bool) -> Vec<(Option<String>, Vec<String>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &long_form(&tokens[i]);
        let name = t.strip_prefix("--").map(|n| n.split('=').next().unwrap_or(n).to_string());
        let mut group = vec![tokens[i].clone()];
        if let Some(n) = &name {
            if !t.contains('=') && takes_value(n) && i + 1 < tokens.len() {
                i += 1;
                group.push(tokens[i].clone());
            }
        }
        out.push((name, group));
        i += 1;
    }
    out
}

/// The command line to resume under: `stored` (what the checkpoint's run
/// was given after `run`) with the engine options in `given` put in place
/// of its own. A model option (or `--seed`) in `given` is refused.
pub(crate) fn merge(stored: &[String], given: &[String]) -> Result<Vec<String>, String> {
    let engine = changeable();
    // In `stored` a model option may take a value too: clap parses it again,
    // so only engine options need splitting right.
    let new = options(given, |n| engine.get(n).copied().unwrap_or(true));
    for (name, group) in &new {
        match name {
            Some(n) if engine.contains_key(n) => {}
            Some(n) if n == "help" => {}
            _ => {
                return Err(format!(
                    "resume: '{}' is not an engine option a resume may change; the model, its options and \
                     --seed come from the checkpoint (run: {} {})",
                    group.join(" "),
                    crate::program::name(),
                    std::iter::once("run").chain(stored.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
                ))
            }
        }
    }
    let replaced: Vec<String> = new.iter().filter_map(|(n, _)| n.clone()).collect();
    let kept = options(stored, |n| engine.get(n).copied().unwrap_or(false))
        .into_iter()
        .filter(|(n, _)| n.as_ref().map_or(true, |n| !replaced.contains(n)))
        .flat_map(|(_, g)| g);
    Ok(kept.chain(new.into_iter().flat_map(|(_, g)| g)).collect())
}

/// What defines a run's history, for a checkpoint to be checked against:
/// the model and its options as given after `run` (engine options left
/// out), and the seed. Tokens, not parsed values: a later build that adds
/// options with defaults still resumes the same command line.
pub(crate) fn identity(command: &[String], seed: u64) -> serde_json::Value {
    let engine = changeable();
    let model: Vec<String> = options(command, |n| engine.get(n).copied().unwrap_or(false))
        .into_iter()
        .filter(|(n, _)| n.as_ref().map_or(true, |n| !engine.contains_key(n)))
        .flat_map(|(_, g)| g)
        .collect();
    serde_json::json!({ "command": model, "seed": seed })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn engine_options_replace_their_stored_values() {
        let stored = v("phold --lps 64 --sync optimistic --threads 2 --end=50 --quiet --seed 3");
        let merged = merge(&stored, &v("--threads 3 --sync conservative")).unwrap();
        assert_eq!(merged, v("phold --lps 64 --end=50 --quiet --seed 3 --threads 3 --sync conservative"));
        assert_eq!(merge(&v("phold -q --end 9"), &v("-q --end 5")).unwrap(), v("phold -q --end 5"));
        assert_eq!(
            merge(&stored, &v("--end=20")).unwrap(),
            v("phold --lps 64 --sync optimistic --threads 2 --quiet --seed 3 --end=20")
        );
    }

    #[test]
    fn identity_is_the_model_s_tokens_and_the_seed() {
        let a = identity(&v("phold --lps 64 --sync optimistic --threads 2 --end=50 -q"), 1);
        let b = identity(&v("phold --threads 3 --lps 64 --stats-json x.json"), 1);
        assert_eq!(a, b);
        assert_eq!(a["command"], serde_json::json!(["phold", "--lps", "64"]));
        assert_ne!(a, identity(&v("phold --lps 65"), 1));
        assert_ne!(a, identity(&v("phold --lps 64"), 2));
    }

    #[test]
    fn model_options_and_the_seed_are_refused() {
        let stored = v("phold --lps 64");
        for bad in ["--lps 10", "--seed 2", "stray", "--remote=0.5"] {
            let e = merge(&stored, &v(bad)).unwrap_err();
            assert!(e.contains("come from the checkpoint") && e.contains("timewarp run phold --lps 64"), "{e}");
        }
    }
}
