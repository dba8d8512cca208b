//! Every bad input ends cleanly: a table of command lines, each with the
//! exit code and the message it must end with. A case passes only if the
//! process exits by itself within [`LIMIT`] (the harness kills it after
//! that and counts it as a failure), never panics, and says what was wrong:
//! clap's whole message (error, accepted values or nearest spelling, usage)
//! for a malformed command line, exactly one `error:` line for a value the
//! engine or a model refuses.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest any case may take (a debug build on a slow, shared machine;
/// every case is expected to end in well under a second).
const LIMIT: Duration = Duration::from_secs(60);

/// How a case must end.
#[derive(Clone, Copy, Debug)]
enum End {
    /// A command-line error from clap: exit 2, first line `error: ...`.
    Clap,
    /// Refused by the engine or a model: exit 1, one line `error: ...`.
    Line,
    /// Runs (exit 0); stderr mentions the text (a note or a warning).
    Note,
    /// The run's figures, then one `error: ` line last (exit 1): a run whose
    /// statistics file could not be written prints them on stderr instead.
    Rescued,
    /// A run that stopped before its application finished: its summary on
    /// stdout (figures are never lost, issue 62), one `error: ` line on
    /// stderr, exit 1.
    Unfinished,
}

/// Output of a finished child.
struct Ended {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `timewarp args` with `env`, killing it after [`LIMIT`].
fn run(args: &[&str], env: &[(&str, &str)]) -> Result<Ended, String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_timewarp"))
        .args(args)
        // Paths in random arguments must not land in the source tree.
        .current_dir(std::env::temp_dir())
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start timewarp: {e}"))?;
    // Drain both pipes on threads so a chatty child never blocks on a full pipe.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped")));
    let err = drain(Box::new(child.stderr.take().expect("piped")));
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if t0.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{args:?} did not end within {LIMIT:?}: killed"));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Ok(Ended { code: status.code(), stdout: out.join().unwrap_or_default(), stderr: err.join().unwrap_or_default() })
}

/// Checks one case; returns what is wrong with it.
fn check(args: &[&str], env: &[(&str, &str)], end: End, mention: &str) -> Result<(), String> {
    let o = run(args, env)?;
    let err = &o.stderr;
    let fail = |what: &str| Err(format!("{args:?}: {what}; exit {:?}, stderr:\n{err}", o.code));
    if err.contains("panicked") || err.contains("RUST_BACKTRACE") {
        return fail("panicked");
    }
    let Some(code) = o.code else { return fail("killed by a signal") };
    if !err.contains(mention) {
        return fail(&format!("stderr does not mention '{mention}'"));
    }
    match end {
        End::Clap => {
            if code != 2 || !err.starts_with("error: ") || !err.contains("--help") {
                return fail("expected clap's message (exit 2, 'error: ', a pointer to --help)");
            }
        }
        End::Line => {
            if code != 1 || !err.starts_with("error: ") || err.trim_end().lines().count() != 1 {
                return fail("expected one 'error: ' line and exit 1");
            }
            if !o.stdout.is_empty() {
                return fail(&format!("printed on stdout: {}", o.stdout));
            }
        }
        End::Unfinished => {
            if code != 1 || !err.starts_with("error: ") || err.trim_end().lines().count() != 1 {
                return fail("expected one 'error: ' line and exit 1");
            }
            if !o.stdout.contains("committed events") {
                return fail(&format!("no summary on stdout: {}", o.stdout));
            }
        }
        End::Note => {
            if code != 0 {
                return fail("expected a successful run");
            }
        }
        End::Rescued => {
            let last = err.trim_end().lines().last().unwrap_or_default();
            if code != 1 || !last.starts_with("error: ") || !err.contains("committed events") || !err.contains("digest")
            {
                return fail("expected the summary on stderr, then one 'error: ' line, and exit 1");
            }
        }
    }
    Ok(())
}

/// One case: arguments, environment, how it must end, what stderr must mention.
type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], End, &'a str);

/// Runs every case (in parallel, a few at a time) and reports all failures at once.
fn table(cases: &[(&[&str], End, &str)]) {
    table_env(&cases.iter().map(|&(a, e, m)| (a, &[][..], e, m)).collect::<Vec<_>>());
}

