//! CODES's multi-rail and tapered fat-trees: timewarp builds one rail and
//! no tapering, so a configuration asking for more rails or another
//! tapering is refused in one line (never run as a silently different
//! network), and one asking for one rail and tapering 1 runs as that tree.

mod common;
use common::{assert_clear_error, stderr, timewarp, tmp};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes").join(name)
}

#[test]
fn a_dual_plane_fat_tree_is_refused_in_one_line_in_either_form() {
    for name in ["dual-plane-fattree.conf", "dual-plane-fattree.yaml"] {
        let f = data(name);
        assert_clear_error(
            &["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "10"],
            "num_rails=\"2\" is not modelled: CODES builds 2 copies (planes) of the tree",
        );
    }
}

#[test]
fn a_tapered_fat_tree_is_refused_with_what_codes_would_build() {
    let text = std::fs::read_to_string(data("dual-plane-fattree.conf")).unwrap();
    let f = tmp("tapered.conf");
    std::fs::write(&f, text.replace("num_rails=\"2\"", "num_rails=\"1\"").replace("tapering=\"1\"", "tapering=\"2\""))
        .unwrap();
    assert_clear_error(
        &["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "10"],
        "tapering=\"2\" is not modelled: CODES would put 24 of a leaf's 36 ports down",
    );
}

#[test]
fn one_rail_and_tapering_1_run_as_the_plain_tree_and_the_table_says_so() {
    let text = std::fs::read_to_string(data("dual-plane-fattree.conf")).unwrap();
    let f = tmp("one-rail.conf");
    std::fs::write(&f, text.replace("num_rails=\"2\"", "num_rails=\"1\"")).unwrap();
    let json = tmp("one-rail.json");
    let o = timewarp(&[
        "run",
        "network",
        "--codes-config",
        f.to_str().unwrap(),
        "--end",
        "1",
        "--stats-json",
        json.to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let s: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let m = &s["config"]["model"];
    // 252 leaves of 18 nodes: 14 pods of radix-36 switches.
    assert_eq!((m["radix"].as_u64(), m["levels"].as_u64(), m["nodes"].as_u64()), (Some(36), Some(3), Some(4536)));
    assert_eq!((m["routing"].as_str(), m["router-delay"].as_f64()), (Some("updown-adaptive"), Some(90.0)));
    for row in ["num_rails", "tapering", "rail_select", "one rail"] {
        assert!(err.contains(row), "'{row}' in {err}");
    }
}
