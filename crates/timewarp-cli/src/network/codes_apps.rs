//! CODES's application studies as CODES's `model-net-mpi-replay` reads
//! them: a workload file (`--codes-workload`, CODES's
//! `--workload_conf_file`: per job a line `RANKS APP QOS MEAN_INTERVAL`)
//! naming SWM skeletons and Conceptual benchmarks by name or by skeleton
//! JSON file, placed by an allocation file (`--codes-alloc`, CODES's
//! `--alloc_file`: per job a line of node numbers). Each job becomes a
//! `--job` of its own (job_args.rs); its ranks' programs are the native
//! skeletons of timewarp-models (`network::skeletons`).
//! docs/codes-applications.md is the guide.

use serde_json::Value;
use std::path::{Path, PathBuf};
use timewarp::text::printable;
use timewarp_models::network::skeletons::{
    AllReduce, Incast, Jacobi3d, Lammps, LayeredAllBcast, ManyToMany, Milc, NearestNeighbor, Nekbone,
    PeriodicAggressor, Spread,
};
use timewarp_models::network::Workload;

/// One job's line of a workload file.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AppLine {
    /// 1-based line in the file.
    pub line: usize,
    pub ranks: u32,
    /// The application: a name (`milc`, `conceptual-jacobi3d`) or a skeleton JSON file.
    pub app: String,
    /// The QoS class (not modelled: the network has no traffic classes).
    pub qos: i64,
}

/// The SWM skeletons CODES knows by name (`get_default_path` of its
/// `codes-online-comm-wrkld.cxx`), with the file CODES reads for each from
/// its SWM data directory.
const SWM_NAMES: [(&str, &str); 17] = [
    ("lammps", "lammps_workload.json"),
    ("lammps1", "lammps_workload1.json"),
    ("nekbone", "workload.json"),
    ("nekbone1", "workload1.json"),
    ("nearest_neighbor", "skeleton.json"),
    ("incast", "incast.json"),
    ("incast1", "incast1.json"),
    ("incast2", "incast2.json"),
    ("spread", "spread_workload.json"),
    ("allreduce", "allreduce_workload.json"),
    ("allreduce32", "allreduce32_workload.json"),
    ("allreduce256", "allreduce256_workload.json"),
    ("many_to_many", "many_to_many_workload.json"),
    ("many_to_many1", "many_to_many_workload1.json"),
    ("milc", "milc_skeleton.json"),
    ("periodic_aggressor", "periodic_aggressor.json"),
    ("layered_allbcast", "layered_allbcast.json"),
];

/// A CMake placeholder (`@NAME@`) left in a template's text.
fn placeholder(text: &str) -> Option<&str> {
    let start = text.find('@')?;
    let rest = &text[start + 1..];
    let end = rest.find('@')?;
    let name = &rest[..end];
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
        .then(|| &text[start..start + end + 2])
}

/// Reads a workload file: a line per job of 4 fields (CODES refuses
/// others); blank lines are skipped.
pub(crate) fn read(path: &Path) -> Result<Vec<AppLine>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--codes-workload {}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let at = format!("{}:{}", path.display(), i + 1);
        if let Some(p) = placeholder(raw) {
            return Err(format!(
                "{at}: '{}' is a CMake placeholder: this is a template (*.in); fill it in (e.g. with the skeleton \
                 file's path) first",
                printable(p)
            ));
        }
        let w: Vec<&str> = raw.split_whitespace().collect();
        if w.is_empty() {
            continue;
        }
        if w.len() != 4 {
            return Err(format!(
                "{at}: expected 4 fields (RANKS APP QOS MEAN_INTERVAL, as CODES's workload files), got {}",
                w.len()
            ));
        }
        let ranks: u32 = w[0]
            .parse()
            .ok()
            .filter(|&r| r > 0)
            .ok_or_else(|| format!("{at}: ranks '{}' must be a whole number >= 1", printable(w[0])))?;
        let qos: i64 =
            w[2].parse().map_err(|_| format!("{at}: QoS class '{}' is not a whole number", printable(w[2])))?;
        w[3].parse::<f64>().map_err(|_| format!("{at}: mean interval '{}' is not a number", printable(w[3])))?;
        if w[1].starts_with("synthetic") {
            return Err(format!(
                "{at}: CODES's synthetic jobs are not read from workload files; give them as --job synthetic:load=L,\
                 nodes=N"
            ));
        }
        out.push(AppLine { line: i + 1, ranks, app: w[1].to_string(), qos });
    }
    if out.is_empty() {
        return Err(format!(
            "--codes-workload {}: no jobs (a line per job: RANKS APP QOS MEAN_INTERVAL)",
            path.display()
        ));
    }
    Ok(out)
}

