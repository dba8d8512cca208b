//! No import cycle between the modules of any crate of the workspace
//! (issue 30 for the engine, issue 42 for every crate), and no source file
//! over 800 lines.
//!
//! The crates are the workspace's members (`members` in the top
//! `Cargo.toml`, globs expanded); each member's crate roots are checked:
//! `src/lib.rs`, `src/main.rs`, `src/bin/*.rs`, `tests/*.rs` and
//! `benches/*.rs`. The test lives in the engine crate and reads the other
//! crates' sources by path, so it needs none of them as a dependency.
//!
//! A module tree is read from the sources (the root and the `mod`
//! declarations it leads to, test modules left out: `#[cfg(test)]` and
//! `#[cfg(all(test, ..))]`). Module A *uses* module B when anything in A
//! names a path into B (`use` declarations, also inside function bodies,
//! and paths in code, followed through imports and re-exports). Every line
//! is read: syn leaves a macro invocation's body as tokens, so the body is
//! parsed as items, statements or expressions where it parses as one of
//! them, and otherwise every path-shaped run of its tokens counts
//! (`with_place!(p, map => { .. })` once hid an import circle from this
//! test; `the_checker_sees_inside_macros` keeps it seen). Items marked
//! `#[deprecated]` — aliases kept one release at an old path, which call
//! the new home — are reported and not counted. At every level of the tree the
//! siblings — the children of one module — must form a DAG, where sibling
//! X depends on sibling Y when anything in X's subtree uses anything in
//! Y's. A parent and its own children may use each other (a folder's
//! `mod.rs` is its front door); two siblings that need each other mean one
//! of them holds something that belongs below both.
//!
//! `TIMEWARP_CYCLES_ROOT=<checkout>` checks another checkout's workspace
//! (to measure an old commit); the test then prints what it finds and
//! fails the same way.
//!
//! At the end of the file, apart: the CLI crate's modules follow the
//! pipeline docs/architecture.md documents (issue 63).

mod module_graph;
use module_graph::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[test]
fn no_import_cycle_between_sibling_modules() {
    let root = workspace();
    let members = members(&root);
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).canonicalize().unwrap();
    if std::env::var_os("TIMEWARP_CYCLES_ROOT").is_none() {
        assert!(
            members.iter().any(|m| m.canonicalize().is_ok_and(|m| m == here)),
            "the workspace's members were misread (this crate is not among them): {members:?}"
        );
    }
    let mut cycles = Vec::new();
    for member in &members {
        let roots = roots(member);
        assert!(!roots.is_empty(), "{}: no crate root (src/lib.rs, src/main.rs, ...)", member.display());
        for file in roots {
            let name = file.strip_prefix(&root).unwrap_or(&file).display().to_string();
            let tree = Tree::read(&file);
            let found = tree.sibling_cycles();
            eprintln!(
                "{name}: {} modules, {} import edges, {} cycles",
                tree.modules.len(),
                tree.edges().len(),
                found.len()
            );
            cycles.extend(found.into_iter().map(|c| format!("{name}: {c}")));
            for (a, b) in tree.deprecated_edges() {
                eprintln!("{name}: {} → {} only through a deprecated alias (not counted)", a.join("::"), b.join("::"));
            }
        }
    }
    for c in &cycles {
        eprintln!("cycle in {c}");
    }
    assert!(
        cycles.is_empty(),
        "{} import cycle(s) between sibling modules (listed above): move what both need below both",
        cycles.len()
    );
}

/// Longest a source file may be (issue 42): a longer one holds more than
/// one concern; split it by concern (its tests, a part of its type, a
/// group of options), as `queue/ladder/` and `network/choices.rs` were.
const MAX_LINES: usize = 800;

/// Every `.rs` file under `dir`, recursively, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut found: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    found.sort();
    for p in found {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_source_file_over_800_lines() {
    let root = workspace();
    let mut long = Vec::new();
    for member in members(&root) {
        let mut files = Vec::new();
        for dir in ["src", "tests", "benches", "examples"] {
            rust_files(&member.join(dir), &mut files);
        }
        for f in files {
            let n = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display())).lines().count();
            if n > MAX_LINES {
                long.push(format!("{} ({n} lines)", f.strip_prefix(&root).unwrap_or(&f).display()));
            }
        }
    }
    assert!(long.is_empty(), "over {MAX_LINES} lines, split by concern: {}", long.join(", "));
}

