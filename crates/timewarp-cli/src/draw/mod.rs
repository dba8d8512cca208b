//! Pictures drawn with `plotters` into PNG or SVG: the kit every figure
//! uses (a [`Figure`] rendered to a file or an SVG string, the palette,
//! fonts, number labels) and the generic figures: run statistics' panels
//! (`stats_panels.rs`, of the files `stats_file.rs` reads), a CSV's
//! columns as lines (`csv_table.rs`), colour ramps (`ramp.rs`) and the TLM
//! field picture (`picture.rs`). The `timewarp plot` command is `plot.rs`;
//! the network's figures are in `network/draw/`.
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
// By path, for the network's figures too (`network/draw/`).
pub(crate) use legend;

pub(crate) mod csv_table;
#[cfg(feature = "models")]
pub(crate) mod picture;
pub(crate) mod ramp;
pub(crate) mod stats_file;
pub(crate) mod stats_panels;

use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

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
