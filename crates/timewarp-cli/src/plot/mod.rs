//! Plots and pictures: `timewarp plot` (run statistics, sweeps) and the
//! models' pictures (TLM fields), drawn with `plotters` into PNG or SVG.
//!
//! Text is laid out with a vendored DejaVu Sans (assets/), so a plot looks
//! the same on every machine and needs no system fonts.

/// Draws the legend box of `chart` at `SeriesLabelPosition::$pos` (a macro:
/// plotters' chart types make a function of it unwieldy).
macro_rules! legend {
    ($chart:expr, $pos:ident) => {
        $chart
            .configure_series_labels()
            .position(SeriesLabelPosition::$pos)
            .label_font(("sans-serif", 14))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .draw()
            .map_err(err)
    };
}

pub(crate) mod links;
pub(crate) mod map;
#[cfg(feature = "models")]
pub(crate) mod picture;
pub(crate) mod ramp;
pub(crate) mod series;
pub(crate) mod stats;
pub(crate) mod sweep;

use clap::Args;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

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

/// Picture formats, chosen by the output's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Png,
    Svg,
}

impl Format {
    /// The format of `path`, by its extension.
    pub(crate) fn of(path: &Path) -> Result<Format, String> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("png") => Ok(Format::Png),
            Some("svg") => Ok(Format::Svg),
            _ => Err(format!("cannot tell the picture format of {}: name it .png or .svg", path.display())),
        }
    }
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
            let table = sweep::Table::read(first)?;
            return Err(format!(
                "plotting {} needs --x COLUMN and --y COLUMN; its columns: {}",
                first.display(),
                table.header.join(", ")
            ));
        };
        let table = sweep::Table::read(first)?;
        let series = table.series(x, y, a.by.as_deref())?.log(a.log_x, a.log_y)?;
        let size = a.size.unwrap_or(sweep::SIZE);
        return render(&output, format, size, &series);
    }
    if let Some(opt) = [("--x", &a.x), ("--y", &a.y), ("--by", &a.by)].iter().find(|(_, v)| v.is_some()).map(|p| p.0) {
        return Err(format!("{opt} picks a CSV column; statistics JSON files are plotted without it"));
    }
    if a.log_x || a.log_y {
        return Err("--log-x and --log-y scale a CSV's plot; statistics JSON files are plotted without them".into());
    }
    let runs = a.inputs.iter().map(|p| stats::Run::read(p)).collect::<Result<Vec<_>, _>>()?;
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
        let series = series::Series::of(&run.json, &run.path)?.ok_or_else(|| {
            format!(
                "{}: no time series (model_results.samples); run the network model with --sample-every NS",
                run.path.display()
            )
        })?;
        return render(&output, format, a.size.unwrap_or(series::SIZE), &series);
    }
    let runs = stats::label(runs);
    let size = a.size.unwrap_or(stats::SIZE);
    render(&output, format, size, &stats::Runs(runs))
}

/// Whether `p` ends in `.ext` (any case).
fn has_extension(p: &Path, ext: &str) -> bool {
    p.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// What drawing returns: a message on failure.
pub(crate) type Drawn = Result<(), String>;

/// A plotters error as text.
pub(crate) fn err<E: std::fmt::Display>(e: E) -> String {
    format!("cannot draw the plot: {e}")
}

/// Registers the vendored font once, before anything lays out text.
fn fonts() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
        // The font is compiled in and known good; a failure would only lose the text.
        for family in ["sans-serif", "DejaVu Sans"] {
            for style in [FontStyle::Normal, FontStyle::Bold] {
                let _ = plotters::style::register_font(family, style, FONT);
            }
        }
    });
}

/// Something drawn on any plotters backend (SVG, bitmap).
pub(crate) trait Figure {
    /// Draws on `root` (white already).
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn;
}

/// Draws `fig` on a white picture of `size` and writes it to `path`.
pub(crate) fn render(path: &Path, format: Format, size: (u32, u32), fig: &impl Figure) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("cannot write the plot to {}: {e}", path.display());
    match format {
        Format::Svg => {
            let text = svg(size, fig)?;
            std::fs::write(path, text).map_err(|e| fail(&e))
        }
        Format::Png => {
            let rgb = bitmap(size, fig)?;
            write_png(path, size, &rgb).map_err(|e| fail(&e))
        }
    }
}

/// Draws an SVG document in memory (the HTML report inlines it).
pub(crate) fn svg(size: (u32, u32), fig: &impl Figure) -> Result<String, String> {
    fonts();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        fig.draw(&root)?;
        root.present().map_err(err)?;
    }
    Ok(text)
}

/// Draws into an RGB buffer.
pub(crate) fn bitmap(size: (u32, u32), fig: &impl Figure) -> Result<Vec<u8>, String> {
    fonts();
    let mut rgb = vec![255u8; size.0 as usize * size.1 as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        fig.draw(&root)?;
        root.present().map_err(err)?;
    }
    Ok(rgb)
}

/// Writes 8-bit RGB pixels as a PNG (with the `png` crate the TLM pictures use:
/// plotters' own encoder would pull in the whole `image` crate).
pub(crate) fn write_png(path: &Path, (w, h): (u32, u32), rgb: &[u8]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgb).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())
}

/// Colours of the series (the first is the single run's), readable on white
/// and told apart in grey by their order.
pub(crate) const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// The colour of series `i`.
pub(crate) fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// A panel's title font.
pub(crate) fn title_font() -> TextStyle<'static> {
    ("sans-serif", 20).into_font().into()
}

/// Writes a note in the middle of an empty panel (a plot that has no data).
pub(crate) fn note<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, text: &str) -> Drawn {
    let area = area.titled(title, title_font()).map_err(err)?;
    let (w, h) = area.dim_in_pixel();
    let style = TextStyle::from(("sans-serif", 16).into_font()).color(&RGBColor(90, 90, 90)).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Center,
        ),
    );
    area.draw(&Text::new(text.to_string(), (w as i32 / 2, h as i32 / 2), style)).map_err(err)
}

/// A readable number for axis labels: 1.2M, 350k, 0.25.
pub(crate) fn short(v: f64) -> String {
    let a = v.abs();
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if a >= 1e9 {
        format!("{}G", trim(format!("{:.2}", v / 1e9)))
    } else if a >= 1e6 {
        format!("{}M", trim(format!("{:.2}", v / 1e6)))
    } else if a >= 1e4 {
        format!("{}k", trim(format!("{:.1}", v / 1e3)))
    } else if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else {
        trim(format!("{v:.3}"))
    }
}

/// A range with room around `lo..hi` (and a width when they are equal).
pub(crate) fn padded(lo: f64, hi: f64) -> std::ops::Range<f64> {
    if !lo.is_finite() || !hi.is_finite() {
        return 0.0..1.0;
    }
    if hi <= lo {
        let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        return lo - d..hi + d;
    }
    let d = (hi - lo) * 0.05;
    lo - d..hi + d
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

    #[test]
    fn formats_come_from_the_extension() {
        assert_eq!(Format::of(Path::new("a.PNG")), Ok(Format::Png));
        assert_eq!(Format::of(Path::new("a/b.svg")), Ok(Format::Svg));
        assert!(Format::of(Path::new("a.jpg")).unwrap_err().contains(".png or .svg"));
    }

    #[test]
    fn short_numbers_read_well() {
        assert_eq!(short(1_500_000.0), "1.5M");
        assert_eq!(short(350_000.0), "350k");
        assert_eq!(short(0.25), "0.25");
        assert_eq!(short(0.0), "0");
        assert_eq!(short(250.0), "250");
    }
}
