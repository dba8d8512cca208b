//! The connection files of a CODES `dragonfly_custom`, `dragonfly_dally`
//! or `dragonfly_plus` configuration (and the rest of a `dragonfly_plus`
//! one): `intra-group-connections` and `inter-group-connections`
//! become --intra-connections and --inter-connections. CODES opens the
//! paths from the folder it runs in; when a named file is not there, the
//! same base name is looked for beside the configuration file
//! (--connections-dir, which the command line may replace).

use std::path::Path;

use super::Map;
use timewarp::text::printable;

/// Adds the connection files' options; whether the network is wired by
/// them (both keys present; never for CODES's 1-D `dragonfly`, which does
/// not read them). One key without the other is refused.
pub(super) fn connections(m: &mut Map<'_>, model: &str, dir: &Path) -> Result<bool, String> {
    let keys = ["intra-group-connections", "inter-group-connections"];
    if model == "dragonfly" {
        for key in keys {
            m.ignore(key, "CODES's dragonfly model does not read connection files (dragonfly_custom, _dally do)");
        }
        return Ok(false);
    }
    let (intra, inter) = (m.get(keys[0]), m.get(keys[1]));
    let (Some(intra), Some(inter)) = (intra, inter) else {
        if let Some(e) = intra.or(inter) {
            return Err(format!(
                "{}: {} names one connection file; CODES's {model} reads both intra-group-connections and \
                 inter-group-connections: add the other",
                m.place(e),
                printable(&e.key)
            ));
        }
        return Ok(false);
    };
    // Absolute: a run file or checkpoint that records the folder must find
    // it from any working directory ("." once sent a replay elsewhere astray).
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let dir = &std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut beside = false;
    for (e, long) in [(intra, "intra-connections"), (inter, "inter-connections")] {
        let named = Path::new(&e.values[0]);
        let why = if named.is_file() {
            "read from there".to_string()
        } else {
            beside = true;
            let base = named.file_name().map_or(String::new(), |b| b.to_string_lossy().into_owned());
            format!("not there: {} beside the configuration (--connections-dir)", dir.join(base).display())
        };
        m.set(&e.key.clone(), Some(e), long, e.values[0].clone(), "taken", &why);
    }
    if beside {
        m.out.options.push(("connections-dir".into(), dir.display().to_string(), m.conf.file.clone()));
    }
    // A Dragonfly+'s exit rule is its own (leaf to a spine with links there).
    if model != "dragonfly_plus" {
        let rule = model.replace('_', "-");
        m.fixed("", "timewarp", "connections-model", rule, "how a packet picks its group's exit");
    }
    Ok(true)
}

