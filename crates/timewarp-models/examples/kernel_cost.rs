//! A small driver for measuring what the kernels cost per event, built
//! without the CLI (a much shorter build): run it under callgrind at two end
//! times and divide the instruction difference by the committed-event
//! difference (`scripts/house-check.sh callgrind` does the same on the CLI).
//!
//! ```sh
//! cargo build --release --example kernel_cost -p timewarp-models
//! valgrind --tool=callgrind target/release/examples/kernel_cost phold optimistic 10
//! ```
//!
//! A fourth argument, `speculative`, keeps every optimistic event
//! speculative (`Config::safe_events` off): with one PE every event is
//! safe, so only then does the run measure what speculation costs.

use timewarp::{Config, SyncMode};
use timewarp_models::{pcs::Pcs, phold::Phold, tlm::Tlm};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: kernel_cost phold|pcs|tlm sequential|optimistic|conservative END [speculative]";
    let (Some(model), Some(sync), Some(end)) = (args.get(1), args.get(2), args.get(3)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let sync = match sync.as_str() {
        "sequential" => SyncMode::Sequential,
        "optimistic" => SyncMode::Optimistic,
        "conservative" => SyncMode::Conservative,
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let end: f64 = end.parse().unwrap_or_else(|_| {
        eprintln!("{usage}");
        std::process::exit(2)
    });
    let safe_events = match args.get(4).map(String::as_str) {
        None => true,
        Some("speculative") => false,
        Some(_) => {
            eprintln!("{usage}");
            std::process::exit(2)
        }
    };
    let cfg = Config { sync, end, safe_events, ..Default::default() };
    let (committed, digest) = match model.as_str() {
        "phold" => {
            timewarp::Run::new(&Phold::default(), &cfg).execute().map(|r| (r.stats.committed_events, r.stats.digest))
        }
        "pcs" => {
            timewarp::Run::new(&Pcs::default(), &cfg).execute().map(|r| (r.stats.committed_events, r.stats.digest))
        }
        // TLM 2-D 200x200 with the model's own default source.
        "tlm" => Tlm::new(&[200, 200])
            .map_err(timewarp::Error::Config)
            .and_then(|m| timewarp::Run::new(&m, &cfg).execute())
            .map(|r| (r.stats.committed_events, r.stats.digest)),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
    .unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    println!("{committed} {digest}");
}
