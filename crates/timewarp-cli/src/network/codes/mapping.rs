//! A configuration's keys as options of our network model: the LP group,
//! the model, and the keys of the torus and the dragonflies, with the
//! fat-tree's, Slim Fly's, the wired dragonflies' and CODES's defaults in
//! the files beside this one.

use std::path::Path;

use timewarp::text::printable;
use timewarp_models::network::Dragonfly;

use super::table::{Import, Row};
use super::{defaults, fattree_keys, slimfly_keys, wiring, Conf, Entry, Map};

/// The models read.
const MODELS: &[&str] =
    &["dragonfly", "dragonfly_custom", "dragonfly_dally", "dragonfly_plus", "fattree", "slimfly", "torus"];

/// The options configuration `conf` gives (`dir`: where its connection files are).
pub(super) fn map(conf: &Conf, dir: &Path) -> Result<Import, String> {
    let file = &conf.file;
    if conf.groups.len() > 1 {
        return Err(format!(
            "{file}:{}: LP group {} is a second group: timewarp reads configurations of one group",
            conf.groups[1].1,
            printable(&conf.groups[1].0)
        ));
    }
    let (gname, gline, lps) = &conf.groups[0];
    let gname = &printable(gname);
    let count = |key: &str| -> Result<Option<u32>, String> {
        match lps.iter().find(|e| e.key == key) {
            None => Ok(None),
            Some(e) => e.values[0].trim().parse::<u32>().map(Some).map_err(|_| {
                format!("{file}:{}: {key} must be a whole number, got \"{}\"", e.line, printable(&e.values[0]))
            }),
        }
    };
    let reps =
        count("repetitions")?.ok_or_else(|| format!("{file}:{gline}: LP group {gname} has no repetitions=\"N\";"))?;
    // The model: the terminal LP `modelnet_<model>` of the group.
    let model = lps
        .iter()
        .filter_map(|e| e.key.strip_prefix("modelnet_"))
        .find(|m| !m.ends_with("_router"))
        .map(String::from)
        .ok_or_else(|| format!("{file}:{gline}: LP group {gname} has no modelnet_<model> terminals"))?;
    if !MODELS.contains(&model.as_str()) {
        let e = lps.iter().find(|e| e.key == format!("modelnet_{model}")).expect("found above");
        return Err(format!(
            "{file}:{}: CODES model {} is not one timewarp reads ({})",
            e.line,
            printable(&model),
            MODELS.join(", ")
        ));
    }
    let terminals = count(&format!("modelnet_{model}"))?.unwrap_or(0);
    let mut m =
        Map { conf, out: Import { model: model.clone(), options: Vec::new(), rows: Vec::new() }, used: Vec::new() };
    m.row("repetitions", reps.to_string(), "checked", "routers (fat-tree: leaf switches)".into());
    m.row(&format!("modelnet_{model}"), terminals.to_string(), "checked", "nodes per repetition".into());
    for e in lps.iter().filter(|e| e.key != "repetitions" && !e.key.starts_with("modelnet_")) {
        let note = if e.key == "fattree_switch" {
            "switch LPs per repetition: the tree builds only the switches it has".to_string()
        } else {
            "workload LPs: every node runs --traffic (or --workload)".to_string()
        };
        m.out.rows.push(Row {
            key: e.key.clone(),
            value: e.values.join(","),
            from: "file",
            status: "ignored",
            note,
            option: None,
        });
    }
    let packet = match m.whole("packet_size")? {
        Some((0, pe)) => return Err(format!("{}: packet_size must be at least 1", m.place(pe))),
        Some((packet, pe)) => {
            m.set("packet_size", Some(pe), "packet-bytes", packet.to_string(), "taken", "");
            packet
        }
        // CODES's model-net layer (model-net-lp.c) takes 512 bytes.
        None => {
            m.fixed("packet_size", "CODES default", "packet-bytes", "512".into(), "model-net's 512 bytes");
            512
        }
    };
    m.fixed(
        "",
        "timewarp",
        "message-bytes",
        packet.to_string(),
        "one full packet per message; CODES's message sizes come from its workload, --message-bytes here",
    );
    let mismatch = |key: &str, e: &Entry, want: u32, what: &str| {
        format!("{file}:{}: {key}=\"{}\" but {what} {want}: the two must agree", e.line, printable(&e.values[0]))
    };
    match model.as_str() {
        "dragonfly" | "dragonfly_custom" | "dragonfly_dally" => {
            let custom = model == "dragonfly_custom";
            let a = if custom {
                let (r, _) = m.need("num_router_rows", "rows of routers in a group")?;
                let (c, _) = m.need("num_router_cols", "columns of routers in a group")?;
                m.row(
                    "num_router_rows",
                    r.to_string(),
                    "converted",
                    format!(
                        "× num_router_cols {c} = --routers-per-group {}{}",
                        r.saturating_mul(c),
                        if m.get("intra-group-connections").is_some() { "" } else { " (joined all-to-all)" }
                    ),
                );
                m.used.push("num_router_cols".into());
                r.saturating_mul(c)
            } else {
                let (a, e) = m.need("num_routers", "routers per group")?;
                m.set("num_routers", Some(e), "routers-per-group", a.to_string(), "taken", "");
                a
            };
            if custom {
                m.out.options.push(("routers-per-group".into(), a.to_string(), file.clone()));
            }
            if a == 0 {
                return Err(format!("{file}: a dragonfly group needs at least one router"));
            }
            let p = match m.whole("num_cns_per_router")? {
                Some((p, e)) if p != terminals => {
                    return Err(mismatch(
                        "num_cns_per_router",
                        e,
                        terminals,
                        &format!("modelnet_{model} per repetition is"),
                    ))
                }
                Some((p, e)) => {
                    m.set("num_cns_per_router", Some(e), "terminals-per-router", p.to_string(), "taken", "");
                    p
                }
                None => {
                    m.out.options.push(("terminals-per-router".into(), terminals.to_string(), file.clone()));
                    terminals
                }
            };
            let h = match m.whole("num_global_channels")? {
                Some((h, e)) => {
                    m.set("num_global_channels", Some(e), "global-links", h.to_string(), "taken", "");
                    h
                }
                None => {
                    // CODES's 1-D dragonfly: h = a / 2 global channels per router.
                    let h = (a / 2).max(1);
                    m.row(
                        "num_global_channels",
                        "(absent)".into(),
                        "converted",
                        format!("--global-links {h} (CODES's num_routers / 2)"),
                    );
                    m.out.options.push(("global-links".into(), h.to_string(), file.clone()));
                    h
                }
            };
            if reps % a != 0 {
                return Err(format!(
                    "{file}:{gline}: repetitions=\"{reps}\" (routers) is not a whole number of groups of {a} routers"
                ));
            }
            let g = reps / a;
            if let Some((n, e)) = m.whole("num_groups")? {
                if n != g {
                    return Err(mismatch("num_groups", e, g, &format!("repetitions / {a} routers per group is")));
                }
            }
            m.row("num_groups", g.to_string(), "converted", format!("--groups {g} (repetitions / routers per group)"));
            m.out.options.push(("groups".into(), g.to_string(), file.clone()));
            // Wired by CODES's connection files (codes/wiring.rs), the shape needs no check.
            if !wiring::connections(&mut m, &model, dir)? {
                Dragonfly::new(a, p, h, g)
                    .validate()
                    .map_err(|e| format!("{file}: this dragonfly cannot be built: {e}"))?;
            } else if let Some(r) = m.out.rows.iter_mut().find(|r| r.key == "num_global_channels") {
                // The files give each router its own global links (2 to 4
                // on Theta): the count read here changes nothing (issue 61).
                r.status = "ignored";
                r.note = "each router's global links are the connection files'".into();
                r.option = None;
            }
            // For --lp-io-dir (put_in passes them on only with it): CODES's
            // LP numbering, and dragonfly_custom's port slots.
            let lp_list: Vec<String> = lps
                .iter()
                .filter(|e| e.key != "repetitions")
                .map(|e| format!("{}={}", e.key, e.values[0].trim()))
                .collect();
            m.out.options.push(("lp-io-lps".into(), lp_list.join(","), file.clone()));
            if custom && m.get("intra-group-connections").is_some() {
                let mut chans = |key: &str, default: u32| -> Result<u32, String> {
                    Ok(match m.whole(key)? {
                        Some((n, _)) => {
                            m.row(key, n.to_string(), "checked", "channels per link: --lp-io-dir's port slots".into());
                            n
                        }
                        None => default,
                    })
                };
                // dragonfly-custom.cxx's defaults.
                let (row, col) = (chans("num_row_chans", 1)?, chans("num_col_chans", 3)?);
                let cols = m.whole("num_router_cols")?.map_or(0, |c| c.0);
                let global = m.whole("num_global_channels")?.map_or(10, |c| c.0);
                m.out.options.push(("lp-io-grid".into(), format!("{cols},{row},{col},{global}"), file.clone()));
            }
            m.link_classes(packet)?;
            if let Some(e) = m.get("routing") {
                let r = match e.values[0].as_str() {
                    "minimal" => ("minimal", "taken"),
                    "nonminimal" => ("valiant", "converted"),
                    // CODES's 1-D model decides by its own rule (ugal-codes);
                    // its wired ones by theirs, behind our ugal.
                    "adaptive" if model == "dragonfly" => ("ugal-codes", "converted"),
                    "adaptive" => ("ugal", "converted"),
                    // CODES' progressive adaptive routing decides again while
                    // the packet is still minimal in its source group: PAR.
                    "prog-adaptive" | "prog_adaptive" => ("par", "taken"),
                    other => {
                        let other = printable(other);
                        return Err(format!(
                            "{}: routing=\"{other}\" is not a dragonfly routing timewarp has (minimal, nonminimal, adaptive, prog-adaptive)",
                            m.place(e)
                        ));
                    }
                };
                let why = match r.0 {
                    "ugal" => "decided at the source router",
                    "ugal-codes" => {
                        "decided at the source router by dragonfly.c's rule: minimal unless its port holds more"
                    }
                    "par" => "progressive adaptive: decided again at the next router of the source group",
                    _ => "",
                };
                m.set("routing", Some(e), "routing", r.0.into(), r.1, why);
                if model == "dragonfly_custom" && matches!(r.0, "ugal" | "par") {
                    wiring::custom_threshold(&mut m, packet)?;
                }
                if model == "dragonfly_dally" && matches!(r.0, "ugal" | "par") {
                    wiring::dally_adaptive(&mut m, packet)?;
                }
            }
            m.out.options.insert(0, ("topology".into(), "dragonfly".into(), file.clone()));
            m.ignore(
                "num_vcs",
                "one virtual channel per hop of the longest route, against deadlock: --vcs, by default as the routing and the groups' wiring need",
            );
            m.ignore("minimal-bias", "CODES's dragonfly_custom reads it for adaptive and prog-adaptive only");
            m.ignore("df-dally-vc", "one virtual channel per hop, as --vcs");
            m.ignore("self_msg_overhead", "a node's messages to itself are not simulated");
        }
        "dragonfly_plus" => {
            let routers = count("modelnet_dragonfly_plus_router")?;
            wiring::plus(&mut m, (reps, terminals, routers, *gline), dir, packet)?
        }
        "fattree" => fattree_keys::map(&mut m, terminals, reps, *gline, packet)?,
        "slimfly" => slimfly_keys::map(&mut m, terminals, reps, *gline, packet)?,
        _ => {
            let (n, ne) = m.need("n_dims", "dimensions")?;
            let e = m.get("dim_length").ok_or_else(|| {
                format!("{file}: PARAMS has no dim_length (routers per dimension): add dim_length=\"4,4,2\";")
            })?;
            let dims: Vec<u32> =
                e.values.join(",").split(',').map(|s| s.trim().parse::<u32>()).collect::<Result<_, _>>().map_err(
                    |_| {
                        format!(
                            "{}: dim_length must be whole numbers separated by commas, got \"{}\"",
                            m.place(e),
                            printable(&e.values.join(","))
                        )
                    },
                )?;
            if dims.len() != n as usize {
                return Err(format!(
                    "{}: dim_length has {} entries but n_dims=\"{n}\" (line {})",
                    m.place(e),
                    dims.len(),
                    ne.line
                ));
            }
            let routers: u64 = dims.iter().map(|&d| d as u64).product();
            if routers != reps as u64 {
                return Err(format!("{file}:{gline}: repetitions=\"{reps}\" but dim_length {} has {routers} routers: the two must agree", printable(&e.values.join(","))));
            }
            if terminals != 1 {
                return Err(format!(
                    "{file}:{gline}: modelnet_torus=\"{terminals}\": timewarp's torus has one node per router"
                ));
            }
            m.out.options.push(("topology".into(), "torus".into(), file.clone()));
            m.row("n_dims", n.to_string(), "checked", "= entries of dim_length".into());
            let d = dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
            m.set("dim_length", Some(e), "dims", d, "taken", "");
            m.bandwidth_gib("link_bandwidth", "link-bandwidth")?;
            m.buffer("buffer_size", "buffer-packets", packet)?;
            m.ignore("num_vc", "a torus needs 2 virtual channels (dateline classes): --vcs 2");
            m.ignore("net_startup_ns", "a simplenet parameter");
            m.ignore("net_bw_mbps", "a simplenet parameter");
        }
    }
    defaults::apply(&mut m, &model, packet)?;
    m.ignore("message_size", "the ROSS event size, not the application's");
    if let Some(e) = m.get("modelnet_scheduler") {
        let why = if e.values[0] == "fcfs" {
            "the NIC's queue is first come, first served"
        } else {
            "the NIC's queue is first come, first served (fcfs)"
        };
        m.ignore("modelnet_scheduler", why);
    }
    m.ignore("modelnet_order", "one network model");
    let rest: Vec<&Entry> = conf.params.iter().filter(|e| !m.used.contains(&e.key)).collect();
    for e in rest {
        let v = e.values.join(",");
        m.out.rows.push(Row {
            key: e.key.clone(),
            value: v,
            from: "file",
            status: "ignored",
            note: "not a parameter timewarp models".into(),
            option: None,
        });
    }
    Ok(m.out)
}
