//! End-to-end tests of `timewarp plot` and `timewarp report`: real runs
//! plotted to PNG and SVG (decoded and parsed, not just written), sweeps
//! from a CSV, the HTML report parsed, and every kind of bad input.

mod common;
use common::{assert_clear_error, stderr, timewarp};

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn ok(args: &[&str]) {
    let o = timewarp(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timewarp-plot-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Statistics of a small optimistic run on two threads (written once).
fn optimistic() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        let p = tmp("optimistic.json");
        ok(&["run", "phold", "--lps", "1024", "--end", "10", "--sync", "optimistic", "--threads", "2", "--quiet"]
            .into_iter()
            .chain(["--stats-json", s(&p)])
            .collect::<Vec<_>>());
        p
    })
}

/// Statistics of a small sequential run (no GVT series, no PEs).
fn sequential() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        let p = tmp("sequential.json");
        ok(&["run", "phold", "--lps", "512", "--end", "5", "--quiet", "--stats-json", s(&p)]);
        p
    })
}

/// A sweep's CSV: two thread counts, repeated rows, a failed run, a quoted field.
fn sweep_csv() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        let p = tmp("sweep.csv");
        std::fs::write(
            &p,
            "remote,threads,rep,committed_events,event_rate,efficiency,rolled_back_events,peak_memory_bytes,\
             wall_seconds,digest,error\n\
             0.1,2,0,1000,2000000,0.99,10,1000,0.5,aa,\n\
             0.1,2,1,1000,2200000,0.99,12,1000,0.45,aa,\n\
             0.1,4,0,1000,3000000,0.97,30,1000,0.33,aa,\n\
             0.5,2,0,1000,1500000,0.95,50,1000,0.66,bb,\n\
             0.5,4,0,1000,2500000,0.9,100,1000,0.4,bb,\n\
             0.5,4,1,0,0,0,0,0,0,,\"ran out of memory, \"\"event arena\"\"\"\n",
        )
        .unwrap();
        p
    })
}

/// Width and height of a PNG, decoded.
fn png_size(p: &Path) -> (u32, u32) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(p).unwrap()));
    let mut r = dec.read_info().expect("a valid PNG");
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).expect("PNG pixels decode");
    // Not a blank picture: plots draw dark text and coloured lines on white.
    assert!(buf.chunks(3).any(|c| c[0] < 100 && c[1] < 100 && c[2] < 100), "{} has no dark pixels", p.display());
    (info.width, info.height)
}

/// The root size and all text of an SVG, parsed as XML.
fn svg(text: &str) -> ((f64, f64), String) {
    let doc = roxmltree::Document::parse(text).expect("well-formed SVG");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let dim = |a| root.attribute(a).and_then(|v: &str| v.parse::<f64>().ok()).expect("width and height");
    let words: Vec<&str> = doc.descendants().filter_map(|n| n.text()).map(str::trim).collect();
    ((dim("width"), dim("height")), words.join("|"))
}

fn svg_file(p: &Path) -> ((f64, f64), String, String) {
    let text = std::fs::read_to_string(p).unwrap();
    let (size, words) = svg(&text);
    (size, words, text)
}

#[test]
fn a_run_plots_as_png_of_the_default_and_a_chosen_size() {
    let out = tmp("run.png");
    ok(&["plot", s(optimistic()), "-o", s(&out)]);
    assert_eq!(png_size(&out), (1200, 900));
    let out = tmp("run-small.png");
    ok(&["plot", s(optimistic()), "-o", s(&out), "--size", "800x500"]);
    assert_eq!(png_size(&out), (800, 500));
}

#[test]
fn without_o_the_picture_goes_beside_the_input() {
    let input = tmp("beside.json");
    std::fs::copy(sequential(), &input).unwrap();
    ok(&["plot", s(&input)]);
    assert_eq!(png_size(&input.with_extension("png")), (1200, 900));
}