/// Where a job's application is defined: a skeleton JSON file (SWM) or a
/// key of `conceptual.json`. Relative paths and CODES's data directories
/// (SWM's and Union's, where CODES finds `milc_skeleton.json` and
/// `conceptual.json`) are the workload file's directory.
fn source(dir: &Path, app: &str) -> Result<(PathBuf, Option<String>), String> {
    if app.ends_with(".json") {
        return Ok((dir.join(app), None));
    }
    if let Some(bench) = app.strip_prefix("conceptual-") {
        return Ok((dir.join("conceptual.json"), Some(bench.to_string())));
    }
    match SWM_NAMES.iter().find(|n| n.0 == app) {
        Some((_, file)) => Ok((dir.join(file), None)),
        None => {
            let names: Vec<&str> = SWM_NAMES.iter().map(|n| n.0).collect();
            Err(format!(
                "unknown application '{}': give an SWM skeleton ({}), conceptual-BENCH (a key of conceptual.json) or \
                 a skeleton .json file",
                printable(app),
                names.join(", ")
            ))
        }
    }
}

/// The files a workload file names (for checkpoints), as far as they resolve.
pub(crate) fn inputs(path: &Path) -> Vec<PathBuf> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut out = vec![path.to_path_buf()];
    for l in read(path).unwrap_or_default() {
        if let Ok((f, _)) = source(dir, &l.app) {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

/// A JSON number (or a number in a string, as boost's property tree reads
/// both) at `key` of `cfg`, or `default` when absent.
fn number(cfg: &Value, key: &str, default: Option<f64>, file: &str) -> Result<f64, String> {
    match cfg.get(key) {
        None => default.ok_or_else(|| format!("{file}: jobs.cfg.{key} is missing")),
        Some(Value::Number(n)) => Ok(n.as_f64().unwrap_or(f64::NAN)),
        Some(Value::String(s)) if s.trim().parse::<f64>().is_ok() => Ok(s.trim().parse().unwrap_or(f64::NAN)),
        Some(v) => Err(format!("{file}: jobs.cfg.{key} must be a number, got {v}")),
    }
}

fn whole(cfg: &Value, key: &str, default: Option<u32>, file: &str) -> Result<u32, String> {
    let x = number(cfg, key, default.map(f64::from), file)?;
    if x >= 0.0 && x.fract() == 0.0 && x <= u32::MAX as f64 {
        Ok(x as u32)
    } else {
        Err(format!("{file}: jobs.cfg.{key} must be a whole number >= 0, got {x}"))
    }
}

/// MILC from its skeleton JSON (SWM's defaults where a key is absent, as
/// `MilcSWMUserCode` reads it).
fn milc(root: &Value, file: &str, seed: u64) -> Result<Milc, String> {
    let cfg = &root["jobs"]["cfg"];
    let dims = dimensions(cfg, file)?;
    let randomize = flag(cfg, "randomize_communication_order", false, file)?;
    Ok(Milc {
        ranks: whole(&root["jobs"], "size", Some(1), file)?,
        iterations: whole(cfg, "iteration_cnt", Some(1), file)?,
        compute_cycles: whole(cfg, "compute_delay", Some(1), file)? as f64,
        // CODES reads cpu_freq without a default: a skeleton without it fails to load.
        cpu_hz: number(cfg, "cpu_freq", None, file)?,
        dims,
        msg_size: whole(cfg, "msg_size", Some(0), file)?,
        max_distance: whole(cfg, "max_dimension_distance", Some(0), file)?,
        randomize,
        seed,
    })
}

/// A boolean at `key` (`default` when absent): true or false, or as boost's
/// property tree also reads them, 1 or 0 and those words in strings.
fn flag(cfg: &Value, key: &str, default: bool, file: &str) -> Result<bool, String> {
    match cfg.get(key) {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::Number(n)) if n.as_u64() == Some(0) || n.as_u64() == Some(1) => Ok(n.as_u64() == Some(1)),
        Some(Value::String(s)) if ["true", "1"].contains(&s.as_str()) => Ok(true),
        Some(Value::String(s)) if ["false", "0"].contains(&s.as_str()) => Ok(false),
        Some(v) => Err(format!("{file}: jobs.cfg.{key} must be true or false, got {v}")),
    }
}

/// The grid skeletons' dimensions: `dimension_sizes`, as long as `dimension_cnt` says.
fn dimensions(cfg: &Value, file: &str) -> Result<Vec<u32>, String> {
    let dims = cfg
        .get("dimension_sizes")
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty())
        .ok_or_else(|| format!("{file}: jobs.cfg.dimension_sizes must be a non-empty list"))?
        .iter()
        .map(|d| d.as_u64().and_then(|d| u32::try_from(d).ok()))
        .collect::<Option<Vec<u32>>>()
        .ok_or_else(|| format!("{file}: jobs.cfg.dimension_sizes must hold whole numbers"))?;
    let dimension_cnt = whole(cfg, "dimension_cnt", Some(0), file)?;
    if dimension_cnt as usize != dims.len() {
        return Err(format!(
            "{file}: dimension_cnt {dimension_cnt} but dimension_sizes has {} (SWM asserts they agree)",
            dims.len()
        ));
    }
    Ok(dims)
}

