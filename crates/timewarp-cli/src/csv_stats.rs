//! `--stats-csv` (one row per PE) and `--gvt-csv` (the GVT series): a run's
//! statistics for spreadsheets. The columns are the field names of the
//! statistics JSON (`pes` and `gvt_series`), so both read alike.

use timewarp::Stats;

/// Per-PE statistics: a `pe` column (the PE's number), then every field of
/// `PeStats` under its JSON name, then [`WORKER_COLUMNS`]. A sequential run
/// has no `pes` list: its one PE is the whole run, so its row is made of
/// the run's totals.
pub(crate) fn pes(stats: &Stats) -> Result<String, String> {
    let alone;
    let pes = if stats.pes.is_empty() {
        alone = [timewarp::PeStats {
            committed: stats.committed_events,
            processed: stats.processed_events,
            rolled_back: stats.rolled_back_events,
            ties: stats.timestamp_ties,
            past_end: stats.events_past_end,
            peak_events: stats.peak_events,
            ..Default::default()
        }];
        &alone[..]
    } else {
        &stats.pes[..]
    };
    // The header comes from serde (the field names, in order): write the
    // rows once as serde sees them, then again with the PE number in front.
    let mut plain = csv::Writer::from_writer(Vec::new());
    for pe in pes {
        plain.serialize(pe).map_err(|e| e.to_string())?;
    }
    let plain = plain.into_inner().map_err(|e| e.to_string())?;
    let mut rows = csv::Reader::from_reader(plain.as_slice());
    let mut out = csv::Writer::from_writer(Vec::new());
    let header = rows.headers().map_err(|e| e.to_string())?.clone();
    out.write_record(std::iter::once("pe").chain(header.iter()).chain(WORKER_COLUMNS)).map_err(|e| e.to_string())?;
    for (pe, row) in rows.records().enumerate() {
        let row = row.map_err(|e| e.to_string())?;
        let worker = worker_cells(stats.workers.get(pe));
        out.write_record(
            std::iter::once(pe.to_string().as_str()).chain(row.iter()).chain(worker.iter().map(String::as_str)),
        )
        .map_err(|e| e.to_string())?;
    }
    finish(out)
}

/// The columns after the PE's own: the figures of the worker thread with
/// the PE's number (`workers[pe]` of the JSON; the PE's own worker when
/// the run has a worker per PE, as with `--scheduling fixed` and no
/// `--pes`, or conservatively), empty past the last worker, and the OS's
/// figures empty where it does not give them.
const WORKER_COLUMNS: [&str; 4] =
    ["worker_seconds", "worker_wait_seconds", "worker_cpu_seconds", "worker_descheduled_seconds"];

fn worker_cells(w: Option<&timewarp::WorkerStats>) -> [String; 4] {
    let Some(w) = w else { return Default::default() };
    let os = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    [w.seconds.to_string(), w.wait_seconds.to_string(), os(w.cpu_seconds), os(w.descheduled_seconds)]
}

/// Why a run has no GVT series (`None`: it has one), for the note beside
/// a `--gvt-csv` file that holds only its header.
pub(crate) fn no_gvt_series(stats: &Stats) -> Option<String> {
    if !stats.gvt_series.is_empty() {
        return None;
    }
    Some(match stats.sync.as_str() {
        "optimistic" => "the run ended before its first GVT round".into(),
        sync => format!("a {sync} run records no GVT series (only optimistic runs do)"),
    })
}

/// The GVT series: `gvt`, `wall`, `committed`, one row per GVT round.
pub(crate) fn gvt(stats: &Stats) -> Result<String, String> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(["gvt", "wall", "committed"]).map_err(|e| e.to_string())?;
    for p in &stats.gvt_series {
        out.write_record([p.gvt.to_string(), p.wall.to_string(), p.committed.to_string()])
            .map_err(|e| e.to_string())?;
    }
    finish(out)
}

/// The text of a finished writer.
fn finish(out: csv::Writer<Vec<u8>>) -> Result<String, String> {
    let bytes = out.into_inner().map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_pe_and_per_gvt_round() {
        let mut s = Stats {
            pes: vec![Default::default(), Default::default()],
            gvt_series: vec![timewarp::GvtPoint { gvt: 1.5, wall: 0.25, committed: 9 }],
            ..Default::default()
        };
        s.pes[1].committed = 7;
        let text = pes(&s).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].starts_with("pe,committed,processed,rolled_back,"), "{text}");
        assert!(lines[2].starts_with("1,7,"), "{text}");
        assert!(lines[0].ends_with(",worker_seconds,worker_wait_seconds,worker_cpu_seconds,worker_descheduled_seconds"));
        // No workers (or the OS said nothing): empty cells, not zeros.
        assert!(lines[2].ends_with(",,,,"), "{text}");
        s.workers = vec![timewarp::WorkerStats { seconds: 2.0, wait_seconds: 0.5, ..Default::default() }];
        let text = pes(&s).unwrap();
        assert!(text.lines().nth(1).unwrap().ends_with(",2,0.5,,"), "{text}");
        assert_eq!(gvt(&s).unwrap(), "gvt,wall,committed\n1.5,0.25,9\n");
        assert_eq!(no_gvt_series(&s), None);
        // A sequential run: one PE, the run's totals.
        let seq = Stats { sync: "sequential".into(), committed_events: 12, processed_events: 12, ..Default::default() };
        let text = pes(&seq).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.lines().nth(1).unwrap().starts_with("0,12,12,0,"), "{text}");
        assert!(no_gvt_series(&seq).unwrap().contains("a sequential run records no GVT series"));
    }
}
