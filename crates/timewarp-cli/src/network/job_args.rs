//! `run network --job SPEC ...`: several jobs on one network, each placed
//! on its own nodes, and (`--baseline-alone`) each run alone on the same
//! nodes first, for its slowdown. The form of SPEC is in
//! [`JOB_HELP`] and docs/network-workloads.md, "Several jobs".

use std::path::Path;
use std::sync::Arc;
use timewarp_models::network::{
    read_mapping, DumpiOptions, DumpiTime, Job, Jobs, Mapping, Network, Topology, Workload, NO_JOB,
};

/// `--job`'s help.
pub(crate) const JOB_HELP: &str = "A job sharing the network (repeat for several): KIND[:KEY=VALUE,...][@PLACEMENT]. \
KIND: halo3d, allreduce, alltoall (keys ranks=N, iterations=I, compute-ns=NS, bytes=B: halo bytes of halo3d, \
message bytes otherwise), trace or dumpi (dir=PATH; dumpi also time=wall|cpu, scale=F), synthetic (load=L, \
nodes=N [default: every node left]; uniform traffic among its own nodes). PLACEMENT [default contiguous]: \
contiguous (the lowest free nodes), random-nodes, random-routers (whole routers), random-groups (whole dragonfly \
groups), file:PATH (node numbers in rank order, as --rank-mapping), codes:PATH (this job's line of a CODES \
allocation file: line j for job j). Jobs are placed in order, each on nodes the ones before left free.";

/// One `--job`, parsed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Spec {
    pub text: String,
    pub kind: String,
    pub opts: Vec<(String, String)>,
    pub placement: String,
}

/// Parses `KIND[:KEY=VALUE,...][@PLACEMENT]`.
pub(crate) fn parse(text: &str) -> Result<Spec, String> {
    let (head, placement) = match text.rsplit_once('@') {
        Some((h, p)) => (h, p.to_string()),
        None => (text, "contiguous".to_string()),
    };
    let (kind, rest) = head.split_once(':').unwrap_or((head, ""));
    let kinds = ["halo3d", "allreduce", "alltoall", "trace", "dumpi", "synthetic"];
    if !kinds.contains(&kind) {
        return Err(format!("--job {text}: unknown kind '{kind}'; give one of {}", kinds.join(", ")));
    }
    let mut opts = Vec::new();
    for kv in rest.split(',').filter(|s| !s.is_empty()) {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(format!("--job {text}: '{kv}' is not KEY=VALUE"));
        };
        opts.push((k.to_string(), v.to_string()));
    }
    let allowed: &[&str] = match kind {
        "halo3d" | "allreduce" | "alltoall" => &["ranks", "iterations", "compute-ns", "bytes"],
        "trace" => &["dir"],
        "dumpi" => &["dir", "time", "scale"],
        _ => &["load", "nodes"],
    };
    if let Some((k, _)) = opts.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
        return Err(format!("--job {text}: {kind} takes {}, not '{k}'", allowed.join(", ")));
    }
    let places = ["contiguous", "random-nodes", "random-routers", "random-groups"];
    if !places.contains(&placement.as_str()) && !placement.starts_with("file:") && !placement.starts_with("codes:") {
        return Err(format!(
            "--job {text}: unknown placement '{placement}'; give {}, file:PATH or codes:PATH",
            places.join(", ")
        ));
    }
    Ok(Spec { text: text.to_string(), kind: kind.to_string(), opts, placement })
}

