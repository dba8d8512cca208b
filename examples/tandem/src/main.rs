//! Runs the tandem-queue example and compares each station with M/M/1 theory.
//!
//! `cargo run --release -p timewarp-example-tandem -- [END] [SEED]`

use std::process::exit;

use timewarp::Config;
use timewarp_example_tandem::Tandem;

fn main() {
    // Optional positional arguments: virtual end time and seed.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let end: f64 = arg(&args, 0, "END (virtual end time)", 1_000_000.0);
    let seed: u64 = arg(&args, 1, "SEED", 1);

    let model = Tandem::default(); // edit here: stations, lambda, mu, hop
    if let Err(e) = model.validate() {
        eprintln!("error: {e}");
        exit(2);
    }
    let cfg = Config { end, seed, ..Config::default() };
    let report = match timewarp::run(&model, &cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            exit(1);
        }
    };

    print!("{}", report.stats.table());
    println!();
    let analytic = match model.analytic_mean_in_system() {
        Some(l) => format!("{l:.4}"),
        None => "unstable".into(),
    };
    println!("rho = lambda / mu = {:.4}; M/M/1 mean number in system rho/(1-rho) = {analytic}", model.rho());
    println!("{:>7}  {:>10}  {:>10}  {:>11}  {:>10}", "station", "L sim", "L theory", "utilisation", "throughput");
    for (i, s) in report.results.stations.iter().enumerate() {
        println!("{i:>7}  {:>10.4}  {analytic:>10}  {:>11.4}  {:>10.4}", s.mean_in_system, s.utilisation, s.throughput);
    }
}

/// Parses positional argument `i`, or returns `default` when it is absent.
fn arg<T: std::str::FromStr>(args: &[String], i: usize, what: &str, default: T) -> T {
    match args.get(i) {
        None => default,
        Some(a) => a.parse().unwrap_or_else(|_| {
            eprintln!("error: {what} must be a number, got {a:?}\nusage: tandem [END] [SEED]");
            exit(2)
        }),
    }
}