/// CODES's `dragonfly_plus`: `num_groups` groups of `num_router_leaf`
/// leaves (with `num_cns_per_router` terminals each) and `num_router_spine`
/// spines, wired by its connection files (else the standard arrangement of
/// `num_global_connections` global links per spine). `shape`: the LP
/// group's repetitions, terminals and routers per repetition, and its line.
/// Any split of the LPs into repetitions whose totals agree is taken, as
/// CODES takes it (`dragonfly-plus.cxx` numbers routers and terminals
/// across repetitions and checks only the routers' total): one group per
/// repetition, or one router per repetition.
pub(super) fn plus(
    m: &mut Map<'_>,
    shape: (u32, u32, Option<u32>, usize),
    dir: &Path,
    packet: u32,
) -> Result<(), String> {
    let (reps, terminals, routers, gline) = shape;
    let file = m.conf.file.clone();
    let (l, le) = m.need("num_router_leaf", "leaf routers per group")?;
    let (s, se) = m.need("num_router_spine", "spine routers per group")?;
    m.set("num_router_leaf", Some(le), "leaves-per-group", l.to_string(), "taken", "");
    m.set("num_router_spine", Some(se), "spines-per-group", s.to_string(), "taken", "");
    let (p, pe) = m.need("num_cns_per_router", "terminals per leaf")?;
    let group = l as u64 + s as u64;
    // Without routers in the LP group, or with a group's worth per repetition: one group per repetition.
    let per_group = routers.map_or(true, |r| r as u64 == group);
    let g = match m.whole("num_groups")? {
        Some((g, _)) => g,
        None if per_group => reps,
        None => {
            return Err(format!(
                "{file}:{gline}: modelnet_dragonfly_plus_router=\"{}\" per repetition is not a group's {group} \
                 routers: give num_groups=\"N\"; in PARAMS (CODES needs it too)",
                routers.unwrap_or(0)
            ))
        }
    };
    let (g_key, g_line) = match m.get("num_groups") {
        Some(e) => (format!("num_groups {g}"), m.place(e)),
        None => (format!("{reps} groups (one per repetition)"), format!("{file}:{gline}")),
    };
    if let Some(r) = routers {
        let have = reps as u64 * r as u64;
        if have != g as u64 * group {
            return Err(format!(
                "{g_line}: repetitions {reps} × modelnet_dragonfly_plus_router {r} = {have} routers but {g_key} × \
                 (num_router_leaf {l} + num_router_spine {s}) = {}: the two must agree",
                g as u64 * group
            ));
        }
    }
    let nodes = g as u64 * l as u64 * p as u64;
    if reps as u64 * terminals as u64 != nodes {
        return Err(format!(
            "{}: num_cns_per_router=\"{p}\" × num_router_leaf {l} × {g_key} = {nodes} nodes but repetitions {reps} × \
             modelnet_dragonfly_plus {terminals} = {}: the two must agree",
            m.place(pe),
            reps as u64 * terminals as u64
        ));
    }
    m.set("num_cns_per_router", Some(pe), "terminals-per-router", p.to_string(), "taken", "on each leaf");
    match m.get("num_groups") {
        Some(e) => m.set("num_groups", Some(e), "groups", g.to_string(), "taken", ""),
        None => {
            m.row("num_groups", reps.to_string(), "converted", format!("--groups {reps} (repetitions: one per group)"));
            m.out.options.push(("groups".into(), reps.to_string(), file.clone()));
        }
    }
    if let Some((h, e)) = m.whole("num_global_connections")? {
        m.set("num_global_connections", Some(e), "global-links", h.to_string(), "taken", "per spine");
    }
    m.link_classes(packet)?;
    plus_routing(m, packet)?;
    m.ignore("num_level_chans", "one link between each leaf and spine");
    m.out.options.insert(0, ("topology".into(), "dragonfly-plus".into(), file));
    connections(m, "dragonfly_plus", dir)?;
    Ok(())
}

/// `dragonfly_plus`'s routing and the keys that tune it (plus.rs in the
/// models crate routes as `dragonfly-plus.cxx` does).
fn plus_routing(m: &mut Map<'_>, packet: u32) -> Result<(), String> {
    let routing = m.get("routing").map(|e| e.values[0].clone());
    if let Some(e) = m.get("routing") {
        let (r, status, why) = match e.values[0].as_str() {
            "minimal" => ("minimal", "taken", "up to the least congested spine with links to the group"),
            "non-minimal-leaf" => ("non-minimal-leaf", "taken", "down to a leaf of a random intermediate group"),
            "non-minimal-spine" => (
                "valiant",
                "converted",
                "through a spine of a random intermediate group; CODES a5958cf stops on it (\"not implemented\")",
            ),
            "prog-adaptive" => ("par", "taken", "CODES's prog-adaptive, decided at every router"),
            other => {
                return Err(format!(
                    "{}: routing=\"{}\" is not a Dragonfly+ routing timewarp has (minimal, non-minimal-spine, \
                     non-minimal-leaf, prog-adaptive)",
                    m.place(e),
                    printable(other)
                ))
            }
        };
        m.set("routing", Some(e), "routing", r.into(), status, why);
    }
    if let Some(e) = m.get("route_scoring_metric") {
        // CODES scores a candidate as non-minimal in prog-adaptive's
        // comparison only: elsewhere delta is alpha.
        let adaptive = routing.as_deref() == Some("prog-adaptive");
        let why = match e.values[0].as_str() {
            "alpha" => "CODES's alpha: packets buffered and waiting for the port",
            "delta" if adaptive => "CODES's delta: prog-adaptive's non-minimal score counts double",
            "delta" => "the same as alpha outside prog-adaptive's comparison",
            "beta" => "CODES's beta: packets queued times the hops left from the port's far end",
            other => {
                return Err(format!(
                    "{}: route_scoring_metric=\"{}\" is not one of CODES's (alpha, beta, delta)",
                    m.place(e),
                    printable(other)
                ))
            }
        };
        let v = e.values[0].clone();
        m.set("route_scoring_metric", Some(e), "route-scoring", v, "taken", why);
    }
    if let Some((t, e)) = m.num("adaptive_threshold")? {
        if routing.as_deref() == Some("prog-adaptive") {
            let packets = t / packet as f64;
            let why = format!("{t} bytes / {packet}-byte packets: minimal while its score is at most this");
            m.set("adaptive_threshold", Some(e), "ugal-threshold", packets.to_string(), "converted", &why);
        } else {
            m.ignore("adaptive_threshold", "CODES reads it for prog-adaptive only");
        }
    }
    // CODES's defaults are what plus.rs does; another value would route otherwise.
    for (key, default, what) in [
        ("source_leaf_consider_nonmin", 1, "source leaves consider non-minimal spines"),
        ("int_spine_consider_min", 0, "intermediate spines always go down to a leaf"),
    ] {
        if let Some((v, e)) = m.whole(key)? {
            if (v != 0) as u32 != default {
                return Err(format!(
                    "{}: {key}=\"{v}\": timewarp's prog-adaptive keeps CODES's default {default} ({what}): remove the line",
                    m.place(e)
                ));
            }
            m.row(key, v.to_string(), "taken", format!("CODES's default: {what}"));
        }
    }
    for key in ["dest_spine_consider_nonmin", "dest_spine_consider_global_nonmin"] {
        m.ignore(key, "CODES routes the destination group minimally before reading it");
    }
    Ok(())
}

