//! CODES's `slimfly` model (`src/networks/model-net/slimfly.c`) as our
//! Slim Fly's options: the MMS graph of `num_routers` = q with the file's
//! generator sets, `num_terminals` per router, minimal, non-minimal
//! (Valiant) or adaptive (UGAL) routing. Its multi-rail form (Fit Fly:
//! `sf_type` 1, `num_rails` above 1) is refused in one line.

use timewarp::text::printable;
use timewarp_models::network::SlimFly;

use super::Map;

/// Maps the Slim Fly's keys; `terminals` and `reps` are the LP group's
/// nodes per repetition and repetitions (routers), on line `gline`.
pub(super) fn map(m: &mut Map<'_>, terminals: u32, reps: u32, gline: usize, packet: u32) -> Result<(), String> {
    let file = m.conf.file.clone();
    for (key, what) in [("sf_type", "the Fit Fly (sf_type 1)"), ("num_rails", "a multi-rail Slim Fly")] {
        if let Some((v, e)) = m.whole(key)? {
            let plain = if key == "sf_type" { 0 } else { 1 };
            if v != plain {
                return Err(format!(
                    "{}: {key}=\"{v}\" is not modelled: CODES would build {what}, copies of the graph joined at the \
                     nodes; timewarp's Slim Fly has one rail ({key}=\"{plain}\" runs)",
                    m.place(e)
                ));
            }
            m.row(key, v.to_string(), "checked", "one Slim Fly, one rail".into());
        }
    }
    m.ignore("rail_select", "one rail: CODES takes the dedicated rail with sf_type 0");
    m.ignore("num_injection_queues", "one rail: one injection queue");
    m.ignore("node_copy_queues", "a NIC's copy queues are not modelled (no bandwidth of their own)");
    // slimfly.c takes 4 routers when the key is absent or not positive.
    let q = match m.whole("num_routers")? {
        Some((q, e)) if q > 0 => {
            m.set("num_routers", Some(e), "slimfly-q", q.to_string(), "taken", "the prime q: 2q² routers");
            q
        }
        _ => {
            m.fixed("num_routers", "CODES default", "slimfly-q", "4".into(), "slimfly.c: 4");
            4
        }
    };
    if 2 * q as u64 * q as u64 != reps as u64 {
        return Err(format!(
            "{file}:{gline}: repetitions=\"{reps}\" (routers) but num_routers q = {q} gives 2q² = {} routers: the two \
             must agree",
            2 * q as u64 * q as u64
        ));
    }
    let p = match m.whole("num_terminals")? {
        Some((p, e)) if p > 0 => {
            m.set("num_terminals", Some(e), "terminals-per-router", p.to_string(), "taken", "");
            p
        }
        _ => {
            m.fixed("num_terminals", "CODES default", "terminals-per-router", "2".into(), "slimfly.c: 2");
            2
        }
    };
    if p != terminals {
        return Err(format!(
            "{file}:{gline}: modelnet_slimfly=\"{terminals}\" terminals per repetition but num_terminals is {p}: the \
             two must agree"
        ));
    }
    let mut sets = Vec::new();
    for (key, long) in [("generator_set_X", "generator-set-x"), ("generator_set_X_prime", "generator-set-x-prime")] {
        let e = m.get(key).ok_or_else(|| {
            format!("{file}: PARAMS has no {key}: CODES's slimfly.c needs both generator sets of the MMS graph")
        })?;
        let set: Vec<u32> =
            e.values.iter().map(|v| v.trim().parse::<u32>()).collect::<Result<_, _>>().map_err(|_| {
                format!("{}: {key} must be whole numbers, got \"{}\"", m.place(e), printable(&e.values.join(",")))
            })?;
        let text = set.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        m.set(key, Some(e), long, text, "taken", "");
        sets.push(set);
    }
    let s = SlimFly::with_sets(q, p, sets[0].clone(), sets[1].clone())
        .map_err(|e| format!("{file}: this Slim Fly cannot be built: {e}"))?;
    for (key, want, what) in [("local_channels", s.locals() as u32, "|X|"), ("global_channels", q, "q")] {
        if let Some((v, e)) = m.whole(key)? {
            if v != want {
                return Err(format!(
                    "{}: {key}=\"{v}\" but {what} is {want}: CODES's graph needs them equal",
                    m.place(e)
                ));
            }
            m.row(key, v.to_string(), "checked", format!("= {what}"));
        }
    }
    m.out.options.insert(0, ("topology".into(), "slimfly".into(), file.clone()));
    m.link_classes(packet)?;
    match m.get("routing") {
        Some(e) => {
            let (r, why) = match e.values[0].as_str() {
                "minimal" => ("minimal", ""),
                "nonminimal" | "non-minimal" => ("valiant", "through a router drawn uniformly, as CODES does"),
                "adaptive" => ("ugal", "UGAL at the source router over 4 random intermediates, as CODES weighs them"),
                other => {
                    return Err(format!(
                        "{}: routing=\"{}\" is not a Slim Fly routing timewarp has (minimal, nonminimal, adaptive)",
                        m.place(e),
                        printable(other)
                    ))
                }
            };
            m.set("routing", Some(e), "routing", r.into(), if r == "minimal" { "taken" } else { "converted" }, why);
        }
        None => m.fixed("routing", "CODES default", "routing", "minimal".into(), "slimfly.c: minimal"),
    }
    if let Some((v, e)) = m.whole("num_vcs")? {
        m.set("num_vcs", Some(e), "vcs", v.to_string(), "taken", "virtual channels per port");
    }
    m.ignore("csf_ratio", "not read by CODES's slimfly.c (a constant 1 there): the plain UGAL comparison");
    Ok(())
}