#[test]
fn a_run_plots_as_svg_with_its_four_panels_and_series() {
    let out = tmp("run.svg");
    ok(&["plot", s(optimistic()), "-o", s(&out)]);
    let (size, words, text) = svg_file(&out);
    assert_eq!(size, (1200.0, 900.0));
    for label in [
        "GVT against wall time",
        "Committed events per second",
        "Events per PE",
        "Efficiency per PE (committed / processed)",
        "wall time (s)",
        "GVT (virtual time)",
        "committed",
        "rolled back (right axis)",
        "phold, optimistic, 2 threads",
    ] {
        assert!(words.contains(label), "the SVG lacks '{label}': {words}");
    }
    // Two line series (GVT, rate): long polylines.
    let lines = text.matches("<polyline").count();
    assert!(lines >= 2, "{lines} polylines");
    // Per-PE labels 0 and 1 under the bars.
    assert!(words.contains("|0|") && words.contains("|1|"));
}

#[test]
fn a_sequential_run_plots_with_notes_for_what_it_lacks() {
    let out = tmp("seq.svg");
    ok(&["plot", s(sequential()), "-o", s(&out)]);
    let (_, words, _) = svg_file(&out);
    assert!(words.contains("no GVT rounds"), "{words}");
    assert!(words.contains("Events (sequential: one PE)"), "{words}");
}

#[test]
fn several_runs_overlay_with_a_legend_of_their_file_names() {
    let a = tmp("first-run.json");
    let b = tmp("second-run.json");
    std::fs::copy(optimistic(), &a).unwrap();
    std::fs::copy(sequential(), &b).unwrap();
    let out = tmp("both.svg");
    ok(&["plot", s(&a), s(&b), "-o", s(&out)]);
    let (_, words, _) = svg_file(&out);
    assert!(words.contains("2 runs compared"), "{words}");
    for label in ["first-run", "second-run", "first-run: committed", "second-run: rolled back (right axis)"] {
        assert!(words.contains(label), "the legend lacks '{label}': {words}");
    }
}

/// A sequential run overlaid on an optimistic one is drawn with what it
/// has: its end time at its wall time (GVT panel), its mean rate (rate
/// panel), each named so in the legend.
#[test]
fn a_sequential_run_overlaid_shows_what_stands_in_for_its_gvt_series() {
    let a = tmp("opt-run.json");
    let b = tmp("seq-run.json");
    std::fs::copy(optimistic(), &a).unwrap();
    std::fs::copy(sequential(), &b).unwrap();
    let out = tmp("opt-seq.svg");
    ok(&["plot", s(&a), s(&b), "-o", s(&out)]);
    let (_, words, text) = svg_file(&out);
    for label in
        ["seq-run (no GVT rounds: its end time, reached at its wall time)", "seq-run (no GVT series: mean rate)"]
    {
        assert!(words.contains(label), "the legend lacks '{label}': {words}");
    }
    assert!(!words.contains("no GVT rounds in this run"), "{words}");
    // The optimistic run's two lines, and the sequential run's dashed rate
    // line (drawn in dashes, one short segment each).
    assert!(text.matches("<polyline").count() >= 4, "{text}");
}

#[test]
fn a_sweep_plots_one_line_per_by_value_with_its_columns_named() {
    let out = tmp("sweep.svg");
    ok(&["plot", s(sweep_csv()), "--x", "remote", "--y", "event_rate", "--by", "threads", "-o", s(&out)]);
    let (size, words, text) = svg_file(&out);
    assert_eq!(size, (900.0, 600.0));
    for label in ["event_rate against remote, by threads", "threads = 2", "threads = 4", "remote", "event_rate"] {
        assert!(words.contains(label), "the SVG lacks '{label}': {words}");
    }
    assert!(text.matches("<circle").count() >= 4, "a marker per averaged point");
    let png = tmp("sweep.png");
    ok(&["plot", s(sweep_csv()), "--x", "threads", "--y", "efficiency", "-o", s(&png)]);
    assert_eq!(png_size(&png), (900, 600));
}

#[test]
fn a_text_x_column_plots_as_categories() {
    let out = tmp("digest.svg");
    ok(&["plot", s(sweep_csv()), "--x", "digest", "--y", "wall_seconds", "-o", s(&out)]);
    let (_, words, _) = svg_file(&out);
    assert!(words.contains("|aa|") && words.contains("|bb|"), "{words}");
}

