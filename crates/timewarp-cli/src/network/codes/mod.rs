//! `timewarp run network --codes-config FILE.conf`: a CODES model-net
//! configuration (its `LPGROUPS` and `PARAMS` blocks) read as options of
//! our network model, for the models `dragonfly`, `dragonfly_custom`,
//! `dragonfly_dally`, `dragonfly_plus` (codes/wiring.rs), `fattree` and `torus`.
//!
//! Design: like a run file (run_file.rs), the configuration becomes
//! command-line tokens put before the command line's own, so the command
//! line overrides it, clap and the model check every value, and
//! `--print-config` shows the result as our own run file. What was taken,
//! converted (units: GiB/s to bytes per ns, bytes to packets) and ignored
//! is printed as a table on stderr (none with `--quiet`). docs/network.md,
//! "CODES configurations", has the mapping and its reasons.

use std::path::Path;

mod conf;
mod defaults;
mod fattree_keys;
mod slimfly_keys;
mod wiring;
mod yaml;

use crate::registry::Models;
use crate::run_options::{groups, options};
use timewarp::text::printable;
use timewarp_models::network::Dragonfly;

/// One `key = value;` line (a list in parentheses has several values).
#[derive(Debug)]
struct Entry {
    key: String,
    values: Vec<String>,
    line: usize,
}

/// A parsed configuration: the LP groups' entries and the parameters.
#[derive(Debug)]
struct Conf {
    file: String,
    groups: Vec<(String, usize, Vec<Entry>)>,
    params: Vec<Entry>,
}

/// GiB/s to our bytes per ns (exact as decimals go: `x · 2^30 / 10^9`).
pub(crate) fn gib_per_s(x: f64) -> f64 {
    x * 1_073_741_824.0 / 1e9
}

/// A row of the table: key, its value, where the value came from, what
/// became of it, and why.
struct Row {
    key: String,
    value: String,
    /// `file`, `CODES default`, `timewarp` (a choice of ours) or, once the
    /// command line replaces the option, `command line`.
    from: &'static str,
    status: &'static str,
    note: String,
    /// The option the row became (to mark it when the command line replaces it).
    option: Option<String>,
}

/// What a configuration becomes.
pub(crate) struct Import {
    /// The CODES model.
    pub model: String,
    /// (long option, value, place) in order.
    pub options: Vec<(String, String, String)>,
    rows: Vec<Row>,
}

impl Import {
    /// The table on stderr. Keys and values are cut to a column's width
    /// (the widths come from the file: one of 65,536 characters made
    /// `format!` panic).
    pub(crate) fn table(&self, file: &str) -> String {
        let (key, value) = (|r: &Row| cell(&r.key, 32), |r: &Row| cell(&r.value, 24));
        let w = self.rows.iter().map(|r| key(r).chars().count()).max().unwrap_or(0).max(3);
        let v = self.rows.iter().map(|r| value(r).chars().count()).max().unwrap_or(0).max(5);
        let mut s = format!("CODES configuration {file} (model {}):\n", self.model);
        s += &format!("  {:w$}  {:v$}  {:13}  {:9}  {}\n", "key", "value", "from", "", "as");
        for r in &self.rows {
            // A long note goes on under its column, so every line stays short.
            let mut lines = wrap(&r.note, 64).into_iter();
            let first = lines.next().unwrap_or_default();
            s += &format!("  {:w$}  {:v$}  {:13}  {:9}  {first}\n", key(r), value(r), r.from, r.status);
            for more in lines {
                s += &format!("  {:w$}  {:v$}  {:13}  {:9}    {more}\n", "", "", "", "");
            }
        }
        s
    }
}

/// `text` in lines of at most `width` characters, broken at spaces (a
/// longer word is a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match out.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => out.push(word.to_string()),
        }
    }
    out
}

