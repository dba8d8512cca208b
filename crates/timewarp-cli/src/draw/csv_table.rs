//! Plots of a sweep's CSV (`timewarp sweep ... -o sweep.csv`, or any CSV
//! with a header row): one column against another, a line per value of a
//! third, repeated rows averaged with their min..max as error bars; axes
//! with the unit of a known column, linear or logarithmic.

use super::{colour, err, padded, short, title_font, Drawn, Figure};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Default picture size.
pub(crate) const SIZE: (u32, u32) = (900, 600);

/// A CSV file: its header and rows, each as long as the header.
#[derive(Debug)]
pub(crate) struct Table {
    /// Where it came from.
    pub path: PathBuf,
    /// Column names.
    pub header: Vec<String>,
    /// (line number, fields).
    pub rows: Vec<(usize, Vec<String>)>,
}

/// Splits CSV text into records (RFC 4180, by the `csv` crate: quoted
/// fields may hold commas, doubled quotes and line breaks). Returns (first
/// line, fields) per record; blank lines are skipped.
fn records(text: &str) -> Result<Vec<(usize, Vec<String>)>, String> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    let mut out = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| match e.position() {
            Some(p) => format!("line {}: {e}", p.line()),
            None => e.to_string(),
        })?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        let fields: Vec<String> = record.iter().map(str::to_string).collect();
        if !(fields.len() == 1 && fields[0].trim().is_empty()) {
            out.push((line, fields));
        }
    }
    Ok(out)
}

impl Table {
    /// Reads a CSV file with a header row.
    pub(crate) fn read(path: &Path) -> Result<Table, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Table::parse(path, &text)
    }

    /// Parses CSV `text` (read from `path`).
    pub(crate) fn parse(path: &Path, text: &str) -> Result<Table, String> {
        let bad = |what: String| format!("{}: {what}", path.display());
        let mut recs = records(text.strip_prefix('\u{feff}').unwrap_or(text)).map_err(bad)?.into_iter();
        let Some((_, header)) = recs.next() else {
            return Err(bad("empty; a CSV file needs a header row naming its columns".into()));
        };
        let header: Vec<String> = header.into_iter().map(|h| h.trim().to_string()).collect();
        if header.iter().any(String::is_empty) {
            return Err(bad(format!("the header row has an empty column name: {}", header.join(","))));
        }
        let mut rows = Vec::new();
        for (line, r) in recs {
            if r.len() != header.len() {
                return Err(bad(format!(
                    "line {line} has {} fields but the header has {} columns",
                    r.len(),
                    header.len()
                )));
            }
            rows.push((line, r));
        }
        Ok(Table { path: path.to_path_buf(), header, rows })
    }

    /// The index of column `name`, or an error listing the columns.
    pub(crate) fn column(&self, name: &str, option: &str) -> Result<usize, String> {
        self.header.iter().position(|h| h == name).ok_or_else(|| {
            format!(
                "{option} {name}: {} has no such column; its columns: {}",
                self.path.display(),
                self.header.join(", ")
            )
        })
    }

    /// The points of `y` against `x`, grouped by `by`, skipping failed runs
    /// (a non-empty `error` column).
    pub(crate) fn series(&self, x: &str, y: &str, by: Option<&str>) -> Result<Sweep, String> {
        let (xi, yi) = (self.column(x, "--x")?, self.column(y, "--y")?);
        let bi = by.map(|b| self.column(b, "--by")).transpose()?;
        let ei = self.header.iter().position(|h| h == "error");
        let failed = |r: &[String]| ei.is_some_and(|i| !r[i].trim().is_empty());
        let ok: Vec<&(usize, Vec<String>)> = self.rows.iter().filter(|(_, r)| !failed(r)).collect();
        if ok.is_empty() {
            return Err(format!(
                "{}: no rows to plot{}",
                self.path.display(),
                if self.rows.is_empty() { "" } else { " (every row has an error)" }
            ));
        }
        let num = |(line, r): &(usize, Vec<String>), i: usize| -> Result<f64, String> {
            r[i].trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                format!(
                    "{} line {line}: {} is '{}', not a number; --y takes a numeric column",
                    self.path.display(),
                    self.header[i],
                    r[i]
                )
            })
        };
        // Numbers on the x axis when every value is one; else categories in order of appearance.
        let numeric = ok.iter().all(|(_, r)| r[xi].trim().parse::<f64>().is_ok_and(f64::is_finite));
        let mut categories: Vec<String> = Vec::new();
        let mut groups: Vec<(String, BTreeMap<Key, Vec<f64>>)> = Vec::new();
        for row in &ok {
            let xv = if numeric {
                row.1[xi].trim().parse::<f64>().unwrap_or_default()
            } else {
                let s = row.1[xi].trim().to_string();
                match categories.iter().position(|c| c == &s) {
                    Some(i) => i as f64,
                    None => {
                        categories.push(s);
                        (categories.len() - 1) as f64
                    }
                }
            };
            let yv = num(row, yi)?;
            let g = bi.map(|b| row.1[b].trim().to_string()).unwrap_or_default();
            let slot = match groups.iter().position(|(n, _)| n == &g) {
                Some(i) => i,
                None => {
                    groups.push((g, BTreeMap::new()));
                    groups.len() - 1
                }
            };
            groups[slot].1.entry(Key(xv)).or_default().push(yv);
        }
        // Groups that read as numbers go in numeric order (threads 2 before 16).
        if groups.iter().all(|(g, _)| g.parse::<f64>().is_ok()) {
            groups.sort_by(|a, b| a.0.parse::<f64>().unwrap_or_default().total_cmp(&b.0.parse().unwrap_or_default()));
        }
        let lines = groups
            .into_iter()
            .map(|(name, pts)| Line {
                name,
                points: pts
                    .into_iter()
                    .map(|(Key(x), ys)| {
                        let mean = ys.iter().sum::<f64>() / ys.len() as f64;
                        let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
                        let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                        Point { x, mean, lo, hi, n: ys.len() }
                    })
                    .collect(),
            })
            .collect();
        Ok(Sweep { x: x.into(), y: y.into(), by: by.map(Into::into), categories, lines, log_x: false, log_y: false })
    }
}

