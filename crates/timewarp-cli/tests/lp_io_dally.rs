//! `--lp-io-dir` on a `dragonfly_dally` import: the two files CODES's Dally
//! model writes (`dragonfly-dally.cxx`, `dragonfly_dally_terminal_final`,
//! `_router_final`) and only those, their rows as its writers define them
//! (counted here from the connection files), their bytes checked against
//! the run's `--link-stats` CSV and totals, the same in every mode.

mod common;
use common::{assert_clear_error, stderr, timewarp, tmp};

fn data(f: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes").join(f).to_str().unwrap().to_string()
}

/// A connection file's 32-bit records, `width` integers each.
fn records(f: &str, width: usize) -> Vec<Vec<u32>> {
    let b = std::fs::read(data(f)).unwrap();
    let w: Vec<u32> = b.chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap()) as u32).collect();
    w.chunks(width).map(<[u32]>::to_vec).collect()
}

/// A quiet run's `--stats-json`, parsed (named here: the arguments make
/// too long a file name).
fn stats(name: &str, args: &[&str]) -> serde_json::Value {
    let path = tmp(&format!("{name}.json"));
    let o = timewarp(&[args, &["--stats-json", path.to_str().unwrap(), "--quiet"]].concat());
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Runs `dfdally_72.conf` with `more`: the run's stats, the two files' text
/// and the CSV's packets per (source, destination) router pair.
fn run(name: &str, more: &[&str]) -> (serde_json::Value, String, String, std::collections::HashMap<(u32, u32), f64>) {
    let (dir, csv) = (tmp(name), tmp(&format!("{name}.csv")));
    let conf = data("dfdally_72.conf");
    let mut args = vec!["run", "network", "--codes-config", &conf, "--lp-io-dir", dir.to_str().unwrap()];
    args.extend(["--link-stats", csv.to_str().unwrap()]);
    args.extend(more);
    let s = stats(name, &args);
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["dragonfly-cn-stats", "dragonfly-link-stats"], "the files CODES's Dally writes");
    let mut links = std::collections::HashMap::new();
    for l in std::fs::read_to_string(&csv).unwrap().lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        *links.entry((f[1].parse().unwrap(), f[2].parse().unwrap())).or_insert(0.0) += f[3].parse::<f64>().unwrap();
    }
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    (s, read("dragonfly-link-stats"), read("dragonfly-cn-stats"), links)
}

/// Every message one 4,096-byte packet (the file's packet_size).
const BASE: &[&str] = &["--arrivals", "in-phase", "--message-bytes", "4096", "--end", "1e12"];

