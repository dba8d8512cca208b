//! Refusals, each naming what to fix: files that cannot be read, and
//! programs that cannot be replayed.

use super::*;

/// A copy of trace `name` in a fresh temporary folder, `edit` applied to
/// its rank-0 file's bytes; the folder.
fn edited(name: &str, tag: &str, edit: impl Fn(&mut Vec<u8>)) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("timewarp-dumpi-{}-{name}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(data(name)).unwrap().flatten() {
        let mut b = std::fs::read(e.path()).unwrap();
        if e.file_name().to_string_lossy().ends_with("-0000.bin") {
            edit(&mut b);
        }
        std::fs::write(dir.join(e.file_name()), b).unwrap();
    }
    dir
}

#[test]
fn bad_files_are_refused_naming_the_file() {
    let opt = DumpiOptions::default();
    let err = |dir: &Path| Workload::read_dumpi(dir, &opt).unwrap_err();
    // The first record starts after the lead-in and the two clock biases:
    // label (2 bytes), mask, thread, times.
    let first = 8 + 8;
    let cases: Vec<(std::path::PathBuf, &str)> = vec![
        (
            edited("ring", "short", |b| b.truncate(b.len() / 2)),
            "-0000.bin (rank 0): not a DUMPI trace or corrupt: no index record",
        ),
        (edited("ring", "lead", |b| b[0] = 0), "-0000.bin (rank 0): not a DUMPI trace or corrupt: no DUMPI lead-in"),
        (edited("ring", "empty", |b| b.clear()), "-0000.bin (rank 0): not a DUMPI trace or corrupt"),
        // Init (label 124) relabelled Comm_create (85), whose layout is not implemented.
        (
            edited("ring", "label", |b| b[first + 1] = 85),
            "-0000.bin (rank 0): call 1 is MPI_Comm_create, which this reader cannot read",
        ),
        // Comm_rank (82, after Init's 43 bytes: "./ring") relabelled
        // Comm_size (81, the same layout): the footer's counts disagree.
        (
            edited("ring", "count", |b| b[first + 43 + 1] = 81),
            "-0000.bin (rank 0): not a DUMPI trace or corrupt: its footer counts 1 MPI_Comm_size calls, its call stream has 2",
        ),
        // Init's argc made huge: its strings would run past the end.
        (edited("ring", "argc", |b| b[first + 29] = 0x7f), "-0000.bin (rank 0): truncated or corrupt DUMPI trace"),
    ];
    for (dir, want) in cases {
        let e = err(&dir);
        assert!(e.contains(want) && !e.contains('\n'), "{e} (wanted {want})");
        std::fs::remove_dir_all(dir).unwrap();
    }
    // A missing rank file, a .meta without numprocs, a folder without a .meta.
    let dir = edited("ring", "missing", |_| {});
    std::fs::remove_file(dir.join("dumpi-2026.11.25.07.40.39-0007.bin")).unwrap();
    assert!(err(&dir).contains("dumpi-2026.11.25.07.40.39-0007.bin: "), "{}", err(&dir));
    let meta = dir.join("dumpi-2026.11.25.07.40.39.meta");
    std::fs::write(&meta, "hostname=vm\nfileprefix=dumpi-2026.11.25.07.40.39\n").unwrap();
    assert!(err(&dir).contains(".meta: not a DUMPI .meta file: no 'numprocs='"), "{}", err(&dir));
    std::fs::write(&meta, "numprocs=8\njunk\n").unwrap();
    assert!(err(&dir).contains("line 'junk' is not key=value"), "{}", err(&dir));
    std::fs::remove_file(&meta).unwrap();
    assert!(err(&dir).contains("holds no DUMPI .meta file"), "{}", err(&dir));
    std::fs::remove_dir_all(dir).unwrap();
    // The .meta file itself may be given.
    let w = Workload::read_dumpi(&data("ring").join("dumpi-2026.11.25.07.40.39.meta"), &opt).unwrap();
    assert_eq!(w.ranks(), 8);
}

#[test]
fn what_cannot_be_replayed_is_refused_naming_the_rank_and_call() {
    let opt = DumpiOptions::default();
    let sizes = vec![0, 0, 1, 1, 1, 1, 4, 2, 2, 4];
    let trace = |calls: Vec<(u16, Call)>| RankTrace {
        records: calls.into_iter().enumerate().map(|(i, (l, c))| rec(l, i as u64, c)).collect(),
        sizes: sizes.clone(),
    };
    let idle = || trace(vec![(124, Call::Init), (125, Call::Finalize)]);
    let send = |dest, comm| Call::Send { count: 4, dt: 9, dest, tag: 3, comm };
    let cases = [
        (
            vec![(0, send(1, 5))],
            "rank 0: MPI_Send (call 2) uses communicator 5: only MPI_COMM_WORLD and its duplicates are modelled",
        ),
        (vec![(0, send(2, 2))], "rank 0: MPI_Send (call 2) names destination 2, not a rank of the trace's 2"),
        (
            vec![(13, Call::Wait { req: 7, flag: 1 })],
            "rank 0: MPI_Wait (call 2) waits for request 7, which no modelled call started",
        ),
        (
            vec![(0, Call::Send { count: 4, dt: 20, dest: 1, tag: 3, comm: 2 })],
            "rank 0: MPI_Send (call 2) uses datatype 20, whose size the trace does not give",
        ),
        (vec![(53, Call::Bcast { count: 1, dt: 2, root: 9, comm: 2 })], "rank 0: MPI_Bcast (call 2) has root 9"),
    ];
    for (calls, want) in cases {
        let mut c = vec![(124, Call::Init)];
        c.extend(calls);
        let e = convert(&[trace(c), idle()], &opt, "t".into()).unwrap_err();
        assert!(e.contains(want), "{e} (wanted {want})");
    }
    // MPI_PROC_NULL peers, MPI_REQUEST_NULL, COMM_SELF collectives and
    // incomplete tests are no operations; a completed Test waits.
    let calls = vec![
        (124, Call::Init),
        (0, send(-2, 2)),
        (8, Call::Isend { count: 1, dt: 2, dest: -2, tag: 0, comm: 2, req: 5 }),
        (12, Call::Irecv { src: 1, tag: 0, comm: 2, req: 6 }),
        (14, Call::Wait { req: 6, flag: 0 }),
        (18, Call::All { reqs: vec![5, 1], flag: 1 }),
        (52, Call::Barrier { comm: 3 }),
        (14, Call::Wait { req: 6, flag: 1 }),
        (125, Call::Finalize),
    ];
    let w = convert(
        &[trace(calls), trace(vec![(124, Call::Init), (0, send(0, 2)), (125, Call::Finalize)])],
        &opt,
        "t".into(),
    )
    .unwrap();
    let kinds: Vec<Kind> = w.ops[0].iter().map(|o| o.kind).filter(|k| !matches!(k, Kind::Compute(_))).collect();
    assert_eq!(kinds, [Kind::Recv { src: 1, tag: 0, blocking: false }, Kind::WaitAll]);
    assert!(w.notes[0].contains("MPI_Test (not complete) x1"), "{:?}", w.notes);
}
