//! CODES's YAML form of a configuration (`schema_version: 1`), compiled to
//! the `LPGROUPS` and `PARAMS` a `.conf` file has, as CODES's own front end
//! does (`src/modelconfig/config_compiler.cxx` at a5958cf; its
//! `doc/dev/yaml-config.md` documents the form): a `parametric` fabric
//! derives the repetitions and LPs per repetition from its `shape`, and
//! `links.<class>.<key>` becomes `<class>_<key>`, `routing.algorithm`
//! `routing`, `connections.intra`/`inter` the connection-file keys, every
//! other scalar (and list) key a parameter of its own name; the `groups`
//! form lays the groups and parameters out as they are. Values with units
//! (`2KiB`, `1.5us`, `100Gbps`) become the model's own unit, as CODES's
//! compiler converts them. The YAML itself is read by serde_yaml_ng.

use serde_yaml_ng::Value;

use super::{Conf, Entry};
use timewarp::text::printable;

/// CODES's fabric models: (YAML name, `.conf` model name, router LP).
const FABRICS: &[(&str, &str, Option<&str>)] = &[
    ("dragonfly", "dragonfly", Some("modelnet_dragonfly_router")),
    ("dragonfly-dally", "dragonfly_dally", Some("modelnet_dragonfly_dally_router")),
    ("dragonfly-custom", "dragonfly_custom", Some("modelnet_dragonfly_custom_router")),
    ("dragonfly-plus", "dragonfly_plus", Some("modelnet_dragonfly_plus_router")),
    ("slimfly", "slimfly", Some("modelnet_slimfly_router")),
    ("fattree", "fattree", Some("fattree_switch")),
    ("torus", "torus", None),
    ("express-mesh", "express_mesh", Some("modelnet_express_mesh_router")),
];

/// The line of `path` (keys from the top) in `text`: each key looked for
/// from the line of the one before, as `key:` (a key of a flow mapping
/// such as `local: { bandwidth: 5 }` is on its parent's line).
fn line_of(text: &str, path: &[&str]) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let mut at = 0;
    for key in path {
        let found = (at..lines.len()).find(|&i| {
            let l = lines[i].split('#').next().unwrap_or("");
            l.match_indices(key).any(|(j, _)| {
                let before = l[..j].chars().last();
                let after = l[j + key.len()..].trim_start();
                before.map_or(true, |c: char| c.is_whitespace() || c == '{' || c == ',')
                    && (after.starts_with(':') || after.starts_with("\":"))
            })
        });
        match found {
            Some(i) => at = i,
            None => break,
        }
    }
    at + 1
}

/// A scalar as CODES's compiler emits it (numbers and booleans as written).
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A key's values: a scalar, or a list of scalars (`None` for anything
/// else: a mapping, or a list holding a list or a mapping, which CODES's
/// compiler has no `.conf` form for). Empty ones are refused by the caller
/// of every reader ([`super::import`]).
fn values(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Sequence(s) => s.iter().map(scalar).collect(),
        v => scalar(v).map(|x| vec![x]),
    }
}

/// What a key's value measures, for its units (CODES's per-model tables).
#[derive(Clone, Copy, PartialEq)]
enum Quantity {
    Time,
    Size,
    Bandwidth,
}

fn quantity(key: &str) -> Option<Quantity> {
    if key.ends_with("bandwidth") {
        Some(Quantity::Bandwidth)
    } else if key.ends_with("_size") || key == "buffer_size" {
        Some(Quantity::Size)
    } else if key.ends_with("_delay") || key == "net_startup_ns" {
        Some(Quantity::Time)
    } else {
        None
    }
}

