//! `--link-stats`'s class column: each network link's class, counted
//! against the topology's own definition.

mod common;
use common::{stderr, timewarp, tmp};

fn classes(args: &[&str], name: &str) -> std::collections::BTreeMap<String, usize> {
    let csv = tmp(name);
    let mut all = args.to_vec();
    all.extend(["--end", "2000", "--load", "0.1", "--quiet", "--link-stats", csv.to_str().unwrap()]);
    let o = timewarp(&all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("link,source,destination,packets,busy_fraction,class"));
    let mut out = std::collections::BTreeMap::new();
    for l in lines {
        *out.entry(l.rsplit(',').next().unwrap().to_string()).or_insert(0) += 1;
    }
    out
}

/// CODES's 72-node Dally dragonfly (`dfdally_72.conf`, 9 groups of 4
/// routers): its connection files list each directed local link of a
/// group as one 12-byte record (source, destination, type) and each
/// directed global link as one 8-byte record (source, destination) —
/// counted from the files' sizes, not from our model.
#[test]
fn a_dally_dragonflys_links_are_counted_by_class_as_its_connection_files_define_them() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes");
    let size = |f: &str| std::fs::metadata(data.join(f)).unwrap().len() as usize;
    let (local, global) = (9 * size("dfdally-72-intra") / 12, size("dfdally-72-inter") / 8);
    assert_eq!((local, global), (9 * 4 * 3, 72), "the files: every group all-to-all, 2 global links per router");
    let conf = data.join("dfdally_72.conf");
    let got = classes(&["run", "network", "--codes-config", conf.to_str().unwrap()], "dfdally72-links.csv");
    assert_eq!(got, [("global".to_string(), global), ("local".to_string(), local)].into());
}

/// A 2-level fat-tree of radix 4: 4 leaves × 2 up links, each link both
/// ways, all between leaves and the top level; a dragonfly built from
/// options: `g a (a − 1)` local and `g a h` global directed links.
#[test]
fn fat_tree_and_dragonfly_links_carry_their_class_names() {
    let ft = classes(&["run", "network", "--topology", "fattree", "--radix", "4", "--levels", "2"], "ft-links.csv");
    assert_eq!(ft, [("leaf-level1".to_string(), 2 * 4 * 2)].into());
    let df = classes(
        &["run", "network", "--topology", "dragonfly", "--routers-per-group", "4", "--terminals-per-router", "2"],
        "df-links.csv",
    );
    // a = 4, h = 2 (a / 2 by default), g = a h + 1 = 9 groups.
    assert_eq!(df, [("global".to_string(), 9 * 4 * 2), ("local".to_string(), 9 * 4 * 3)].into());
}
