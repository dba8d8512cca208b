//! Helpers shared by the end-to-end tests of the `timewarp` binary.

#![allow(dead_code)] // each test crate uses some of them

use std::process::{Command, Output};

pub mod mpi;

/// Runs the binary with `args`.
pub fn timewarp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_timewarp")).args(args).output().expect("binary runs")
}

/// Its standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Bad input the engine, a model or a command refuses: exit 1, one line on
/// stderr starting `error` that says what is wrong, no panic (malformed
/// command lines, which get clap's whole message, are in `bad_input.rs`).
pub fn assert_clear_error(args: &[&str], must_mention: &str) {
    let o = timewarp(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{args:?} should fail: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?} should print one line, got: {err}");
    assert!(err.starts_with("error"), "{err}");
    assert!(err.contains(must_mention), "{args:?}: '{err}' should mention '{must_mention}'");
}

/// A path in this test process' own temporary folder.
pub fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("timewarp-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A quiet run's `--stats-json`, parsed (the run must succeed and print nothing).
pub fn stats(args: &[&str]) -> serde_json::Value {
    let path = tmp(&format!("stats-{}.json", args.join("_").replace(['-', '.', '/'], "")));
    let mut all = args.to_vec();
    let p = path.to_str().unwrap();
    all.extend(["--stats-json", p, "--quiet"]);
    let o = timewarp(&all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    assert!(o.stdout.is_empty(), "--quiet prints nothing");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}
#[path = "../../../timewarp/tests/support/skip.rs"]
mod support;
#[allow(unused_imports)] // each test crate uses some of them
pub use support::skip;
