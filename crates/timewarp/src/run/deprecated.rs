//! The entry of earlier releases, kept one release as an alias of [`Run`].

use super::Run;
use crate::config::Config;
use crate::error::Error;
use crate::model::Model;
use crate::report::Report;

/// Runs `model` under `cfg` in this process: `Run::new(model, cfg).execute()`.
///
/// ```
/// # #![allow(deprecated)]
/// # let model = timewarp::verify::doc_model();
/// let cfg = timewarp::Config::default();
/// let old = timewarp::run(&model, &cfg).unwrap();
/// assert_eq!(old.stats.digest, timewarp::Run::new(&model, &cfg).execute().unwrap().stats.digest);
/// ```
#[deprecated(note = "one entry starts every run: `timewarp::Run::new(model, cfg).execute()`")]
pub fn run<M: Model>(model: &M, cfg: &Config) -> Result<Report<M::Results>, Error> {
    Run::new(model, cfg).execute()
}
