//! A checkpoint records the input files its run read (traces, mapping
//! files) by size and SHA-256, and a resume whose inputs differ is refused
//! in one line naming the file, before anything reads them (issue 42: a
//! resume over another trace panicked in the workload, or over an emptied
//! one silently gave another result). An unchanged resume still ends with
//! the digest of the run that never stopped, and the workload itself,
//! resumed over another trace behind a forged checkpoint, stops with an
//! error instead of a panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn timewarp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_timewarp")).args(args).output().expect("binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("timewarp-ckpt-inputs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The DUMPI traces kept in the repository (the models' test data).
fn dumpi(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../timewarp-models/tests/data/dumpi").join(name)
}

/// `from`'s files copied into `to` (emptied first).
fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// The files of `dir` whose name ends in `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    v.sort();
    v
}

/// A text trace of 4 ranks: rounds of a compute, a ring exchange and an all-reduce.
fn text_trace(dir: &Path, rounds: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for r in 0..4 {
        let round =
            format!("compute 1000\nisend {} 4096 0\nirecv {} 0\nwaitall\nallreduce 8192\n", (r + 1) % 4, (r + 3) % 4);
        std::fs::write(dir.join(format!("rank.{r}.txt")), round.repeat(rounds)).unwrap();
    }
}

/// The digest of a run's statistics file.
fn digest(stats: &Path) -> String {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(stats).unwrap()).unwrap();
    v["digest"].as_str().unwrap().to_string()
}

