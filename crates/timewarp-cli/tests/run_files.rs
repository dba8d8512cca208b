//! Run files (`run --config`, `--print-config`, the configuration in
//! `--stats-json`), `--stats-csv` / `--gvt-csv`, and `timewarp sweep`, end
//! to end through the built binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh folder for one test's files.
fn folder(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("timewarp-run-files-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `timewarp args` run in `dir`.
fn timewarp(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_timewarp")).args(args).current_dir(dir).output().expect("binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs and expects success.
fn ok(dir: &Path, args: &[&str]) -> Output {
    let o = timewarp(dir, args);
    assert!(o.status.success(), "{args:?} failed: {}", stderr(&o));
    o
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Expects exit `code` and exactly one line on stderr, `error: ` and mentioning every `mention`.
fn one_line_error(dir: &Path, args: &[&str], code: i32, mention: &[&str]) {
    let o = timewarp(dir, args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "{args:?}: exit {:?}, stderr:\n{err}", o.status.code());
    assert!(err.starts_with("error: ") && err.trim_end().lines().count() == 1, "{args:?}: not one error line:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    for m in mention {
        assert!(err.contains(m), "{args:?}: stderr does not mention '{m}':\n{err}");
    }
}

const RUN_TOML: &str = r#"# PHOLD on two threads
[engine]
sync = "optimistic"
threads = 2
end = 10
batch = 8
gvt_interval = 4
kps-per-pe = 4

[model]
name = "phold"
lps = 256
remote = 0.5
population = 4
"#;

const SAME_COMMAND_LINE: &[&str] = &[
    "run",
    "phold",
    "--lps",
    "256",
    "--remote",
    "0.5",
    "--population",
    "4",
    "--sync",
    "optimistic",
    "--threads",
    "2",
    "--end",
    "10",
    "--batch",
    "8",
    "--gvt-interval",
    "4",
    "--kps-per-pe",
    "4",
    "-q",
];

#[test]
fn run_file_stats_file_and_printed_configuration_reproduce_the_run() {
    let d = folder("round-trip");
    std::fs::write(d.join("run.toml"), RUN_TOML).unwrap();
    ok(&d, &["run", "--config", "run.toml", "-q", "--stats-json", "a.json"]);
    let a = json(&d.join("a.json"));
    let typed = [SAME_COMMAND_LINE, &["--stats-json", "typed.json"]].concat();
    ok(&d, &typed);
    let digest = a["digest"].as_str().unwrap().to_string();
    assert_eq!(json(&d.join("typed.json"))["digest"], digest.as_str(), "the file and the command line differ");

    // The statistics file reproduces the run.
    ok(&d, &["run", "--config", "a.json", "-q", "--stats-json", "b.json"]);
    let b = json(&d.join("b.json"));
    assert_eq!(b["digest"], digest.as_str());
    assert_eq!(b["committed_events"], a["committed_events"]);
    assert_eq!(b["config"]["engine"], a["config"]["engine"]);
    assert_eq!(b["config"]["model"], a["config"]["model"]);

    // So does the printed configuration.
    let printed = stdout(&ok(&d, &["run", "--config", "run.toml", "--print-config"]));
    std::fs::write(d.join("printed.toml"), &printed).unwrap();
    ok(&d, &["run", "--config", "printed.toml", "-q", "--stats-json", "c.json"]);
    assert_eq!(json(&d.join("c.json"))["digest"], digest.as_str());
    // From the command line as well, and printing runs nothing.
    let typed_print = [SAME_COMMAND_LINE, &["--print-config"]].concat();
    assert_eq!(stdout(&ok(&d, &typed_print)).replace("quiet = true", "quiet = false"), printed);
}

#[test]
fn statistics_record_every_engine_and_model_option() {
    let d = folder("recorded");
    std::fs::write(d.join("run.toml"), RUN_TOML).unwrap();
    ok(&d, &["run", "--config", "run.toml", "-q", "--stats-json", "a.json"]);
    let c = &json(&d.join("a.json"))["config"];
    assert_eq!(c["version"], env!("CARGO_PKG_VERSION"));
    let command: Vec<&str> = c["command"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(command[1..], ["run", "--config", "run.toml", "-q", "--stats-json", "a.json"]);
    let e = &c["engine"];
    assert_eq!(
        (e["batch"].as_u64(), e["gvt-interval"].as_u64(), e["kps-per-pe"].as_u64()),
        (Some(8), Some(4), Some(4))
    );
    assert_eq!((e["sync"].as_str(), e["threads"].as_u64(), e["seed"].as_u64()), (Some("optimistic"), Some(2), Some(1)));
    assert!(e["event-memory"].is_null(), "an option that is not set is null: {e}");
    assert!(e.get("stats-json").is_none() && e.get("quiet").is_none(), "outputs are no part of it: {e}");
    let m = &c["model"];
    assert_eq!((m["name"].as_str(), m["lps"].as_u64(), m["remote"].as_f64()), (Some("phold"), Some(256), Some(0.5)));
    // Defaults too: every option of `timewarp run phold --help` but the outputs.
    for key in ["mean", "lookahead", "population", "compute", "nodes", "regional", "alpha", "interleave"] {
        assert!(m.get(key).is_some(), "model option {key} missing: {m}");
    }
    for key in ["queue", "mapping", "optimism", "max-events-at-one-time", "end"] {
        assert!(e.get(key).is_some(), "engine option {key} missing: {e}");
    }
}

#[test]
fn command_line_options_replace_the_run_file_s() {
    let d = folder("override");
    std::fs::write(d.join("run.toml"), RUN_TOML).unwrap();
    let p = stdout(&ok(&d, &["run", "phold", "--config", "run.toml", "--lps", "64", "--threads=1", "--print-config"]));
    assert!(p.contains("\nlps = 64\n") && p.contains("\nthreads = 1\n") && p.contains("\nremote = 0.5\n"), "{p}");
    ok(&d, &["run", "--config", "run.toml", "--lps", "64", "-q", "--stats-json", "a.json"]);
    assert_eq!(json(&d.join("a.json"))["lps"], 64);
    assert_eq!(json(&d.join("a.json"))["config"]["model"]["lps"], 64);
}

#[test]
fn other_models_take_lists_and_repeated_options_from_files() {
    let d = folder("lists");
    let run = r#"[engine]
end = 6
[model]
name = "tlm"
size = "12x12"
source-at = [[3, 3], "8,8"]
receiver_at = ["5,5"]
"#;
    std::fs::write(d.join("tlm.toml"), run).unwrap();
    ok(&d, &["run", "--config", "tlm.toml", "-q", "--stats-json", "a.json"]);
    let typed = ["run", "tlm", "--size", "12x12", "--source-at", "3,3", "--source-at", "8,8", "--receiver-at", "5,5"];
    ok(&d, &[&typed[..], &["--end", "6", "-q", "--stats-json", "b.json"]].concat());
    assert_eq!(json(&d.join("a.json"))["digest"], json(&d.join("b.json"))["digest"]);
    let net = "[engine]\nend = 200\n[model]\nname = \"network\"\ndims = [4, 4]\n";
    std::fs::write(d.join("net.toml"), net).unwrap();
    let p = stdout(&ok(&d, &["run", "--config", "net.toml", "--print-config"]));
    assert!(p.contains("dims = [4, 4]"), "{p}");
}

#[test]
fn run_file_mistakes_are_one_line_naming_the_key_and_line() {
    let d = folder("mistakes");
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "typo.toml",
            "[engine]\nthreads = 2\n[model]\nname = \"phold\"\nremot = 0.5\n",
            &["typo.toml:5", "remot", "did you mean `remote`"],
        ),
        (
            "other-table.toml",
            "[engine]\nremot = 0.5\n[model]\nname = \"phold\"\n",
            &["other-table.toml:2", "did you mean `remote` (under [model])"],
        ),
        (
            "engine-typo.toml",
            "[engine]\ngvt-intervall = 2\n[model]\nname = \"phold\"\n",
            &["engine-typo.toml:2", "gvt-intervall", "`gvt-interval`"],
        ),
        (
            "bool.toml",
            "[model]\nname = \"phold\"\n[engine]\nthreads = true\n",
            &["bool.toml:4", "threads", "not true or false"],
        ),
        (
            "text.toml",
            "[engine]\n\nthreads = \"two\"\n[model]\nname = \"phold\"\n",
            &["text.toml:3", "threads", "'two'", "whole number"],
        ),
        (
            "switch.toml",
            "[engine]\nquiet = 1\n[model]\nname = \"phold\"\n",
            &["switch.toml:2", "quiet", "true or false"],
        ),
        (
            "list.toml",
            "[engine]\nthreads = [1, 2]\n[model]\nname = \"phold\"\n",
            &["list.toml:2", "threads", "not a list"],
        ),
        ("table.toml", "[engin]\nthreads = 2\n[model]\nname = \"phold\"\n", &["table.toml:1", "engin"]),
        ("place.toml", "[engine]\nlps = 2\n[model]\nname = \"phold\"\n", &["place.toml:2", "lps", "under [model]"]),
        (
            "twice.toml",
            "[engine]\nkps_per_pe = 2\nkps-per-pe = 3\n[model]\nname = \"phold\"\n",
            &["twice.toml", "given twice"],
        ),
        ("malformed.toml", "[engine]\nthreads = 2\n[model\n", &["malformed.toml:3", "malformed run file"]),
        ("nomodel.toml", "[engine]\nthreads = 2\n", &["nomodel.toml", "no [model] table"]),
        ("noname.toml", "[model]\nlps = 2\n", &["noname.toml:1", "no name"]),
        ("badname.toml", "[model]\nname = \"phol\"\n", &["badname.toml:2", "phol", "phold, network, tlm, pcs"]),
        ("malformed.json", "{\"config\": {\"model\": ", &["malformed.json", "malformed JSON"]),
        ("other.json", "{\"digest\": \"x\"}", &["other.json", "no run configuration"]),
        (
            "key.json",
            "{\"config\": {\"engine\": {\"threads\": 1},\n \"model\": {\"name\": \"phold\",\n \"lsp\": 3}}}",
            &["key.json:3", "lsp", "did you mean `lps`"],
        ),
    ];
    for (name, text, mention) in cases {
        std::fs::write(d.join(name), text).unwrap();
        one_line_error(&d, &["run", "--config", name], 2, mention);
    }
    one_line_error(&d, &["run", "--config", "missing.toml"], 2, &["missing.toml", "cannot read"]);
    one_line_error(&d, &["run", "--config"], 2, &["--config needs a file"]);
    std::fs::write(d.join("run.toml"), RUN_TOML).unwrap();
    one_line_error(&d, &["run", "--config", "run.toml", "pcs"], 2, &["runs model phold", "names pcs"]);
    // A value the command line gives is the command line's (clap's message, pointing at --help).
    let o = timewarp(&d, &["run", "--config", "run.toml", "--threads", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains("run.toml") && stderr(&o).contains("--help"), "{}", stderr(&o));
}

#[test]
fn stats_csv_has_a_row_per_pe_and_gvt_csv_the_gvt_series() {
    let d = folder("csv");
    let args = ["run", "phold", "--lps", "256", "--end", "10", "--sync", "optimistic", "--threads", "2", "-q"];
    ok(&d, &[&args[..], &["--stats-json", "s.json", "--stats-csv", "pes.csv", "--gvt-csv", "gvt.csv"]].concat());
    let s = json(&d.join("s.json"));
    let pes = std::fs::read_to_string(d.join("pes.csv")).unwrap();
    let rows: Vec<Vec<&str>> = pes.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0][..4], ["pe", "committed", "processed", "rolled_back"], "{pes}");
    assert_eq!(rows.len(), 3, "a header and one row per PE:\n{pes}");
    let committed: u64 = rows[1..].iter().map(|r| r[1].parse::<u64>().unwrap()).sum();
    assert_eq!(committed, s["committed_events"].as_u64().unwrap());
    assert_eq!((rows[1][0], rows[2][0]), ("0", "1"));
    let gvt = std::fs::read_to_string(d.join("gvt.csv")).unwrap();
    let series = s["gvt_series"].as_array().unwrap();
    assert_eq!(gvt.lines().next(), Some("gvt,wall,committed"));
    assert_eq!(gvt.lines().count(), series.len() + 1, "{gvt}");
    let last: Vec<&str> = gvt.lines().last().unwrap().split(',').collect();
    assert_eq!(last[2], series.last().unwrap()["committed"].to_string());
    // Standard output, and a path that cannot be written is refused before the run.
    let o = ok(&d, &[&args[..], &["--gvt-csv", "-"]].concat());
    assert!(stdout(&o).starts_with("gvt,wall,committed\n"));
    one_line_error(
        &d,
        &[&args[..], &["--stats-csv", "no/such/folder/pes.csv"]].concat(),
        1,
        &["no/such/folder/pes.csv"],
    );
    one_line_error(&d, &["verify", "phold", "--lps", "64", "--end", "2", "--gvt-csv", "g.csv"], 1, &["--gvt-csv"]);
}

/// A sequential run is one PE: its row holds the run's totals; it has no
/// GVT series, and a note says why the GVT file holds only its header.
#[test]
fn a_sequential_run_writes_its_one_pe_and_says_why_it_has_no_gvt_series() {
    let d = folder("csv-sequential");
    let args = ["run", "phold", "--lps", "64", "--end", "5", "--stats-json", "s.json"];
    let o = ok(&d, &[&args[..], &["--stats-csv", "pes.csv", "--gvt-csv", "gvt.csv"]].concat());
    assert!(stderr(&o).contains("note: --gvt-csv holds only its header: a sequential run records no GVT series"));
    let s = json(&d.join("s.json"));
    let pes = rows(&std::fs::read_to_string(d.join("pes.csv")).unwrap());
    assert_eq!(pes.len(), 1);
    assert_eq!(pes[0]["pe"], "0");
    assert_eq!(pes[0]["committed"], s["committed_events"].to_string());
    assert_eq!(pes[0]["processed"], s["committed_events"].to_string());
    assert_eq!(pes[0]["ties"], s["timestamp_ties"].to_string());
    assert_eq!(std::fs::read_to_string(d.join("gvt.csv")).unwrap(), "gvt,wall,committed\n");
    // --quiet keeps the note back.
    let o = ok(&d, &[&args[..], &["--gvt-csv", "gvt.csv", "-q"]].concat());
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

/// The CSV as rows of (column name, value) maps.
fn rows(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            // The error column is last and may hold commas (quoted).
            let cells: Vec<String> = l.splitn(header.len(), ',').map(|c| c.trim_matches('"').to_string()).collect();
            header.iter().cloned().zip(cells).collect()
        })
        .collect()
}

#[test]
fn sweep_runs_the_product_and_records_failures_as_rows() {
    let d = folder("sweep");
    let base = ["sweep", "phold", "--lps", "128", "--end", "5", "--sync", "optimistic"];
    let o = timewarp(
        &d,
        &[&base[..], &["--set", "remote=0.1,0.5,2", "--set", "threads=1,2", "--reps", "2", "-o", "s.csv"]].concat(),
    );
    assert_eq!(o.status.code(), Some(1), "a failed run fails the sweep: {}", stderr(&o));
    assert!(stderr(&o).contains("4 of 12 runs failed"), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("s.csv")).unwrap();
    assert_eq!(
        text.lines().next(),
        Some(
            "remote,threads,rep,committed_events,event_rate,efficiency,rolled_back_events,peak_memory_bytes,\
             wall_seconds,digest,digest_version,processed,sent_remote,error"
        )
    );
    let r = rows(&text);
    assert_eq!(r.len(), 12, "{text}");
    for row in &r[..8] {
        assert!(row["error"].is_empty() && !row["digest"].is_empty(), "{row:?}");
        assert_eq!(row["digest_version"], timewarp::digest::DIGEST_VERSION.to_string());
        assert!(row["peak_memory_bytes"].parse::<u64>().unwrap() > 0);
        // Optimistic on 1 or 2 threads, any rep: the same history as the sequential run.
        let single =
            ["run", "phold", "--lps", "128", "--end", "5", "--remote", &row["remote"], "-q", "--stats-json", "-"];
        let seq: serde_json::Value = serde_json::from_slice(&ok(&d, &single).stdout).unwrap();
        assert_eq!(seq["digest"].as_str(), Some(row["digest"].as_str()), "{row:?}");
        assert_eq!(seq["committed_events"].to_string(), row["committed_events"]);
    }
    assert_eq!((r[0]["remote"].as_str(), r[0]["threads"].as_str(), r[0]["rep"].as_str()), ("0.1", "1", "1"));
    assert_eq!((r[3]["remote"].as_str(), r[3]["threads"].as_str(), r[3]["rep"].as_str()), ("0.1", "2", "2"));
    for row in &r[8..] {
        assert_eq!(row["remote"], "2");
        assert!(row["digest"].is_empty() && row["error"].contains("probability"), "{row:?}");
    }
}

#[test]
fn sweep_takes_a_run_file_and_writes_to_standard_output() {
    let d = folder("sweep-config");
    std::fs::write(d.join("run.toml"), RUN_TOML).unwrap();
    let o = ok(&d, &["sweep", "--config", "run.toml", "--set", "batch=4,16", "-o", "-", "--lps", "64"]);
    let r = rows(&stdout(&o));
    assert_eq!(r.len(), 2);
    assert_eq!((r[0]["batch"].as_str(), r[1]["batch"].as_str()), ("4", "16"));
    assert_eq!(r[0]["digest"], r[1]["digest"], "batch never changes the history");
    let run = ok(&d, &["run", "--config", "run.toml", "--lps", "64", "-q", "--stats-json", "-"]);
    let one: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(one["digest"].as_str(), Some(r[0]["digest"].as_str()));
}

#[test]
fn sweep_mistakes_are_one_line() {
    let d = folder("sweep-mistakes");
    let cases: &[(&[&str], &[&str])] = &[
        (&["sweep", "phold", "--set", "remote=0.1"], &["-o FILE"]),
        (&["sweep", "phold", "-o", "s.csv"], &["--set"]),
        (&["sweep", "phold", "--set", "remot=0.1", "-o", "s.csv"], &["remot", "did you mean `remote`"]),
        (&["sweep", "phold", "--set", "remote", "-o", "s.csv"], &["NAME=V1,V2"]),
        (&["sweep", "phold", "--set", "remote=0.1,,1", "-o", "s.csv"], &["empty"]),
        (&["sweep", "phold", "--set", "remote=0.1", "--set", "remote=1", "-o", "s.csv"], &["given twice"]),
        (&["sweep", "--set", "remote=0.1", "-o", "s.csv"], &["needs a model"]),
        (&["sweep", "phol", "--set", "remote=0.1", "-o", "s.csv"], &["phol"]),
        (&["sweep", "phold", "--lsp", "3", "--set", "remote=0.1", "-o", "s.csv"], &["--lsp"]),
        (&["sweep", "phold", "--stats-json", "x", "--set", "remote=0.1", "-o", "s.csv"], &["--stats-json"]),
        (&["sweep", "--config", "missing.toml", "--set", "remote=0.1", "-o", "s.csv"], &["missing.toml"]),
        (&["sweep", "phold", "--set", "remote=0.1", "--reps", "0", "-o", "s.csv"], &["--reps"]),
    ];
    for (args, mention) in cases {
        one_line_error(&d, args, 2, mention);
    }
    assert!(!d.join("s.csv").exists(), "a refused sweep writes nothing");
    one_line_error(
        &d,
        &["sweep", "phold", "--set", "remote=0.1", "-o", "no/such/folder/s.csv"],
        1,
        &["no/such/folder"],
    );
}

#[test]
fn a_checkpoint_of_a_run_file_s_run_resumes_without_the_file() {
    let d = folder("checkpoint");
    std::fs::write(d.join("run.toml"), RUN_TOML).unwrap();
    ok(&d, &["run", "--config", "run.toml", "-q", "--stats-json", "whole.json"]);
    let args = ["run", "--config", "run.toml", "-q", "--checkpoint-dir", "ck", "--checkpoint-every", "4"];
    ok(&d, &args);
    std::fs::remove_file(d.join("run.toml")).unwrap();
    let mut ck: Vec<PathBuf> = std::fs::read_dir(d.join("ck")).unwrap().map(|e| e.unwrap().path()).collect();
    ck.sort();
    let first = ck.first().expect("a checkpoint was written").to_str().unwrap().to_string();
    ok(&d, &["resume", &first, "-q", "--stats-json", "resumed.json"]);
    assert_eq!(json(&d.join("resumed.json"))["digest"], json(&d.join("whole.json"))["digest"]);
    assert_eq!(json(&d.join("resumed.json"))["config"]["model"]["lps"], 256);
}