/// Nearest neighbour from its skeleton JSON (`NearestNeighborSWMUserCode`'s
/// defaults; what it asserts against refused).
fn nearest_neighbor(root: &Value, file: &str, seed: u64) -> Result<NearestNeighbor, String> {
    let cfg = &root["jobs"]["cfg"];
    if whole(cfg, "noop_cnt", Some(1), file)? != 0 {
        return Err(format!("{file}: noop_cnt must be 0 (its default is 1, and SWM asserts on a no-op under CODES)"));
    }
    if !flag(cfg, "synchronous", true, file)? {
        return Err(format!("{file}: synchronous false sends nothing under CODES (SWM asserts); give true"));
    }
    Ok(NearestNeighbor {
        ranks: whole(&root["jobs"], "size", Some(1), file)?,
        iterations: whole(cfg, "iteration_cnt", Some(1), file)?,
        dims: dimensions(cfg, file)?,
        msg_size: whole(cfg, "msg_size", Some(0), file)?,
        max_distance: whole(cfg, "max_dimension_distance", Some(0), file)?,
        iterations_per_sync: whole(cfg, "iterations_per_sync", Some(1), file)?,
        randomize: flag(cfg, "randomize_communication_order", false, file)?,
        seed,
    })
}

/// A `[FIRST, LAST]` pair of ranks at `key` (SWM's `*_rank_id_interval`).
fn interval(cfg: &Value, key: &str, file: &str) -> Result<(u32, u32), String> {
    cfg.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_u64().and_then(|x| u32::try_from(x).ok())).collect())
        .filter(|v: &Vec<u32>| v.len() == 2)
        .map(|v| (v[0], v[1]))
        .ok_or_else(|| format!("{file}: jobs.cfg.{key} must be [FIRST, LAST] (ranks)"))
}

/// `start_delay_max` where `scattered_start` is set (else 0), which SWM
/// asserts is positive then.
fn start_delay(cfg: &Value, file: &str) -> Result<u32, String> {
    let scattered = flag(cfg, "scattered_start", false, file)?;
    let max = whole(cfg, "start_delay_max", Some(0), file)?;
    if scattered && max == 0 {
        return Err(format!("{file}: scattered_start needs start_delay_max > 0 (SWM asserts it)"));
    }
    Ok(if scattered { max } else { 0 })
}