/// An axis label: the column and its unit.
fn label(column: &str) -> String {
    match crate::readable::unit(column) {
        Some(u) => format!("{column} ({u})"),
        None => column.to_string(),
    }
}

impl Sweep {
    /// Asks for logarithmic axes: refused where a value is not positive
    /// (a log axis cannot show it), or where x is names, not numbers.
    pub(crate) fn log(mut self, log_x: bool, log_y: bool) -> Result<Sweep, String> {
        let pts = || self.lines.iter().flat_map(|l| &l.points);
        if log_x && !self.categories.is_empty() {
            return Err(format!("--log-x: {} holds names, not numbers; leave --log-x out", self.x));
        }
        if let Some(p) = pts().find(|p| log_x && p.x <= 0.0) {
            return Err(format!("--log-x: {} has the value {}, which a log axis cannot show", self.x, p.x));
        }
        if let Some(p) = pts().find(|p| log_y && p.lo <= 0.0) {
            return Err(format!("--log-y: {} has the value {}, which a log axis cannot show", self.y, p.lo));
        }
        // Drawn as log10 of the values on linear axes, labelled with the
        // values: ticks stay readable over less than a decade too.
        for p in self.lines.iter_mut().flat_map(|l| l.points.iter_mut()) {
            if log_x {
                p.x = p.x.log10();
            }
            if log_y {
                (p.mean, p.lo, p.hi) = (p.mean.log10(), p.lo.log10(), p.hi.log10());
            }
        }
        self.log_x = log_x;
        self.log_y = log_y;
        Ok(self)
    }

