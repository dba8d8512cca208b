//! Helpers shared by the end-to-end tests of the `timewarp` binary.

#![allow(dead_code)] // each test crate uses some of them

use std::process::{Command, Output};

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

#[path = "../../../timewarp/tests/support/skip.rs"]
mod support;
#[allow(unused_imports)] // each test crate uses some of them
pub use support::skip;