impl Spec {
    /// The files the job reads (checkpoints record them): its trace's, its placement file.
    pub(crate) fn inputs(&self) -> Vec<timewarp::checkpoint::InputFiles> {
        let mut out = Vec::new();
        if self.kind == "codes" {
            // --codes-workload and --codes-alloc record their files once (workload_args.rs).
            return out;
        }
        if let Some(dir) = self.get("dir") {
            let files = match self.kind.as_str() {
                "trace" => Workload::trace_files(Path::new(dir)),
                "dumpi" => Workload::dumpi_files(Path::new(dir)),
                _ => Vec::new(),
            };
            out.push(timewarp::checkpoint::InputFiles::new(format!("--job {}", self.text), files));
        }
        if let Some((_, path)) = self.placement.split_once(':') {
            out.push(timewarp::checkpoint::InputFiles::new(format!("--job {}", self.text), vec![path.into()]));
        }
        out
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.opts.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Option `key` as a number (`default` when absent).
    fn num<T: std::str::FromStr>(&self, key: &str, default: Option<T>) -> Result<T, String> {
        match self.get(key) {
            Some(v) => v.parse().map_err(|_| format!("--job {}: {key}={v} is not a valid number", self.text)),
            None => default.ok_or_else(|| format!("--job {}: give {key}=...", self.text)),
        }
    }

    /// The job's ranks' programs (`None`: synthetic traffic).
    fn workload(&self, message_bytes: u32, max_messages: u64, seed: u64) -> Result<Option<Workload>, String> {
        let dir = || self.get("dir").map(Path::new).ok_or_else(|| format!("--job {}: give dir=PATH", self.text));
        let w = match self.kind.as_str() {
            "synthetic" => return Ok(None),
            "codes" => {
                let file = Path::new(self.get("file").unwrap_or_default());
                let j: usize = self.num("job", None)?;
                let line = &super::codes_apps::read(file)?[j];
                let w = super::codes_apps::workload(file.parent().unwrap_or(Path::new(".")), line, seed)?;
                let sends: u64 = w.sends.iter().map(|s| s.len() as u64).sum();
                if sends > max_messages {
                    return Err(format!(
                        "{}: {sends} messages, more than the {max_messages} a run holds; lower its iterations",
                        self.text
                    ));
                }
                w
            }
            "trace" => Workload::read(dir()?)?,
            "dumpi" => {
                let time = match self.get("time") {
                    None | Some("wall") => DumpiTime::Wall,
                    Some("cpu") => DumpiTime::Cpu,
                    Some(t) => return Err(format!("--job {}: time={t}: give wall or cpu", self.text)),
                };
                let compute_scale: f64 = self.num("scale", Some(1.0))?;
                if !(compute_scale >= 0.0 && compute_scale.is_finite()) {
                    return Err(format!("--job {}: scale must be >= 0 and finite", self.text));
                }
                Workload::read_dumpi(dir()?, &DumpiOptions { time, compute_scale })?
            }
            kind => {
                let p: u32 = self.num("ranks", None)?;
                let i: u32 = self.num("iterations", Some(1))?;
                let c: f64 = self.num("compute-ns", Some(1000.0))?;
                if p == 0 || i == 0 || !(c >= 0.0 && c.is_finite()) {
                    return Err(format!("--job {}: ranks and iterations must be >= 1, compute-ns >= 0", self.text));
                }
                let per = match kind {
                    "allreduce" => 2 * (p as u64 - 1),
                    "halo3d" => 6,
                    _ => p as u64 - 1,
                };
                if p as u64 * per * i as u64 > max_messages {
                    return Err(format!("--job {}: too many messages; lower iterations or ranks", self.text));
                }
                match kind {
                    "allreduce" => Workload::ring_allreduce(p, self.num("bytes", Some(message_bytes))?, i, c),
                    "halo3d" => Workload::halo3d(p, self.num("bytes", Some(4096))?, i, c),
                    _ => Workload::all_to_all(p, self.num("bytes", Some(message_bytes))?, i, c),
                }
            }
        };
        Ok(Some(w))
    }
}

/// A SplitMix64 stream (as `Workload::place`'s random mapping).
fn shuffle<T>(v: &mut [T], seed: u64) {
    let mut s = seed;
    for i in (1..v.len()).rev() {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        v.swap(i, (z % (i as u64 + 1)) as usize);
    }
}

/// Job `j`'s `n` nodes (rank order) among the `free` ones, by its placement.
fn place(spec: &Spec, j: usize, n: u32, free: &[bool], topology: &Topology, seed: u64) -> Result<Vec<u32>, String> {
    let left = free.iter().filter(|&&f| f).count() as u32;
    if n > left {
        return Err(format!("--job {}: {n} nodes asked, but only {left} of the network's are left", spec.text));
    }
    let seed = seed ^ (j as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F);
    // Blocks of nodes (routers, groups) whose nodes are all free, in a random order.
    let blocks = |size: u32| -> Vec<u32> {
        let mut all: Vec<u32> = (0..free.len() as u32)
            .step_by(size as usize)
            .filter(|&b| (b..(b + size).min(free.len() as u32)).all(|x| free[x as usize]))
            .collect();
        shuffle(&mut all, seed);
        all.into_iter().flat_map(|b| b..(b + size).min(free.len() as u32)).take(n as usize).collect()
    };
    let nodes: Vec<u32> = match spec.placement.as_str() {
        "contiguous" => (0..free.len() as u32).filter(|&x| free[x as usize]).take(n as usize).collect(),
        "random-nodes" => {
            let mut v: Vec<u32> = (0..free.len() as u32).filter(|&x| free[x as usize]).collect();
            shuffle(&mut v, seed);
            v.truncate(n as usize);
            v
        }
        "random-routers" => blocks(topology.terminals()),
        "random-groups" => match topology {
            Topology::Dragonfly(d) => blocks(d.a * d.p),
            t => return Err(format!("--job {}: random-groups is for a dragonfly, not a {}", spec.text, t.name())),
        },
        p => {
            let (codes, path) = match p.split_once(':') {
                Some(("codes", path)) => (true, path),
                Some((_, path)) => (false, path),
                None => unreachable!("parse checks the placement"),
            };
            let list = if codes { codes_line(Path::new(path), j)? } else { read_mapping(Path::new(path))? };
            // A CODES job's allocation line is its ranks' nodes, one each.
            if spec.kind == "codes" && list.len() != n as usize {
                return Err(format!(
                    "{}: line {} of allocation file {path} lists {} nodes for its {n} ranks; give one node per rank",
                    spec.text,
                    j + 1,
                    list.len()
                ));
            }
            if list.len() < n as usize {
                return Err(format!("--job {}: {path} lists {} nodes for {n}", spec.text, list.len()));
            }
            list[..n as usize].to_vec()
        }
    };
    if nodes.len() < n as usize {
        return Err(format!(
            "--job {}: {} has only {} free nodes in whole blocks for {n}; use another placement",
            spec.text,
            spec.placement,
            nodes.len()
        ));
    }
    for &x in &nodes {
        if x as usize >= free.len() || !free[x as usize] {
            return Err(format!(
                "--job {}: node {x} is outside the network's 0..{} or taken by an earlier job",
                spec.text,
                free.len()
            ));
        }
    }
    Ok(nodes)
}

/// Line `j` (from 0) of a CODES allocation file: a job's nodes, rank order,
/// separated by spaces (CODES's `jobmap-list`).
fn codes_line(path: &Path, j: usize) -> Result<Vec<u32>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("allocation file {}: {e}", path.display()))?;
    // As jobmap-list, lines without nodes are no jobs.
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let line = lines.get(j).ok_or_else(|| {
        format!("allocation file {} has {} lines, none for job {j} (a line per job)", path.display(), lines.len())
    })?;
    line.split_whitespace()
        .map(|w| {
            w.parse().map_err(|_| {
                format!("{}:{}: expected a node number, got '{}'", path.display(), j + 1, timewarp::text::printable(w))
            })
        })
        .collect()
}

