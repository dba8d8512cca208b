//! What a CODES configuration leaves out gets CODES's own default (read
//! from its models' source at a5958cf), a link's time is CODES's chunk
//! time, and the import table says where every value came from: the file,
//! CODES's default, timewarp's choice, or the command line.

mod common;
use common::{stderr, timewarp, tmp};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes").join(name)
}

/// A stock configuration with `edit` applied, written to a temporary file.
fn edited(name: &str, edit: impl Fn(String) -> String) -> PathBuf {
    let text = std::fs::read_to_string(data(name)).unwrap();
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = tmp(&format!("edited-{n}-{}", name.replace('/', "-")));
    std::fs::write(&out, edit(text)).unwrap();
    out
}

/// The model's effective options of an import (`--stats-json`), and the table.
fn import(conf: &Path, args: &[&str]) -> (Value, String) {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let json = tmp(&format!("import-{}.json", RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let (c, j) = (conf.to_str().unwrap(), json.to_str().unwrap());
    let mut all = vec!["run", "network", "--codes-config", c, "--end", "1", "--stats-json", j];
    all.extend(args);
    let o = timewarp(&all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (v["config"]["model"].clone(), stderr(&o))
}

fn f(m: &Value, key: &str) -> f64 {
    m[key].as_f64().unwrap_or_else(|| panic!("{key} in {m}"))
}

#[test]
fn each_model_gets_codes_router_delay_when_the_file_has_none() {
    // (file, CODES's default in ns): dragonfly.c 50, dragonfly-custom.cxx and
    // dragonfly-dally.cxx 100, torus.c a fixed 50, fattree.c 50, slimfly.c 0.
    let cases = [
        ("modelnet-synthetic-dragonfly.conf", 50.0, "dragonfly.c: 50 ns"),
        ("modelnet-test-dragonfly-theta.conf", 100.0, "dragonfly-custom.cxx: 100 ns"),
        ("dfdally_72.conf", 100.0, "dragonfly-dally.cxx: 100 ns"),
        ("modelnet-test-torus.conf", 50.0, "torus.c: 50 ns"),
    ];
    for (name, delay, why) in cases {
        let (m, table) = import(&data(name), &[]);
        assert_eq!(f(&m, "router-delay"), delay, "{name}");
        let row = table.lines().find(|l| l.trim_start().starts_with("router_delay")).unwrap();
        assert!(row.contains("(absent)") && row.contains("CODES default") && row.contains(why), "{name}: {row}");
    }
    let summit = edited("modelnet-synthetic-fattree-summit-k36-n3564.conf", |t| t.replace("router_delay=\"60\";", ""));
    assert_eq!(f(&import(&summit, &[]).0, "router-delay"), 50.0);
    let sfly = edited("sfly_3k.conf", |t| t.replace("router_delay=\"90\";", ""));
    assert_eq!(f(&import(&sfly, &[]).0, "router-delay"), 0.0);
    // The file's own value where it has one; the torus does not read the key.
    assert_eq!(f(&import(&data("modelnet-synthetic-fattree-summit-k36-n3564.conf"), &[]).0, "router-delay"), 60.0);
    let torus = edited("modelnet-test-torus.conf", |t| t.replace("num_vc=\"1\";", "num_vc=\"1\"; router_delay=\"7\";"));
    let (m, table) = import(&torus, &[]);
    assert_eq!(f(&m, "router-delay"), 50.0);
    assert!(
        table.split_whitespace().collect::<Vec<_>>().join(" ").contains("torus.c does not read the key"),
        "{table}"
    );
}

#[test]
fn a_link_takes_codes_time_of_a_chunk_on_it() {
    // 32-byte chunks; 5.25 GiB/s local and terminal, 4.7 GiB/s global links.
    let (m, table) = import(&data("modelnet-synthetic-dragonfly.conf"), &[]);
    let gib = |x: f64| x * 1_073_741_824.0 / 1e9;
    assert_eq!(f(&m, "terminal-latency"), 32.0 / gib(5.25));
    assert_eq!(f(&m, "local-latency"), 32.0 / gib(5.25));
    assert_eq!(f(&m, "global-link-latency"), 32.0 / gib(4.7));
    let words = table.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("32-byte chunks") && words.contains("CODES's time of a chunk on the link"), "{table}");
    // A chunk larger than the packet moves the packet; the torus' default chunk is 128 bytes.
    let torus = edited("modelnet-test-torus.conf", |t| t.replace("chunk_size=\"256\";", ""));
    let (m, _) = import(&torus, &[]);
    assert_eq!(f(&m, "link-latency"), 128.0 / gib(2.0));
    // The fat-tree reads bytes/ns: 512-byte chunks on 12.5 bytes/ns links.
    let (m, _) = import(&data("synthetic-fattree-stock.conf"), &[]);
    assert_eq!((f(&m, "link-latency"), f(&m, "terminal-latency")), (512.0 / 12.5, 512.0 / 12.5));
    // dragonfly-custom reads an explicit delay of a chunk on each kind of link.
    // (The edited copy's connection files are beside the stock one.)
    let theta = edited("modelnet-test-dragonfly-theta.conf", |t| t.replace("routing=", "cn_delay=\"3.5\"; routing="));
    let dir = data("");
    assert_eq!(f(&import(&theta, &["--connections-dir", dir.to_str().unwrap()]).0, "terminal-latency"), 3.5);
    // dragonfly-dally.cxx puts the chunk on the link (chunk / bandwidth), then
    // adds the link's delay as propagation: by default the chunk's time
    // again; an explicit delay is added to the chunk's time.
    let (m, table) = import(&data("dfdally_72.conf"), &[]);
    let chunk = 4096.0 / gib(2.0);
    for key in ["terminal-latency", "local-latency", "global-link-latency"] {
        assert_eq!(f(&m, key), chunk + 4096.0 / gib(2.0), "{key}");
    }
    assert!(table.split_whitespace().collect::<Vec<_>>().join(" ").contains("default propagation delay"), "{table}");
    let dally = edited("dfdally_72.conf", |t| t.replace("routing=", "local_delay=\"10\"; routing="));
    let m = import(&dally, &["--connections-dir", dir.to_str().unwrap()]).0;
    assert_eq!((f(&m, "local-latency"), f(&m, "terminal-latency")), (chunk + 10.0, 2.0 * chunk));
}

#[test]
fn missing_bandwidths_buffers_packets_and_routing_get_codes_defaults() {
    let dfly = edited("modelnet-mpi-test-dragonfly.conf", |t| {
        t.replace("local_bandwidth=\"5.25\";", "")
            .replace("global_bandwidth=\"4.7\";", "global_bandwidth=\"2.0\";")
            .replace("local_vc_size=\"16384\";", "")
            .replace("global_vc_size=\"32768\";", "")
    });
    let (m, table) = import(&dfly, &[]);
    // dragonfly.c: 5.25 GiB/s local, 1024- and 2048-byte buffers (of 512-byte packets).
    assert_eq!(f(&m, "local-bandwidth"), 5.637144576);
    assert_eq!(f(&m, "global-bandwidth"), 2.147483648);
    assert_eq!((m["local-buffer-packets"].as_u64(), m["global-buffer-packets"].as_u64()), (Some(2), Some(4)));
    let row = table.lines().find(|l| l.trim_start().starts_with("local_vc_size")).unwrap();
    assert!(row.contains("(absent)") && row.contains("CODES default") && row.contains("1024 bytes"), "{row}");
    // model-net's 512-byte packets.
    let (m, table) = import(&data("bad/no-packet-size.conf"), &[]);
    assert_eq!((m["packet-bytes"].as_u64(), m["message-bytes"].as_u64()), (Some(512), Some(512)));
    assert!(table.split_whitespace().collect::<Vec<_>>().join(" ").contains("model-net's 512 bytes"), "{table}");
    // fattree.c routes adaptively unless told "static"; its buffers are 8 packets.
    let summit =
        edited("modelnet-synthetic-fattree-summit-k36-n3564.conf", |t| t.replace("   vc_size=\"65536\";\n", "\n"));
    let (m, _) = import(&summit, &[]);
    assert_eq!(m["routing"].as_str(), Some("updown-adaptive"));
    assert_eq!(m["buffer-packets"].as_u64(), Some(8));
    // fattree.c: 5 bytes/ns links when the file has none.
    let tree = edited("synthetic-fattree-stock.conf", |t| t.replace("link_bandwidth=\"12.5\";", ""));
    assert_eq!(f(&import(&tree, &[]).0, "link-bandwidth"), 5.0);
}

#[test]
fn every_row_says_where_its_value_came_from_and_the_command_line_is_named() {
    let (m, table) = import(&data("modelnet-synthetic-dragonfly.conf"), &["--router-delay", "9", "--vcs", "6"]);
    assert_eq!(f(&m, "router-delay"), 9.0);
    let header = table.lines().nth(1).unwrap();
    assert!(header.contains("from"), "{header}");
    let row = table.lines().find(|l| l.trim_start().starts_with("router_delay")).unwrap();
    // Notes wrap under their column: read the table as one line of words.
    let words = table.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(row.contains("command line") && words.contains("replaced by the command line's --router-delay"), "{row}");
    for (key, from) in [("local_bandwidth", "file"), ("packet_size", "file"), ("chunk_size", "file")] {
        let row = table.lines().find(|l| l.trim_start().starts_with(key)).unwrap();
        assert!(row.contains(from), "{key}: {row}");
    }
    // Our own choices say what CODES does and the option that would do it.
    assert!(words.contains("timewarp") && words.contains("CODES uses 3 virtual channels (--vcs N sets it)"), "{table}");
    assert!(words.contains("--message-bytes here"), "{table}");
}

#[test]
fn a_codes_network_runs_the_same_digest_in_every_mode() {
    for name in ["modelnet-synthetic-dragonfly.conf", "dfdally_72.conf", "modelnet-test-torus.conf"] {
        let run = |extra: &[&str]| {
            let c = data(name);
            // A Dally link takes a 4 KiB chunk's time twice: its first packets arrive after about 10 µs.
            let end = if name == "dfdally_72.conf" { "30000" } else { "12000" };
            let mut all = vec!["run", "network", "--codes-config", c.to_str().unwrap(), "--end", end, "--load", "0.4"];
            all.extend(["-q", "--stats-json", "-"]);
            all.extend(extra);
            let o = timewarp(&all);
            assert!(o.status.success(), "{all:?}: {}", stderr(&o));
            serde_json::from_slice::<Value>(&o.stdout).unwrap()
        };
        let seq = run(&[]);
        assert!(seq["model_results"]["delivered_packets"].as_u64().unwrap() > 0, "{name}");
        for sync in ["conservative", "optimistic"] {
            for threads in ["1", "2"] {
                assert_eq!(
                    run(&["--sync", sync, "--threads", threads])["digest"],
                    seq["digest"],
                    "{name} {sync} {threads}"
                );
            }
        }
    }
}

/// CODES's 1-D `dragonfly` decides `routing="adaptive"` by its own rule
/// (`ugal-codes`); a wired `dragonfly_custom` keeps `ugal` (CODES's rule
/// there behind it), and `--routing ugal` on the command line replaces
/// the 1-D file's.
#[test]
fn the_1d_dragonflys_adaptive_routing_is_codes_rule() {
    let (m, table) = import(&data("modelnet-synthetic-dragonfly.conf"), &[]);
    assert_eq!(m["routing"].as_str(), Some("ugal-codes"));
    let row = table.lines().find(|l| l.trim_start().starts_with("routing")).unwrap();
    assert!(row.contains("adaptive") && row.contains("--routing ugal-codes"), "{row}");
    let (m, _) = import(&data("modelnet-test-dragonfly-theta.conf"), &[]);
    assert_eq!(m["routing"].as_str(), Some("ugal"));
    let (m, _) = import(&data("modelnet-synthetic-dragonfly.conf"), &["--routing", "ugal"]);
    assert_eq!(m["routing"].as_str(), Some("ugal"));
}
