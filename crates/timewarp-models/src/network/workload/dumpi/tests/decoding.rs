//! Decoding: against DUMPI's own reader (`dumpi2ascii`), and the layouts
//! of calls beyond the test traces, in minimal `.bin` files written here.

use super::*;

/// `S.NNNNNNNNN` seconds as whole ns.
fn ns(s: &str) -> u64 {
    let (a, b) = s.split_once('.').unwrap();
    a.parse::<u64>().unwrap() * 1_000_000_000 + b.parse::<u64>().unwrap()
}

/// Against DUMPI's own reader: every record's function and its wall and
/// CPU entry and exit times, to the ns, as `dumpi2ascii` printed them (its
/// text dumps of these traces, copied unchanged beside them in
/// `tests/data/dumpi2ascii`: the test needs nothing outside the repository).
#[test]
fn decoding_agrees_with_dumpi2ascii() {
    let dumps = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dumpi2ascii");
    let mut records = 0;
    for name in ["ring", "halo3d", "collectives", "pingpong", "wildcard"] {
        for e in std::fs::read_dir(data(name)).unwrap().flatten() {
            let f = e.file_name().to_string_lossy().into_owned();
            let Some(stem) = f.strip_suffix(".bin") else { continue };
            let ours = std::fs::read(e.path()).unwrap();
            let text = std::fs::read_to_string(dumps.join(name).join(format!("{stem}.txt"))).unwrap();
            // "MPI_X entering at walltime W, cputime C seconds in thread 0."
            let mut want: Vec<(String, [u64; 4])> = vec![];
            for l in text.lines() {
                let w: Vec<&str> = l.split_whitespace().collect();
                if w.len() > 6 && w[2] == "at" && w[3] == "walltime" {
                    let (wall, cpu) = (ns(w[4].trim_end_matches(',')), ns(w[6]));
                    match w[1] {
                        "entering" => want.push((w[0].to_string(), [wall, cpu, 0, 0])),
                        _ => {
                            let last = want.last_mut().unwrap();
                            assert_eq!(last.0, w[0]);
                            last.1[2..].copy_from_slice(&[wall, cpu]);
                        }
                    }
                }
            }
            let wall = decode(&ours, &f, DumpiTime::Wall).unwrap();
            let cpu = decode(&ours, &f, DumpiTime::Cpu).unwrap();
            let got: Vec<(String, [u64; 4])> = wall
                .records
                .iter()
                .zip(&cpu.records)
                .map(|(w, c)| {
                    let t = |x: Option<u64>| x.unwrap();
                    (NAMES[w.label as usize].to_string(), [t(w.entry), t(c.entry), t(w.exit), t(c.exit)])
                })
                .collect();
            assert_eq!(got, want, "{name}/{f}");
            // The trace's size table, with its 0 for MPI_LONG_LONG_INT (16)
            // replaced by the built-in 8.
            assert_eq!(wall.sizes, BUILTIN_SIZES);
            records += got.len();
        }
    }
    // The README's independent decoder read 1202 call records.
    assert_eq!(records, 1202);
}

/// A minimal `.bin` file: no thread ids or CPU times, statuses stored, the
/// shortest index (header, body, footer, keyval), no size table.
fn write_bin(records: &[(u16, Vec<u8>)]) -> Vec<u8> {
    let magic = 0xFFAA_DD44_554D_5049u64.to_be_bytes();
    let mut b = magic.to_vec();
    let body = b.len() as u64;
    b.extend(7u32.to_be_bytes()); // CPU bias
    b.extend(100u32.to_be_bytes()); // wall bias
    for (i, (label, args)) in records.iter().enumerate() {
        b.extend(label.to_be_bytes());
        b.push(0x0B);
        for (s, ns) in [(i as u16, 1000u32), (i as u16, 2000)] {
            b.extend(s.to_be_bytes());
            b.extend(ns.to_be_bytes());
        }
        b.extend(args);
    }
    b.extend(293u16.to_be_bytes());
    let header = b.len() as u64;
    b.extend([13, 0, 0]);
    b.extend(0u64.to_be_bytes());
    for s in ["h", "u"] {
        b.extend((s.len() as u16).to_be_bytes());
        b.extend(s.as_bytes());
    }
    b.extend([0; 8]);
    b.extend(magic);
    for o in [header, body, 0, 0] {
        b.extend(o.to_be_bytes());
    }
    b
}

/// Big-endian argument bytes: `i` i32, `s` u16, `b` u8 values in order;
/// `A` an i32 array (its values next, count first); `P` n statuses.
fn args(form: &str, vals: &[i64]) -> Vec<u8> {
    let mut out = vec![];
    let mut v = vals.iter();
    for c in form.chars() {
        match c {
            'i' => out.extend((*v.next().unwrap() as i32).to_be_bytes()),
            's' => out.extend((*v.next().unwrap() as u16).to_be_bytes()),
            'b' => out.push(*v.next().unwrap() as u8),
            'A' => {
                let n = *v.next().unwrap();
                out.extend((n as u32).to_be_bytes());
                for _ in 0..n {
                    out.extend((*v.next().unwrap() as i32).to_be_bytes());
                }
            }
            'P' => {
                let n = *v.next().unwrap();
                out.extend((n as u32).to_be_bytes());
                out.extend(vec![0; 14 * n as usize]);
            }
            _ => unreachable!(),
        }
    }
    out
}