/// `raw` in the model's unit for `key`: a bare number as it is; a number
/// with a unit converted (time to ns, size to bytes, bandwidth to GiB/s,
/// or bytes/ns on the fat-tree, as CODES's models read them).
fn convert(model: &str, key: &str, raw: &str) -> Result<String, String> {
    let t = raw.trim();
    let split =
        t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e')).unwrap_or(t.len());
    // "1e3" is a number; "5ms" has its unit from the first letter that is not part of one.
    let (num, unit) = t.split_at(split);
    // Not a number with a unit (a name, a path, "4,4,2"): as it is.
    if unit.is_empty() || num.parse::<f64>().is_err() || !unit.chars().all(|c| c.is_ascii_alphabetic()) {
        return Ok(raw.to_string());
    }
    let x: f64 = num.parse().expect("checked");
    let table: &[(&str, Quantity, f64)] = &[
        ("ns", Quantity::Time, 1.0),
        ("us", Quantity::Time, 1e3),
        ("ms", Quantity::Time, 1e6),
        ("s", Quantity::Time, 1e9),
        ("B", Quantity::Size, 1.0),
        ("KiB", Quantity::Size, 1024.0),
        ("MiB", Quantity::Size, 1_048_576.0),
        ("GiB", Quantity::Size, 1_073_741_824.0),
        ("KB", Quantity::Size, 1e3),
        ("MB", Quantity::Size, 1e6),
        ("GB", Quantity::Size, 1e9),
        // Bandwidths in bytes per second.
        ("bps", Quantity::Bandwidth, 1.0 / 8.0),
        ("Kbps", Quantity::Bandwidth, 1e3 / 8.0),
        ("Mbps", Quantity::Bandwidth, 1e6 / 8.0),
        ("Gbps", Quantity::Bandwidth, 1e9 / 8.0),
        ("Bps", Quantity::Bandwidth, 1.0),
        ("KBps", Quantity::Bandwidth, 1e3),
        ("MBps", Quantity::Bandwidth, 1e6),
        ("GBps", Quantity::Bandwidth, 1e9),
        ("KiBps", Quantity::Bandwidth, 1024.0),
        ("MiBps", Quantity::Bandwidth, 1_048_576.0),
        ("GiBps", Quantity::Bandwidth, 1_073_741_824.0),
    ];
    let Some(&(_, q, scale)) = table.iter().find(|u| u.0 == unit) else {
        return Err(format!(
            "{key}: \"{}\" has a unit timewarp does not know (ns, us, ms, s; B, KiB, MiB, GiB, KB, MB, GB; \
             bps … Gbps, Bps … GBps, KiBps … GiBps)",
            printable(raw)
        ));
    };
    if quantity(key) != Some(q) || x < 0.0 {
        return Err(format!(
            "{key}: \"{}\" is not a {} (write it in the model's own unit, without one)",
            printable(raw),
            match quantity(key) {
                Some(Quantity::Time) => "time",
                Some(Quantity::Size) => "size",
                Some(Quantity::Bandwidth) => "bandwidth",
                None => "value that takes a unit",
            }
        ));
    }
    let v = match q {
        Quantity::Bandwidth if model == "fattree" => x * scale / 1e9,
        Quantity::Bandwidth => x * scale / 1_073_741_824.0,
        _ => x * scale,
    };
    Ok(format!("{v}"))
}

