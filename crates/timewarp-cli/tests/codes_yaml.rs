//! CODES's YAML configurations (`schema_version: 1`): every `.yaml` twin
//! among the stock configurations (tests/data/codes, copied from CODES
//! a5958cf) imports to the same network as its `.conf` — the same
//! effective configuration, or the same refusal — and the YAML form's own
//! mistakes are refused in one line.

mod common;
use common::{assert_clear_error, stderr, timewarp, tmp};
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes")
}

/// Every `.yaml` under `dir`, recursively.
fn yamls(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            yamls(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml") {
            out.push(p);
        }
    }
}

/// `--print-config` of an import (our run file), or its error with the
/// file's name and line left out.
fn imported(conf: &Path) -> Result<String, String> {
    let o = timewarp(&["run", "network", "--codes-config", conf.to_str().unwrap(), "--print-config", "-q"]);
    if o.status.success() {
        return Ok(String::from_utf8_lossy(&o.stdout).into_owned());
    }
    let err = stderr(&o);
    assert_eq!(err.trim_end().lines().count(), 1, "{conf:?}: one line: {err}");
    // The file's name and the line in it differ between twins.
    let err = err.replace(conf.to_str().unwrap(), "FILE");
    let (head, rest) = err.split_once("FILE").unwrap_or(("", &err));
    Err(format!("{head}FILE{}", rest.trim_start_matches(|c: char| c == ':' || c.is_ascii_digit())))
}

#[test]
fn every_yaml_twin_imports_to_the_same_network_as_its_conf() {
    let mut all = Vec::new();
    yamls(&data(), &mut all);
    all.sort();
    assert!(all.len() >= 12, "the stock twins are here: {all:?}");
    let mut ran = 0;
    for yaml in &all {
        let conf = yaml.with_extension("conf");
        assert!(conf.exists(), "{yaml:?} has its .conf twin");
        let (a, b) = (imported(&conf), imported(yaml));
        assert_eq!(a, b, "{yaml:?}");
        ran += a.is_ok() as u32;
    }
    assert!(ran >= 8, "most twins run");
}

#[test]
fn a_yaml_twin_runs_with_the_digest_of_its_conf() {
    for name in ["sfly_3k", "modelnet-mpi-test-torus", "modelnet-synthetic-fattree"] {
        let (conf, yaml) = (data().join(format!("{name}.conf")), data().join(format!("{name}.yaml")));
        let run = |f: &Path| {
            let o = timewarp(&[
                "run",
                "network",
                "--codes-config",
                f.to_str().unwrap(),
                "--end",
                "2000",
                "--load",
                "0.3",
                "-q",
                "--stats-json",
                "-",
            ]);
            assert!(o.status.success(), "{f:?}: {}", stderr(&o));
            serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()["digest"].clone()
        };
        assert_eq!(run(&conf), run(&yaml), "{name}");
    }
}

#[test]
fn the_table_of_a_yaml_twin_names_its_file_and_where_each_value_came_from() {
    let yaml = data().join("modelnet-synthetic-dragonfly.yaml");
    let o = timewarp(&["run", "network", "--codes-config", yaml.to_str().unwrap(), "--end", "1", "--print-config"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    for row in ["modelnet-synthetic-dragonfly.yaml (model dragonfly)", "local_bandwidth", "5.25", "CODES default"] {
        assert!(err.contains(row), "'{row}' in {err}");
    }
}

#[test]
fn units_in_a_yaml_fabric_become_the_models_own() {
    let text = std::fs::read_to_string(data().join("modelnet-mpi-test-torus.yaml")).unwrap();
    let with_units = text
        .replace("packet_size: 512", "packet_size: 0.5KiB")
        .replace("link_bandwidth: 10.0", "link_bandwidth: 80Gbps");
    let f = tmp("units.yaml");
    std::fs::write(&f, with_units).unwrap();
    let o =
        timewarp(&["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "1", "-q", "--stats-json", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = &serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()["config"]["model"];
    // 80 Gb/s = 10^10 bytes/s = 9.3132… GiB/s, back to 10 bytes/ns.
    assert_eq!(m["packet-bytes"].as_u64(), Some(512));
    assert!((m["link-bandwidth"].as_f64().unwrap() - 10.0).abs() < 1e-9, "{m}");
}

#[test]
fn mistakes_of_the_yaml_form_are_refused_in_one_line() {
    let torus = std::fs::read_to_string(data().join("modelnet-mpi-test-torus.yaml")).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "version.yaml",
            torus.replace("schema_version: 1", "schema_version: 2"),
            "schema_version 2 is not one timewarp reads",
        ),
        ("noversion.yaml", torus.replace("schema_version: 1", ""), "no schema_version"),
        ("flat.yaml", torus.replace("format: parametric", "format: flat"), "format: flat is CODES's simplenet"),
        ("model.yaml", torus.replace("model: torus", "model: hexagon"), "fabric model hexagon is not one of CODES's"),
        ("unit.yaml", torus.replace("packet_size: 512", "packet_size: 5ms"), "packet_size: \"5ms\" is not a size"),
        ("dims.yaml", torus.replace("n_dims: 3", "n_dims: 2"), "dim_length has 3 entries but n_dims is 2"),
        (
            "order.yaml",
            torus.replace("packet_size: 512", "packet_size: 512\n    modelnet_order: [torus]"),
            "modelnet_order is derived",
        ),
        ("include.yaml", format!("{torus}\ninclude: [base.yaml]\n"), "include: is not read"),
        ("syntax.yaml", torus.replace("shape:", "shape: [").to_string(), "not a CODES YAML configuration"),
    ];
    for (name, text, says) in cases {
        let f = tmp(name);
        std::fs::write(&f, text).unwrap();
        assert_clear_error(&["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "1"], says);
    }
    // The line of the offending key is named.
    let f = tmp("line.yaml");
    std::fs::write(&f, torus.replace("packet_size: 512", "packet_size: 5ms")).unwrap();
    let line = torus.lines().position(|l| l.contains("packet_size")).unwrap() + 1;
    assert_clear_error(
        &["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "1"],
        &format!("line.yaml:{line}:"),
    );
}

#[test]
fn an_empty_value_is_one_line_naming_its_key_and_line() {
    // (network/codes/mod.rs's unit test sets every key of every twin to [], [[]], {} and "".)
    let text = std::fs::read_to_string(data().join("modelnet-mpi-test-torus.yaml")).unwrap();
    for empty in ["[]", "[[]]", "\"\""] {
        let f = tmp(&format!("empty-{}.yaml", empty.len()));
        std::fs::write(&f, text.replace("packet_size: 512", &format!("packet_size: {empty}"))).unwrap();
        let f = f.to_str().unwrap();
        assert_clear_error(&["run", "network", "--codes-config", f, "--end", "10"], "packet_size");
        assert_clear_error(&["verify", "network", "--codes-config", f, "--end", "10"], "packet_size");
    }
}