/// The jobs of `specs` on `m`'s network: its `workload`, `jobs` and (a
/// synthetic job's) `load` set; with `alone`, each job first run alone on
/// its nodes (sequentially, to `end` with `seed`). A generated job may
/// send at most `max_messages`.
pub(crate) fn build(
    m: &mut Network,
    specs: Vec<Spec>,
    alone: bool,
    (end, seed): (f64, u64),
    max_messages: u64,
) -> Result<(), String> {
    if alone && specs.is_empty() {
        return Err("--baseline-alone is for runs of jobs: give --job or --codes-workload".into());
    }
    if specs.len() > NO_JOB as usize {
        return Err(format!("{} jobs: at most {} may share a network", specs.len(), NO_JOB));
    }
    let nodes = m.topology.nodes();
    let mut free = vec![true; nodes as usize];
    let mut jobs = Jobs { list: Vec::new(), job_of: vec![NO_JOB; nodes as usize] };
    let mut parts = Vec::new();
    let mut load = None;
    for (j, spec) in specs.iter().enumerate() {
        let w = spec.workload(m.message_bytes, max_messages, seed)?;
        let size = match &w {
            Some(w) => w.ranks(),
            None => {
                let l: f64 = spec.num("load", None)?;
                if !(l > 0.0 && l.is_finite()) {
                    return Err(format!("--job {}: load must be positive", spec.text));
                }
                if load.replace(l).is_some() {
                    return Err(format!("--job {}: one synthetic job per run", spec.text));
                }
                let left = free.iter().filter(|&&f| f).count() as u32;
                let n: u32 = spec.num("nodes", Some(left))?;
                if n < 2 {
                    return Err(format!(
                        "--job {}: synthetic traffic needs 2 nodes or more ({n} given or left); give nodes=N or \
                         put this job before the others",
                        spec.text
                    ));
                }
                n
            }
        };
        let placed = place(spec, j, size, &free, &m.topology, seed)?;
        for &x in &placed {
            free[x as usize] = false;
            jobs.job_of[x as usize] = j as u16;
        }
        let first: u32 = parts.iter().map(|(w, _): &(Workload, Vec<u32>)| w.ranks()).sum();
        let ranks = w.as_ref().map(|w| (first, w.ranks()));
        jobs.list.push(Job { name: spec.text.clone(), nodes: placed.clone(), ranks, load: 0.0, alone: None });
        if let Some(w) = w {
            parts.push((w, placed));
        }
        if let Some(l) = load.filter(|_| ranks.is_none()) {
            jobs.list[j].load = l;
        }
    }
    let workload = |parts: &[(Workload, Vec<u32>)]| -> Result<Option<Arc<Workload>>, String> {
        if parts.is_empty() {
            return Ok(None);
        }
        let ws: Vec<Workload> = parts.iter().map(|p| p.0.clone()).collect();
        let mut w = Workload::combine(&ws);
        w.place(nodes, &Mapping::List(parts.iter().flat_map(|p| p.1.iter().copied()).collect()))?;
        Ok(Some(Arc::new(w)))
    };
    m.workload = workload(&parts)?;
    m.load = load.unwrap_or(0.0);
    if alone {
        let mut rank_part = 0;
        for j in 0..jobs.list.len() {
            let job = &jobs.list[j];
            let mut one = Network {
                jobs: Some(Arc::new(Jobs {
                    // Alone, its ranks are the workload's from 0.
                    list: vec![Job { alone: None, ranks: job.ranks.map(|(_, n)| (0, n)), ..job.clone() }],
                    job_of: (0..nodes).map(|x| if job.nodes.contains(&x) { 0 } else { NO_JOB }).collect(),
                })),
                sample_every: None,
                ..m.clone()
            };
            match job.ranks {
                Some(_) => {
                    let p = &parts[rank_part];
                    one.workload = workload(std::slice::from_ref(p))?;
                    one.load = 0.0;
                    rank_part += 1;
                }
                None => {
                    one.workload = None;
                    one.load = job.load;
                }
            }
            let cfg = timewarp::Config { end, seed, ..timewarp::Config::default() };
            let report = timewarp::Run::new(&one, &cfg)
                .execute()
                .map_err(|e| format!("--baseline-alone: job {j} alone: {e}"))?;
            let x = &report.results.jobs[0];
            jobs.list[j].alone = Some(timewarp_models::network::Alone {
                finish_ns: x.finish_ns,
                comm_ns_mean: x.comm_ns_mean,
                latency_mean: x.latency_mean,
                wall_seconds: report.stats.wall_seconds,
            });
        }
    }
    m.jobs = Some(Arc::new(jobs));
    Ok(())
}