/// `text` shown in a column at most `width` characters wide: escaped, and
/// cut with `…` where longer.
fn cell(text: &str, width: usize) -> String {
    let t = printable(text);
    if t.chars().count() <= width {
        return t;
    }
    t.chars().take(width - 1).chain(['…']).collect()
}

/// The models read.
const MODELS: &[&str] =
    &["dragonfly", "dragonfly_custom", "dragonfly_dally", "dragonfly_plus", "fattree", "slimfly", "torus"];

struct Map<'c> {
    conf: &'c Conf,
    out: Import,
    used: Vec<String>,
}

impl<'c> Map<'c> {
    fn get(&self, key: &str) -> Option<&'c Entry> {
        self.conf.params.iter().rev().find(|e| e.key == key)
    }
    fn place(&self, e: &Entry) -> String {
        format!("{}:{}", self.conf.file, e.line)
    }
    fn num(&self, key: &str) -> Result<Option<(f64, &'c Entry)>, String> {
        let Some(e) = self.get(key) else { return Ok(None) };
        let v = &e.values[0];
        match v.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 && e.values.len() == 1 => Ok(Some((x, e))),
            _ => Err(format!(
                "{}: {key} must be a number >= 0, got \"{}\"",
                self.place(e),
                printable(&e.values.join(","))
            )),
        }
    }
    fn whole(&self, key: &str) -> Result<Option<(u32, &'c Entry)>, String> {
        match self.num(key)? {
            Some((x, e)) if x.fract() != 0.0 || x > u32::MAX as f64 => {
                Err(format!("{}: {key} must be a whole number, got \"{}\"", self.place(e), printable(&e.values[0])))
            }
            Some((x, e)) => Ok(Some((x as u32, e))),
            None => Ok(None),
        }
    }
    fn need(&self, key: &str, what: &str) -> Result<(u32, &'c Entry), String> {
        self.whole(key)?.ok_or_else(|| format!("{}: PARAMS has no {key} ({what}): add {key}=\"N\";", self.conf.file))
    }
    fn row(&mut self, key: &str, value: String, status: &'static str, note: String) {
        self.used.push(key.to_string());
        self.out.rows.push(Row { key: key.to_string(), value, from: "file", status, note, option: None });
    }
    /// `key`, absent from the file or not read from it, becomes `--long
    /// value` all the same: CODES's default (`from` "CODES default") or a
    /// choice of ours ("timewarp").
    fn fixed(&mut self, key: &str, from: &'static str, long: &str, value: String, why: &str) {
        self.used.push(key.to_string());
        let shown = match self.get(key) {
            Some(e) => e.values.join(","),
            None if key.is_empty() => String::new(),
            None => "(absent)".to_string(),
        };
        let note = if why.is_empty() { format!("--{long} {value}") } else { format!("--{long} {value} ({why})") };
        let status = if from == "timewarp" { "ours" } else { "default" };
        self.out.rows.push(Row { key: key.into(), value: shown, from, status, note, option: Some(long.into()) });
        self.out.options.push((long.to_string(), value, self.conf.file.clone()));
    }
    /// `key` becomes `--long value`.
    fn set(&mut self, key: &str, e: Option<&Entry>, long: &str, value: String, status: &'static str, why: &str) {
        // Where the value came from, as errors about it name it: file, line and key.
        let place = e.map_or(self.conf.file.clone(), |e| format!("{}: {}", self.place(e), printable(&e.key)));
        let raw = e.map_or(String::new(), |e| e.values.join(","));
        let note = if why.is_empty() { format!("--{long} {value}") } else { format!("--{long} {value} ({why})") };
        self.row(key, raw, status, note);
        self.out.rows.last_mut().expect("just pushed").option = Some(long.to_string());
        self.out.options.push((long.to_string(), value, place));
    }
    fn ignore(&mut self, key: &str, why: &str) {
        if let Some(e) = self.get(key) {
            let v = e.values.join(",");
            self.row(key, v, "ignored", why.to_string());
        }
    }
    /// The local, global and terminal links of a dragonfly-like model
    /// (dragonfly, its custom and Dally forms, Dragonfly+, Slim Fly): their
    /// bandwidths in GiB/s and buffers in bytes of `packet`-byte packets.
    fn link_classes(&mut self, packet: u32) -> Result<(), String> {
        self.bandwidth_gib("local_bandwidth", "local-bandwidth")?;
        self.bandwidth_gib("global_bandwidth", "global-bandwidth")?;
        self.bandwidth_gib("cn_bandwidth", "terminal-bandwidth")?;
        self.buffer("local_vc_size", "local-buffer-packets", packet)?;
        self.buffer("global_vc_size", "global-buffer-packets", packet)?;
        self.ignore("cn_vc_size", "terminal links have no buffer: the NIC's source queue is unbounded");
        Ok(())
    }

    /// A bandwidth in GiB/s as bytes per ns.
    fn bandwidth_gib(&mut self, key: &str, long: &str) -> Result<(), String> {
        if let Some((x, e)) = self.num(key)? {
            let b = gib_per_s(x);
            self.set(key, Some(e), long, num(b), "converted", "GiB/s × 1.073741824 = bytes/ns");
        }
        Ok(())
    }
    /// A buffer in bytes as whole packets.
    fn buffer(&mut self, key: &str, long: &str, packet: u32) -> Result<(), String> {
        if let Some((bytes, e)) = self.whole(key)? {
            let n = (bytes / packet).max(1);
            let why = if bytes % packet == 0 {
                format!("{bytes} bytes / {packet}-byte packets")
            } else {
                format!("{bytes} bytes / {packet}-byte packets, rounded {}", if bytes < packet { "up" } else { "down" })
            };
            self.set(key, Some(e), long, n.to_string(), "converted", &why);
        }
        Ok(())
    }
}