/// Incast from its skeleton JSON (`AllToOneSWMUserCode`'s defaults).
fn incast(root: &Value, file: &str, seed: u64) -> Result<Incast, String> {
    let cfg = &root["jobs"]["cfg"];
    Ok(Incast {
        ranks: whole(&root["jobs"], "size", Some(1), file)?,
        iterations: whole(cfg, "iteration_cnt", Some(1), file)?,
        dst: whole(cfg, "dst_rank_id", Some(0), file)?,
        sources: interval(cfg, "src_rank_id_interval", file)?,
        bytes: whole(cfg, "msg_req_bytes", Some(0), file)?,
        compute_cycles: whole(cfg, "compute_delay", Some(0), file)? as f64,
        cpu_hz: number(cfg, "cpu_freq", None, file)?,
        any_source: flag(cfg, "use_any_src", false, file)?,
        blocking: flag(cfg, "blocking_comm", false, file)?,
        start_delay_max: start_delay(cfg, file)?,
        seed,
    })
}

/// Many-to-many from its skeleton JSON (`ManyToManySWMUserCode`'s defaults).
fn many_to_many(root: &Value, file: &str, seed: u64) -> Result<ManyToMany, String> {
    let cfg = &root["jobs"]["cfg"];
    Ok(ManyToMany {
        ranks: whole(&root["jobs"], "size", Some(1), file)?,
        iterations: whole(cfg, "iteration_cnt", Some(1), file)?,
        sources: interval(cfg, "src_rank_id_interval", file)?,
        dests: interval(cfg, "dst_rank_id_interval", file)?,
        bytes: whole(cfg, "msg_req_bytes", Some(0), file)?,
        compute_cycles: whole(cfg, "compute_delay", Some(0), file)? as f64,
        cpu_hz: number(cfg, "cpu_freq", None, file)?,
        fixed_pairs: flag(cfg, "fixed_pairs", false, file)?,
        start_delay_max: start_delay(cfg, file)?,
        seed,
    })
}

/// Spread from its skeleton JSON (`OneToManySWMUserCode`'s defaults).
fn spread(root: &Value, file: &str, seed: u64) -> Result<Spread, String> {
    let cfg = &root["jobs"]["cfg"];
    Ok(Spread {
        ranks: whole(&root["jobs"], "size", Some(1), file)?,
        iterations: whole(cfg, "iteration_cnt", Some(1), file)?,
        src: whole(cfg, "src_rank_id", Some(0), file)?,
        dests: interval(cfg, "dst_rank_id_interval", file)?,
        bytes: whole(cfg, "msg_req_bytes", Some(0), file)?,
        compute_cycles: whole(cfg, "compute_delay", Some(0), file)? as f64,
        cpu_hz: number(cfg, "cpu_freq", None, file)?,
        blocking: flag(cfg, "blocking_comm", false, file)?,
        start_delay_max: start_delay(cfg, file)?,
        seed,
    })
}

/// The all-reduce benchmark from its skeleton JSON (`AllReduceSWMUserCode`'s
/// defaults: 1024 bytes).
fn allreduce(root: &Value, file: &str) -> Result<AllReduce, String> {
    let cfg = &root["jobs"]["cfg"];
    Ok(AllReduce {
        ranks: whole(&root["jobs"], "size", Some(1), file)?,
        iterations: whole(cfg, "iteration_cnt", Some(1), file)?,
        bytes: whole(cfg, "msg_req_bytes", Some(1024), file)?,
        compute_cycles: whole(cfg, "compute_delay", Some(0), file)? as f64,
        cpu_hz: number(cfg, "cpu_freq", None, file)?,
    })
}

