//! The tandem-queue example's command line: the whole `timewarp` front end
//! (`run`, `verify`, `resume`, `sweep`, `plot`, `report`, run files,
//! statistics files, every engine option) for this one model, through
//! [`timewarp_cli::App`]. After a run it sets each station beside M/M/1 theory.
//!
//! ```text
//! cargo run --release -p timewarp-example-tandem -- run --end 50000 --seed 7
//! cargo run --release -p timewarp-example-tandem -- run --lambda 0.5 --sync optimistic --threads 2
//! cargo run --release -p timewarp-example-tandem -- verify --sync optimistic --threads 2
//! cargo run --release -p timewarp-example-tandem -- sweep --set lambda=0.5,0.8 --reps 3 -o sweep.csv
//! ```

use std::process::ExitCode;

use timewarp_cli::{App, ModelCli, RunInfo};
use timewarp_example_tandem::{Results, Tandem};

/// Tandem options (defaults: four stations at load 0.8).
#[derive(clap::Args, Debug, Clone)]
struct TandemArgs {
    /// Number of stations (= LPs).
    #[arg(long, default_value_t = 4)]
    stations: u32,
    /// Arrival rate of the external Poisson stream into station 0.
    #[arg(long, default_value_t = 0.8)]
    lambda: f64,
    /// Service rate of every station.
    #[arg(long, default_value_t = 1.0)]
    mu: f64,
    /// Travel time from a station to the next (> 0; the lookahead).
    #[arg(long, default_value_t = 1.0)]
    hop: f64,
}

impl TandemArgs {
    fn model(&self) -> Tandem {
        Tandem { stations: self.stations, lambda: self.lambda, mu: self.mu, hop: self.hop }
    }
}

impl ModelCli for TandemArgs {
    type Model = Tandem;
    const NAME: &'static str = "tandem";
    const ABOUT: &'static str = "Tandem network of M/M/1 queues (checked against Jackson's theorem)";
    const END: &'static str = "1000000";
    const END_HELP: &'static str = "Virtual end time, in the unit of 1 / --mu; events at or after it are not processed";

    fn build(&self, _run: &RunInfo) -> Result<Tandem, String> {
        let m = self.model();
        // The library names its fields; on the command line they are options.
        m.validate().map_err(|e| format!("--{e}"))?;
        Ok(m)
    }

    fn sizing(&self) -> String {
        format!("--stations {}", self.stations)
    }

    fn summary(&self, r: &Results) -> String {
        let m = self.model();
        let analytic = match m.analytic_mean_in_system() {
            Some(l) => format!("{l:.4}"),
            None => "unstable".into(),
        };
        let mut out = format!(
            "\nrho = lambda / mu = {:.4}; M/M/1 mean number in system rho/(1-rho) = {analytic}\n\
             {:>7}  {:>10}  {:>10}  {:>11}  {:>10}\n",
            m.rho(),
            "station",
            "L sim",
            "L theory",
            "utilisation",
            "throughput"
        );
        for (i, s) in r.stations.iter().enumerate() {
            out += &format!(
                "{i:>7}  {:>10.4}  {analytic:>10}  {:>11.4}  {:>10.4}\n",
                s.mean_in_system, s.utilisation, s.throughput
            );
        }
        out
    }
}

fn main() -> ExitCode {
    App::new("tandem")
        .about("Tandem queues, simulated by Time Warp, set beside M/M/1 theory")
        .model::<TandemArgs>()
        .main()
}
