//! The cost baseline's checker (issue 60: `scripts/cost-baseline.py`, which
//! `.ci/run` runs through `scripts/cost-baseline.sh`), tested on synthetic
//! measurements: no valgrind and no timing here. A figure 5 % above the
//! committed baseline must fail the check and be named, 2 % must pass; the
//! committed file must parse, name each configuration once and cover every
//! model, kernel and network family.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Output;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn baseline() -> String {
    std::fs::read_to_string(root().join("perf/cost-baseline.tsv")).expect("perf/cost-baseline.tsv is readable")
}

/// The configurations: (label, args) with the figure, from the text of a baseline.
fn rows(text: &str) -> Vec<(String, String, f64)> {
    let rows = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    rows.map(|l| {
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(f.len(), 5, "five tab-separated fields: {l:?}");
        (f[0].to_string(), f[4].to_string(), f[3].parse().unwrap_or_else(|_| panic!("a figure: {l:?}")))
    })
    .collect()
}

/// The baseline with the figure of each configuration that `scale` names multiplied.
fn scaled(text: &str, scale: impl Fn(&str) -> Option<f64>) -> String {
    let line = |l: &str| {
        let mut f: Vec<String> = l.split('\t').map(str::to_string).collect();
        if let (false, Some(k)) = (l.starts_with('#') || f.len() != 5, scale(&f[0])) {
            f[3] = format!("{:.1}", f[3].parse::<f64>().unwrap() * k);
        }
        f.join("\t") + "\n"
    };
    text.lines().map(line).collect()
}

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timewarp-cost-baseline-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs the checker (from the repository root) with `args`.
fn checker(args: &[&Path]) -> Output {
    std::process::Command::new("python3")
        .arg(root().join("scripts/cost-baseline.py"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("python3 runs the cost-baseline checker (CI has it; Debian: apt-get install python3)")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// `compare` of the committed baseline against `measured`.
fn compare(name: &str, measured: &str) -> Output {
    checker(&[Path::new("compare"), Path::new("perf/cost-baseline.tsv"), &write(name, measured)])
}

#[test]
fn a_rise_of_5_percent_in_any_configuration_fails_and_names_it() {
    let base = baseline();
    for (label, _, _) in rows(&base) {
        let o = compare("rise5.tsv", &scaled(&base, |l| (l == label).then_some(1.05)));
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "+5 % on {label} must fail: {out}");
        let fail = out.lines().find(|l| l.starts_with("FAIL")).unwrap_or_else(|| panic!("a FAIL line: {out}"));
        assert!(fail.contains(&format!("{label} (+5.0 %)")), "the FAIL line names {label}: {out}");
        let row = out.lines().find(|l| l.starts_with(&format!("{label} "))).expect("a table row");
        assert!(row.contains("ROSE"), "{row}");
    }
}

#[test]
fn a_rise_of_2_percent_everywhere_passes_and_the_baseline_matches_itself() {
    let base = baseline();
    for (name, k) in [("same.tsv", 1.0), ("rise2.tsv", 1.02)] {
        let o = compare(name, &scaled(&base, |_| Some(k)));
        let out = text(&o);
        assert_eq!(o.status.code(), Some(0), "×{k} must pass: {out}");
        assert!(!out.contains("FAIL") && !out.contains("hint"), "{out}");
        // The table: a header and a row per configuration.
        assert_eq!(out.lines().count(), rows(&base).len() + 1, "{out}");
    }
}

#[test]
fn a_fall_passes_with_a_hint_and_lower_records_only_the_fall() {
    let base = baseline();
    let all = rows(&base);
    let (fell, rose) = (&all[0].0, &all[1].0);
    let measured = scaled(&base, |l| if l == fell { Some(0.9) } else { (l == rose).then_some(1.02) });
    let o = compare("fall.tsv", &measured);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "a fall passes: {out}");
    assert!(out.contains("hint: 1 figure(s) fell"), "{out}");

    // `lower` writes the fallen figure into (a copy of) the baseline and
    // leaves the risen one, and the comments, as they were.
    let copy = write("lower-baseline.tsv", &base);
    let o = checker(&[Path::new("lower"), &copy, &write("lower-measured.tsv", &measured)]);
    assert!(o.status.success(), "{}", text(&o));
    let lowered = std::fs::read_to_string(&copy).unwrap();
    assert_eq!(lowered, scaled(&base, |l| (l == fell).then_some(0.9)));
}

#[test]
fn a_configuration_missing_from_either_file_fails() {
    let base = baseline();
    let first = base.lines().find(|l| !l.starts_with('#') && !l.trim().is_empty()).unwrap();
    let without: String = base.lines().filter(|l| l != &first).map(|l| format!("{l}\n")).collect();
    let o = compare("missing.tsv", &without);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("not measured"), "{}", text(&o));
    let o = compare("extra.tsv", &format!("{base}new configuration\t1\t2\t100.0\tphold\n"));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("not in the baseline"), "{}", text(&o));
}

