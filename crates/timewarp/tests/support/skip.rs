//! The one way a test says it could not run (shared by the workspace's
//! test crates: `#[path]`-included, as a test cannot depend on another's).

/// A test that cannot run here (a tool, data or an operating-system
/// feature is missing) calls this, then returns. It prints
/// `SKIPPED: <test>: <why>` on standard error — written to the stream
/// itself, since libtest captures `eprintln!` of a passing test and would
/// hide it — for `scripts/test.sh` to count and list; without it a skip
/// would read as a pass. Where CI requires what is missing (`require`
/// names an environment variable, such as `TIMEWARP_REQUIRE_BROWSER`, set
/// to 1) the test fails instead.
pub fn skip(test: &str, why: &str, require: Option<&str>) {
    use std::io::Write;
    if let Some(var) = require {
        let required = std::env::var(var).is_ok_and(|v| v == "1");
        assert!(!required, "{var}=1 but {test} cannot run: {why}");
    }
    // One write of one line: it does not interleave with libtest's lines.
    let _ = std::io::stderr().lock().write_all(format!("SKIPPED: {test}: {why}\n").as_bytes());
}