/// A number as the shortest text that reads back the same.
fn num(x: f64) -> String {
    format!("{x}")
}

/// Reads `path` as a CODES configuration.
pub(crate) fn import(path: &Path) -> Result<Import, String> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("--codes-config {file}: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("--codes-config {file}: not a text file (not UTF-8)"))?;
    // As CODES chooses its front end: by the extension (and a `.conf`
    // holding the YAML form is read as one, not refused at its first line).
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let yaml = matches!(ext, "yaml" | "yml" | "json")
        || text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .is_some_and(|l| l.starts_with("schema_version"));
    let conf = if yaml { yaml::parse(&file, &text)? } else { conf::parse(&file, &text)? };
    filled(&conf)?;
    map(&conf, path.parent().unwrap_or(Path::new(".")))
}

/// Refuses an entry without a value, or with an empty one (`key: []`,
/// `key: [[]]`, `key: ""`, `key = "";`): every reader of an entry may then
/// take its first value as there.
fn filled(conf: &Conf) -> Result<(), String> {
    let entries = conf.groups.iter().flat_map(|g| &g.2).chain(&conf.params);
    match entries.into_iter().find(|e| e.values.is_empty() || e.values.iter().any(|v| v.trim().is_empty())) {
        Some(e) => Err(format!(
            "{}:{}: {} has an empty value: give it a value (or remove the line for its default)",
            conf.file,
            e.line,
            printable(&e.key)
        )),
        None => Ok(()),
    }
}

fn map(conf: &Conf, dir: &Path) -> Result<Import, String> {
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
            m.link_classes(packet)?;
            if let Some(e) = m.get("routing") {
                let r = match e.values[0].as_str() {
                    "minimal" => ("minimal", "taken"),
                    "nonminimal" => ("valiant", "converted"),
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
                    "par" => "progressive adaptive: decided again at the next router of the source group",
                    _ => "",
                };
                m.set("routing", Some(e), "routing", r.0.into(), r.1, why);
                if model == "dragonfly_custom" && matches!(r.0, "ugal" | "par") {
                    wiring::custom_threshold(&mut m, packet)?;
                }
            }
            m.out.options.insert(0, ("topology".into(), "dragonfly".into(), file.clone()));
            m.ignore(
                "num_vcs",
                "one virtual channel per hop of the longest route, against deadlock: --vcs, by default as the routing and the groups' wiring need",
            );
            m.ignore("minimal-bias", "not modelled");
            m.ignore("df-dally-vc", "one virtual channel per hop, as --vcs");
            m.ignore("self_msg_overhead", "a node's messages to itself are not simulated");
        }
        "dragonfly_plus" => wiring::plus(&mut m, reps, terminals, dir, packet)?,
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