/// [`table`] with an environment per case.
fn table_env(cases: &[Case]) {
    let failures: Vec<String> = std::thread::scope(|s| {
        let chunks: Vec<_> = cases
            .chunks(cases.len().div_ceil(4).max(1))
            .map(|chunk| {
                s.spawn(move || {
                    chunk.iter().filter_map(|&(args, env, end, m)| check(args, env, end, m).err()).collect::<Vec<_>>()
                })
            })
            .collect();
        chunks.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{} of {} cases failed:\n\n{}", failures.len(), cases.len(), failures.join("\n\n"));
}

#[test]
#[rustfmt::skip]
fn malformed_command_lines_get_clap_s_whole_message() {
    use End::Clap;
    table(&[
        (&[], Clap, "requires a subcommand"),
        (&["run"], Clap, "requires a subcommand"),
        (&["verify"], Clap, "requires a subcommand"),
        (&["run", "nosuchmodel"], Clap, "nosuchmodel"),
        (&["run", "phold", "--frobnicate"], Clap, "--frobnicate"),
        (&["run", "phold", "--sync", "foo"], Clap, "possible values: sequential, check, optimistic, conservative"),
        (&["run", "phold", "--scheduling", "round-robin"], Clap, "possible values: fixed, dynamic, adaptive, ladm"),
        (&["run", "phold", "--pes", "0"], Clap, "from 1 to 65536"),
        (&["run", "phold", "--apte-threshold", "-1"], Clap, "must be a finite number > 0"),
        (&["run", "phold", "--thread", "2"], Clap, "a similar argument exists: '--threads'"),
        (&["run", "phold", "--lps", "-5"], Clap, "must be a whole number from 1 to 4294967295, got -5"),
        (&["run", "phold", "--trace-out", "t.json", "--trace-limit", "0"], Clap, "must be a whole number >= 1, got 0"),
        (&["run", "phold", "--trace-out", "t.json", "--trace-limit", "many"], Clap, "must be a whole number >= 1, got 'many'"),
        (&["run", "phold", "--lps", "0"], Clap, "--lps"),
        (&["run", "phold", "--checkpoint-every", "0"], Clap, "--checkpoint-every"),
        (&["run", "phold", "--checkpoint-wall", "-3"], Clap, "--checkpoint-wall"),
        (&["run", "phold", "--checkpoint-keep", "0"], Clap, "--checkpoint-keep"),
        (&["resume"], Clap, "<FILE>"),
        (&["run", "phold", "--threads", "5000"], Clap, "from 1 to 4096"),
        (&["run", "phold", "--batch", "-1"], Clap, "--batch"),
        (&["run", "phold", "--seed", "-1"], Clap, "--seed"),
        (&["run", "phold", "--mean", "-1"], Clap, "--mean"),
        (&["run", "phold", "--end", "soon"], Clap, "--end"),
        (&["run", "phold", "--end", "0"], Clap, "--end"),
        (&["run", "phold", "--remote", "1.5"], Clap, "--remote"),
        (&["run", "phold", "--queue", "splay"], Clap, "possible values: ladder, heap"),
        (&["run", "pcs", "--arrivals", "erlang"], Clap, "possible values: engset, poisson"),
        (&["run", "network", "--arrivals", "onoff"], Clap, "possible values: poisson, periodic, in-phase, bursty, bernoulli"),
        (&["run", "network", "--arrivals", "bursty", "--burst-length", "0"], Clap, "--burst-length"),
        (&["run", "network", "--traffic", "permutation", "--permutation-seed", "-1"], Clap, "--permutation-seed"),
        (&["run", "network", "--traffic", "neighbor"], Clap, "a similar value exists: 'neighbour'"),
        (&["run", "network", "--switch", "input"], Clap, "input-buffered"),
        (&["run", "network", "--arbitration", "fifo"], Clap, "possible values: round-robin, age, transit-first"),
        (&["run", "network", "--rollback", "reverse"], Clap, "possible values: incremental, state-saving"),
        (&["run", "pcs", "--rollback", "copy"], Clap, "possible values: reverse, state-saving, incremental"),
        (&["run", "network", "--routing", "dor"], Clap, "dimension-order"),
        (&["run", "network", "--preset", "summit", "--radix", "8"], Clap, "cannot be used with"),
        (&["run", "network", "--codes-config"], Clap, "a value is required for '--codes-config <FILE.conf>'"),
        (&["run", "network", "--terminal-bandwidth", "0"], Clap, "--terminal-bandwidth"),
        (&["run", "network", "--routing", "up-and-down"], Clap, "updown-adaptive"),
        (&["run", "network", "--selection", "random"], Clap, "load, contention"),
        (&["run", "network", "--topology", "ring"], Clap, "torus"),
        (&["run", "network", "--dims", "1,4"], Clap, "--dims"),
        (&["run", "network", "--vcs", "-2"], Clap, "--vcs"),
        (&["run", "phold", "--compute", "4294967295"], Clap, "from 0 to 1000000"),
        (&["run", "phold", "--mean", "1e308"], Clap, "--mean"),
        (&["run", "phold", "--lookahead", "inf"], Clap, "--lookahead"),
        (&["run", "phold", "--mean", "NaN"], Clap, "--mean"),
        (&["run", "network", "--load", "-1"], Clap, "--load"),
        (&["run", "network", "--traffic", "zigzag"], Clap, "zigzag"),
        (&["run", "pcs", "--channels", "0"], Clap, "--channels"),
        (&["run", "pcs", "--call-duration", "-2"], Clap, "--call-duration"),
        (&["run", "tlm", "--size", "10"], Clap, "XxY or XxYxZ"),
        (&["run", "tlm", "--waveform", "square"], Clap, "gaussian, impulse, sine"),
        (&["run", "tlm", "--source-at", "1,2,3,4"], Clap, "X,Y or X,Y,Z"),
        (&["run", "phold", "--regional", "1.5"], Clap, "--regional"),
        (&["run", "phold", "--hierarchy", "a,b,c"], Clap, "--hierarchy"),
        (&["run", "phold", "--pareto-low", "0"], Clap, "--pareto-low"),
        (&["partition", "p.graph", "--parts", "2", "--scheme", "metis", "-o", "m"], Clap, "possible values: random, block, static, object-only, activity, object-activity"),
        (&["partition", "p.graph", "--parts", "2", "--scheme", "activity"], Clap, "--output"),
        (&["partition", "p.graph", "--parts", "2", "--scheme", "activity", "--imbalance", "0.9", "-o", "m"], Clap, "--imbalance"),
        (&["partition", "p.graph", "--parts", "0", "--scheme", "activity", "-o", "m"], Clap, "--parts"),
    ]);
}

#[test]
#[rustfmt::skip] // a table: one case per line
fn refused_values_get_one_line() {
    use End::Line;
    table(&[
        (&["run", "phold", "--threads", "2"], Line, "--threads"),
        (&["run", "phold", "--sync", "optimistic", "--threads", "2", "--pes", "1"], Line, "give at least as many PEs as threads"),
        (&["run", "phold", "--sync", "conservative", "--threads", "2", "--pes", "4"], Line, "only the optimistic mode runs more PEs"),
        (&["run", "phold", "--sync", "optimistic", "--scheduling", "ladm", "--apte-threshold", "0.5"], Line, "must be a finite ratio > 1"),
        (&["run", "phold", "--lps", "8", "--checkpoint-every", "5"], Line, "need a directory"),
        (&["run", "phold", "--lps", "8", "--checkpoint-dir", "/proc/no-such/ck", "--checkpoint-every", "5"], Line, "cannot create the checkpoint directory"),
        (&["verify", "phold", "--lps", "8", "--checkpoint-dir", "ck"], Line, "verify does not write checkpoints"),
        (&["resume", "/nonexistent-dir/ckpt-1.twc"], Line, "cannot read it"),
        (&["resume", "/dev/null"], Line, "not a timewarp checkpoint"),
        (&["run", "phold", "--lps", "8", "--stats-json", "/nonexistent-dir/x.json"], Line, "cannot write statistics to /nonexistent-dir/x.json"),
        (&["verify", "phold", "--lps", "8", "--stats-json", "/nonexistent-dir/x.json"], Line, "cannot write statistics to /nonexistent-dir/x.json"),
        // 8 × batch × interval overflowed to 0 (a hang) or to nonsense.
        (&["run", "phold", "--batch", "2147483648", "--gvt-interval", "1073741824", "--sync", "optimistic", "--threads", "2"], Line, "--batch"),
        (&["run", "phold", "--batch", "2147483648", "--gvt-interval", "1073741823", "--sync", "optimistic", "--threads", "2"], Line, "give --event-memory"),
        (&["run", "phold", "--event-memory", "0", "--sync", "optimistic", "--threads", "2"], Line, "--event-memory"),
        // Too big for any machine: refused before allocating (was an abort, exit 134).
        (&["run", "phold", "--lps", "4294967295"], Line, "--lps 4294967295 with --population 10 needs about"),
        (&["run", "phold", "--lps", "64", "--population", "4294967295"], Line, "but this machine has"),
        (&["run", "phold", "--lps", "4294967295", "--sync", "optimistic", "--threads", "2"], Line, "make the model smaller"),
        (&["verify", "phold", "--lps", "4294967295"], Line, "--lps 4294967295"),
        (&["run", "pcs", "--cells-x", "65535", "--cells-y", "65535"], Line, "--cells-x 65535 × --cells-y 65535"),
        (&["run", "network", "--topology", "hypercube", "--nodes", "16777216", "--vcs", "8"], Line, "--nodes 16777216 needs about"),
        (&["run", "network", "--dims", "4096,4096", "--vcs", "64"], Line, "--dims 4096,4096"),
        (&["run", "network", "--dims", "8,8", "--vcs", "64", "--buffer-packets", "4096"], Line, "lower --vcs or --buffer-packets"),
        (&["run", "network", "--packet-bytes", "70000", "--message-bytes", "70000"], Line, "--packet-bytes may be at most 65,535"),
        (&["run", "network", "--interarrival", "1", "--message-bytes", "2048"], Line, "bound the run with --messages N"),
        // A load above 1 floods the injection queues: only a bounded message count ends.
        (&["run", "network", "--load", "2"], Line, "bound the run with --messages N"),
        (&["run", "network", "--topology", "hypercube", "--traffic", "tornado"], Line, "--traffic tornado is defined on tori and meshes"),
        (&["run", "network", "--routing", "valiant"], Line, "--routing valiant on a torus needs --vcs 4 or more"),
        // ROMM, PAR and the UGAL threshold: wrong topology, too few virtual channels, a negative threshold.
        (&["run", "network", "--routing", "romm"], Line, "--routing romm on a torus needs --vcs 4 or more"),
        (&["run", "network", "--topology", "mesh", "--dims", "4,4", "--routing", "romm", "--vcs", "1"], Line, "--routing romm on a mesh needs --vcs 2"),
        (&["run", "network", "--topology", "dragonfly", "--routing", "romm"], Line, "--routing romm is for the torus, mesh and hypercube"),
        (&["run", "network", "--topology", "fattree", "--routing", "romm"], Line, "--routing romm is not for a fat-tree"),
        (&["run", "network", "--routing", "par", "--vcs", "6"], Line, "--routing par is for --topology dragonfly"),
        (&["run", "network", "--topology", "dragonfly", "--routing", "par", "--vcs", "5"], Line, "--routing par on a dragonfly needs --vcs 6"),
        (&["run", "network", "--topology", "dragonfly", "--routing", "ugal", "--ugal-threshold", "-1"], Line, "--ugal-threshold must be >= 0"),
        (&["run", "network", "--topology", "dragonfly", "--routing", "par", "--ugal-threshold", "nan"], Line, "--ugal-threshold must be >= 0"),
        (&["run", "network", "--topology", "dragonfly", "--ugal-threshold", "2"], Line, "--ugal-threshold is for --topology dragonfly with --routing ugal, ugal-g, ugal-codes or par"),
        // CODES's 1-D rule: an unwired dragonfly's.
        (&["run", "network", "--routing", "ugal-codes", "--vcs", "5"], Line, "--routing ugal-codes is for --topology dragonfly"),
        (&["run", "network", "--topology", "slimfly", "--routing", "ugal-codes"], Line, "--routing ugal-codes is not for a Slim Fly"),
        (&["run", "network", "--topology", "dragonfly", "--routing", "ugal-codes", "--vcs", "4"], Line, "--routing ugal-codes on a dragonfly needs --vcs 5"),
        (&["run", "network", "--codes-config", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/modelnet-test-dragonfly-theta.conf"), "--quiet", "--routing", "ugal-codes"], Line, "--routing ugal-codes is CODES's 1-D dragonfly rule, for a dragonfly not wired by connection files: use ugal or par"),
        // UGAL-G: a dragonfly's, with a positive broadcast period, for it alone.
        (&["run", "network", "--routing", "ugal-g", "--vcs", "5"], Line, "--routing ugal-g is for --topology dragonfly"),
        (&["run", "network", "--topology", "fattree", "--routing", "ugal-g"], Line, "--routing ugal-g is not for a fat-tree"),
        (&["run", "network", "--topology", "dragonfly", "--routing", "ugal-g", "--vcs", "4"], Line, "--routing ugal-g on a dragonfly needs --vcs 5"),
        (&["run", "network", "--topology", "dragonfly", "--routing", "ugal-g", "--ugal-g-period", "0"], Line, "--ugal-g-period must be positive and finite"),
        (&["run", "network", "--topology", "dragonfly", "--routing", "ugal-g", "--ugal-g-period", "-5"], Line, "--ugal-g-period must be positive and finite"),
        (&["run", "network", "--topology", "dragonfly", "--routing", "ugal-g", "--ugal-g-period", "inf"], Line, "--ugal-g-period must be positive and finite"),
        (&["run", "network", "--topology", "dragonfly", "--routing", "ugal", "--ugal-g-period", "50"], Line, "--ugal-g-period is for --topology dragonfly with --routing ugal-g"),
        (&["run", "network", "--ugal-threshold", "2"], Line, "--ugal-threshold is for --topology dragonfly"),
        (&["run", "network", "--arrivals", "bernoulli", "--load", "1.5", "--messages", "2"], Line, "--load must be at most 1"),
        (&["run", "network", "--traffic", "shuffle", "--dims", "3,3"], Line, "power-of-two"),
        // A preset beside another topology than its own.
        (&["run", "network", "--topology", "torus", "--preset", "theta"], Line, "--preset theta is a dragonfly, not a torus: give --topology dragonfly"),
        (&["run", "network", "--topology", "dragonfly", "--preset", "summit"], Line, "--preset summit is a fattree, not a dragonfly"),
        // CODES configurations that cannot be read: one line naming the file and line.
        (&["run", "network", "--codes-config", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/bad/truncated.conf")], Line, "truncated.conf:13: the file ends inside PARAMS (opened on line 10): a '}' is missing"),
        (&["run", "network", "--codes-config", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/bad/no-semicolon.conf")], Line, "no-semicolon.conf:11: expected ';' after packet_size = ..., found 'n_dims'"),
        (&["run", "network", "--codes-config", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/bad/bad-number.conf")], Line, "bad-number.conf:14: link_bandwidth must be a number >= 0, got \"fast\""),
        (&["run", "network", "--codes-config", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/bad/unknown-model.conf")], Line, "unknown-model.conf:6: CODES model express_mesh is not one timewarp reads (dragonfly, dragonfly_custom, dragonfly_dally, dragonfly_plus, fattree, slimfly, torus)"),
        (&["run", "network", "--codes-config", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/bad/wrong-repetitions.conf")], Line, "wrong-repetitions.conf:3: repetitions=\"15\" but dim_length 4,4 has 16 routers: the two must agree"),
        (&["run", "network", "--codes-config", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codes/bad/connections-exist.conf")], Line, "connections-exist.conf:17: intra-group-connections names one connection file; CODES's dragonfly_custom reads both intra-group-connections and inter-group-connections: add the other"),
        (&["run", "network", "--codes-config", "no-such.conf"], Line, "--codes-config no-such.conf: No such file or directory (os error 2)"),
        // Per-link-class options on a topology without that class, or out of range.
        (&["run", "network", "--local-bandwidth", "2"], Line, "--local-bandwidth is for --topology dragonfly; a torus has one class of network links: use --link-bandwidth, --link-latency, --buffer-packets"),
        (&["run", "network", "--topology", "dragonfly", "--level-latency", "3"], Line, "--level-latency is for --topology fattree; a dragonfly's links are --local-* and --global-*"),
        (&["run", "network", "--topology", "fattree", "--global-bandwidth", "1"], Line, "--global-bandwidth is for --topology dragonfly; a fat-tree's switch links are --level-bandwidth, --level-latency, --level-buffer-packets (one entry per level)"),
        (&["run", "network", "--topology", "fattree", "--levels", "2", "--level-bandwidth", "1,2"], Line, "--level-bandwidth has 2 entries, but a 2-level fat-tree has 1 level(s) of switch links (leaf to level 1): give at most 1"),
        (&["run", "network", "--topology", "dragonfly", "--global-buffer-packets", "0"], Line, "--global-buffer-packets must be between 1 and 4096, got 0"),
        (&["run", "network", "--topology", "fattree", "--level-buffer-packets", "4,5000"], Line, "--level-buffer-packets (entry 2) must be between 1 and 4096, got 5000"),
        // verify's --sync names its parallel run; sequential is the other one.
        (&["verify", "phold", "--lps", "8", "--sync", "sequential"], Line, "--sync names the parallel one: give --sync optimistic"),
        // Fat-trees: impossible shapes and other topologies' routings, named.
        (&["run", "network", "--topology", "fattree", "--radix", "7"], Line, "--radix must be even"),
        (&["run", "network", "--topology", "fattree", "--radix", "0"], Line, "--radix must be even"),
        (&["run", "network", "--topology", "fattree", "--radix", "4294967295"], Line, "--radix must be even"),
        (&["run", "network", "--topology", "fattree", "--radix", "256"], Line, "--radix 256 is too large"),
        (&["run", "network", "--topology", "fattree", "--levels", "0"], Line, "--levels of a fat-tree must be 2 or 3, got 0"),
        (&["run", "network", "--topology", "fattree", "--levels", "4"], Line, "--levels of a fat-tree must be 2 or 3, got 4"),
        (&["run", "network", "--topology", "fattree", "--nodes", "0"], Line, "--nodes 0 of a fat-tree must be a positive multiple"),
        (&["run", "network", "--topology", "fattree", "--nodes", "100"], Line, "--nodes must be a multiple of 16"),
        (&["run", "network", "--topology", "fattree", "--nodes", "144"], Line, "--nodes 144 is too many for 3 levels of radix 8"),
        (&["run", "network", "--topology", "fattree", "--levels", "2", "--nodes", "36"], Line, "--nodes 36 is too many for 2 levels"),
        (&["run", "network", "--topology", "fattree", "--top-uplinks", "5"], Line, "--top-uplinks must be between 1 and radix / 2 = 4"),
        (&["run", "network", "--topology", "fattree", "--top-uplinks", "0"], Line, "--top-uplinks"),
        (&["run", "network", "--topology", "fattree", "--routing", "ugal"], Line, "--routing ugal is not for a fat-tree"),
        (&["run", "network", "--topology", "fattree", "--routing", "adaptive"], Line, "a fattree routes updown or updown-adaptive"),
        (&["run", "network", "--routing", "updown"], Line, "--routing updown is for --topology fattree"),
        (&["run", "network", "--topology", "dragonfly", "--routing", "updown-adaptive"], Line, "a dragonfly routes minimal, valiant or ugal"),
        // Parameters that cannot give a run that ends: refused up front.
        (&["run", "pcs", "--call-rate", "1e300"], Line, "--call-rate 1e300 with --move-rate 0.04 gives about"),
        (&["run", "phold", "--mean", "1e-300", "--lookahead", "0"], Line, "raise --mean or --lookahead"),
        (&["run", "network", "--link-bandwidth", "1e300"], Line, "--link-bandwidth 1e300"),
        // Virtual time that cannot advance: stopped, not run for ever.
        (&["run", "phold", "--mean", "0", "--lookahead", "0", "--lps", "16"], Line, "10000000 events in a row at this one virtual time"),
        (&["run", "phold", "--mean", "0", "--lookahead", "0", "--lps", "16", "--max-events-at-one-time", "1000", "--sync", "optimistic", "--threads", "2"], Line, "1000 events in a row at this one virtual time"),
        (&["run", "phold", "--mean", "0", "--lookahead", "0", "--lps", "16", "--max-events-at-one-time", "1000", "--sync", "check"], Line, "the run cannot advance"),
        (&["run", "phold", "--lps", "4", "--population", "1", "--mean", "1e7", "--lookahead", "1e-9", "--end", "1e9", "--sync", "conservative", "--threads", "2"], Line, "1e-9 rounds to 1000000000"),
        (&["run", "phold", "--lps", "16", "--lookahead", "1e-300", "--end", "2", "--sync", "conservative", "--threads", "2"], Line, "too small to advance virtual time"),
        // PHOLD variants: what cannot be built is named.
        (&["run", "phold", "--hierarchy", "3,64"], Line, "--hierarchy takes three numbers"),
        (&["run", "phold", "--hierarchy", "2,1,1"], Line, "X >= 2 objects per leaf cluster"),
        (&["run", "phold", "--hierarchy", "2,8,4294967295"], Line, "1 <= K <= 1024 neighbours"),
        (&["run", "phold", "--hierarchy", "2,8,1", "--lps", "100"], Line, "--lps 100 disagrees with --hierarchy 2,8,1, which gives X × 2^(L−1) = 16 LPs"),
        (&["run", "phold", "--hierarchy", "2,8,1", "--alpha", "0"], Line, "--alpha must be a finite number other than 0"),
        (&["run", "phold", "--hierarchy", "2,8,1", "--pareto-low", "5", "--pareto-high", "2"], Line, "0 < low < high"),
        (&["run", "phold", "--skewed-compute"], Line, "give --hierarchy L,X,K"),
        (&["run", "phold", "--lps", "64", "--pes-per-node", "2", "--regional", "0.3"], Line, "--nodes is 1; give --nodes >= 2 or --remote 0"),
        (&["run", "phold", "--lps", "64", "--nodes", "2", "--regional", "0.3"], Line, "--pes-per-node is 1"),
        (&["run", "phold", "--lps", "64", "--nodes", "3"], Line, "must be a multiple of --nodes 3"),
        (&["run", "phold", "--lps", "64", "--nodes", "2", "--pes-per-node", "2", "--remote", "0.8", "--regional", "0.5"], Line, "must be a probability (at most 1)"),
        (&["run", "phold", "--hierarchy", "2,8,1", "--nodes", "2"], Line, "two different topologies"),
        // Timeline traces.
        (&["run", "phold", "--lps", "8", "--end", "2", "--trace-out", "/nonexistent-dir/t.json"], Line, "cannot write the timeline trace to /nonexistent-dir/t.json"),
        (&["verify", "phold", "--lps", "8", "--end", "2", "--trace-out", "t.json"], Line, "--trace-out records a run; use it with `timewarp run`"),
        (&["run", "phold", "--lps", "8", "--end", "2", "--trace-out", "t.json", "--checkpoint-dir", "ck", "--checkpoint-every", "1"], Line, "--trace-out records one uninterrupted run"),
        (&["run", "phold", "--lps", "8", "--end", "2", "--trace-out", "t.json", "--profile-out", "p.graph"], Line, "give one of them"),
        // Profiles and partitions.
        (&["run", "phold", "--lps", "16", "--end", "2", "--profile-out", "/nonexistent-dir/p.graph"], Line, "cannot write the profile to /nonexistent-dir/p.graph"),
        (&["run", "phold", "--lps", "16", "--end", "2", "--profile-out", "p.graph", "--sync", "optimistic", "--threads", "2"], Line, "run with --sync sequential, not optimistic"),
        (&["verify", "phold", "--lps", "16", "--end", "2", "--profile-out", "p.graph"], Line, "use it with `timewarp run`"),
        (&["partition", "/nonexistent-dir/p.graph", "--parts", "2", "--scheme", "activity", "-o", "m"], Line, "cannot read profile /nonexistent-dir/p.graph"),
        (&["partition", "/dev/null", "--parts", "2", "--scheme", "activity", "-o", "m"], Line, "not a timewarp profile"),
        (&["partition", "/dev/null", "--scheme", "activity", "-o", "m"], Line, "give --parts P (PEs) or --hierarchy PROCESSES,THREADS"),
        (&["partition", "/dev/null", "--parts", "3", "--hierarchy", "2,2", "--scheme", "activity", "-o", "m"], Line, "--parts 3 disagrees with --hierarchy 2,2"),
        (&["partition", "/dev/null", "--hierarchy", "2,2,2", "--scheme", "activity", "-o", "m"], Line, "--hierarchy takes PROCESSES,THREADS"),
        (&["partition", "/dev/null", "--parts", "2", "--flat", "--scheme", "activity", "-o", "m"], Line, "--flat compares with --hierarchy"),
    ]);
}

#[test]
#[rustfmt::skip]
fn options_a_run_does_not_use_as_given_get_a_note() {
    use End::Note;
    table(&[
        (&["run", "phold", "--lps", "8", "--end", "2", "--event-memory", "0"], Note, "note: --event-memory applies to optimistic runs only"),
        (&["run", "phold", "--lps", "8", "--end", "2", "--scheduling", "ladm"], Note, "note: --scheduling applies to optimistic runs only"),
        (&["run", "phold", "--lps", "8", "--end", "2", "--trace-limit", "10"], Note, "note: --trace-limit bounds the --trace-out timeline"),
        (&["run", "phold", "--lps", "64", "--end", "2", "--kps-per-pe", "4294967295", "--sync", "optimistic", "--threads", "2"], Note, "using 32 KPs per PE"),
    ]);
}

/// Values that slow a run or leave a file nearly empty get a note saying why.
#[test]
#[rustfmt::skip]
fn surprising_values_get_a_note() {
    use End::Note;
    table(&[
        (&["run", "phold", "--lps", "64", "--end", "2", "--sync", "optimistic", "--threads", "2", "--event-memory", "1"], Note, "note: --event-memory 1 is below the 256 events a PE processes between GVT rounds"),
        (&["run", "phold", "--lps", "64", "--end", "2", "--sync", "optimistic", "--threads", "2", "--event-memory", "1", "--batch", "4", "--gvt-interval", "2"], Note, "throttles speculation and slows the run; the default is 64"),
    ]);
    // At or above one round's events: no note.
    let o = run(&["run", "phold", "--lps", "64", "--end", "2", "--sync", "optimistic", "--threads", "2", "--event-memory", "256"], &[]).unwrap();
    assert!(!o.stderr.contains("--event-memory"), "{}", o.stderr);
}

/// --messages that ends the sources before --end is a finite workload: its
/// messages are capped as a generated workload's are, up front.
#[test]
#[rustfmt::skip]
fn message_bounded_runs_are_capped_like_generated_workloads() {
    use End::{Line, Note};
    table(&[
        (&["run", "network", "--end", "1e15", "--messages", "1000000000"], Line, "--messages 1000000000 on 256 nodes creates 256000000000 messages, more than the 50000000 a run holds; lower --messages"),
        (&["run", "network", "--end", "1e15", "--messages", "195313"], Line, "more than the 50000000 a run holds"),
        (&["run", "network", "--end", "1e15", "--messages", "3000000", "--dims", "4,4", "--message-bytes", "1048576", "--packet-bytes", "1"], Line, "--messages 3000000 on 16 nodes gives about"),
        (&["run", "network", "--end", "1e15", "--messages", "2", "--dims", "4,4"], Note, ""),
    ]);
}

#[test]
#[rustfmt::skip]
fn statistics_that_cannot_be_written_are_not_lost() {
    if !std::path::Path::new("/dev/full").exists() {
        return; // not Linux
    }
    table(&[
        (&["run", "phold", "--lps", "8", "--end", "2", "--quiet", "--stats-json", "/dev/full"], End::Rescued, "cannot write statistics to /dev/full"),
        (&["verify", "phold", "--lps", "8", "--end", "2", "--quiet", "--stats-json", "/dev/full"], End::Line, "cannot write statistics to /dev/full"),
        (&["run", "phold", "--lps", "8", "--end", "2", "--quiet", "--trace-out", "/dev/full"], End::Rescued, "cannot write the timeline trace to /dev/full"),
        (&["run", "phold", "--lps", "8", "--end", "2", "--quiet", "--stats-csv", "/dev/full"], End::Rescued, "cannot write statistics to /dev/full"),
        (&["run", "phold", "--lps", "8", "--end", "2", "--quiet", "--gvt-csv", "/dev/full", "--sync", "optimistic"], End::Rescued, "cannot write statistics to /dev/full"),
        // One file failing does not stop the others (they keep the figures too).
        (&["run", "phold", "--lps", "8", "--end", "2", "--quiet", "--stats-csv", "/dev/full", "--stats-json", "/dev/null"], End::Rescued, "cannot write statistics to /dev/full"),
    ]);
}

#[test]
#[rustfmt::skip]
fn environments_that_cannot_run_get_one_line() {
    let mut cases: Vec<Case> = vec![
        // Worker threads that cannot start (here: a stack no machine can
        // map): a clear error and the process ends (was a panic, then a hang).
        (&["run", "phold", "--lps", "64", "--end", "2", "--sync", "optimistic", "--threads", "2"], &[("RUST_MIN_STACK", "100000000000000")], End::Line, "cannot start worker thread"),
        (&["run", "phold", "--lps", "64", "--end", "2", "--sync", "conservative", "--threads", "2"], &[("RUST_MIN_STACK", "100000000000000")], End::Line, "use fewer --threads"),
    ];
    // A binary without MPI started by mpirun: say so instead of running N copies.
    if cfg!(not(feature = "mpi")) {
        // The build command it gives is the README's.
        cases.push((&["run", "phold", "--lps", "64", "--end", "2"], &[("OMPI_COMM_WORLD_SIZE", "2"), ("OMPI_COMM_WORLD_RANK", "0")], End::Line, MPI_BUILD));
        cases.push((&["run", "phold", "--lps", "64", "--end", "2"], &[("PMI_SIZE", "4"), ("PMI_RANK", "0")], End::Line, "one of 4 processes"));
    }
    table_env(&cases);
}

/// How the README builds the MPI binary (the non-MPI binary's message under mpirun says the same).
const MPI_BUILD: &str = "cargo build --release -p timewarp-cli --features mpi --target-dir target/mpi";

#[test]
fn the_readme_builds_the_mpi_binary_as_the_message_says() {
    assert!(include_str!("../../../README.md").contains(MPI_BUILD));
}

/// SplitMix64: a seeded, dependency-free source for the fuzz test.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[(self.next() % v.len() as u64) as usize]
    }
}

/// The options of `timewarp run <model>` as its `--help` lists them: the
/// long name and the accepted values where the help lists them.
fn options(model: &str) -> Vec<(String, Vec<String>)> {
    let o = run(&["run", model, "--help"], &[]).expect("help runs");
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in o.stdout.lines() {
        let t = line.trim_start();
        let t = t.strip_prefix("-q, ").unwrap_or(t);
        if let Some(rest) = t.strip_prefix("--") {
            let name = rest.split([' ', '=']).next().unwrap_or_default();
            if !["help", "version"].contains(&name) {
                out.push((format!("--{name}"), Vec::new()));
            }
        } else if let (Some(i), Some(last)) = (t.find("[possible values: "), out.last_mut()) {
            let list = t[i + 18..].trim_end_matches(']');
            last.1 = list.split(", ").map(String::from).collect();
        }
    }
    out
}

/// Random command lines built from each model's `--help` (seeded; a fixed
/// number of short cases): whatever they hold, the process must end by
/// itself, without a panic or a signal, with 0, 1 or 2. Values are drawn
/// from edge cases (0, negatives, huge, tiny, inf, NaN, words, the listed
/// values); sizes and the end time keep accepted runs short, since a valid
/// run may be long by design (`--end 1e9`) and is no hang.
#[test]
fn random_command_lines_end_cleanly() {
    let seed = std::env::var("TIMEWARP_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(20);
    let cases: usize = std::env::var("TIMEWARP_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(48);
    let mut rng = Rng(seed);
    const ANY: &[&str] = &[
        "0",
        "1",
        "2",
        "-1",
        "-5",
        "0.5",
        "1e300",
        "1e-300",
        "inf",
        "-inf",
        "NaN",
        "4294967295",
        "4294967296",
        "18446744073709551615",
        "99999999999999999999999",
        "abc",
        "",
        "1,2",
        "0x10",
    ];
    // Options whose accepted values would make a valid but long run.
    let small: &[(&str, &[&str])] = &[
        ("--end", &["0", "-1", "1e-300", "0.5", "2", "inf", "NaN", "abc"]),
        ("--lps", &["0", "-5", "1", "16", "4294967295", "abc"]),
        ("--cells-x", &["0", "1", "3", "1000", "-1"]),
        ("--cells-y", &["0", "1", "3", "1000", "-1"]),
        ("--dims", &["4,4", "2,2,2", "1,4", "65536,65536", "-2", "abc"]),
        ("--nodes", &["0", "3", "16", "16777216", "4294967295"]),
        ("--threads", &["0", "1", "2", "3", "5000", "-1"]),
        ("--call-rate", &["0", "-1", "0.5", "4", "1e300", "inf", "abc"]),
        ("--move-rate", &["0", "-1", "0.5", "4", "1e300", "inf", "abc"]),
        ("--link-bandwidth", &["0", "-1", "1e-300", "4", "1e300", "inf", "abc"]),
        ("--stats-json", &["-", "/dev/null", "/nonexistent-dir/x.json"]),
        ("--link-stats", &["/dev/null", "/nonexistent-dir/x.csv"]),
        ("--mapping", &["block", "random", "/nonexistent-dir/map", "abc"]),
        ("--hierarchy", &["2,4,1", "1,2", "31,4294967295,1", "0,0,0", "abc"]),
        ("--profile-out", &["/dev/null", "/nonexistent-dir/p.graph"]),
        ("--trace-out", &["/dev/null", "/nonexistent-dir/t.json"]),
        ("--size", &["0x4", "16x16", "4x4x4", "65536x65536", "abc", "10"]),
        ("--image", &["/dev/null", "/nonexistent-dir/x.png"]),
        ("--receivers-csv", &["/dev/null", "/nonexistent-dir/x.csv"]),
        ("--terrain", &["/dev/null", "/nonexistent-dir/t.txt"]),
        ("--sources-file", &["/dev/null", "/nonexistent-dir/s.txt"]),
        ("--receivers-file", &["/dev/null", "/nonexistent-dir/r.txt"]),
    ];
    let base: &[(&str, &[&str])] = &[
        ("phold", &["--lps", "64", "--end", "2"]),
        ("pcs", &["--cells-x", "4", "--cells-y", "4", "--end", "2"]),
        ("network", &["--dims", "4,4", "--nodes", "16", "--end", "200"]),
        ("tlm", &["--size", "16x16", "--end", "10"]),
    ];
    let mut lines: Vec<Vec<String>> = Vec::new();
    for (model, defaults) in base {
        let opts = options(model);
        assert!(opts.len() > 10, "{model}: --help lists its options: {opts:?}");
        for _ in 0..cases / base.len() {
            let mut line = vec![if rng.next() % 4 == 0 { "verify" } else { "run" }.to_string(), model.to_string()];
            let mut chosen = Vec::new();
            for _ in 0..1 + rng.next() % 4 {
                let (name, listed) = rng.pick(&opts);
                if chosen.contains(name) {
                    continue;
                }
                chosen.push(name.clone());
                line.push(name.clone());
                if name == "--quiet" {
                    continue;
                }
                let value = match small.iter().find(|(n, _)| n == name) {
                    Some((_, pool)) => rng.pick(pool).to_string(),
                    None if !listed.is_empty() && rng.next() % 2 == 0 => rng.pick(listed).clone(),
                    None => rng.pick(ANY).to_string(),
                };
                line.push(value);
            }
            for pair in defaults.chunks(2) {
                if !chosen.iter().any(|c| c == pair[0]) {
                    line.extend(pair.iter().map(|s| s.to_string()));
                }
            }
            lines.push(line);
        }
    }
    let failures: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = lines
            .chunks(lines.len().div_ceil(4).max(1))
            .map(|chunk| {
                s.spawn(move || {
                    let mut bad = Vec::new();
                    for line in chunk {
                        let args: Vec<&str> = line.iter().map(String::as_str).collect();
                        match run(&args, &[]) {
                            Err(e) => bad.push(e),
                            Ok(o) if o.stderr.contains("panicked") || !matches!(o.code, Some(0..=2)) => {
                                bad.push(format!("{args:?}: exit {:?}, stderr:\n{}", o.code, o.stderr))
                            }
                            Ok(_) => {}
                        }
                    }
                    bad
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    assert!(
        failures.is_empty(),
        "seed {seed}: {} of {} failed:\n\n{}",
        failures.len(),
        lines.len(),
        failures.join("\n\n")
    );
}

/// Trace workloads: unreadable, malformed or deadlocking traces and bad
/// placements end with one line naming the file and line, the ranks and
/// what they wait for, or the option to fix.
#[test]
fn trace_workloads_refuse_bad_input_with_one_line() {
    let root = std::env::temp_dir().join(format!("timewarp-bad-traces-{}", std::process::id()));
    let dir = |name: &str, files: &[(&str, &str)]| {
        let d = root.join(name);
        std::fs::create_dir_all(&d).unwrap();
        for (f, text) in files {
            std::fs::write(d.join(f), text).unwrap();
        }
        d.display().to_string()
    };
    let parse = dir("parse", &[("rank.0.txt", "compute 5\njump 1\n"), ("rank.1.txt", "")]);
    let gap = dir("gap", &[("rank.0.txt", ""), ("rank.2.txt", "")]);
    let three = dir("three", &[("rank.0.txt", ""), ("rank.1.txt", ""), ("rank.2.txt", "")]);
    let stuck = dir("stuck", &[("rank.0.txt", "recv 1 7\n"), ("rank.1.txt", "# nothing sent\nrecv 0 3\n")]);
    let late = dir("late", &[("rank.0.txt", "compute 1e6\nsend 1 8 0\n"), ("rank.1.txt", "recv 0 0\n")]);
    let twice = dir("map", &[("twice.txt", "1\n1\n")]);
    // The ring DUMPI trace (the models crate's test data), rank 3 cut short,
    // its .meta spoiled, rank 5 missing.
    let ring = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../timewarp-models/tests/data/dumpi/ring");
    let dumpi = |name: &str, edit: &dyn Fn(&std::path::Path)| {
        let d = root.join(name);
        std::fs::create_dir_all(&d).unwrap();
        for e in std::fs::read_dir(&ring).unwrap().flatten() {
            std::fs::copy(e.path(), d.join(e.file_name())).unwrap();
        }
        edit(&d);
        d.display().to_string()
    };
    let stamp = "dumpi-2026.11.25.07.40.39";
    let dumpi_short = dumpi("dumpi-short", &|d| {
        let f = d.join(format!("{stamp}-0003.bin"));
        let b = std::fs::read(&f).unwrap();
        std::fs::write(&f, &b[..b.len() - 100]).unwrap();
    });
    let dumpi_meta = dumpi("dumpi-meta", &|d| {
        std::fs::write(d.join(format!("{stamp}.meta")), "numprocs=x\nfileprefix=y\n").unwrap()
    });
    let dumpi_gone = dumpi("dumpi-gone", &|d| std::fs::remove_file(d.join(format!("{stamp}-0005.bin"))).unwrap());
    let map = format!("{twice}/twice.txt");
    let net = ["run", "network", "--dims", "4,4", "--end", "1e12"];
    let with = |extra: &[&str]| net.iter().copied().chain(extra.iter().copied()).map(String::from).collect::<Vec<_>>();
    let cases: Vec<(Vec<String>, End, String)> = vec![
        (with(&["--workload", "trace"]), End::Line, "--workload trace needs --trace-dir".into()),
        (with(&["--workload", "trace", "--trace-dir", "/nonexistent-dir/t"]), End::Line, "--trace-dir /nonexistent-dir/t".into()),
        (with(&["--workload", "trace", "--trace-dir", &parse]), End::Line, "rank.0.txt:2: unknown operation 'jump'".into()),
        (with(&["--workload", "trace", "--trace-dir", &gap]), End::Line, "rank.1.txt is missing".into()),
        (vec!["run".into(), "network".into(), "--dims".into(), "2".into(), "--workload".into(), "trace".into(), "--trace-dir".into(), three.clone()], End::Line, "3 ranks but the network only 2 nodes".into()),
        (with(&["--workload", "trace", "--trace-dir", &stuck]), End::Unfinished, "deadlock: no event is left that could complete these operations): rank 0 waits in recv from 1 tag 7 (line 1); rank 1 waits in recv from 0 tag 3 (line 2)".into()),
        (["run", "network", "--dims", "4,4", "--end", "500", "--workload", "trace", "--trace-dir", &late].map(String::from).to_vec(), End::Unfinished, "reached its end time (--end) before the application finished; raise --end): rank 0 is computing (line 1)".into()),
        (with(&["--workload", "trace", "--trace-dir", &three, "--rank-mapping", &map]), End::Line, "--rank-mapping lists 2 nodes for 3 ranks".into()),
        (with(&["--workload", "halo3d", "--ranks", "2", "--rank-mapping", &map]), End::Line, "ranks 0 and 1 on node 1".into()),
        (with(&["--workload", "halo3d", "--rank-mapping", "/nonexistent-dir/m"]), End::Line, "--rank-mapping /nonexistent-dir/m".into()),
        (with(&["--workload", "halo3d", "--ranks", "17"]), End::Line, "--ranks 17 is more than the network's 16 nodes".into()),
        (with(&["--workload", "alltoall", "--iterations", "4294967295"]), End::Line, "messages, more than the 50000000 a run holds; lower --iterations or --ranks".into()),
        (with(&["--trace-dir", &three]), End::Line, "--trace-dir is for --workload trace".into()),
        (with(&["--workload", "trace", "--ranks", "3", "--trace-dir", &three]), End::Line, "a trace has as many ranks as files".into()),
        (with(&["--workload", "mpi"]), End::Clap, "trace".into()),
        // DUMPI traces: a missing or corrupt file is named; options of other workloads.
        (with(&["--workload", "dumpi"]), End::Line, "--workload dumpi needs --trace-dir".into()),
        (with(&["--workload", "dumpi", "--trace-dir", &three]), End::Line, "holds no DUMPI .meta file".into()),
        (with(&["--workload", "dumpi", "--trace-dir", &dumpi_short]), End::Line, "dumpi-2026.11.25.07.40.39-0003.bin (rank 3): not a DUMPI trace or corrupt: no index record".into()),
        (with(&["--workload", "dumpi", "--trace-dir", &dumpi_meta]), End::Line, "numprocs must be a whole number >= 1".into()),
        (with(&["--workload", "dumpi", "--trace-dir", &dumpi_gone]), End::Line, "dumpi-2026.11.25.07.40.39-0005.bin: ".into()),
        (with(&["--workload", "trace", "--trace-dir", &three, "--compute-scale", "2"]), End::Line, "--compute-scale is for --workload dumpi".into()),
        (with(&["--workload", "halo3d", "--dumpi-time", "cpu"]), End::Line, "--dumpi-time is for --workload dumpi".into()),
        (with(&["--workload", "dumpi", "--trace-dir", &dumpi_short, "--dumpi-time", "user"]), End::Clap, "wall".into()),
        (with(&["--workload", "dumpi", "--trace-dir", &dumpi_short, "--compute-scale", "-1"]), End::Clap, "-1".into()),
    ];
    let mut bad = vec![];
    for (args, end, mention) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        if let Err(e) = check(&args, &[], *end, mention) {
            bad.push(e);
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}
