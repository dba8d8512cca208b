//! Side by side with CODES itself: CODES a5958cf's own outputs on shared
//! configurations, recorded by `scripts/codes-compare.sh --record` in
//! `tests/data/codes-reference/` (its printed summaries and `codes.tsv`),
//! against what timewarp computes now on the same rows. CODES's "average
//! chunk latency" is compared with our `network_latency_mean`, its "average
//! number of hops traversed" with our `routers_traversed_mean` (docs/codes.md,
//! "Our figures in CODES's terms"). Every row's hops must stay within 2 %
//! but `dragonfly_custom`'s prog-adaptive; rows whose latency agrees must
//! stay within 5 %, and the others are listed with the reason (where each
//! latency starts and ends).

mod common;
use common::{stderr, timewarp, tmp};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(dir).join(name)
}

/// One recorded row: the configuration and workload both sides ran, and CODES's figures.
struct Row {
    id: String,
    conf: String,
    routing: String,
    payload: String,
    count: String,
    arrivals: String,
    gap: String,
    codes_latency: f64,
    codes_hops: f64,
    codes_generated: u64,
    codes_finished: u64,
}

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(data("codes-reference", "codes.tsv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap_or_else(|| panic!("column {name}"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let s = |name: &str| f[col(name)].to_string();
            let x = |name: &str| f[col(name)].parse::<f64>().unwrap();
            let n = |name: &str| f[col(name)].parse::<u64>().unwrap();
            Row {
                id: s("row"),
                conf: s("conf"),
                routing: s("routing"),
                payload: s("payload"),
                count: s("count"),
                arrivals: s("arrivals"),
                gap: s("arrival_ns"),
                codes_latency: x("codes_chunk_latency_ns"),
                codes_hops: x("codes_hops"),
                codes_generated: n("codes_generated"),
                codes_finished: n("codes_finished"),
            }
        })
        .collect()
}

