//! Models larger than memory and work that cannot end (issue 42): under a
//! process memory limit (`ulimit -v`, as the review ran them) each is
//! refused before anything is allocated, in one line with the estimate and
//! the limit, exit 1 — never an allocation failure's abort (exit 134) or a
//! run that grows until it dies. Ordinary and large-but-fitting runs still
//! run under the same limit.

mod common;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The address-space limit the review ran under (KiB, `ulimit -v`).
const LIMIT_KIB: u64 = 8_000_000;

/// Guard against a regression that runs away (the harness kills it and
/// fails); a refusal ends before the model is built.
const GUARD: Duration = Duration::from_secs(600);

/// Runs the binary with `args` under `ulimit -v limit_kib`.
fn limited(limit_kib: u64, args: &[&str]) -> Output {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {limit_kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_timewarp"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > GUARD {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} did not end: it should be refused before it starts");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    child.stdout.take().unwrap().read_to_end(&mut stdout).unwrap();
    child.stderr.take().unwrap().read_to_end(&mut stderr).unwrap();
    Output { status, stdout, stderr }
}

/// A one-line refusal (exit 1) that mentions every one of `must_mention`.
fn assert_refused(args: &[&str], limit_kib: u64, must_mention: &[&str]) {
    let o = limited(limit_kib, args);
    let err = common::stderr(&o);
    assert!(!err.contains("panicked") && !err.contains("memory allocation"), "{args:?}: {err}");
    assert_eq!(o.status.code(), Some(1), "{args:?} should be refused (exit 1), got {:?}: {err}", o.status);
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?} should print one line, got: {err}");
    assert!(err.starts_with("error: "), "{err}");
    for m in must_mention {
        assert!(err.contains(m), "{args:?}: '{err}' should mention '{m}'");
    }
}

/// A copy of the repository's CODES configuration `name` with `edit`
/// applied, in a fresh temporary directory.
fn codes_copy(name: &str, edit: impl Fn(String) -> String) -> PathBuf {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes").join(name);
    let dir = std::env::temp_dir().join(format!("timewarp-memory-limits-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, edit(std::fs::read_to_string(&src).unwrap())).unwrap();
    path
}

#[test]
fn a_torus_larger_than_the_limit_is_refused_before_it_is_built() {
    // Was: `memory allocation of 240 bytes failed`, SIGABRT at 3.7 GB.
    let args = ["run", "network", "--dims", "3000,3000", "--end", "10", "--load", "0.1", "--quiet"];
    assert_refused(&args, LIMIT_KIB, &["--dims 3000,3000 needs about", "ulimit -v", "make the model smaller"]);
}

#[test]
fn a_codes_torus_larger_than_the_limit_is_refused() {
    let conf = codes_copy("modelnet-test-torus.conf", |t| {
        t.replace("n_dims=\"3\"", "n_dims=\"2\"")
            .replace("dim_length=\"4,2,2\"", "dim_length=\"3000,3000\"")
            .replace("repetitions=\"16\"", "repetitions=\"9000000\"")
    });
    let args = ["run", "network", "--codes-config", conf.to_str().unwrap(), "--end", "10", "--load", "0.1", "--quiet"];
    assert_refused(&args, LIMIT_KIB, &["needs about", "ulimit -v"]);
    let _ = std::fs::remove_dir_all(conf.parent().unwrap());
}

#[test]
fn a_dragonfly_larger_than_the_limit_is_refused() {
    // Was: abort after 44 s at 7.9 GB.
    let args = [
        "run",
        "network",
        "--topology",
        "dragonfly",
        "--routers-per-group",
        "100",
        "--terminals-per-router",
        "8",
        "--global-links",
        "50",
        "--end",
        "10",
        "--quiet",
    ];
    assert_refused(&args, LIMIT_KIB, &["--routers-per-group 100", "needs about", "ulimit -v"]);
}

#[test]
fn a_hypercube_larger_than_the_limit_is_refused() {
    let args = ["run", "network", "--topology", "hypercube", "--nodes", "8388608", "--end", "10", "--quiet"];
    assert_refused(&args, LIMIT_KIB, &["--nodes 8388608 needs about", "GB"]);
}

#[test]
fn the_other_models_larger_than_the_limit_are_refused() {
    assert_refused(&["run", "phold", "--lps", "1000000000", "--end", "1", "--quiet"], LIMIT_KIB, &["needs about"]);
    assert_refused(
        &["run", "pcs", "--cells-x", "20000", "--cells-y", "20000", "--end", "1", "--quiet"],
        LIMIT_KIB,
        &["needs about"],
    );
    assert_refused(&["run", "tlm", "--size", "20000x20000", "--end", "1", "--quiet"], LIMIT_KIB, &["needs about"]);
}

#[test]
fn an_absurd_terminal_bandwidth_is_refused_before_the_source_queues_grow() {
    // Was: no output in 60 s, 3.3-4.9 GB and growing.
    let args = ["run", "network", "--terminal-bandwidth", "1e9", "--end", "1000", "--load", "0.1", "--quiet"];
    assert_refused(&args, LIMIT_KIB, &["--terminal-bandwidth 1000000000", "source queues would hold", "lower --load"]);
}

#[test]
fn an_absurd_cn_bandwidth_in_a_codes_config_is_refused() {
    let conf = codes_copy("modelnet-synthetic-fattree-summit-k36-n3564.conf", |t| {
        t.replace("cn_bandwidth=\"12.5\"", "cn_bandwidth=\"4294967295\"")
    });
    let conf = conf.to_str().unwrap();
    let short = ["run", "network", "--codes-config", conf, "--end", "1000", "--load", "0.1", "--quiet"];
    assert_refused(&short, LIMIT_KIB, &["source queues would hold"]);
    // To the default end the event bound refuses it first, naming the
    // injection bandwidth it used (not --link-bandwidth).
    assert_refused(
        &["run", "network", "--codes-config", conf, "--quiet"],
        LIMIT_KIB,
        &["--terminal-bandwidth 4294967295"],
    );
    let _ = std::fs::remove_dir_all(std::path::Path::new(conf).parent().unwrap());
}

#[test]
fn runs_that_fit_still_run_under_the_limit() {
    for args in [
        &["run", "network", "--dims", "64,64", "--end", "200", "--quiet"][..],
        &["run", "network", "--dims", "16,16", "--load", "0.9", "--end", "2000", "--quiet"],
        &[
            "run",
            "network",
            "--topology",
            "dragonfly",
            "--end",
            "500",
            "--sync",
            "optimistic",
            "--threads",
            "2",
            "--quiet",
        ],
        &["run", "phold", "--lps", "10000", "--end", "5", "--quiet"],
    ] {
        let o = limited(LIMIT_KIB, args);
        assert!(o.status.success(), "{args:?}: {}", common::stderr(&o));
    }
}