/// The layered all-broadcast from its skeleton JSON (`LayeredAllBroadcast`'s
/// defaults; it computes nothing, but CODES reads `cpu_freq` for every
/// skeleton and fails without it).
fn layered_allbcast(root: &Value, file: &str) -> Result<LayeredAllBcast, String> {
    let cfg = &root["jobs"]["cfg"];
    number(cfg, "cpu_freq", None, file)?;
    Ok(LayeredAllBcast {
        ranks: whole(&root["jobs"], "size", Some(1), file)?,
        iterations: whole(cfg, "iteration_cnt", Some(1), file)?,
        layers: whole(cfg, "total_layers", Some(50), file)?,
        initial_size: number(cfg, "initial_layer_size", Some(8192.0), file)?,
        growth: number(cfg, "layer_growth_rate", Some(1.12), file)?,
        compression: number(cfg, "first_comm_compression_rate", Some(32.0), file)?,
    })
}

/// Nekbone from its skeleton JSON (`NEKBONESWMUserCode` reads each key
/// with a default of 1; `iteration_cnt`, `NeighborCount` and `cpu_freq`
/// are read there but change nothing it sends).
fn nekbone(root: &Value, file: &str) -> Result<Nekbone, String> {
    let cfg = &root["jobs"]["cfg"];
    let one = |key: &str| whole(cfg, key, Some(1), file);
    Ok(Nekbone {
        ranks: whole(&root["jobs"], "size", Some(1), file)?,
        r: [one("Rx")?, one("Ry")?, one("Rz")?],
        e: [one("Ex")?, one("Ey")?, one("Ez")?],
        poly: (one("Pbegin")?, one("Pend")?, one("Pstep")?),
        cg_count: one("CGcount")?,
        dof_bytes: one("ByteSizeOf1DOF")?,
    })
}

/// LAMMPS from its skeleton JSON (`LAMMPS_SWM`'s defaults; `cpu_freq`,
/// which CODES requires, converts both SWM's model and CODES's cycles).
fn lammps(root: &Value, file: &str) -> Result<Lammps, String> {
    let cfg = &root["jobs"]["cfg"];
    let one = |key: &str| whole(cfg, key, Some(1), file);
    Ok(Lammps {
        ranks: whole(&root["jobs"], "size", Some(1), file)?,
        replicas: [one("num_x_replicas")?, one("num_y_replicas")?, one("num_z_replicas")?],
        timesteps: whole(cfg, "num_time_steps", Some(100), file)?,
        router_hz: number(cfg, "router_freq", Some(800e6), file)?,
        cpu_hz: number(cfg, "cpu_freq", None, file)?,
        speedup: number(cfg, "cpu_sim_speedup", Some(1.0), file)?,
    })
}

/// The periodic aggressor from its skeleton JSON (`PeriodicAggressor`'s
/// defaults; its LAMMPS part read as `lammps` reads LAMMPS's, its phases
/// `lammps_iters_per_iter` long; `incast_src_rank_id_interval` has no
/// default).
fn periodic_aggressor(root: &Value, file: &str) -> Result<PeriodicAggressor, String> {
    let cfg = &root["jobs"]["cfg"];
    let mut lammps = lammps(root, file)?;
    lammps.timesteps = whole(cfg, "lammps_iters_per_iter", Some(1), file)?;
    Ok(PeriodicAggressor {
        lammps,
        iterations: whole(cfg, "iteration_cnt", Some(1), file)?,
        incast_size: whole(cfg, "incast_size", Some(1), file)?,
        incast_rounds: whole(cfg, "incast_iters_per_iter", Some(5), file)?,
        dst: whole(cfg, "incast_dest_rank_id", Some(0), file)?,
        sources: interval(cfg, "incast_src_rank_id_interval", file)?,
        bytes: whole(cfg, "incast_msg_req_bytes", Some(0), file)?,
    })
}