#[test]
fn a_label_named_twice_is_malformed() {
    let base = baseline();
    let first = base.lines().find(|l| !l.starts_with('#') && !l.trim().is_empty()).unwrap();
    let twice = write("twice.tsv", &format!("{base}{first}\n"));
    let o = checker(&[Path::new("check"), &twice]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("named twice"), "{}", text(&o));
}

/// The committed file: the checker parses it, each label and each command
/// line comes once, and it covers every model, every kernel (optimistic and
/// conservative on one worker thread; all three for PHOLD and the
/// hypercube), every network topology (the mesh is the torus's code
/// without the wrap-around links), both presets and CODES imports whose
/// files are in the repository (CI has no ../shared).
#[test]
fn the_baseline_parses_names_each_configuration_once_and_covers_every_family() {
    let o = checker(&[Path::new("check"), Path::new("perf/cost-baseline.tsv")]);
    assert!(o.status.success(), "{}", text(&o));
    let rows = rows(&baseline());
    assert_eq!(text(&o).trim(), format!("{} configurations", rows.len()));
    let mut labels = HashSet::new();
    let mut commands = HashSet::new();
    for (label, args, _) in &rows {
        assert!(labels.insert(label), "{label} named twice");
        assert!(commands.insert(args), "{args} measured twice");
        let sync = args.split("--sync ").nth(1).and_then(|s| s.split(' ').next()).expect("--sync");
        assert!(label.contains(sync), "{label}: the label names the kernel ({sync})");
        assert!(sync == "sequential" || args.contains("--threads 1"), "{label}: one worker thread");
        for conf in args.split("--codes-config ").skip(1) {
            let file = conf.split(' ').next().unwrap();
            assert!(root().join(file).is_file(), "{label}: {file} is not in the repository");
        }
    }
    let has = |model: &str, what: &str| rows.iter().any(|(_, a, _)| a.starts_with(model) && a.contains(what));
    for model in ["phold ", "pcs ", "tlm ", "network "] {
        assert!(has(model, ""), "no {model}configuration");
    }
    for sync in ["sequential", "optimistic", "conservative"] {
        assert!(has("phold ", &format!("--sync {sync}")), "phold: no {sync}");
        assert!(has("network --topology hypercube", &format!("--sync {sync}")), "hypercube: no {sync}");
    }
    for topology in ["torus", "hypercube", "dragonfly", "dragonfly-plus", "fattree", "slimfly"] {
        assert!(has("network ", &format!("--topology {topology} ")), "no {topology}");
    }
    for family in ["--preset theta", "--preset summit", "--codes-config"] {
        assert!(has("network ", family), "no configuration with {family}");
    }
    // TLM in 2-D and 3-D: --size WxH and WxHxD.
    let dims: HashSet<usize> = rows
        .iter()
        .filter_map(|(_, a, _)| a.strip_prefix("tlm ")?.split("--size ").nth(1)?.split(' ').next())
        .map(|size| size.split('x').count())
        .collect();
    assert_eq!(dims, HashSet::from([2, 3]), "TLM in 2-D and 3-D");
}