/// Runs `args` (a `run` command line, in `d`'s terms) writing checkpoints
/// into `d/ck` every `every` ns, and also without them; returns the
/// uninterrupted run's digest and the checkpoints, oldest first.
fn checkpointed(d: &Path, args: &[&str], every: &str) -> (String, Vec<PathBuf>) {
    let full = d.join("full.json");
    let o = timewarp(&[args, &["-q", "--stats-json", full.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    let ck = d.join("ck");
    let mut with = args.to_vec();
    with.extend(["-q", "--checkpoint-dir", ck.to_str().unwrap(), "--checkpoint-every", every]);
    with.extend(["--checkpoint-keep", "100"]);
    let o = timewarp(&with);
    assert!(o.status.success(), "{with:?}: {}", text(&o.stderr));
    let cks = timewarp::checkpoint::list(&ck).unwrap();
    assert!(!cks.is_empty(), "{with:?} wrote no checkpoint before its end");
    (digest(&full), cks)
}

/// `resume FILE -q` (its checkpoints elsewhere): the digest, or the error.
fn resume(d: &Path, ck: &Path) -> Result<String, String> {
    let stats = d.join("resumed.json");
    let again = d.join("again");
    let o = timewarp(&[
        "resume",
        ck.to_str().unwrap(),
        "-q",
        "--stats-json",
        stats.to_str().unwrap(),
        "--checkpoint-dir",
        again.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert!(!err.contains("panicked"), "resume {ck:?} panicked: {err}");
    match o.status.code() {
        Some(0) => Ok(digest(&stats)),
        Some(1) => {
            assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
            assert!(err.starts_with("error: "), "{err}");
            Err(err)
        }
        c => panic!("resume {ck:?} exited with {c:?}: {err}"),
    }
}

/// A resume of `ck` is refused naming `file` and saying what to do.
fn refused(d: &Path, ck: &Path, file: &Path, what: &str) {
    let e = resume(d, ck).expect_err("a resume over changed inputs is refused");
    let file = file.display().to_string();
    assert!(e.contains(&format!("{file} (--")), "names {file}: {e}");
    assert!(e.contains(what), "says '{what}': {e}");
    assert!(e.contains("start a new run"), "says what to do: {e}");
}

#[test]
fn an_unchanged_resume_matches_the_uninterrupted_run() {
    let d = dir("same");
    let tr = d.join("tr");
    copy_dir(&dumpi("collectives"), &tr);
    let t = tr.to_str().unwrap();
    let args = ["run", "network", "--dims", "4,4", "--workload", "dumpi", "--trace-dir", t, "--end", "1e15"];
    let (want, cks) = checkpointed(&d, &args, "300000");
    for ck in &cks {
        assert_eq!(resume(&d, ck).as_ref(), Ok(&want), "{ck:?}");
    }
    // The checkpoint records every file the replay reads: the .meta and each rank's .bin.
    let header = timewarp::checkpoint::File::open(&cks[0]).unwrap().header;
    let inputs = header.inputs.expect("inputs recorded");
    assert_eq!(inputs.len(), 17, "{inputs:?}");
    assert!(inputs.iter().all(|i| i.option == format!("--trace-dir {t}") && i.sha256.len() == 64));
    // A text trace, resumed after a checkpoint of the resumed run itself.
    let text = d.join("text");
    text_trace(&text, 6);
    let x = text.to_str().unwrap();
    let args = ["run", "network", "--dims", "2,2", "--workload", "trace", "--trace-dir", x, "--end", "1e15"];
    let _ = std::fs::remove_dir_all(d.join("ck"));
    let (want, cks) = checkpointed(&d, &args, "5000");
    assert!(cks.len() >= 2, "{cks:?}");
    for ck in &cks {
        let _ = std::fs::remove_dir_all(d.join("again"));
        assert_eq!(resume(&d, ck).as_ref(), Ok(&want), "{ck:?}");
        if let Some(again) = timewarp::checkpoint::list(&d.join("again")).unwrap().pop() {
            assert_eq!(resume(&d, &again).as_ref(), Ok(&want), "{again:?}, written by a resumed run");
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_dumpi_trace_replaced_by_another_is_refused() {
    let d = dir("replaced");
    let tr = d.join("tr");
    copy_dir(&dumpi("collectives"), &tr);
    let t = tr.to_str().unwrap();
    let args = ["run", "network", "--dims", "4,4", "--workload", "dumpi", "--trace-dir", t, "--end", "1e15"];
    let (_, cks) = checkpointed(&d, &args, "300000");
    let meta = files(&tr, ".meta").remove(0);
    // Another run's trace in its place (this panicked at rank.rs:438).
    for other in ["ring", "halo3d", "pingpong"] {
        copy_dir(&dumpi(other), &tr);
        for ck in &cks {
            refused(&d, ck, &meta, "is gone");
        }
    }
    // Another trace beside it: a second .meta is an input the run did not read.
    copy_dir(&dumpi("collectives"), &tr);
    for f in files(&dumpi("ring"), "") {
        std::fs::copy(&f, tr.join(f.file_name().unwrap())).unwrap();
    }
    let added = files(&tr, ".meta").into_iter().find(|m| m != &meta).unwrap();
    refused(&d, &cks[0], &added, "did not read");
    // The original trace back: the resume goes on.
    copy_dir(&dumpi("collectives"), &tr);
    assert!(resume(&d, &cks[0]).is_ok());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_changed_or_truncated_dumpi_bin_is_refused() {
    let d = dir("bin");
    let tr = d.join("tr");
    copy_dir(&dumpi("halo3d"), &tr);
    let t = tr.to_str().unwrap();
    let args = ["run", "network", "--dims", "2,2,2", "--workload", "dumpi", "--trace-dir", t, "--end", "1e15"];
    let (want, cks) = checkpointed(&d, &args, "200000");
    let ck = cks.last().unwrap();
    let bin = files(&tr, ".bin")[3].clone();
    let original = std::fs::read(&bin).unwrap();
    // Truncated.
    std::fs::write(&bin, &original[..original.len() / 2]).unwrap();
    refused(&d, ck, &bin, "changed since the checkpoint was written");
    // One byte changed, the size kept.
    let mut flipped = original.clone();
    let at = flipped.len() - 9;
    flipped[at] ^= 0x40;
    std::fs::write(&bin, &flipped).unwrap();
    refused(&d, ck, &bin, "changed since the checkpoint was written");
    // Removed.
    std::fs::remove_file(&bin).unwrap();
    refused(&d, ck, &bin, "is gone");
    // Restored: the resume goes on, to the uninterrupted run's digest.
    std::fs::write(&bin, &original).unwrap();
    assert_eq!(resume(&d, ck), Ok(want));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_changed_emptied_removed_or_added_text_trace_file_is_refused() {
    let d = dir("text");
    let tr = d.join("tr");
    text_trace(&tr, 6);
    let t = tr.to_str().unwrap();
    let args = ["run", "network", "--dims", "2,2", "--workload", "trace", "--trace-dir", t, "--end", "1e15"];
    let (want, cks) = checkpointed(&d, &args, "5000");
    let ck = cks.last().unwrap();
    let f = tr.join("rank.2.txt");
    let original = std::fs::read(&f).unwrap();
    // Changed (one round less: this panicked at rank.rs:216 or resumed to another result).
    std::fs::write(&f, &original[..original.len() - original.len() / 6]).unwrap();
    refused(&d, ck, &f, "changed since the checkpoint was written");
    // Emptied (this resumed with exit 0 and another result).
    std::fs::write(&f, "").unwrap();
    refused(&d, ck, &f, "changed since the checkpoint was written (it had");
    // Removed (with the others kept, the loader would see a gap).
    std::fs::remove_file(&f).unwrap();
    refused(&d, ck, &f, "is gone");
    std::fs::write(&f, &original).unwrap();
    // A rank added.
    let extra = tr.join("rank.4.txt");
    std::fs::write(&extra, "compute 5\n").unwrap();
    refused(&d, ck, &extra, "did not read");
    // The whole directory gone.
    std::fs::remove_file(&extra).unwrap();
    let moved = d.join("moved");
    std::fs::rename(&tr, &moved).unwrap();
    refused(&d, ck, &tr.join("rank.0.txt"), "is gone");
    std::fs::rename(&moved, &tr).unwrap();
    assert_eq!(resume(&d, ck), Ok(want));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_changed_mapping_file_is_refused() {
    let d = dir("mapping");
    let tr = d.join("tr");
    text_trace(&tr, 6);
    let (t, map, ranks) = (tr.to_str().unwrap(), d.join("pes.txt"), d.join("ranks.txt"));
    // LPs on PEs (engine), ranks on nodes (network): each read at start.
    std::fs::write(&map, "0\n1\n1\n0\n").unwrap();
    std::fs::write(&ranks, "3\n2\n1\n0\n").unwrap();
    let (m, r) = (map.to_str().unwrap(), ranks.to_str().unwrap());
    let args = [
        "run",
        "network",
        "--dims",
        "2,2",
        "--workload",
        "trace",
        "--trace-dir",
        t,
        "--end",
        "1e15",
        "--sync",
        "optimistic",
        "--threads",
        "2",
        "--mapping",
        m,
        "--rank-mapping",
        r,
    ];
    let (want, cks) = checkpointed(&d, &args, "5000");
    let ck = cks.last().unwrap();
    std::fs::write(&map, "1\n1\n0\n0\n").unwrap();
    refused(&d, ck, &map, "changed since the checkpoint was written");
    // Placement never changes results: a resume that places LPs otherwise does not read the file.
    let again = d.join("again");
    let o = timewarp(&[
        "resume",
        ck.to_str().unwrap(),
        "-q",
        "--mapping",
        "block",
        "--checkpoint-dir",
        again.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    std::fs::write(&map, "0\n1\n1\n0\n").unwrap();
    std::fs::write(&ranks, "0\n1\n2\n3\n").unwrap();
    refused(&d, ck, &ranks, "changed since the checkpoint was written");
    std::fs::write(&ranks, "3\n2\n1\n0\n").unwrap();
    assert_eq!(resume(&d, ck), Ok(want));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_changed_tlm_terrain_or_sources_file_is_refused() {
    let d = dir("tlm");
    let (terrain, sources) = (d.join("terrain.txt"), d.join("sources.txt"));
    let mut rows = vec![".".repeat(16); 16];
    rows[5] = "....1111........".into();
    std::fs::write(&terrain, rows.join("\n")).unwrap();
    std::fs::write(&sources, "3 3\n12 10\n").unwrap();
    let (t, s) = (terrain.to_str().unwrap(), sources.to_str().unwrap());
    let args = ["run", "tlm", "--size", "16x16", "--terrain", t, "--sources-file", s, "--end", "40"];
    let (want, cks) = checkpointed(&d, &args, "10");
    let ck = cks.last().unwrap();
    rows[5] = "....2222........".into();
    std::fs::write(&terrain, rows.join("\n")).unwrap();
    refused(&d, ck, &terrain, "changed since the checkpoint was written");
    rows[5] = "....1111........".into();
    std::fs::write(&terrain, rows.join("\n")).unwrap();
    std::fs::write(&sources, "3 3\n").unwrap();
    refused(&d, ck, &sources, "changed since the checkpoint was written");
    std::fs::write(&sources, "3 3\n12 10\n").unwrap();
    assert_eq!(resume(&d, ck), Ok(want));
    std::fs::remove_dir_all(&d).unwrap();
}

/// `ck` with its header edited by `edit` and written as `format`, its
/// checksum recomputed (a file the checksum cannot tell from a real one).
fn forged(ck: &Path, to: &Path, format: u32, edit: impl Fn(&mut serde_json::Value)) {
    let bytes = std::fs::read(ck).unwrap();
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut header: serde_json::Value = serde_json::from_slice(&bytes[16..16 + len]).unwrap();
    edit(&mut header);
    let head = serde_json::to_vec(&header).unwrap();
    let mut out = b"TWCKPT\r\n".to_vec();
    out.extend(format.to_le_bytes());
    out.extend((head.len() as u32).to_le_bytes());
    out.extend(head);
    out.extend(&bytes[16 + len..bytes.len() - 4]);
    let crc = crc32fast::hash(&out); // the checkpoint trailer's CRC-32
    out.extend(crc.to_le_bytes());
    std::fs::write(to, out).unwrap();
}

#[test]
fn a_checkpoint_from_before_inputs_were_recorded_resumes_only_without_inputs() {
    let d = dir("old");
    let tr = d.join("tr");
    text_trace(&tr, 6);
    let t = tr.to_str().unwrap();
    let args = ["run", "network", "--dims", "2,2", "--workload", "trace", "--trace-dir", t, "--end", "1e15"];
    let (_, cks) = checkpointed(&d, &args, "5000");
    let old = d.join("old.twc");
    let drop_inputs = |h: &mut serde_json::Value| {
        h.as_object_mut().unwrap().remove("inputs");
        h["format"] = 1.into();
    };
    forged(&cks[0], &old, 1, drop_inputs);
    let e = resume(&d, &old).unwrap_err();
    assert!(e.contains("written before checkpoints recorded their input files"), "{e}");
    assert!(e.contains(&tr.join("rank.0.txt").display().to_string()) && e.contains("start a new run"), "{e}");
    // A run that reads no file resumes from a format-1 checkpoint as before.
    let p = d.join("phold");
    std::fs::create_dir_all(&p).unwrap();
    let (want, cks) = checkpointed(&p, &["run", "phold", "--lps", "16", "--end", "20"], "5");
    forged(&cks[0], &old, 1, drop_inputs);
    assert_eq!(resume(&p, &old), Ok(want));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_workload_resumed_over_another_trace_behind_a_forged_checkpoint_errors_without_a_panic() {
    // Defence in depth: the input check passed by a checkpoint edited to
    // record no inputs, the workload meets states and events of another
    // trace (rank.rs panicked at lines 216, 258 and 438 on these).
    let d = dir("forged");
    let tr = d.join("tr");
    let mut mismatches = 0;
    for (from, to) in [("collectives", "ring"), ("ring", "halo3d"), ("halo3d", "collectives"), ("ring", "pingpong")] {
        copy_dir(&dumpi(from), &tr);
        let t = tr.to_str().unwrap();
        let args = ["run", "network", "--dims", "4,4", "--workload", "dumpi", "--trace-dir", t, "--end", "1e15"];
        let _ = std::fs::remove_dir_all(d.join("ck"));
        let (_, cks) = checkpointed(&d, &args, "250000");
        copy_dir(&dumpi(to), &tr);
        for ck in &cks {
            let f = d.join("forged.twc");
            forged(ck, &f, timewarp::checkpoint::FORMAT_VERSION, |h| h["inputs"] = serde_json::json!([]));
            // Another trace may even run to an end: the input check is what makes a resume right.
            if let Err(e) = resume(&d, &f) {
                mismatches += e.contains("does not match the trace") as u32;
            }
        }
    }
    assert!(mismatches > 0, "the workload reports a state of another trace");
    // The text format, a rank fewer (rank.rs:216 indexed rank 4294967295).
    let text = d.join("text");
    text_trace(&text, 6);
    let x = text.to_str().unwrap();
    let args = ["run", "network", "--dims", "2,2", "--workload", "trace", "--trace-dir", x, "--end", "1e15"];
    let _ = std::fs::remove_dir_all(d.join("ck"));
    let (_, cks) = checkpointed(&d, &args, "5000");
    std::fs::remove_file(text.join("rank.3.txt")).unwrap();
    for r in 0..3 {
        let peers = format!("compute 1000\nisend {} 64 0\nirecv {} 0\nwaitall\n", (r + 1) % 3, (r + 2) % 3);
        std::fs::write(text.join(format!("rank.{r}.txt")), peers.repeat(6)).unwrap();
    }
    for ck in &cks {
        let f = d.join("forged.twc");
        forged(ck, &f, timewarp::checkpoint::FORMAT_VERSION, |h| h["inputs"] = serde_json::json!([]));
        let _ = resume(&d, &f);
    }
    std::fs::remove_dir_all(&d).unwrap();
}
