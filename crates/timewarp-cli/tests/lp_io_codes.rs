//! `--lp-io-dir` on CODES imports: the files number LPs as codes-mapping
//! does (LPGROUPS repetitions, each listing its LP types in order), and on
//! `dragonfly_custom` the router rows put each link's bytes in the slot
//! `dragonfly-custom.cxx`'s `get_output_port` gives it, checked against
//! the run's `--link-stats` CSV and the connection files read here.

mod common;
use common::{assert_clear_error, stderr, timewarp, tmp};

fn data(f: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes").join(f).to_str().unwrap().to_string()
}

fn cols(line: &str) -> Vec<f64> {
    line.split_whitespace().map(|x| x.parse().unwrap()).collect()
}

/// The rows of one of Theta's per-router files in CODES's slots
/// (`dragonfly-router-traffic` or `-stats`), after checking its format line
/// names `measure` per port as CODES's does: one row per router, 864.
fn theta_router_rows(text: &str, measure: &str) -> Vec<Vec<f64>> {
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!(
            "# Format <LP ID> <Group ID> <Router ID> <{measure} per router port(s)># Router ports in the order: \
             16 green links, 18 black links 4 global channels "
        )
    );
    let rows: Vec<Vec<f64>> = lines.filter(|l| !l.is_empty()).map(cols).collect();
    assert_eq!(rows.len(), 864);
    rows
}

/// Runs configuration `conf` with `more`, writing the LP-IO files and the
/// link CSV; the files' text (`dragonfly-router-stats` last) and the CSV
/// rows (source, destination, packets).
fn run(name: &str, conf: &str, more: &[&str]) -> (String, String, Vec<(u32, u32, f64)>, String) {
    let (dir, csv) = (tmp(name), tmp(&format!("{name}.csv")));
    let conf = data(conf);
    let mut args = vec!["run", "network", "--codes-config", &conf, "--lp-io-dir", dir.to_str().unwrap()];
    args.extend(["--link-stats", csv.to_str().unwrap()]);
    args.extend(more);
    args.push("--quiet");
    let o = timewarp(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let links = std::fs::read_to_string(&csv).unwrap();
    let links = links
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].parse().unwrap())
        })
        .collect();
    (read("dragonfly-msg-stats"), read("dragonfly-router-traffic"), links, read("dragonfly-router-stats"))
}

/// Theta (9 groups of 6 × 16 routers, 4 terminals each; LPGROUPS repeats
/// nw-lp=4, 4 terminals, 1 router): every message one 2,048-byte packet.
const THETA: &[&str] = &[
    "--arrivals",
    "in-phase",
    "--interarrival",
    "1000",
    "--message-bytes",
    "2048",
    "--messages",
    "2",
    "--end",
    "1e12",
];

#[test]
fn theta_rows_have_codes_lp_ids_and_port_slots() {
    let (msgs, traffic, links, busy) = run("lpio-theta", "modelnet-test-dragonfly-theta.conf", THETA);
    // codes-mapping: repetition k/4 of 9 LPs, terminals after the 4 nw-lps.
    for (k, l) in msgs.lines().enumerate() {
        let r = cols(l);
        assert_eq!((r[0], r[1]), (((k / 4) * 9 + 4 + k % 4) as f64, k as f64));
    }
    let rows = theta_router_rows(&traffic, "Link Traffic");
    // The inter file's records (src, dest) in order: CODES's global channel
    // of a link is its place among its router's records.
    let inter = std::fs::read(data("inter-theta")).unwrap();
    let word = |i: usize| i32::from_le_bytes(inter[4 * i..4 * i + 4].try_into().unwrap()) as u32;
    let mut channels = vec![Vec::new(); 864];
    for k in 0..inter.len() / 8 {
        channels[word(2 * k) as usize].push(word(2 * k + 1));
    }
    // Each link's bytes from the CSV, in the slot get_output_port gives the
    // m-th link from A to B (the CSV lists a router's links to B in port order).
    let mut want = vec![vec![0.0; 42]; 864];
    let mut seen = std::collections::HashMap::new();
    let mut total = 0.0;
    for &(a, b, packets) in &links {
        let m = seen.entry((a, b)).or_insert(0usize);
        let (i, j) = (a % 96, b % 96);
        let slot = if a / 96 != b / 96 {
            34 + channels[a as usize].iter().enumerate().filter(|e| *e.1 == b).nth(*m).unwrap().0
        } else if i / 16 == j / 16 {
            (j % 16) as usize + *m
        } else {
            assert_eq!(i % 16, j % 16, "Theta's local links join a row or a column");
            16 + (j / 16) as usize * 3 + *m
        };
        *m += 1;
        want[a as usize][slot] += packets * 2048.0;
        total += packets * 2048.0;
    }
    let mut sent = 0.0;
    for (r, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 3 + 42, "CODES's 3 + 16 + 18 + 4 + 4 numbers");
        assert_eq!((row[0], row[1], row[2]), ((r * 9 + 8) as f64, (r / 96) as f64, (r % 96) as f64));
        let (row_of, col_of) = ((r % 96) / 16, r % 16);
        assert_eq!(row[3 + col_of], 0.0, "its own column's slot");
        assert!((0..3).all(|c| row[3 + 16 + row_of * 3 + c] == 0.0), "its own row's slots");
        assert_eq!(&row[3..3 + 38], &want[r][..38], "router {r}");
        sent += row[3..3 + 38].iter().sum::<f64>();
    }
    assert!(total > 0.0);
    assert_eq!(sent, total, "every network byte in a slot");

    // Busy time per port in the same slots (`dragonfly_custom_router_final`):
    // CODES's format line, the same rows, 0 where no packet went.
    let busy = theta_router_rows(&busy, "Busy time");
    for (b, t) in busy.iter().zip(&rows) {
        assert_eq!((b.len(), &b[..3]), (3 + 42, &t[..3]));
        assert!(b[3..].iter().zip(&t[3..]).all(|(b, t)| *b >= 0.0 && (*t > 0.0 || *b == 0.0)), "{b:?}");
    }
}

#[test]
fn bad_layouts_are_refused_before_the_run() {
    let dir = tmp("lpio-bad");
    let d = dir.to_str().unwrap();
    let base = ["run", "network", "--topology", "dragonfly", "--end", "100", "--lp-io-dir", d];
    assert_clear_error(&[&base[..], &["--lp-io-lps", "nw-lp=4,modelnet_x=4"]].concat(), "--lp-io-lps");
    assert_clear_error(&[&base[..], &["--lp-io-lps", "nw-lp"]].concat(), "NAME=COUNT");
    assert_clear_error(&[&base[..], &["--lp-io-grid", "16,1,3"]].concat(), "--lp-io-grid");
    // The standard dragonfly has no connection files to lay out.
    assert_clear_error(&[&base[..], &["--lp-io-grid", "2,1,3,4"]].concat(), "dragonfly_custom");
}