/// Puts the options of `--codes-config FILE` (network only) before the
/// command line's (which replace them); prints the table unless `--quiet`.
/// Other models keep the option, for clap to refuse.
pub(crate) fn put_in(
    models: &Models,
    tokens: Vec<String>,
    origins: &mut Vec<(String, String)>,
) -> Result<Vec<String>, String> {
    if tokens.first().map(String::as_str) != Some("network") {
        return Ok(tokens);
    }
    let (mut file, mut rest) = (None, Vec::new());
    let mut it = tokens.into_iter().peekable();
    while let Some(t) = it.next() {
        let path = match t.as_str() {
            // Without a file, clap says the option needs a value.
            "--codes-config" if it.peek().is_some() => it.next(),
            t => t.strip_prefix("--codes-config=").map(String::from),
        };
        match path {
            Some(p) if file.is_some() => return Err(format!("--codes-config {p}: one CODES configuration at a time")),
            Some(p) => file = Some(p),
            None => rest.push(t),
        }
    }
    let Some(file) = file else { return Ok(rest) };
    let import = import(Path::new(&file))?;
    let opts = options(models, "network").unwrap_or_default();
    let named = groups(&rest[1..], &opts);
    let given: Vec<String> = named.iter().filter_map(|(n, _)| n.clone()).collect();
    // Another topology on the command line: the file's bandwidths and
    // buffers would be refused one by one as options of the wrong topology.
    let topology = |o: &(String, String, String)| (o.0 == "topology").then(|| o.1.clone());
    let theirs = named.iter().find(|(n, _)| n.as_deref() == Some("topology")).and_then(|(_, t)| t.last());
    if let (Some(file_topology), Some(t)) = (import.options.iter().find_map(topology), theirs) {
        let t = t.strip_prefix("--topology=").unwrap_or(t);
        if t != file_topology {
            return Err(format!(
                "--codes-config {file} is a {file_topology} (CODES model {}), but the command line gives \
                 --topology {}: leave --topology out (or --codes-config)",
                import.model,
                printable(t)
            ));
        }
    }
    // The file's adaptive threshold goes with an adaptive routing: another
    // routing on the command line drops it (it would be refused).
    let routing = named.iter().find(|(n, _)| n.as_deref() == Some("routing")).and_then(|(_, t)| t.last());
    let routing = routing.map(|t| t.strip_prefix("--routing=").unwrap_or(t));
    let adaptive = |r: &str| matches!(r, "ugal" | "ugal-l" | "par" | "progressive-adaptive" | "prog-adaptive");
    // So does the file's rail selection limit with adaptive rail selection.
    let rails = named.iter().find(|(n, _)| n.as_deref() == Some("rail-select")).and_then(|(_, t)| t.last());
    let rails = rails.map(|t| t.strip_prefix("--rail-select=").unwrap_or(t));
    let kept = |long: &str| match long {
        "ugal-threshold" => routing.map_or(true, adaptive),
        "rail-select-limit" => rails.map_or(true, |r| r == "adaptive"),
        _ => true,
    };
    let mut import = import;
    for r in import.rows.iter_mut().filter(|r| r.option.as_ref().is_some_and(|o| given.contains(o))) {
        r.from = "command line";
        r.note = format!("{} (replaced by the command line's --{})", r.note, r.option.as_deref().unwrap_or(""));
    }
    for r in import.rows.iter_mut().filter(|r| r.option.as_deref().is_some_and(|o| !kept(o))) {
        r.status = "ignored";
        r.note = format!("{} (dropped: the command line's choice does not use it)", r.note);
    }
    if !rest.iter().any(|t| t == "--quiet" || t == "-q") {
        eprint!("{}", import.table(&file));
        let over: Vec<&String> = import.options.iter().map(|o| &o.0).filter(|o| given.contains(o)).collect();
        if !over.is_empty() {
            let names: Vec<String> = over.iter().map(|o| format!("--{o}")).collect();
            eprintln!("  the command line's {} replace(s) the file's", names.join(", "));
        }
    }
    let mut out = vec![rest[0].clone()];
    for (long, value, place) in import.options.into_iter().filter(|o| !given.contains(&o.0) && kept(&o.0)) {
        out.push(format!("--{long}={value}"));
        origins.push((long, place));
    }
    out.extend(rest.into_iter().skip(1));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key line of every shipped YAML twin with its value replaced by
    /// an empty one (`[]`, `[[]]`, `{}`, `""`): the import refuses it with
    /// a message naming the file, or reads it (a block left empty), and
    /// never panics; a key that had a value of its own is always refused.
    #[test]
    fn empty_yaml_values_are_refused_not_panicked_on() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes");
        let mut twins = Vec::new();
        let mut dirs = vec![data];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "yaml") {
                    twins.push(p);
                }
            }
        }
        assert!(twins.len() >= 10, "{twins:?}");
        let tmp = std::env::temp_dir().join(format!("timewarp-yaml-empty-{}", std::process::id()));
        let (mut lines, mut refused) = (0, 0);
        for twin in &twins {
            // A copy beside copies of its connection files.
            let _ = std::fs::remove_dir_all(&tmp);
            std::fs::create_dir_all(&tmp).unwrap();
            for e in std::fs::read_dir(twin.parent().unwrap()).unwrap() {
                let p = e.unwrap().path();
                if p.is_file() {
                    std::fs::copy(&p, tmp.join(p.file_name().unwrap())).unwrap();
                }
            }
            let text = std::fs::read_to_string(twin).unwrap();
            let all: Vec<&str> = text.lines().collect();
            for (i, line) in all.iter().enumerate() {
                let code = line.split('#').next().unwrap_or("");
                let Some((key, value)) = code.split_once(':') else { continue };
                if key.trim().is_empty() || key.trim().starts_with('-') {
                    continue;
                }
                lines += 1;
                let leaf = !value.trim().is_empty() && !value.trim().starts_with('{');
                for empty in ["[]", "[[]]", "{}", "\"\""] {
                    let mut changed = all.clone();
                    let new = format!("{key}: {empty}");
                    changed[i] = &new;
                    let file = tmp.join("changed.yaml");
                    std::fs::write(&file, changed.join("\n")).unwrap();
                    let what = format!("{}:{} set to {empty}", twin.display(), i + 1);
                    match std::panic::catch_unwind(|| import(&file)) {
                        Err(_) => panic!("{what}: panicked"),
                        Ok(Err(e)) => {
                            refused += 1;
                            assert!(e.contains("changed.yaml") && !e.contains('\n'), "{what}: {e}");
                        }
                        Ok(Ok(_)) => assert!(!leaf, "{what}: an empty value was taken"),
                    }
                }
            }
        }
        let _ = std::fs::remove_dir_all(&tmp);
        assert!(lines >= 150 && refused >= 4 * lines / 2, "{lines} lines, {refused} refused");
    }

    #[test]
    fn gib_per_s_is_two_to_the_thirty_bytes_per_second() {
        assert_eq!(gib_per_s(1.0), 1.073741824);
        assert_eq!(gib_per_s(5.25), 5.637144576);
        assert_eq!(gib_per_s(1.5), 1.610612736);
        assert_eq!(gib_per_s(16.0), 17.179869184);
    }
}
