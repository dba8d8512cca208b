//! CODES's `fattree` model (`src/networks/model-net/fattree.c`) as our
//! fat-tree's options: type 0 (pods), `num_rails` planes (`--rails`, the
//! NICs choosing a rail by `rail_select`, adaptively above
//! `rail_select_limit` bytes), `tapering` (`--tapering`). Its keys that
//! would build another network (`ft_type` other than 0, `tapering` below 1)
//! are refused in one line.

use timewarp::text::printable;
use timewarp_models::network::{FatTree, RailSelect, CODES_RAIL_SELECT_LIMIT};

use super::{num, Map};

/// Maps the fat-tree's keys; `terminals` and `reps` are the LP group's
/// nodes per repetition and repetitions (leaf switches), on line `gline`.
pub(super) fn map(m: &mut Map<'_>, terminals: u32, reps: u32, gline: usize, packet: u32) -> Result<(), String> {
    let file = m.conf.file.clone();
    let (radix, re) = m.need("switch_radix", "ports per switch")?;
    let (levels, le) = m.need("num_levels", "levels of switches")?;
    if let Some((t, e)) = m.whole("ft_type")? {
        if t != 0 {
            return Err(format!(
                "{}: ft_type=\"{t}\" is not modelled: timewarp builds CODES's type 0 (pods, full or pruned)",
                m.place(e)
            ));
        }
        m.row("ft_type", "0".into(), "checked", "pods of leaves and aggregation switches".into());
    }
    // CODES: `tapering` t puts t·radix/(t+1) nodes and radix/(t+1) up links
    // on a leaf; 1 (its default) is the untapered tree.
    let mut per_leaf = radix / 2;
    if let Some((t, e)) = m.num("tapering")? {
        let up = radix as f64 / (t + 1.0);
        if t < 1.0 {
            return Err(format!(
                "{}: tapering=\"{}\" is not modelled: a leaf with more up links ({up}) than nodes; timewarp's \
                 tapered leaves have T >= 1",
                m.place(e),
                printable(&e.values[0]),
            ));
        }
        if up.fract() != 0.0 {
            return Err(format!(
                "{}: tapering=\"{}\": tapering + 1 must divide switch_radix {radix} (CODES refuses it too)",
                m.place(e),
                printable(&e.values[0]),
            ));
        }
        per_leaf = radix - up as u32;
        let why = format!("{per_leaf} nodes and {up} up links per leaf");
        m.set("tapering", Some(e), "tapering", num(t), "taken", &why);
    }
    let rails = match m.whole("num_rails")? {
        Some((0, e)) => return Err(format!("{}: num_rails must be at least 1", m.place(e))),
        Some((1, _)) => {
            m.row("num_rails", "1".into(), "checked", "one rail".into());
            m.ignore("rail_select", "one rail: nothing to select");
            m.ignore("rail_select_limit", "one rail: nothing to select");
            m.ignore("num_injection_queues", "one rail: one injection queue");
            1
        }
        Some((r, e)) => {
            m.set(
                "num_rails",
                Some(e),
                "rails",
                r.to_string(),
                "taken",
                "planes of the tree, a link from every node into each",
            );
            rails(m, r)?;
            r
        }
        None => 1,
    };
    if terminals != per_leaf {
        return Err(format!(
            "{file}:{gline}: modelnet_fattree=\"{terminals}\" nodes per leaf, but a leaf of radix {radix} has \
             {per_leaf}: CODES puts tapering·radix/(tapering + 1) nodes on every leaf"
        ));
    }
    if let Some((n, e)) = m.whole("switch_count")? {
        if n != reps {
            return Err(format!(
                "{file}:{}: switch_count=\"{}\" but repetitions is {reps}: the two must agree",
                e.line,
                printable(&e.values[0])
            ));
        }
        m.row("switch_count", n.to_string(), "checked", "= repetitions (leaf switches)".into());
    }
    let nodes = reps.saturating_mul(terminals);
    m.out.options.push(("topology".into(), "fattree".into(), file.clone()));
    m.set("switch_radix", Some(re), "radix", radix.to_string(), "taken", "");
    m.set("num_levels", Some(le), "levels", levels.to_string(), "taken", "");
    m.row("", String::new(), "", format!("--nodes {nodes} (repetitions × modelnet_fattree)"));
    m.out.options.push(("nodes".into(), nodes.to_string(), file.clone()));
    let t = m.num("tapering")?.map_or(1.0, |t| t.0);
    FatTree::tapered(radix, levels, nodes, None, t)
        .and_then(|t| t.with_rails(rails, RailSelect::Dedicated))
        .map_err(|e| format!("{file}: this fat-tree cannot be built: {e}"))?;
    // The fat-tree's code reads its bandwidths as bytes per ns.
    if let Some((x, e)) = m.num("link_bandwidth")? {
        m.set("link_bandwidth", Some(e), "link-bandwidth", num(x), "taken", "bytes/ns, as CODES's fat-tree reads it");
    }
    if let Some((x, e)) = m.num("cn_bandwidth")? {
        if rails == 1 {
            m.set(
                "cn_bandwidth",
                Some(e),
                "terminal-bandwidth",
                num(x),
                "taken",
                "bytes/ns, as CODES's fat-tree reads it",
            );
        } else {
            let why = format!("bytes/ns: a node's {rails} rail links of {} as one NIC link of {rails} × that", num(x));
            m.set("cn_bandwidth", Some(e), "terminal-bandwidth", num(x * rails as f64), "converted", &why);
        }
    }
    m.buffer("vc_size", "buffer-packets", packet)?;
    m.nic_buffer(packet)?;
    match m.get("routing") {
        Some(e) => {
            let r = match e.values[0].as_str() {
                "static" => "updown",
                "adaptive" => "updown-adaptive",
                other => {
                    let other = printable(other);
                    return Err(format!(
                        "{}: routing=\"{other}\" is not a fat-tree routing timewarp has (static, adaptive)",
                        m.place(e)
                    ));
                }
            };
            m.set("routing", Some(e), "routing", r.into(), "converted", "");
        }
        // fattree.c: any other value, or none, is adaptive.
        None => m.fixed("routing", "CODES default", "routing", "updown-adaptive".into(), "CODES's fat-tree: adaptive"),
    }
    m.ignore("soft_delay", "read by CODES's fat-tree but never used");
    m.ignore("rail_routing", "not read by CODES's fat-tree");
    m.ignore("terminal_radix", "not read by CODES's fat-tree (one link per node and rail)");
    m.ignore("routing_folder", "CODES's precomputed static routes: timewarp computes up/down routes");
    m.ignore("dot_file", "CODES's topology dump");
    m.ignore("dump_topo", "CODES's topology dump");
    Ok(())
}