/// Reads the YAML form of a configuration as the `.conf` it compiles to.
pub(super) fn parse(file: &str, text: &str) -> Result<Conf, String> {
    let doc: Value = serde_yaml_ng::from_str(text).map_err(|e| {
        let at = e.location().map_or(String::new(), |l| format!(":{}", l.line()));
        format!("{file}{at}: not a CODES YAML configuration: {e}")
    })?;
    let at = |path: &[&str]| format!("{file}:{}", line_of(text, path));
    let top = doc.as_mapping().ok_or_else(|| format!("{file}: a CODES YAML configuration is a mapping of blocks"))?;
    match top.get("schema_version") {
        Some(v) if v.as_u64() == Some(1) => {}
        Some(v) => {
            return Err(format!(
                "{}: schema_version {} is not one timewarp reads (CODES's schema_version: 1)",
                at(&["schema_version"]),
                printable(&scalar(v).unwrap_or_default())
            ))
        }
        None => {
            return Err(format!("{file}: no schema_version: a CODES YAML configuration starts with schema_version: 1"))
        }
    }
    for (k, _) in top {
        let k = scalar(k).unwrap_or_default();
        match k.as_str() {
            "schema_version" | "components" | "topology" | "jobs" | "sections" | "simulation" => {}
            "include" => {
                return Err(format!(
                    "{}: include: is not read by timewarp: put the included file's blocks in this one",
                    at(&["include"])
                ))
            }
            other => {
                return Err(format!(
                    "{}: unknown block {} (CODES's are schema_version, components, topology, jobs, sections, \
                     simulation, include)",
                    at(&[other]),
                    printable(other)
                ))
            }
        }
    }
    let topo = top
        .get("topology")
        .and_then(Value::as_mapping)
        .ok_or_else(|| format!("{file}: no topology: block (the network: format parametric or groups)"))?;
    let format = topo.get("format").and_then(scalar).unwrap_or_default();
    let entry = |key: &str, values: Vec<String>, line: usize| Entry { key: key.to_string(), values, line };
    let mut conf = Conf { file: file.to_string(), groups: Vec::new(), params: Vec::new() };
    match format.as_str() {
        "groups" => {
            let groups = topo
                .get("groups")
                .and_then(Value::as_mapping)
                .ok_or_else(|| format!("{}: format: groups needs a groups: block", at(&["topology", "format"])))?;
            for (name, g) in groups {
                let name = scalar(name).unwrap_or_default();
                let gl = line_of(text, &["topology", "groups", &name]);
                let mut lps = Vec::new();
                let reps = g
                    .get("repetitions")
                    .and_then(scalar)
                    .ok_or_else(|| format!("{file}:{gl}: group {} needs a repetitions count", printable(&name)))?;
                lps.push(entry(
                    "repetitions",
                    vec![reps],
                    line_of(text, &["topology", "groups", &name, "repetitions"]),
                ));
                for (lp, n) in g.get("lps").and_then(Value::as_mapping).into_iter().flatten() {
                    let lp = scalar(lp).unwrap_or_default();
                    let l = line_of(text, &["topology", "groups", &name, "lps", &lp]);
                    let n = scalar(n).ok_or_else(|| format!("{file}:{l}: {} must be a count", printable(&lp)))?;
                    lps.push(entry(&lp, vec![n], l));
                }
                conf.groups.push((name, gl, lps));
            }
            for (k, v) in topo.get("params").and_then(Value::as_mapping).into_iter().flatten() {
                let k = scalar(k).unwrap_or_default();
                let l = line_of(text, &["topology", "params", &k]);
                let values = values(v)
                    .ok_or_else(|| format!("{file}:{l}: {} must be a value or a list of values", printable(&k)))?;
                conf.params.push(entry(&k, values, l));
            }
        }
        "parametric" => parametric(file, text, top, topo, &mut conf)?,
        "flat" => {
            return Err(format!(
                "{}: format: flat is CODES's simplenet, simplep2p or loggp: timewarp reads the interconnect \
                 fabrics (format: parametric or groups)",
                at(&["topology", "format"])
            ))
        }
        other => {
            return Err(format!(
                "{}: topology format {} is not one CODES has (parametric, groups, flat)",
                at(&["topology", "format"]),
                printable(other)
            ))
        }
    }
    Ok(conf)
}