/// `dragonfly_custom`'s adaptive threshold: non-minimal only when the
/// minimal port holds more than `adaptive_threshold` bytes (CODES's default
/// `local_vc_size / 8`, with its default `local_vc_size` of 1024), here in
/// `packet`-byte packets.
pub(super) fn custom_threshold(m: &mut Map<'_>, packet: u32) -> Result<(), String> {
    // CODES's BIAS_MIN: 1 doubles the non-minimal count (our delta); absent or 0, alpha.
    if let Some((b, e)) = m.whole("minimal-bias")? {
        let (scoring, why) = if b == 1 {
            ("delta", "CODES's BIAS_MIN = 1: the non-minimal route's count doubled")
        } else {
            ("alpha", "CODES's BIAS_MIN = 0: counts compared as they are")
        };
        m.set("minimal-bias", Some(e), "route-scoring", scoring.into(), "converted", why);
    }
    let t = match m.num("adaptive_threshold")? {
        Some((t, e)) => {
            let why = format!("{t} bytes / {packet}-byte packets");
            m.set("adaptive_threshold", Some(e), "ugal-threshold", (t / packet as f64).to_string(), "converted", &why);
            return Ok(());
        }
        None => (m.whole("local_vc_size")?.map_or(1024, |(v, _)| v) / 8) as f64,
    };
    let why = format!("local_vc_size / 8 = {t} bytes / {packet}-byte packets");
    m.fixed("adaptive_threshold", "CODES default", "ugal-threshold", (t / packet as f64).to_string(), &why);
    Ok(())
}

/// `dragonfly_dally`'s prog-adaptive comparison (`dfdally_prog_adaptive_routing`):
/// `adaptive_threshold` in bytes (absent: 0), here in `packet`-byte
/// packets, and `route_scoring_metric` (absent: delta, CODES's default;
/// beta and gamma stop CODES, so they are refused).
pub(super) fn dally_adaptive(m: &mut Map<'_>, packet: u32) -> Result<(), String> {
    match m.num("adaptive_threshold")? {
        Some((t, e)) => {
            let why = format!("{t} bytes / {packet}-byte packets: minimal while the minimal port holds at most this");
            m.set("adaptive_threshold", Some(e), "ugal-threshold", (t / packet as f64).to_string(), "converted", &why);
        }
        None => m.fixed("adaptive_threshold", "CODES default", "ugal-threshold", "0".into(), "dragonfly-dally.cxx: 0"),
    }
    match m.get("route_scoring_metric") {
        Some(e) => {
            let why = match e.values[0].as_str() {
                "alpha" => "CODES's alpha: packets buffered and waiting for the port",
                "delta" => "CODES's delta: the non-minimal port's count doubled",
                other => {
                    return Err(format!(
                        "{}: route_scoring_metric=\"{}\": CODES's dragonfly_dally scores by alpha or delta (it \
                         stops on beta and gamma): use one of those",
                        m.place(e),
                        printable(other)
                    ))
                }
            };
            let v = e.values[0].clone();
            m.set("route_scoring_metric", Some(e), "route-scoring", v, "taken", why);
        }
        None => m.fixed(
            "route_scoring_metric",
            "CODES default",
            "route-scoring",
            "delta".into(),
            "dragonfly-dally.cxx: delta, the non-minimal port's count doubled",
        ),
    }
    Ok(())
}