/// The row's configuration as the script ran it (a routing applied; its
/// connection files named where they are, as the script names them).
fn conf(r: &Row) -> PathBuf {
    let file = data("codes", &r.conf);
    if r.routing == "-" {
        return file;
    }
    let text = std::fs::read_to_string(&file).unwrap();
    let out = tmp(&format!("{}.conf", r.id));
    let edited: String = text
        .lines()
        .map(|l| {
            let key = l.trim_start();
            if key.starts_with("routing=") {
                format!("   routing=\"{}\";", r.routing)
            } else if let Some(k) =
                ["intra-group-connections=", "inter-group-connections="].into_iter().find(|k| key.starts_with(k))
            {
                let value = key[k.len()..].trim_matches(|c| c == '"' || c == ';');
                let name = value.rsplit('/').next().unwrap();
                format!("   {k}\"{}\";", data("codes", name).display())
            } else {
                l.into()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&out, edited).unwrap();
    out
}

/// timewarp on the row, as `scripts/codes-compare.sh` runs it, with `extra` options.
fn ours(r: &Row, extra: &[&str]) -> Value {
    let conf = conf(r);
    let json = tmp(&format!("{}-{}-{}.json", r.id, r.gap, extra.join("").replace('-', "")));
    let mut args = vec!["run", "network", "--codes-config", conf.to_str().unwrap()];
    args.extend(["--interarrival", &r.gap, "--arrivals", &r.arrivals, "--message-bytes", &r.payload]);
    let (until, messages);
    if let Some(end) = r.count.strip_prefix("end:") {
        until = end.to_string();
        args.extend(["--end", &until]);
    } else {
        messages = r.count.clone();
        args.extend(["--messages", &messages, "--end", "1e12"]);
    }
    args.extend(["-q", "--stats-json", json.to_str().unwrap()]);
    args.extend(extra);
    let o = timewarp(&args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

/// Rows that differ from CODES now, and why (docs/codes.md, "Side by side with CODES").
fn known_difference(id: &str, gap: &str) -> Option<&'static str> {
    // Where our network latency starts and ends (docs/codes.md, "Our figures
    // in CODES's terms"): the light-load identity CODES ≈ ours + injection
    // link + source router delay − the tail's serialisation.
    const WHERE_IT_STARTS: &str = "our network latency leaves out the injection link and the source router's \
        delay, which CODES's chunk latency counts, and counts the tail's serialisation, which it does not";
    Some(match (id, gap) {
        ("df1056-adaptive", "4000") | ("slimfly3042-adaptive", "4000" | "2000") => WHERE_IT_STARTS,
        ("dally72-minimal" | "dfplus-prog-adaptive" | "fattree128-adaptive", _) => WHERE_IT_STARTS,
        ("theta-prog-adaptive", _) => PROG_ADAPTIVE,
        _ => return None,
    })
}

/// `dragonfly_custom`'s `prog-adaptive` (`par`): hops 2.2-6.7 % above
/// CODES's, reconsidering into non-minimal routes more often at the later
/// routers of the source group (not yet traced; docs/codes.md).
const PROG_ADAPTIVE: &str = "prog-adaptive on dragonfly_custom: more hops than CODES (not yet traced)";

/// Whether the row's mean hops must agree within 2 %: all but the one
/// listed for its routes.
fn hops_agree(id: &str) -> bool {
    id != "theta-prog-adaptive"
}

/// The rows a debug build runs in seconds, and the Slim Fly's that agrees;
/// its other two are the script's.
fn small(id: &str, gap: &str) -> bool {
    matches!(
        id,
        "df1056-minimal"
            | "df1056-adaptive"
            | "dally72-minimal"
            | "dfplus-prog-adaptive"
            | "fattree128-adaptive"
            | "theta-adaptive"
            | "theta-prog-adaptive"
    ) || (id, gap) == ("slimfly3042-adaptive", "1000")
}

#[test]
fn recorded_codes_rows_agree_within_tolerance_or_are_listed() {
    let rows = rows();
    assert!(rows.len() >= 18, "six configurations at three loads: {}", rows.len());
    for id in ["theta-adaptive", "df1056-minimal", "df1056-adaptive", "dally72-minimal", "dfplus-prog-adaptive"] {
        assert!(rows.iter().any(|r| r.id == id), "{id} recorded");
    }
    let mut compared = 0;
    for r in rows.iter().filter(|r| small(&r.id, &r.gap)) {
        let v = ours(r, &[]);
        let m = &v["model_results"];
        let (lat, hops) = (m["network_latency_mean"].as_f64().unwrap(), m["routers_traversed_mean"].as_f64().unwrap());
        let (dl, dh) = ((lat - r.codes_latency) / r.codes_latency, (hops - r.codes_hops) / r.codes_hops);
        let what = format!(
            "{} at {} ns: latency {lat:.1} against CODES's {:.1}, hops {hops:.4} against {:.4}",
            r.id, r.gap, r.codes_latency, r.codes_hops
        );
        match known_difference(&r.id, &r.gap) {
            None => {
                assert!(dl.abs() <= 0.05 && dh.abs() <= 0.02, "{what}");
                compared += 1;
            }
            // A listed row that now agrees should leave the list.
            Some(why) => assert!(dl.abs() > 0.05 || dh.abs() > 0.02, "{what} agrees now: unlist it ({why})"),
        }
        // Every row's hops agree, listed for its latency or not, but
        // prog-adaptive's on dragonfly_custom.
        if hops_agree(&r.id) {
            assert!(dh.abs() <= 0.02, "{what}");
        }
        // Finite workloads: every packet CODES generated, we generate too
        // (CODES's uniform pick may name the sender itself, which it drops).
        if !r.count.starts_with("end:") {
            let (inj, del) = (m["injected_packets"].as_u64().unwrap(), m["delivered_packets"].as_u64().unwrap());
            assert_eq!(inj, del, "{what}");
            assert_eq!(r.codes_generated, r.codes_finished, "{what}");
            assert!(inj >= r.codes_generated && (inj - r.codes_generated) * 100 <= inj, "{what}: {inj} packets");
        }
    }
    assert!(compared >= 4, "rows within tolerance: {compared}");
}

#[test]
fn a_reference_row_commits_one_digest_in_every_mode() {
    let rows = rows();
    let r = rows.iter().find(|r| r.id == "dfplus-prog-adaptive").unwrap();
    let seq = ours(r, &["--sync", "sequential"]);
    for extra in [
        &["--sync", "conservative", "--threads", "2"][..],
        &["--sync", "optimistic", "--threads", "1", "--pes", "4"],
        &["--sync", "optimistic", "--threads", "2"],
    ] {
        let s = ours(r, extra);
        assert_eq!(s["digest"], seq["digest"], "{extra:?}");
        assert_eq!(s["model_results"], seq["model_results"], "{extra:?}");
    }
}