#[test]
fn a_csv_by_another_name_plots_when_columns_are_named() {
    let input = tmp("sweep-results.txt");
    std::fs::copy(sweep_csv(), &input).unwrap();
    let out = tmp("txt.png");
    ok(&["plot", s(&input), "--x", "threads", "--y", "event_rate", "-o", s(&out)]);
    assert_eq!(png_size(&out), (900, 600));
}

#[test]
fn the_report_is_one_page_with_every_part_and_nothing_fetched() {
    let out = tmp("report.html");
    ok(&["report", s(optimistic()), "-o", s(&out)]);
    let html = std::fs::read_to_string(&out).unwrap();
    let dom = tl::parse(&html, tl::ParserOptions::default()).expect("HTML parses");
    let parser = dom.parser();
    let count = |sel: &str| dom.query_selector(sel).map_or(0, |q| q.count());
    assert_eq!(count("figure.plot"), 4, "four plots");
    assert_eq!(count("svg"), 4, "inline SVG, one per plot");
    for id in ["summary-table", "configuration-table", "pes-table", "ranks-table", "model-results"] {
        assert!(dom.get_element_by_id(id).is_some(), "the report lacks #{id}");
    }
    let pes = dom.get_element_by_id("pes-table").and_then(|h| h.get(parser)).and_then(|n| n.as_tag()).unwrap();
    assert_eq!(pes.query_selector(parser, "tr").map_or(0, |q| q.count()), 3, "a header and a row per PE");
    assert_eq!(count("script") + count("link") + count("img") + count("iframe"), 0, "nothing to fetch");
    for node in dom.nodes() {
        if let Some(tag) = node.as_tag() {
            for attr in ["src", "href"] {
                if let Some(Some(v)) = tag.attributes().get(attr) {
                    let v = v.as_utf8_str();
                    assert!(!v.contains("://") && !v.starts_with("//"), "external {attr}={v}");
                }
            }
        }
    }
    let text = dom.get_element_by_id("summary-table").and_then(|h| h.get(parser)).unwrap().inner_text(parser);
    assert!(text.contains("committed events") && text.contains("efficiency"), "{text}");
    let model = dom.get_element_by_id("model-results").and_then(|h| h.get(parser)).unwrap().inner_text(parser);
    assert!(model.contains("processed"), "PHOLD's results: {model}");
    // Each inline SVG is well-formed XML of the stated size.
    for piece in html.split("<svg").skip(1) {
        let end = piece.find("</svg>").expect("closed svg") + "</svg>".len();
        let ((w, h), words) = svg(&format!("<svg{}", &piece[..end]));
        assert_eq!((w, h), (640.0, 440.0));
        assert!(!words.is_empty());
    }
}

#[test]
fn a_sequential_report_defaults_beside_its_input() {
    let input = tmp("seq-report.json");
    std::fs::copy(sequential(), &input).unwrap();
    ok(&["report", s(&input)]);
    let html = std::fs::read_to_string(input.with_extension("html")).unwrap();
    assert!(html.contains("No per-PE figures"));
    assert_eq!(html.matches("<svg").count(), 4);
}

#[test]
fn a_network_run_with_link_stats_draws_its_link_heatmap_and_reports_it() {
    let stats = tmp("network.json");
    let csv = tmp("links.csv");
    ok(&[
        "run",
        "network",
        "--dims",
        "4,4",
        "--end",
        "5000",
        "--quiet",
        "--link-stats",
        s(&csv),
        "--stats-json",
        s(&stats),
    ]);
    let out = tmp("links.svg");
    ok(&["plot", s(&stats), "--links", "-o", s(&out)]);
    let (size, words, text) = svg_file(&out);
    assert_eq!(size, (1200.0, 500.0));
    assert!(words.contains("Link busy fraction (torus, 16 routers)") && words.contains("output port"), "{words}");
    // A cell per link (16 nodes × 4 ports) beside the colour bar's and the frame's rectangles.
    assert!(text.matches("<rect").count() >= 64, "{}", text.matches("<rect").count());
    let png = tmp("links.png");
    ok(&["plot", s(&stats), "--links", "-o", s(&png)]);
    assert_eq!(png_size(&png), (1200, 500));
    let html = tmp("network.html");
    ok(&["report", s(&stats), "-o", s(&html)]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("id=\"links\"") && page.contains("Link busy fraction"));
    assert_eq!(page.matches("<svg").count(), 6, "four plots, the links' heatmap and their map");
    assert!(page.contains("id=\"link-map\"") && page.contains("Link busy fraction on the torus"));
}