/// The rail selection of a fat-tree of `r` rails: CODES's `rail_select`
/// (`dedicated`, the default, or `adaptive`) as `--rail-select`.
fn rails(m: &mut Map<'_>, r: u32) -> Result<(), String> {
    match m.get("rail_select") {
        Some(e) => {
            let (v, why) = match e.values[0].as_str() {
                "dedicated" => {
                    ("dedicated", "node n on rail (n mod radix/2) mod rails, as CODES's queue offset gives it")
                }
                "adaptive" => (
                    "adaptive",
                    "from the dedicated rail, one whose up links hold fewer packets; CODES weighs its NICs' rail \
                     queues",
                ),
                other => {
                    // fattree.c: any other value is dedicated.
                    let _ = other;
                    ("dedicated", "fattree.c takes any other value as dedicated")
                }
            };
            m.set("rail_select", Some(e), "rail-select", v.into(), "taken", why);
        }
        None => m.fixed("rail_select", "CODES default", "rail-select", "dedicated".into(), "fattree.c: dedicated"),
    }
    if m.out.options.iter().any(|o| o.0 == "rail-select" && o.1 == "adaptive") {
        let why = "only messages of more bytes are weighed; smaller ones take the dedicated rail";
        match m.whole("rail_select_limit")? {
            Some((l, e)) => m.set("rail_select_limit", Some(e), "rail-select-limit", l.to_string(), "taken", why),
            None => {
                let limit = CODES_RAIL_SELECT_LIMIT.to_string();
                m.fixed("rail_select_limit", "CODES default", "rail-select-limit", limit, "fattree.c: 32768 bytes")
            }
        }
    } else {
        m.ignore("rail_select_limit", "rail_select is not adaptive: no message is weighed");
    }
    if let Some((q, e)) = m.whole("num_injection_queues")? {
        if q != r {
            return Err(format!(
                "{}: num_injection_queues=\"{q}\" but num_rails is {r}: timewarp gives each node one queue per rail \
                 (make them equal)",
                m.place(e)
            ));
        }
        m.row("num_injection_queues", q.to_string(), "checked", "= num_rails".into());
    }
    Ok(())
}