/// Job `l`'s ranks' programs (`dir`: the workload file's directory; `seed`
/// shuffles a randomised skeleton's order).
pub(crate) fn workload(dir: &Path, l: &AppLine, seed: u64) -> Result<Workload, String> {
    let (file, bench) = source(dir, &l.app)?;
    let name = file.display().to_string();
    let text = std::fs::read_to_string(&file).map_err(|e| {
        let hint = match l.app.ends_with(".json") || bench.is_some() {
            true => "",
            false => "; CODES reads it from SWM's data directory: copy it next to the workload file",
        };
        format!("{name} (application '{}'): {e}{hint}", l.app)
    })?;
    let root: Value = serde_json::from_str(&text).map_err(|e| format!("{name}: not JSON: {e}"))?;
    if let Some(bench) = bench {
        let entry = root.get(&bench).ok_or_else(|| format!("{name} has no benchmark '{}'", printable(&bench)))?;
        let argv: Vec<String> = entry
            .get("argv")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{name}: {bench}.argv must be a list"))?
            .iter()
            .map(|v| v.as_str().map(str::to_string).ok_or_else(|| format!("{name}: {bench}.argv must hold strings")))
            .collect::<Result<_, _>>()?;
        if let Some(argc) = entry.get("argc").and_then(Value::as_u64) {
            if argc as usize != argv.len() {
                return Err(format!("{name}: {bench}.argc is {argc} but argv has {} words", argv.len()));
            }
        }
        return match bench.as_str() {
            "jacobi3d" => {
                let j = Jacobi3d::from_argv(&argv).map_err(|e| format!("{name}: {e}"))?;
                j.workload(l.ranks).map_err(|e| format!("{name}: {e}"))
            }
            b => Err(format!(
                "{name}: Conceptual benchmark '{}' has no native skeleton here (modelled: jacobi3d)",
                printable(b)
            )),
        };
    }
    let app = match l.app.ends_with(".json") {
        true => root["jobs"]["cfg"]["app"].as_str().ok_or_else(|| format!("{name}: jobs.cfg.app is missing"))?,
        false => l.app.as_str(),
    };
    let size = |ranks: u32| {
        if ranks == l.ranks {
            Ok(())
        } else {
            Err(format!(
                "{name}: jobs.size is {ranks} but the workload file's line {} gives {} ranks; make them agree",
                l.line, l.ranks
            ))
        }
    };
    match app {
        "milc" => {
            let m = milc(&root, &name, seed)?;
            size(m.ranks)?;
            m.workload().map_err(|e| format!("{name}: {e}"))
        }
        "nearest_neighbor" => {
            let n = nearest_neighbor(&root, &name, seed)?;
            size(n.ranks)?;
            n.workload().map_err(|e| format!("{name}: {e}"))
        }
        "incast" | "incast1" | "incast2" => {
            let i = incast(&root, &name, seed)?;
            size(i.ranks)?;
            i.workload().map_err(|e| format!("{name}: {e}"))
        }
        "nekbone" | "nekbone1" => {
            let n = nekbone(&root, &name)?;
            size(n.ranks)?;
            n.workload().map_err(|e| format!("{name}: {e}"))
        }
        "many_to_many" | "many_to_many1" => {
            let m = many_to_many(&root, &name, seed)?;
            size(m.ranks)?;
            m.workload().map_err(|e| format!("{name}: {e}"))
        }
        "spread" => {
            let s = spread(&root, &name, seed)?;
            size(s.ranks)?;
            s.workload().map_err(|e| format!("{name}: {e}"))
        }
        "allreduce" | "allreduce32" | "allreduce256" => {
            let a = allreduce(&root, &name)?;
            size(a.ranks)?;
            a.workload().map_err(|e| format!("{name}: {e}"))
        }
        "layered_allbcast" => {
            let a = layered_allbcast(&root, &name)?;
            size(a.ranks)?;
            a.workload().map_err(|e| format!("{name}: {e}"))
        }
        "lammps" | "lammps1" => {
            let m = lammps(&root, &name)?;
            size(m.ranks)?;
            m.workload().map_err(|e| format!("{name}: {e}"))
        }
        "periodic_aggressor" => {
            let a = periodic_aggressor(&root, &name)?;
            size(a.lammps.ranks)?;
            a.workload().map_err(|e| format!("{name}: {e}"))
        }
        a => Err(format!(
            "{name}: SWM skeleton '{}' has no native model here (modelled: milc, nearest_neighbor, incast, nekbone, \
             many_to_many, spread, allreduce, layered_allbcast, lammps, periodic_aggressor, and conceptual-jacobi3d)",
            printable(a)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CODES's own files (tests/data/codes/workloads/, as in CODES's
    /// repository) read whole: the MILC + Jacobi test's two jobs, each as
    /// its skeleton's definition sends.
    #[test]
    fn codes_test_files_build_their_skeletons() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes/workloads");
        let lines = read(&dir.join("jacobi_MILC.workload.conf")).unwrap();
        let apps: Vec<(u32, &str, i64)> = lines.iter().map(|l| (l.ranks, l.app.as_str(), l.qos)).collect();
        assert_eq!(apps, vec![(36, "conceptual-jacobi3d", 1), (36, "milc", 1)]);
        let p2p = |w: &Workload| -> (u64, u64) {
            let m = w.sends.iter().flatten().filter(|m| m.tag < timewarp_models::network::COLLECTIVE_TAG);
            m.fold((0, 0), |(n, b), m| (n + 1, b + m.bytes as u64))
        };
        // conceptual.json: 4x3x3 blocks, 39 iterations of 6 planes of 50000 doubles.
        let jacobi = workload(&dir, &lines[0], 1).unwrap();
        assert_eq!(p2p(&jacobi), (36 * 39 * 6, 36 * 39 * 6 * 50_000 * 8));
        // milc_skeleton.json: 2x2x3x3, 120 iterations of 2 x 8 messages of 497664 bytes.
        let milc = workload(&dir, &lines[1], 1).unwrap();
        assert_eq!(p2p(&milc), (36 * 120 * 16, 36 * 120 * 16 * 497_664));
        let kb = read(&dir.join("kb.dfdally-72-milc-small.workload.conf")).unwrap();
        assert_eq!(p2p(&workload(&dir, &kb[0], 1).unwrap()), (72 * 10 * 16, 72 * 10 * 16 * 4096));
    }

    /// SWM's own Nekbone file (the one CODES reads for `nekbone`) read as
    /// SWM reads it; too large (13^3 ranks) to build in a test, so its
    /// parameters and one inner rank's gather-scatter are checked.
    #[test]
    fn swm_nekbone_file_reads_as_swm_reads_it() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes/workloads/swm");
        let text = std::fs::read_to_string(dir.join("workload.json")).unwrap();
        let n = nekbone(&serde_json::from_str(&text).unwrap(), "workload.json").unwrap();
        assert_eq!((n.ranks, n.r, n.e, n.poly, n.cg_count, n.dof_bytes), (2197, [13; 3], [13; 3], (8, 12, 3), 100, 8));
        // Rank (6,6,6): 26 neighbours; at order 8 a face shares (13*8+1)^2 DOFs, an edge 105, a corner 1.
        let loads = n.loads(6 + 13 * 6 + 169 * 6, 8).unwrap();
        let bytes: u64 = loads.iter().map(|l| l.1 as u64).sum();
        assert_eq!((loads.len(), bytes), (26, (6 * 105 * 105 + 12 * 105 + 8) * 8));
    }

    /// SWM's benchmark files (the ones CODES reads for `many_to_many`,
    /// `many_to_many1`, `spread`, `allreduce`, `allreduce32`, `allreduce256`,
    /// `layered_allbcast` and `nekbone1`) found by name and read as SWM
    /// reads them; each builds on its own size.
    #[test]
    fn swm_benchmark_files_read_as_swm_reads_them() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes/workloads/swm");
        let json = |name: &str| -> Value {
            let (file, _) = source(&dir, name).unwrap();
            serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
        };
        for (name, iterations) in [("many_to_many", 2), ("many_to_many1", 36)] {
            let m = many_to_many(&json(name), name, 1).unwrap();
            assert_eq!((m.ranks, m.iterations, m.sources, m.dests), (256, iterations, (128, 255), (0, 127)));
            assert_eq!((m.bytes, m.fixed_pairs, m.start_delay_max, m.cpu_hz), (4_194_304, true, 0, 4e9));
        }
        for (name, ranks, iterations, cycles, hz) in [
            ("allreduce", 32, 100, 0.0, 4e9),
            ("allreduce32", 32, 10, 1000.0, 1e9),
            ("allreduce256", 256, 10, 1000.0, 1e9),
        ] {
            let a = allreduce(&json(name), name).unwrap();
            assert_eq!(
                (a.ranks, a.iterations, a.bytes, a.compute_cycles, a.cpu_hz),
                (ranks, iterations, 8, cycles, hz)
            );
        }
        let s = spread(&json("spread"), "spread", 1).unwrap();
        assert_eq!((s.ranks, s.iterations, s.src, s.dests, s.bytes), (64, 50, 63, (0, 62), 8));
        assert_eq!((s.compute_cycles, s.cpu_hz, s.blocking, s.start_delay_max), (10_000.0, 4e9, false, 0));
        // SWM reads first_comm_compression_rate (the file's grad_compression_rate
        // is not read): its default, 32, the same value.
        let l = layered_allbcast(&json("layered_allbcast"), "layered_allbcast").unwrap();
        assert_eq!(
            (l.ranks, l.iterations, l.layers, l.initial_size, l.growth, l.compression),
            (32, 10, 50, 8192.0, 1.12, 32.0)
        );
        let n = nekbone(&json("nekbone1"), "nekbone1").unwrap();
        assert_eq!((n.ranks, n.r, n.e, n.poly, n.cg_count, n.dof_bytes), (729, [9; 3], [13; 3], (8, 12, 3), 15, 8));
        for (name, ranks) in [("many_to_many", 256), ("allreduce256", 256), ("spread", 64), ("layered_allbcast", 32)] {
            let line = AppLine { line: 1, ranks, app: name.into(), qos: 0 };
            let w = workload(&dir, &line, 1).unwrap();
            assert_eq!(w.ranks(), ranks, "{name}");
        }
    }

    /// SWM's LAMMPS files (the ones CODES reads for `lammps` and `lammps1`)
    /// read as `LAMMPS_SWM` reads them; 2048 ranks, too many to build here.
    #[test]
    fn swm_lammps_files_read_as_swm_reads_them() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes/workloads/swm");
        for (name, steps) in [("lammps", 30), ("lammps1", 10)] {
            let (file, _) = source(&dir, name).unwrap();
            let text = std::fs::read_to_string(&file).unwrap();
            let l = lammps(&serde_json::from_str(&text).unwrap(), name).unwrap();
            assert_eq!((l.ranks, l.replicas, l.timesteps), (2048, [3, 3, 3], steps), "{name}");
            assert_eq!((l.router_hz, l.cpu_hz, l.speedup), (800e6, 4e9, 1e6), "{name}");
        }
    }

    /// SWM's periodic aggressor file (the one CODES reads for
    /// `periodic_aggressor`) read as `PeriodicAggressor` reads it; its 2048
    /// ranks plan (the bursts' tags fit, the decomposition is SWM's LAMMPS').
    #[test]
    fn swm_periodic_aggressor_file_reads_as_swm_reads_it() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes/workloads/swm");
        let (file, _) = source(&dir, "periodic_aggressor").unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        let a = periodic_aggressor(&serde_json::from_str(&text).unwrap(), "periodic_aggressor").unwrap();
        let l = &a.lammps;
        assert_eq!((l.ranks, l.replicas, l.timesteps, a.iterations), (2048, [3, 3, 3], 1, 1));
        assert_eq!((a.incast_size, a.incast_rounds, a.dst, a.sources, a.bytes), (100, 5, 99, (0, 98), 1_310_720));
        assert_eq!(a.timesteps(), Ok(2));
    }

    #[test]
    fn placeholders_are_found() {
        assert_eq!(placeholder("72 @CMAKE_CURRENT_BINARY_DIR@/x.json 1 0"), Some("@CMAKE_CURRENT_BINARY_DIR@"));
        assert_eq!(placeholder("36 milc 1 0"), None);
        assert_eq!(placeholder("a@b.c"), None);
    }
}