#[test]
fn bad_input_gives_one_line_and_a_failure() {
    let malformed = tmp("malformed.json");
    std::fs::write(&malformed, "{\"committed_events\": 3,").unwrap();
    let other = tmp("other.json");
    std::fs::write(&other, "{\"name\": \"not statistics\"}").unwrap();
    let wrong_type = tmp("wrong-type.json");
    std::fs::write(&wrong_type, "{\"committed_events\": 3, \"gvt_series\": 7}").unwrap();
    let ragged = tmp("ragged.csv");
    std::fs::write(&ragged, "remote,event_rate\n0.1,5\n0.2\n").unwrap();
    let empty = tmp("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let all_failed = tmp("failed.csv");
    std::fs::write(&all_failed, "remote,event_rate,error\n0.1,5,boom\n").unwrap();
    let out = tmp("bad-out.png");
    let o = s(&out);
    let (csv, opt) = (s(sweep_csv()), s(optimistic()));
    for (args, mention) in [
        (vec!["plot", "/nonexistent/stats.json", "-o", o], "cannot read /nonexistent/stats.json"),
        (vec!["plot", s(&malformed), "-o", o], "is not valid JSON"),
        (vec!["plot", s(&other), "-o", o], "not run statistics"),
        (vec!["plot", s(&wrong_type), "-o", o], "gvt_series is not a list"),
        (vec!["plot", opt, "-o", "/tmp/x.jpg"], ".png or .svg"),
        (vec!["plot", opt, "-o", "/nonexistent/dir/x.png"], "cannot write the plot to /nonexistent/dir/x.png"),
        (vec!["plot", opt, "--x", "remote", "-o", o], "--x picks a CSV column"),
        (vec!["plot", "/nonexistent/sweep.csv", "--x", "a", "--y", "b", "-o", o], "cannot read"),
        (vec!["plot", s(&ragged), "--x", "remote", "--y", "event_rate", "-o", o], "line 3 has 1 fields"),
        (vec!["plot", s(&empty), "--x", "remote", "--y", "event_rate", "-o", o], "header row"),
        (vec!["plot", s(&all_failed), "--x", "remote", "--y", "event_rate", "-o", o], "every row has an error"),
        (vec!["plot", csv, "--x", "remote", "--y", "speed", "-o", o], "--y speed"),
        (vec!["plot", csv, "--x", "remote", "--y", "speed", "-o", o], "remote, threads, rep"),
        (vec!["plot", csv, "--x", "nope", "--y", "event_rate", "-o", o], "--x nope"),
        (vec!["plot", csv, "--x", "remote", "--y", "event_rate", "--by", "nope", "-o", o], "--by nope"),
        (vec!["plot", csv, "--x", "remote", "--y", "digest", "-o", o], "not a number"),
        (vec!["plot", csv, "-o", o], "needs --x COLUMN and --y COLUMN; its columns: remote, threads"),
        (vec!["plot", csv, opt, "-o", o], "one CSV file at a time"),
        (vec!["plot", opt, "-o", opt], "is one of the inputs"),
        (vec!["plot", opt, "--links", "-o", o], "run the network model with --link-stats"),
        (vec!["plot", csv, "--links", "--x", "remote", "--y", "event_rate", "-o", o], "--links draws"),
        (vec!["report", "/nonexistent/stats.json", "-o", "/tmp/r.html"], "cannot read"),
        (vec!["report", s(&malformed), "-o", "/tmp/r.html"], "is not valid JSON"),
        (vec!["report", s(&other), "-o", "/tmp/r.html"], "not run statistics"),
        (vec!["report", opt, "-o", "/nonexistent/dir/r.html"], "cannot write the report"),
    ] {
        assert_clear_error(&args, mention);
    }
    assert!(!out.exists(), "no picture from bad input");
}

#[test]
fn malformed_options_get_clap_s_message() {
    let o = timewarp(&["plot", s(optimistic()), "--size", "huge"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("WIDTHxHEIGHT"), "{}", stderr(&o));
    let o = timewarp(&["plot"]);
    assert_eq!(o.status.code(), Some(2));
}