/// The checker itself finds a cycle it is shown, follows imports and
/// re-exports, and ignores test modules, parent/child use and (reporting
/// them) deprecated aliases.
#[test]
fn the_checker_sees_cycles() {
    let dir = std::env::temp_dir().join(format!("timewarp-cycles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    let w = |f: &str, s: &str| std::fs::write(dir.join(f), s).unwrap();
    w(
        "lib.rs",
        "mod a; mod b; mod c; pub use c::Thing;\n#[cfg(test)] mod tests;\n#[cfg(all(feature = \"x\", test))] mod t2;\n",
    );
    w("a/mod.rs", "mod x; use super::b; fn f() { b::g(); }\n");
    w("a/x.rs", "use super::super::c; fn h() -> c::T { todo!() } fn p() { super::f() }\n");
    w("b.rs", "pub fn g() { crate::Thing::new(); }\n#[deprecated] pub fn old() { crate::a::q() }\n");
    w(
        "c.rs",
        "pub struct Thing; pub fn k() { crate::a::q(); }\n#[cfg(test)] mod t { use crate::b; }\n\
         #[cfg(all(test, unix))] mod u { use crate::b; }\n#[cfg(not(test))] mod v { fn f() { super::super::a::q() } }\n",
    );
    let tree = Tree::read(&dir.join("lib.rs"));
    let edges = tree.edges();
    let e = |a: &str, b: &str| {
        let split = |s: &str| -> ModPath { s.split("::").filter(|x| !x.is_empty()).map(String::from).collect() };
        edges.contains(&(split(a), split(b)))
    };
    assert!(e("a", "b"), "{edges:?}");
    assert!(e("a::x", "c"));
    assert!(e("b", "c"), "a re-export is followed to the module that defines it: {edges:?}");
    assert!(e("c", "a"));
    assert!(!e("c", "b"), "test modules are left out (`cfg(test)`, `cfg(all(test, ..))`): {edges:?}");
    assert!(!tree.modules.contains_key(&vec!["t2".to_string()]), "a test-only module's file is not read");
    assert!(e("c::v", "a"), "`cfg(not(test))` is not a test module: {edges:?}");
    assert!(!e("b", "a"), "a deprecated alias is not counted: {edges:?}");
    assert!(tree.deprecated_edges().contains(&(vec!["b".into()], vec!["a".into()])), "but it is reported");
    let cycles = tree.sibling_cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let first = cycles[0].lines().next().unwrap();
    for m in ["a", "b", "c"] {
        assert!(first.split(" ↔ ").any(|x| x == m), "{cycles:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every line is read: a circle whose arrows are named only inside macro
/// invocations (a body of the macro's own syntax, one of expressions, one
/// of items) or by a `use` in a function body is found in the fixture
/// `tests/fixtures/macro_cycle/` (a source tree read, never compiled).
#[test]
fn the_checker_sees_inside_macros() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/macro_cycle/lib.rs");
    let tree = Tree::read(&fixture);
    let edges = tree.edges();
    let e = |a: &str, b: &str| edges.contains(&(vec![a.to_string()], vec![b.to_string()]));
    assert!(e("a", "b"), "inside `with!(1, n => {{ .. }})`: {edges:?}");
    assert!(e("b", "c"), "inside `println!(..)`: {edges:?}");
    assert!(e("c", "d"), "inside `items! {{ .. }}`: {edges:?}");
    assert!(e("d", "a"), "a `use` in a function body: {edges:?}");
    let cycles = tree.sibling_cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let first = cycles[0].lines().next().unwrap();
    for m in ["a", "b", "c", "d"] {
        assert!(first.split(" ↔ ").any(|x| x == m), "{cycles:?}");
    }
}

/// The workspace is read from `members` (several lines, globs, a
/// `default-members` before it), each member with all its crate roots.
#[test]
fn the_checker_reads_every_crate_of_a_workspace() {
    let dir = std::env::temp_dir().join(format!("timewarp-members-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let w = |f: &str, s: &str| {
        let p = dir.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, s).unwrap();
    };
    w("Cargo.toml", "[workspace]\ndefault-members = [\"a\"]\nmembers = [\n  \"a\",\n  \"ex/*\", # examples\n]\n");
    w("a/Cargo.toml", "");
    w("a/src/lib.rs", "");
    w("ex/b/Cargo.toml", "");
    w("ex/b/src/main.rs", "");
    w("ex/b/src/bin/tool.rs", "");
    w("ex/b/tests/t.rs", "mod common;");
    w("ex/b/tests/common/mod.rs", "");
    w("ex/notes/readme.md", "");
    assert_eq!(members(&dir), [dir.join("a"), dir.join("ex/b")]);
    let b = dir.join("ex/b");
    assert_eq!(roots(&b), [b.join("src/main.rs"), b.join("src/bin/tool.rs"), b.join("tests/t.rs")]);
    let t = Tree::read(&b.join("tests/t.rs"));
    assert!(t.modules.contains_key(&vec!["common".to_string()]), "a test crate's modules are read");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- The CLI's pipeline (issue 63) ----------------------------------------
// A separate addition: the table, the reading of the documented pipeline and
// the test that checks both against the imports (the tree above builds them).

/// The top-level modules of the CLI crate (`crates/timewarp-cli/src`) in
/// pipeline order, the front door first: what happens after `run` is typed
/// reads top-down. A module imports only modules of the stages after its
/// own, below it: never one of an earlier stage, nor another of its own.
/// `lib.rs` only declares them and re-exports. docs/architecture.md lists
/// the same stages in the same order, between `<!-- cli-pipeline -->` and
/// `<!-- /cli-pipeline -->`.
const CLI_PIPELINE: &[&[&str]] = &[
    &["embed"],
    &["app"],
    &["command"],
    &["plot", "html_report", "sweep"],
    &["network"],
    &["models"],
    &["rerun"],
    &["action"],
    &["expand", "effective"],
    &["run_file"],
    &["run_options"],
    &["registry"],
    &["execute"],
    &["partition", "trace_out"],
    &["stats_out"],
    &["signals"],
    &["procs", "resume"],
    &["args"],
    &["auto"],
    &["draw", "csv_stats"],
    &["readable"],
    &["program"],
];

/// The stages of a pipeline as a document lists them: the numbered lines
/// between `<!-- cli-pipeline -->` and `<!-- /cli-pipeline -->`, each
/// stage's modules the names in backquotes before its ` — ` (`app.rs`,
/// `network/`: the module's file or folder).
fn documented_pipeline(doc: &str) -> Option<Vec<Vec<String>>> {
    let start = doc.find("<!-- cli-pipeline -->")?;
    let end = start + doc[start..].find("<!-- /cli-pipeline -->")?;
    let mut stages = Vec::new();
    for line in doc[start..end].lines().map(str::trim_start) {
        let Some((number, rest)) = line.split_once(". ") else { continue };
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let names = rest.split(" — ").next().unwrap_or_default();
        let stage: Vec<String> = names
            .split('`')
            .skip(1)
            .step_by(2)
            .map(|n| n.trim_end_matches('/').trim_end_matches(".rs").to_string())
            .collect();
        stages.push(stage);
    }
    Some(stages)
}

#[test]
fn the_cli_follows_its_documented_pipeline() {
    let root = workspace();
    let lib = root.join("crates/timewarp-cli/src/lib.rs");
    // lib.rs is the front door only: module declarations and re-exports.
    let text = std::fs::read_to_string(&lib).unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
    let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
    for item in &ast.items {
        let declared = matches!(item, syn::Item::Mod(m) if m.content.is_none());
        assert!(
            declared || matches!(item, syn::Item::Use(_)),
            "crates/timewarp-cli/src/lib.rs only declares modules and re-exports; move this into a module of the \
             pipeline: {}",
            quote_item(item)
        );
    }
    // Every module is in the table, and the table names no other.
    let tree = Tree::read(&lib);
    let modules = &tree.modules[&Vec::new()].children;
    let listed: BTreeSet<String> = CLI_PIPELINE.iter().flat_map(|s| s.iter().map(|m| m.to_string())).collect();
    let unlisted: Vec<&String> = modules.difference(&listed).collect();
    let gone: Vec<&String> = listed.difference(modules).collect();
    assert!(
        unlisted.is_empty(),
        "modules of the CLI in no stage of CLI_PIPELINE (add them, and to the docs): {unlisted:?}"
    );
    assert!(gone.is_empty(), "CLI_PIPELINE names modules the CLI does not have: {gone:?}");
    // Every import runs down the pipeline.
    let up = against_pipeline(&tree, CLI_PIPELINE);
    for u in &up {
        eprintln!("up the pipeline: {u}");
    }
    assert!(
        up.is_empty(),
        "{} import(s) of the CLI against its pipeline (listed above): a module imports only the stages below it",
        up.len()
    );
    // The documentation lists the same stages.
    let path = root.join("docs/architecture.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let documented = documented_pipeline(&doc).unwrap_or_else(|| {
        panic!("docs/architecture.md: no CLI pipeline between <!-- cli-pipeline --> and <!-- /cli-pipeline -->")
    });
    let table: Vec<Vec<String>> = CLI_PIPELINE.iter().map(|s| s.iter().map(|m| m.to_string()).collect()).collect();
    assert_eq!(documented, table, "docs/architecture.md's CLI pipeline (left) is not CLI_PIPELINE (right)");
}

/// The imports between top-level modules of `tree` that run against
/// `stages` (a module importing one of its own stage or of an earlier
/// one), and those of the crate root's own items, each with its path.
fn against_pipeline(tree: &Tree, stages: &[&[&str]]) -> Vec<String> {
    let stage_of = |m: &str| stages.iter().position(|s| s.contains(&m));
    let mut up = Vec::new();
    for ((user, used), path) in tree.why() {
        let Some(from) = user.first() else { continue }; // the root's re-exports
        let Some(to) = used.first() else {
            up.push(format!("{} → the crate root ({path}): name the module that defines it", user.join("::")));
            continue;
        };
        let (Some(a), Some(b)) = (stage_of(from), stage_of(to)) else { continue }; // checked apart
        if from != to && b <= a {
            up.push(format!(
                "{} → {} ({path}): stage {} imports stage {}",
                user.join("::"),
                used.join("::"),
                a + 1,
                b + 1
            ));
        }
    }
    up
}

/// What an item is, for a message.
fn quote_item(item: &syn::Item) -> String {
    match item {
        syn::Item::Fn(f) => format!("fn {}", f.sig.ident),
        syn::Item::Struct(s) => format!("struct {}", s.ident),
        syn::Item::Enum(e) => format!("enum {}", e.ident),
        syn::Item::Const(c) => format!("const {}", c.ident),
        syn::Item::Static(s) => format!("static {}", s.ident),
        syn::Item::Trait(t) => format!("trait {}", t.ident),
        syn::Item::Impl(_) => "an impl".into(),
        syn::Item::Mod(m) => format!("mod {} {{ .. }}", m.ident),
        _ => "an item".into(),
    }
}

/// The pipeline check reads a documented pipeline, and sees an import up
/// it and an import of the crate root.
#[test]
fn the_pipeline_check_reads_the_documentation() {
    let doc = "intro\n<!-- cli-pipeline -->\n1. `app.rs` — the door\n   more text, `not` a stage\n\
               2. `plot.rs`, `network/` — two — dashes\n<!-- /cli-pipeline -->\n3. `after` — out\n";
    let stages = documented_pipeline(doc).unwrap();
    assert_eq!(stages, [vec!["app".to_string()], vec!["plot".to_string(), "network".to_string()]]);
    assert_eq!(documented_pipeline("no markers"), None);

    let dir = std::env::temp_dir().join(format!("timewarp-pipeline-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let w = |f: &str, s: &str| std::fs::write(dir.join(f), s).unwrap();
    w("lib.rs", "mod a; mod b; mod c; mod d; pub fn f() {}\n");
    w("a.rs", "use crate::b::g; fn x() { g(); crate::d::h(); }\n");
    w("b.rs", "pub fn g() { crate::c::k(); crate::f(); }\n");
    w("c.rs", "pub fn k() {}\n#[cfg(test)] mod t { use crate::a; }\n");
    w("d.rs", "pub fn h() { crate::a::x(); }\n");
    let tree = Tree::read(&dir.join("lib.rs"));
    let up = against_pipeline(&tree, &[&["a"], &["b", "d"], &["c"]]);
    assert_eq!(up.len(), 2, "{up:?}");
    assert!(up[0].starts_with("b → the crate root (crate::f)"), "{up:?}");
    assert!(up[1].starts_with("d → a (crate::a::x): stage 2 imports stage 1"), "{up:?}");
    let same = against_pipeline(&tree, &[&["a", "b"], &["c", "d"]]);
    assert!(same.iter().any(|u| u.starts_with("a → b")), "one stage's modules are independent: {same:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