/// A `parametric` fabric: the LP layout from its shape (as CODES's
/// `derive_*` functions do), its keys as parameters.
fn parametric(
    file: &str,
    text: &str,
    top: &serde_yaml_ng::Mapping,
    topo: &serde_yaml_ng::Mapping,
    conf: &mut Conf,
) -> Result<(), String> {
    let at = |path: &[&str]| line_of(text, path);
    let fab = topo
        .get("fabric")
        .and_then(Value::as_mapping)
        .ok_or_else(|| format!("{file}:{}: format: parametric needs a fabric: block", at(&["topology", "format"])))?;
    let fl = at(&["topology", "fabric"]);
    let name = fab.get("model").and_then(scalar).unwrap_or_default();
    let &(_, model, router) = FABRICS.iter().find(|f| f.0 == name).ok_or_else(|| {
        format!(
            "{file}:{}: fabric model {} is not one of CODES's ({})",
            at(&["topology", "fabric", "model"]),
            printable(&name),
            FABRICS.iter().map(|f| f.0).collect::<Vec<_>>().join(", ")
        )
    })?;
    let shape = fab.get("shape").and_then(Value::as_mapping);
    let int = |key: &str| -> Result<i64, String> {
        let l = at(&["topology", "fabric", "shape", key]);
        match shape.and_then(|s| s.get(key)) {
            None => Err(format!("{file}:{fl}: fabric shape has no {key} (the {name} fabric needs it)")),
            Some(v) => v
                .as_i64()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("{file}:{l}: shape {key} must be a whole number > 0")),
        }
    };
    let dims = || -> Result<i64, String> {
        let l = at(&["topology", "fabric", "shape", "dim_length"]);
        let s = shape.and_then(|s| s.get("dim_length")).and_then(scalar).unwrap_or_default();
        let d: Vec<i64> =
            s.split(',').map(|x| x.trim().parse::<i64>().ok().filter(|&n| n > 0)).collect::<Option<_>>().ok_or_else(
                || {
                    format!(
                        "{file}:{l}: shape dim_length must be whole numbers > 0 separated by commas, got \"{}\"",
                        printable(&s)
                    )
                },
            )?;
        if d.len() as i64 != int("n_dims")? {
            return Err(format!("{file}:{l}: dim_length has {} entries but n_dims is {}", d.len(), int("n_dims")?));
        }
        Ok(d.iter().try_fold(1i64, |a, &x| a.checked_mul(x)).unwrap_or(i64::MAX))
    };
    // (repetitions, terminals per repetition, routers per repetition)
    let (reps, terms, routers) = match name.as_str() {
        "dragonfly" => {
            let a = int("num_routers")?;
            (a * (a * (a / 2) + 1), a / 2, 1)
        }
        "dragonfly-dally" => {
            int("num_global_channels")?;
            let planes = shape.and_then(|s| s.get("num_planes")).and_then(Value::as_i64).unwrap_or(1);
            (int("num_groups")? * planes * int("num_routers")?, int("num_cns_per_router")?, 1)
        }
        "dragonfly-custom" => {
            int("num_global_channels")?;
            (int("num_groups")? * int("num_router_rows")? * int("num_router_cols")?, int("num_cns_per_router")?, 1)
        }
        "dragonfly-plus" => (
            int("num_groups")?,
            int("num_router_leaf")? * int("num_cns_per_router")?,
            int("num_router_spine")? + int("num_router_leaf")?,
        ),
        "slimfly" => {
            let q = int("num_routers")?;
            (2 * q * q, int("num_terminals")?, 1)
        }
        "fattree" => {
            let radix = int("switch_radix")?;
            if radix % 2 != 0 {
                return Err(format!(
                    "{file}:{}: fattree switch_radix must be even, got {radix}",
                    at(&["topology", "fabric", "shape", "switch_radix"])
                ));
            }
            (int("switch_count")?, radix / 2, int("num_levels")?)
        }
        "torus" => (dims()?, 1, 0),
        _ => (dims()?, int("num_cn")?, 1),
    };
    let host = topo
        .get("hosts")
        .and_then(|h| h.get("component"))
        .and_then(scalar)
        .ok_or_else(|| format!("{file}:{fl}: a parametric topology needs hosts: {{ component: NAME }}"))?;
    let comp =
        top.get("components").and_then(|c| c.get(host.as_str())).and_then(Value::as_mapping).ok_or_else(|| {
            format!(
                "{file}:{}: hosts.component {} is not defined under components:",
                at(&["topology", "hosts"]),
                printable(&host)
            )
        })?;
    let workload = match comp.get("model") {
        None => "nw-lp".to_string(),
        Some(v) => scalar(v).filter(|m| !m.trim().is_empty()).ok_or_else(|| {
            format!(
                "{file}:{}: the model of component {} must be a name",
                at(&["components", &host, "model"]),
                printable(&host)
            )
        })?,
    };
    let count = |n: i64| vec![n.to_string()];
    let mut lps = vec![
        Entry { key: "repetitions".into(), values: count(reps), line: fl },
        Entry { key: workload, values: count(terms), line: fl },
        Entry { key: format!("modelnet_{model}"), values: count(terms), line: fl },
    ];
    if let Some(r) = router {
        lps.push(Entry { key: r.into(), values: count(routers), line: fl });
    }
    conf.groups.push(("MODELNET_GRP".into(), fl, lps));
    // modelnet_order as CODES's compiler derives it: the terminal, then the
    // router where it is a model-net method of its own.
    let mut order = vec![model.to_string()];
    if router.is_some() && model != "fattree" {
        order.push(format!("{model}_router"));
    }
    conf.params.push(Entry { key: "modelnet_order".into(), values: order, line: fl });
    let mut push = |key: String, v: &Value, path: &[&str]| -> Result<(), String> {
        let l = at(path);
        let raw =
            values(v).ok_or_else(|| format!("{file}:{l}: {} must be a value or a list of values", printable(&key)))?;
        if key == "modelnet_order" {
            return Err(format!("{file}:{l}: modelnet_order is derived from the fabric model: remove it"));
        }
        let values = raw
            .iter()
            .map(|r| convert(model, &key, r))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{file}:{l}: {e}"))?;
        conf.params.push(Entry { key, values, line: l });
        Ok(())
    };
    for (k, v) in fab {
        let k = scalar(k).unwrap_or_default();
        let sub = |v: &Value| v.as_mapping().cloned().unwrap_or_default();
        match k.as_str() {
            "model" => {}
            "shape" => {
                for (sk, sv) in sub(v) {
                    let sk = scalar(&sk).unwrap_or_default();
                    push(sk.clone(), &sv, &["topology", "fabric", "shape", &sk])?;
                }
            }
            "links" => {
                for (class, kv) in sub(v) {
                    let class = scalar(&class).unwrap_or_default();
                    for (lk, lv) in sub(&kv) {
                        let lk = scalar(&lk).unwrap_or_default();
                        push(format!("{class}_{lk}"), &lv, &["topology", "fabric", "links", &class])?;
                    }
                }
            }
            "routing" => {
                for (rk, rv) in sub(v) {
                    let rk = scalar(&rk).unwrap_or_default();
                    let key = if rk == "algorithm" { "routing".to_string() } else { rk.clone() };
                    push(key, &rv, &["topology", "fabric", "routing", &rk])?;
                }
            }
            "connections" => {
                for (ck, cv) in sub(v) {
                    let ck = scalar(&ck).unwrap_or_default();
                    let key = match ck.as_str() {
                        "intra" => "intra-group-connections".to_string(),
                        "inter" => "inter-group-connections".to_string(),
                        _ => ck.clone(),
                    };
                    push(key, &cv, &["topology", "fabric", "connections", &ck])?;
                }
            }
            _ => push(k.clone(), v, &["topology", "fabric", &k])?,
        }
    }
    for (k, v) in comp {
        let k = scalar(k).unwrap_or_default();
        if k != "model" {
            push(k.clone(), v, &["components", &host, &k])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_become_the_models_own() {
        assert_eq!(convert("dragonfly", "packet_size", "2KiB").unwrap(), "2048");
        assert_eq!(convert("dragonfly", "router_delay", "1.5us").unwrap(), "1500");
        assert_eq!(convert("dragonfly", "local_bandwidth", "1GiBps").unwrap(), "1");
        assert_eq!(convert("fattree", "link_bandwidth", "100Gbps").unwrap(), "12.5");
        assert_eq!(convert("torus", "link_bandwidth", "12.5").unwrap(), "12.5");
        assert!(convert("torus", "packet_size", "5ms").unwrap_err().contains("not a size"));
        assert!(convert("torus", "packet_size", "5qux").unwrap_err().contains("unit timewarp does not know"));
    }

    #[test]
    fn lines_are_found_by_key_path() {
        let t = "a:\n  b:\n    c: 1\n  links:\n    local: { bandwidth: 2 }\n";
        assert_eq!(line_of(t, &["a", "b", "c"]), 3);
        assert_eq!(line_of(t, &["a", "links", "local"]), 5);
    }
}