/// 9 groups of 4 routers, 2 terminals each; LPGROUPS repeats nw-lp=2, 2
/// terminals, 1 router: terminal k is LP (k / 2)·5 + 2 + k mod 2, router r LP 5r + 4.
#[test]
fn dally_link_and_cn_stats_have_codes_rows_and_the_runs_bytes() {
    // 4 messages per node, 8,000 ns apart.
    let (s, link, cn, csv) = run("lpio-dally", &[BASE, &["--interarrival", "8000", "--messages", "4"]].concat());
    let m = &s["model_results"];
    let packets = m["delivered_packets"].as_f64().unwrap();
    assert_eq!(packets, 72.0 * 4.0, "every message delivered");
    let intra = records("dfdally-72-intra", 3);
    let inter = records("dfdally-72-inter", 2);
    // CODES's intra_grp_radix: local links per router (3, one to each other router).
    let radix = intra.iter().filter(|r| r[0] == 0).count() as u32;
    assert_eq!(radix, 3);
    let bytes = |a: u32, b: u32| csv.get(&(a, b)).copied().unwrap_or(0.0) * 4096.0;
    // The rows CODES writes, in LP order: (text of the first five columns, bytes if known).
    let mut want: Vec<(String, Option<f64>)> = Vec::new();
    for r in 0..36u32 {
        for t in [2 * r, 2 * r + 1] {
            want.push((format!("{t} T {r} R CN"), Some(4.0 * 4096.0)));
        }
        let (g, i) = (r / 4, r % 4);
        let mine: Vec<&Vec<u32>> = intra.iter().filter(|x| x[0] == i).collect();
        let far: Vec<u32> = inter.iter().filter(|x| x[0] == r).map(|x| x[1]).collect();
        for d in (0..=radix).filter(|&d| d != i) {
            // Port d's bytes under router d's name: the d-th intra record's
            // link, or (d = radix) the first global link in the inter file.
            let b = if d < radix { bytes(r, g * 4 + mine[d as usize][1]) } else { bytes(r, far[0]) };
            want.push((format!("{r} R {} R L", g * 4 + d), Some(b)));
        }
        let mut sorted = far.clone();
        sorted.sort();
        for f in sorted {
            want.push((format!("{r} R {f} R G"), Some(bytes(r, f))));
        }
        for t in [2 * r, 2 * r + 1] {
            want.push((format!("{r} R {t} T CN"), None));
        }
    }
    let mut lines = link.lines();
    assert_eq!(
        lines.next().unwrap(),
        "# Format <source_id> <source_type> <dest_id> < dest_type>  <link_type> <link_traffic> \
         <link_saturation> <stalled_chunks>"
    );
    assert_eq!(lines.next().unwrap(), "", "CODES's rows each start a new line");
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split_whitespace().collect()).collect();
    assert!(!link.ends_with('\n'), "no newline after the last row, as CODES");
    assert_eq!(rows.len(), want.len());
    let end = m["window_ns"].as_f64().unwrap() + 4096.0 / (2.0 * 1.073741824);
    let mut ejected = vec![0.0; 72];
    let mut nic_busy = Vec::new();
    for (row, (key, b)) in rows.iter().zip(&want) {
        assert_eq!(row.len(), 8, "{row:?}");
        assert_eq!(row[..5].join(" "), *key);
        let v: f64 = row[5].parse().unwrap();
        if let Some(b) = b {
            assert_eq!(v, *b, "{key}");
        }
        if row[1] == "T" {
            // The NIC buffer's (the import's cn_vc_size), as the cn-stats file's last column.
            nic_busy.push(row[6].to_string());
        } else if row[3] == "T" {
            ejected[row[2].parse::<usize>().unwrap()] += v;
        }
        // A busy period opens with a stalled packet and closes by the last
        // credit, at most a link latency after the last delivery.
        let (busy, stalled): (f64, u64) = (row[6].parse().unwrap(), row[7].parse().unwrap());
        assert!((0.0..=end).contains(&busy), "{row:?}");
        assert!(busy == 0.0 || stalled > 0, "{row:?}");
    }

    let mut lines = cn.lines();
    assert_eq!(
        lines.next().unwrap(),
        "# Format <LP id> <Terminal ID> <Total Data Sent> <Total Data Received> <Avg packet latency> \
         <Max packet Latency> <Min packet Latency> <# Packets finished> <Avg Hops> <Avg Busy Time (over rails)>"
    );
    let mut got = 0.0;
    for (k, l) in lines.enumerate() {
        let c: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(c.len(), 10, "{l}");
        let n = |i: usize| c[i].parse::<f64>().unwrap();
        assert_eq!((n(0), n(1)), (((k / 2) * 5 + 2 + k % 2) as f64, k as f64), "LP id, terminal id");
        assert_eq!(n(2), 4.0 * 4096.0, "bytes created");
        assert_eq!(n(3), ejected[k], "bytes received: its ejection link's");
        assert_eq!(c[9], nic_busy[k], "busy time: its T R CN row's");
        got += n(7);
    }
    assert_eq!(got, packets);
    assert_eq!(ejected.iter().sum::<f64>(), packets * 4096.0);
}

/// Past saturation (every node to the node a group on, 1,000 ns apart,
/// 2,000 ns to send each): buffers fill, and every mode writes the same
/// files, with the digest of a run without them.
#[test]
fn dally_files_are_the_same_in_every_mode() {
    let load = ["--traffic", "shift", "--shift", "8", "--interarrival", "1000", "--messages", "10"];
    let args: Vec<&str> = [BASE, &load[..]].concat();
    let (seq, link, cn, _) = run("lpio-dally-seq", &args);
    let router_rows = link.lines().map(|l| l.split_whitespace().collect::<Vec<_>>()).filter(|c| c.get(1) == Some(&"R"));
    let stalls: u64 = router_rows.map(|c| c[7].parse::<u64>().unwrap()).sum();
    assert!(stalls > 0, "buffers filled");
    for (i, mode) in [&["--sync", "optimistic", "--threads", "2"][..], &["--sync", "conservative", "--threads", "2"]]
        .iter()
        .enumerate()
    {
        let (s, l, c, _) = run(&format!("lpio-dally-{i}"), &[&args[..], mode].concat());
        assert_eq!(s["digest"], seq["digest"], "{mode:?}");
        assert!(l == link && c == cn, "{mode:?}: the files differ");
    }
    let conf = data("dfdally_72.conf");
    let plain = stats("lpio-dally-plain", &[&["run", "network", "--codes-config", &conf][..], &args].concat());
    assert_eq!(plain["digest"], seq["digest"], "the counters are out of the digest");
}

#[test]
fn dally_files_need_the_connection_files() {
    let dir = tmp("lpio-dally-bare");
    let lps = "nw-lp=2,modelnet_dragonfly_dally=2,modelnet_dragonfly_dally_router=1";
    let args = ["run", "network", "--topology", "dragonfly", "--end", "100", "--lp-io-lps", lps];
    assert_clear_error(&[&args[..], &["--lp-io-dir", dir.to_str().unwrap()]].concat(), "connection files");
}