    /// Draws the lines on `chart`.
    fn lines_on<'a, DB: DrawingBackend + 'a>(
        &self,
        mut chart: ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    ) -> Drawn {
        let cats = &self.categories;
        // A log axis holds log10 of the values: its labels show the values.
        let at = |log: bool, v: f64| if log { 10f64.powf(v) } else { v };
        let x_label = |v: &f64| {
            if cats.is_empty() {
                short(at(self.log_x, *v))
            } else if (v - v.round()).abs() < 1e-6 && *v >= 0.0 {
                cats.get(v.round() as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        let repeated = self.lines.iter().flat_map(|l| &l.points).any(|p| p.n > 1);
        let y_desc = if repeated { format!("{} (mean; bars: min to max)", label(&self.y)) } else { label(&self.y) };
        let y_label = |v: &f64| short(at(self.log_y, *v));
        let log_note = |log: bool, d: String| if log { format!("{d}, log scale") } else { d };
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(log_note(self.log_x, label(&self.x)))
            .y_desc(log_note(self.log_y, y_desc))
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .light_line_style(WHITE.mix(0.0));
        if !cats.is_empty() {
            mesh.x_labels(cats.len() + 1).disable_x_mesh();
        }
        mesh.draw().map_err(err)?;
        for (i, line) in self.lines.iter().enumerate() {
            let c = colour(i);
            let name = match &self.by {
                Some(b) => format!("{b} = {}", line.name),
                None => self.y.clone(),
            };
            chart
                .draw_series(LineSeries::new(line.points.iter().map(|p| (p.x, p.mean)), c.stroke_width(2)))
                .map_err(err)?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
            chart.draw_series(line.points.iter().map(|p| Circle::new((p.x, p.mean), 4, c.filled()))).map_err(err)?;
            chart
                .draw_series(
                    line.points
                        .iter()
                        .filter(|p| p.n > 1)
                        .map(|p| ErrorBar::new_vertical(p.x, p.lo, p.mean, p.hi, c.stroke_width(1), 10)),
                )
                .map_err(err)?;
        }
        if self.by.is_some() {
            legend!(chart, UpperRight)?;
        }
        Ok(())
    }
}

/// An x value as a map key (total order).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Key(f64);
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Key {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// The average of the rows at one x, with their range.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Point {
    pub x: f64,
    pub mean: f64,
    pub lo: f64,
    pub hi: f64,
    /// Rows averaged.
    pub n: usize,
}

/// One value of `--by` (or all rows).
#[derive(Clone, Debug)]
pub(crate) struct Line {
    pub name: String,
    pub points: Vec<Point>,
}

/// What `plot sweep.csv --x --y [--by]` draws.
#[derive(Clone, Debug)]
pub(crate) struct Sweep {
    pub x: String,
    pub y: String,
    pub by: Option<String>,
    /// Names of a non-numeric x axis (x = their index), else empty.
    pub categories: Vec<String>,
    pub lines: Vec<Line>,
    /// Logarithmic axes (`--log-x`, `--log-y`): the points hold log10 of the values.
    pub log_x: bool,
    pub log_y: bool,
}

impl Figure for Sweep {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn {
        let pts = self.lines.iter().flat_map(|l| &l.points);
        let (x_lo, x_hi) = pts.clone().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.x), b.max(p.x)));
        let y_hi = pts.clone().map(|p| p.hi).fold(f64::NEG_INFINITY, f64::max);
        let y_lo = pts.map(|p| p.lo).fold(f64::INFINITY, f64::min);
        // Rates and counts read best from zero; negative data keeps its own floor.
        let y = padded(y_lo.min(0.0), y_hi);
        let y = if self.log_y {
            padded(y_lo, y_hi)
        } else if y_lo >= 0.0 {
            0.0..y.end
        } else {
            y
        };
        let x = if self.categories.is_empty() { padded(x_lo, x_hi) } else { -0.5..self.categories.len() as f64 - 0.5 };
        let title = match &self.by {
            Some(b) => format!("{} against {}, by {b}", self.y, self.x),
            None => format!("{} against {}", self.y, self.x),
        };
        let chart = ChartBuilder::on(root)
            .caption(title, title_font())
            .margin(16)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(x, y)
            .map_err(err)?;
        self.lines_on(chart)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "remote,threads,rep,event_rate,digest,error\n\
        0.1,2,0,100,ab,\n0.1,2,1,300,ab,\n0.1,4,0,500,ab,\n0.5,2,0,50,cd,\n0.5,4,0,80,cd,\n\
        0.5,4,1,1000,ef,\"out of memory, \"\"big\"\"\"\n";

    fn table() -> Table {
        Table::parse(Path::new("s.csv"), CSV).unwrap()
    }

    #[test]
    fn repeated_rows_average_with_their_range_and_errors_are_skipped() {
        let s = table().series("remote", "event_rate", Some("threads")).unwrap();
        assert_eq!(s.lines.len(), 2);
        assert_eq!(s.lines[0].name, "2");
        assert_eq!(s.lines[0].points[0], Point { x: 0.1, mean: 200.0, lo: 100.0, hi: 300.0, n: 2 });
        // The failed row (1000) is not in threads = 4 at 0.5.
        assert_eq!(s.lines[1].points[1], Point { x: 0.5, mean: 80.0, lo: 80.0, hi: 80.0, n: 1 });
    }

    #[test]
    fn quoted_fields_keep_commas_and_quotes() {
        let t = table();
        assert_eq!(t.rows[5].1[5], "out of memory, \"big\"");
    }

    #[test]
    fn unknown_columns_list_the_columns() {
        let e = table().series("remote", "speed", None).unwrap_err();
        assert!(e.contains("--y speed") && e.contains("remote, threads, rep, event_rate, digest, error"), "{e}");
    }

    #[test]
    fn text_on_the_y_axis_is_refused_text_on_x_is_categories() {
        let e = table().series("remote", "digest", None).unwrap_err();
        assert!(e.contains("not a number") && e.contains("line 2"), "{e}");
        let s = table().series("digest", "event_rate", None).unwrap();
        assert_eq!(s.categories, ["ab", "cd"]);
    }

    #[test]
    fn ragged_rows_and_open_quotes_are_named() {
        let e = Table::parse(Path::new("s.csv"), "a,b\n1,2\n3\n").unwrap_err();
        assert!(e.contains("line 3 has 1 fields"), "{e}");
        assert!(Table::parse(Path::new("s.csv"), "").unwrap_err().contains("header"));
    }
}
