//! The tandem example resumes exactly from its checkpoints, in every mode.

use timewarp::checkpoint::{self, Control, File, Plan};
use timewarp::{Config, Run, SyncMode};
use timewarp_example_tandem::Tandem;

#[test]
fn tandem_resumes_exactly_in_every_mode() {
    let model = Tandem::default();
    let end = 2_000.0;
    let at = |sync, threads| Config { sync, threads, end, seed: 4, ..Config::default() };
    let reference = Run::new(&model, &at(SyncMode::Sequential, 1)).execute().unwrap();
    let dir = std::env::temp_dir().join(format!("tw-tandem-ckpt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let plan = Plan { dir: Some(dir.clone()), every: Some(500.0), keep: 10, ..Plan::default() };
    let with =
        Run::new(&model, &at(SyncMode::Conservative, 2)).plan(&plan).control(&Control::default()).execute().unwrap();
    assert_eq!(with.stats.digest, reference.stats.digest);
    let files = checkpoint::list(&dir).unwrap();
    assert_eq!(files.len(), 3, "marks 500, 1000, 1500: {files:?}");
    for f in &files {
        for (sync, threads) in [(SyncMode::Sequential, 1), (SyncMode::Optimistic, 2), (SyncMode::Conservative, 3)] {
            let snap = File::open(f).unwrap().load(&model, None).unwrap();
            let r = Run::new(&model, &at(sync, threads)).resume(snap).execute();
            let r = r.unwrap();
            assert_eq!(r.stats.digest, reference.stats.digest, "{f:?} in {sync:?} x{threads}");
            // The model's results (time averages over the whole run) are the uninterrupted run's.
            assert_eq!(format!("{:?}", r.results), format!("{:?}", reference.results));
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