/// The summary's table of jobs (none without `--job`).
pub(crate) fn summary(r: &timewarp_models::network::Results) -> String {
    if r.jobs.is_empty() {
        return String::new();
    }
    // One way to print numbers: 4 significant digits, times in their unit (issue 62).
    let f = |v: Option<f64>| v.map_or("n/a".to_string(), crate::readable::time_ns);
    let x = |v: Option<f64>| v.map_or("n/a".to_string(), |x| format!("{}x", crate::readable::sig(x)));
    let mut out = String::from("jobs:\n");
    for j in &r.jobs {
        out += &format!(
            "  job {} {} ({} nodes): finish {}, comm mean {}, latency mean {}, {} bytes{}\n",
            j.job,
            j.name,
            j.nodes,
            f(j.finish_ns),
            f(j.comm_ns_mean),
            f(j.latency_mean),
            crate::readable::count(j.delivered_bytes),
            match j.alone {
                Some(_) => format!(
                    "; against alone: slowdown {}, comm {}, latency {}",
                    x(j.slowdown),
                    x(j.comm_slowdown),
                    x(j.latency_slowdown)
                ),
                None => String::new(),
            }
        );
    }
    let alone: Vec<f64> = r.jobs.iter().filter_map(|j| j.alone.map(|a| a.wall_seconds)).collect();
    if !alone.is_empty() {
        // The summary's wall time is the shared run's only (issue 62).
        out += &format!(
            "  the {} runs alone (--baseline-alone) took {} of wall time before the shared run, not in its wall time\n",
            alone.len(),
            timewarp::text::seconds(alone.iter().sum())
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_say_what_is_wrong() {
        let s = parse("halo3d:ranks=8,iterations=2@random-nodes").unwrap();
        assert_eq!((s.kind.as_str(), s.placement.as_str(), s.opts.len()), ("halo3d", "random-nodes", 2));
        assert_eq!(parse("synthetic:load=0.2").unwrap().placement, "contiguous");
        assert!(parse("bogus").unwrap_err().contains("unknown kind"));
        assert!(parse("halo3d:ranks").unwrap_err().contains("KEY=VALUE"));
        assert!(parse("synthetic:ranks=3").unwrap_err().contains("takes load, nodes"));
        assert!(parse("halo3d:ranks=8@nowhere").unwrap_err().contains("unknown placement"));
    }

    #[test]
    fn placements_take_free_nodes_in_whole_blocks() {
        let t = Topology::Dragonfly(timewarp_models::network::Dragonfly::new(2, 2, 1, 3));
        let mut free = vec![true; 12];
        free[0] = false;
        let spec = |p: &str| parse(&format!("synthetic:load=0.1@{p}")).unwrap();
        assert_eq!(place(&spec("contiguous"), 0, 3, &free, &t, 1).unwrap(), vec![1, 2, 3]);
        // Routers of 2 nodes: router 0 (nodes 0, 1) is not whole.
        let r = place(&spec("random-routers"), 0, 4, &free, &t, 1).unwrap();
        assert!(r.chunks(2).all(|c| c[0] % 2 == 0 && c[1] == c[0] + 1 && c[0] != 0), "{r:?}");
        // Groups of 4 nodes: group 0 is not whole; two are left.
        let g = place(&spec("random-groups"), 0, 8, &free, &t, 1).unwrap();
        assert!(g.iter().all(|&x| x >= 4), "{g:?}");
        assert!(place(&spec("random-groups"), 0, 9, &free, &t, 1).unwrap_err().contains("whole blocks"));
        let n = place(&spec("random-nodes"), 0, 11, &free, &t, 1).unwrap();
        assert!(!n.contains(&0) && n.len() == 11);
        assert!(place(&spec("contiguous"), 0, 12, &free, &t, 1).unwrap_err().contains("only 11"));
    }
}
