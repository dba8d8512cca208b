//! `timewarp plot`: run statistics (--stats-json; several overlay), a
//! network run's links, topology map or time series, or a sweep's CSV,
//! drawn as PNG or SVG (the figures are `draw/`'s and `network/draw/`'s).

use clap::Args;
use std::path::{Path, PathBuf};

use crate::draw::{csv_table, render, stats_file, stats_panels, Format};
use crate::network::draw::{links, map, time_series};

/// `timewarp plot`: the arguments.
#[derive(Args, Debug)]
#[command(after_help = "Run statistics (`timewarp run ... --stats-json FILE`) give four panels: GVT against wall \
time, committed events per second over the run, per-PE committed and rolled-back events, and efficiency; several \
JSON files overlay for comparison. A sweep's CSV (`timewarp sweep ... -o sweep.csv`, or any CSV with a header row) \
gives --y against --x, one line per value of --by, averaged over repeated rows with their min..max as error bars; \
the axes carry the unit of a column timewarp writes (latency_mean: ns, accepted_throughput: fraction of injection \
bandwidth, event_rate: events/s, ...), and --log-x/--log-y make them logarithmic.")]
pub(crate) struct PlotArgs {
    /// Statistics JSON files (several overlay), or one CSV file.
    #[arg(required = true, value_name = "FILE")]
    inputs: Vec<PathBuf>,
    /// The picture: .png or .svg [default: the first FILE with .png].
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// CSV: the column on the x axis.
    #[arg(long, value_name = "COLUMN")]
    x: Option<String>,
    /// CSV: the column on the y axis (numbers).
    #[arg(long, value_name = "COLUMN")]
    y: Option<String>,
    /// CSV: one line per value of this column.
    #[arg(long, value_name = "COLUMN")]
    by: Option<String>,
    /// CSV: a logarithmic x axis (every x positive).
    #[arg(long)]
    log_x: bool,
    /// CSV: a logarithmic y axis (every y positive).
    #[arg(long)]
    log_y: bool,
    /// Statistics of a network run with --link-stats: draw its links' busy
    /// fractions as a heatmap instead.
    #[arg(long)]
    links: bool,
    /// Statistics of a network run with --sample-every: draw its time
    /// series (throughput, latency, packets in flight, busiest link)
    /// against virtual time instead.
    #[arg(long, conflicts_with = "links")]
    samples: bool,
    /// Statistics of a network run with --link-stats: draw its topology
    /// (torus, mesh, hypercube, dragonfly groups, fat-tree levels) with
    /// each link coloured by its busy fraction instead.
    #[arg(long, conflicts_with_all = ["links", "samples"])]
    map: bool,
    /// Picture size in pixels [default: 1200x900 for statistics, 900x600 for a CSV].
    #[arg(long, value_name = "WIDTHxHEIGHT", value_parser = parse_size)]
    size: Option<(u32, u32)>,
}

/// Parses `WIDTHxHEIGHT`.
fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("'{s}' is not WIDTHxHEIGHT in pixels (e.g. 1200x900), each 100 to 10000");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(100..=10_000).contains(&w) || !(100..=10_000).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}

/// `timewarp plot`.
pub(crate) fn run(a: &PlotArgs) -> Result<(), String> {
    let first = &a.inputs[0];
    let output = a.output.clone().unwrap_or_else(|| first.with_extension("png"));
    if a.inputs.iter().any(|p| p == &output) {
        return Err(format!("the output {} is one of the inputs: give another -o", output.display()));
    }
    let format = Format::of(&output)?;
    // A CSV by its name, or any file but a .json one when columns are named.
    let columns = a.x.is_some() || a.y.is_some() || a.by.is_some();
    let csv: Vec<bool> =
        a.inputs.iter().map(|p| has_extension(p, "csv") || columns && !has_extension(p, "json")).collect();
    if csv.iter().any(|&c| c) {
        if a.links || a.samples || a.map {
            let opt = if a.links {
                "--links"
            } else if a.map {
                "--map"
            } else {
                "--samples"
            };
            return Err(format!("{opt} draws a network run's statistics JSON, not a CSV file"));
        }
        if a.inputs.len() > 1 {
            return Err("plot one CSV file at a time (several inputs overlay statistics JSON files only)".into());
        }
        let (Some(x), Some(y)) = (&a.x, &a.y) else {
            let table = csv_table::Table::read(first)?;
            return Err(format!(
                "plotting {} needs --x COLUMN and --y COLUMN; its columns: {}",
                first.display(),
                table.header.join(", ")
            ));
        };
        let table = csv_table::Table::read(first)?;
        let series = table.series(x, y, a.by.as_deref())?.log(a.log_x, a.log_y)?;
        let size = a.size.unwrap_or(csv_table::SIZE);
        return render(&output, format, size, &series);
    }
    if let Some(opt) = [("--x", &a.x), ("--y", &a.y), ("--by", &a.by)].iter().find(|(_, v)| v.is_some()).map(|p| p.0) {
        return Err(format!("{opt} picks a CSV column; statistics JSON files are plotted without it"));
    }
    if a.log_x || a.log_y {
        return Err("--log-x and --log-y scale a CSV's plot; statistics JSON files are plotted without them".into());
    }
    let runs = a.inputs.iter().map(|p| stats_file::Run::read(p)).collect::<Result<Vec<_>, _>>()?;
    if a.links || a.map {
        let [run] = runs.as_slice() else {
            return Err("--links and --map draw one network run: give one statistics file".into());
        };
        let links = links::Links::of(&run.json, &run.path)?.ok_or_else(|| {
            format!(
                "{}: no per-link figures (model_results.links); run the network model with --link-stats FILE",
                run.path.display()
            )
        })?;
        if a.map {
            let map = map::Map::of(&run.json, &links).ok_or_else(|| {
                format!(
                    "{}: no topology shape to draw (model_results.shape, written by this version's --link-stats                      runs); run the network model again with --link-stats FILE",
                    run.path.display()
                )
            })?;
            return render(&output, format, a.size.unwrap_or(map::SIZE), &map);
        }
        return render(&output, format, a.size.unwrap_or(links::SIZE), &links);
    }
    if a.samples {
        let [run] = runs.as_slice() else {
            return Err("--samples draws one network run: give one statistics file".into());
        };
        let series = time_series::Series::of(&run.json, &run.path)?.ok_or_else(|| {
            format!(
                "{}: no time series (model_results.samples); run the network model with --sample-every NS",
                run.path.display()
            )
        })?;
        return render(&output, format, a.size.unwrap_or(time_series::SIZE), &series);
    }
    let runs = stats_file::label(runs);
    let size = a.size.unwrap_or(stats_panels::SIZE);
    render(&output, format, size, &stats_panels::Runs(runs))
}

/// Whether `p` ends in `.ext` (any case).
fn has_extension(p: &Path, ext: &str) -> bool {
    p.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_bad_ones_say_the_form() {
        assert_eq!(parse_size("1200x900"), Ok((1200, 900)));
        assert_eq!(parse_size("640X480"), Ok((640, 480)));
        for bad in ["1200", "x", "0x10", "12x99999", "axb"] {
            assert!(parse_size(bad).unwrap_err().contains("WIDTHxHEIGHT"), "{bad}");
        }
    }
}
