//! The HTML report loaded in a real browser: headless Chromium renders a
//! `timewarp report` page through `scripts/report-browser-check.sh`, which
//! fails on any console message, a failed or outside load, a missing plot
//! or table. A page with a script error must fail the same check, so the
//! check is known to look.
//!
//! Where no Chromium is installed the test prints `SKIPPED: ...` (counted
//! by `scripts/test.sh`), unless `TIMEWARP_REQUIRE_BROWSER=1` (CI, whose
//! `.ci/run` installs Debian's `chromium` the way it installs MPI) makes
//! that a failure.

mod common;
use common::{skip, stderr, timewarp};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn browser() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"].into_iter().find(|b| {
        Command::new("sh").args(["-c", &format!("command -v {b}")]).output().is_ok_and(|o| o.status.success())
    })
}

/// True when a browser was found; false (after a SKIPPED line) when `test` may skip.
fn have_browser(test: &str) -> bool {
    if browser().is_some() {
        return true;
    }
    let why = "no Chromium installed: the report was not loaded in a browser (Debian: apt-get install chromium)";
    skip(test, why, Some("TIMEWARP_REQUIRE_BROWSER"));
    false
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("timewarp-browser-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs the browser check on `report`, writing its screenshot to `shot`.
fn check(report: &Path, shot: &Path) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    Command::new("bash")
        .arg(root.join("scripts/report-browser-check.sh"))
        .args([report, shot])
        .current_dir(&root)
        .output()
        .expect("bash runs")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn the_report_renders_in_a_browser_without_console_messages() {
    if !have_browser("browser::the_report_renders_in_a_browser_without_console_messages") {
        return;
    }
    let d = dir();
    let (stats, report, shot) = (d.join("run.json"), d.join("report.html"), d.join("report.png"));
    let run = ["run", "phold", "--lps", "1024", "--end", "10", "--sync", "optimistic", "--threads", "2", "--quiet"];
    let o = timewarp(&[&run[..], &["--stats-json", s(&stats)]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let o = timewarp(&["report", s(&stats), "-o", s(&report)]);
    assert!(o.status.success(), "{}", stderr(&o));

    let o = check(&report, &shot);
    assert!(o.status.success(), "the report did not render cleanly:\n{}", text(&o));
    assert!(text(&o).contains("without console errors"), "{}", text(&o));
    let png = std::fs::read(&shot).unwrap();
    assert_eq!(&png[1..4], b"PNG", "the screenshot is a PNG");

    // The same page with a script that throws: the check must see it.
    let html = std::fs::read_to_string(&report).unwrap();
    let broken = d.join("broken.html");
    let bad = html.replacen("</body>", "<script>undefined_function_of_the_test();</script></body>", 1);
    assert_ne!(bad, html, "the report has a </body> to put the script before");
    std::fs::write(&broken, bad).unwrap();
    let o = check(&broken, &d.join("broken.png"));
    assert_eq!(o.status.code(), Some(1), "a script error must fail the check:\n{}", text(&o));
    assert!(text(&o).contains("undefined_function_of_the_test"), "the error is shown:\n{}", text(&o));
    std::fs::remove_dir_all(&d).unwrap();
}