#[test]
fn the_layouts_of_calls_beyond_the_test_traces_decode_in_step() {
    // One record of each family the real traces lack, written as DUMPI's
    // dumpi_write_* functions order their fields; each must end exactly
    // where the next begins (a misread length derails the stream).
    let recs = vec![
        (16, args("iAiP", &[2, 2, 5, 6, 1, 1])),                             // Waitany
        (21, args("iAiAP", &[2, 2, 5, 6, 1, 1, 0, 1])),                      // Testsome
        (22, args("iisiP", &[-1, 7, 2, 1, 1])),                              // Iprobe
        (55, args("iiisisAAs", &[0, 2, 3, 9, 0, 2, 2, 3, 3, 2, 0, 3, 9])),   // Gatherv at the root
        (55, args("iiisiss", &[1, 2, 3, 9, 0, 2, 9])),                       // ... elsewhere
        (57, args("iisisisAA", &[0, 2, 14, 1, 14, 0, 2, 2, 4, 5, 2, 0, 4])), // Scatterv at the root
        (61, args("iAAsAAss", &[2, 2, 1, 2, 2, 0, 1, 9, 2, 1, 1, 2, 0, 1, 9, 2])), // Alltoallv
        (66, args("iAsbs", &[2, 2, 3, 4, 14, 3, 2])),                        // Reduce_scatter
        (40, {
            let mut a = args("iAA", &[2, 2, 1, 1, 2, 0, 8]);
            a.extend(2u32.to_be_bytes());
            a.extend([0, 9, 0, 14]);
            a.extend(30u16.to_be_bytes());
            a
        }), // Type_struct
        (99, args("siAAis", &[2, 1, 1, 2, 1, 1, 0, 4])),                     // Cart_create
        (110, args("siiii", &[4, 0, 1, 1, 1])),                              // Cart_shift
        (34, args("isiiiisP", &[4, 9, 1, 3, 1, 3, 2, 1])),                   // Sendrecv_replace
        (32, args("iA", &[2, 2, 5, 6])),                                     // Startall
        (114, [&2u32.to_be_bytes()[..], b"vm", &2i32.to_be_bytes()].concat()), // Get_processor_name
        (86, args("siis", &[2, 0, 1, 7])),                                   // Comm_split
        (171, [&1u32.to_be_bytes()[..], &2u32.to_be_bytes(), b"./", &[3, 3]].concat()), // Init_thread
        (195, args("is", &[64, 0])),                                         // Alloc_mem
        (125, vec![]),
    ];
    let b = write_bin(&recs);
    let t = decode(&b, "t.bin", DumpiTime::Wall).unwrap_or_else(|e| panic!("{e}"));
    let calls: Vec<&Call> = t.records.iter().map(|r| &r.call).collect();
    assert_eq!(calls.len(), recs.len());
    assert_eq!(*calls[0], Call::Any { reqs: vec![5, 6], index: 1, flag: 1 });
    assert_eq!(*calls[1], Call::Some { reqs: vec![5, 6], indices: vec![0] });
    assert_eq!(*calls[2], Call::Probe { src: -1, tag: 7, comm: 2, flag: 1 });
    assert_eq!(*calls[3], Call::Gather { count: 3, dt: 9, root: 0, comm: 2 });
    assert_eq!(*calls[4], Call::Gather { count: 3, dt: 9, root: 0, comm: 2 });
    assert_eq!(*calls[5], Call::Scatter { counts: vec![4, 5], dt: 14, root: 0, comm: 2 });
    assert_eq!(*calls[6], Call::Alltoallv { counts: vec![1, 2], dt: 9, comm: 2 });
    assert_eq!(*calls[7], Call::Alltoallv { counts: vec![3, 4], dt: 14, comm: 2 });
    assert_eq!(*calls[8], Call::Local);
    assert_eq!(*calls[9], Call::CommAlias { old: 2, new: 4, cart: Some((2, 0)) });
    assert_eq!(*calls[11], Call::Sendrecv { count: 4, dt: 9, dest: 1, stag: 3, src: 1, rtag: 3, comm: 2 });
    assert_eq!(*calls[12], Call::Start { reqs: vec![5, 6] });
    assert_eq!((calls[13], calls[14]), (&Call::Local, &Call::CommOther { new: 7 }));
    assert_eq!((calls[15], calls[16]), (&Call::Init, &Call::Local));
    // Wall times: the bias plus the stored seconds and ns; no CPU times stored.
    assert_eq!((t.records[1].entry, t.records[1].exit), (Some(101_000_001_000), Some(101_000_002_000)));
    assert_eq!(decode(&b, "t.bin", DumpiTime::Cpu).unwrap().records[1].entry, None);
    // No size table: the built-in sizes.
    assert_eq!(t.sizes, BUILTIN_SIZES);
}
