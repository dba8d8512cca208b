//! `--stats-csv` (one row per PE) and `--gvt-csv` (the GVT series): a run's
//! statistics for spreadsheets. The columns are the field names of the
//! statistics JSON (`pes` and `gvt_series`), so both read alike.

use timewarp::Stats;

/// Per-PE statistics: a `pe` column (the PE's number), then every field of
/// `PeStats` under its JSON name.
pub(crate) fn pes(stats: &Stats) -> Result<String, String> {
    // The header comes from serde (the field names, in order): write the
    // rows once as serde sees them, then again with the PE number in front.
    let mut plain = csv::Writer::from_writer(Vec::new());
    for pe in &stats.pes {
        plain.serialize(pe).map_err(|e| e.to_string())?;
    }
    if stats.pes.is_empty() {
        plain.serialize(timewarp::PeStats::default()).map_err(|e| e.to_string())?;
    }
    let plain = plain.into_inner().map_err(|e| e.to_string())?;
    let mut rows = csv::Reader::from_reader(plain.as_slice());
    let mut out = csv::Writer::from_writer(Vec::new());
    let header = rows.headers().map_err(|e| e.to_string())?.clone();
    out.write_record(std::iter::once("pe").chain(header.iter())).map_err(|e| e.to_string())?;
    for (pe, row) in rows.records().take(stats.pes.len()).enumerate() {
        let row = row.map_err(|e| e.to_string())?;
        out.write_record(std::iter::once(pe.to_string().as_str()).chain(row.iter())).map_err(|e| e.to_string())?;
    }
    finish(out)
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
        assert_eq!(gvt(&s).unwrap(), "gvt,wall,committed\n1.5,0.25,9\n");
        assert_eq!(pes(&Stats::default()).unwrap().lines().count(), 1);
    }
}
