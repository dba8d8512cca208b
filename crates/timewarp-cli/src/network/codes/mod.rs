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
//! is printed as a table on stderr (none with `--quiet`). docs/codes.md,
//! "CODES configurations", has the mapping and its reasons.
//!
//! Here: reading a file (`import`, by `conf.rs` or `yaml.rs`), the `Map`
//! its keys are mapped with, and `put_in`, the options before the command
//! line's. `mapping.rs` maps the keys (the fat-tree's in `fattree_keys.rs`,
//! Slim Fly's in `slimfly_keys.rs`, the wired dragonflies' in `wiring.rs`,
//! CODES's defaults in `defaults.rs`); `table.rs` is what a configuration
//! becomes (`Import`) and its table.

use std::path::Path;

mod conf;
mod defaults;
mod fattree_keys;
mod mapping;
mod slimfly_keys;
mod table;
mod wiring;
mod yaml;

pub(crate) use table::Import;
use table::Row;

use crate::registry::Models;
use crate::run_options::{groups, options};
use timewarp::text::printable;

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
        self.nic_buffer(packet)
    }

    /// `cn_vc_size`: the router's terminal input buffer, in bytes (whole
    /// packets of `packet` bytes), credited back to the NIC.
    pub(super) fn nic_buffer(&mut self, packet: u32) -> Result<(), String> {
        if let Some((bytes, e)) = self.whole("cn_vc_size")? {
            if bytes < packet {
                return Err(format!(
                    "{}: cn_vc_size {bytes} bytes holds no packet of packet_size {packet} bytes (timewarp's NIC \
                     buffer holds whole packets): make cn_vc_size at least {packet}",
                    self.place(e)
                ));
            }
            let why = format!(
                "bytes: {} packets of {packet} at each router's input from a NIC, which sends only with a credit \
                 for one (CODES's vc_occupancy)",
                bytes / packet
            );
            self.set("cn_vc_size", Some(e), "nic-buffer", bytes.to_string(), "taken", &why);
        }
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
    mapping::map(&conf, path.parent().unwrap_or(Path::new(".")))
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
    let adaptive =
        |r: &str| matches!(r, "ugal" | "ugal-l" | "ugal-codes" | "par" | "progressive-adaptive" | "prog-adaptive");
    // So does the file's rail selection limit with adaptive rail selection.
    let rails = named.iter().find(|(n, _)| n.as_deref() == Some("rail-select")).and_then(|(_, t)| t.last());
    let rails = rails.map(|t| t.strip_prefix("--rail-select=").unwrap_or(t));
    let lp_io = rest.iter().any(|t| t == "--lp-io-dir" || t.starts_with("--lp-io-dir="));
    let kept = |long: &str| match long {
        "ugal-threshold" => routing.map_or(true, adaptive),
        "lp-io-lps" | "lp-io-grid" => lp_io,
        "rail-select-limit" => rails.map_or(true, |r| r == "adaptive"),
        _ => true,
    };
    let mut import = import;
    // CODES replays Conceptual benchmarks (`--workload_type=conc-online`,
    // as its own tests run the MILC + Jacobi study) with every message
    // eager: model-net-mpi-replay.c sets EAGER_THRESHOLD to INT64_MAX.
    let workload = named.iter().find(|(n, _)| n.as_deref() == Some("codes-workload")).and_then(|(_, t)| t.last());
    let workload = workload.map(|t| t.strip_prefix("--codes-workload=").unwrap_or(t));
    let conceptual = workload
        .and_then(|w| super::codes_apps::read(Path::new(w)).ok())
        .is_some_and(|lines| lines.iter().any(|l| l.app.starts_with("conceptual-")));
    if conceptual {
        conc_online(&mut import);
    }
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

/// The import's eager limit as CODES's `conc-online` replay has it: none.
fn conc_online(import: &mut Import) {
    for o in import.options.iter_mut().filter(|o| o.0 == "eager-limit") {
        o.1 = "none".to_string();
    }
    for r in import.rows.iter_mut().filter(|r| r.option.as_deref() == Some("eager-limit")) {
        r.note = "--eager-limit none (model-net-mpi-replay.c replays Conceptual benchmarks, conc-online, with \
                  every message eager: EAGER_THRESHOLD = INT64_MAX; --codes-workload names one)"
            .to_string();
    }
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
