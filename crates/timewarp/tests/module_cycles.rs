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
//! names a path into B (`use` declarations and paths in code, followed
//! through imports and re-exports). At every level of the tree the
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

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

type ModPath = Vec<String>;

#[derive(Default)]
struct Module {
    /// Child module names.
    children: BTreeSet<String>,
    /// Names brought in by `use` (last segment or rename) → absolute path.
    imports: BTreeMap<String, ModPath>,
    /// Absolute paths this module names (unresolved through imports yet).
    named: Vec<ModPath>,
}

struct Tree {
    modules: BTreeMap<ModPath, Module>,
}

/// `#[cfg(test)]`, or `#[cfg(all(.., test, ..))]`: compiled for tests only.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg") && a.parse_args_with(test_only).unwrap_or(false))
}

/// Whether a `cfg` predicate holds only under `test`.
fn test_only(input: syn::parse::ParseStream<'_>) -> syn::Result<bool> {
    let path: syn::Path = input.parse()?;
    if path.is_ident("test") {
        return Ok(true);
    }
    if input.peek(syn::Token![=]) {
        input.parse::<syn::Token![=]>()?;
        input.parse::<syn::Lit>()?;
        return Ok(false);
    }
    if path.is_ident("all") && input.peek(syn::token::Paren) {
        let inner;
        syn::parenthesized!(inner in input);
        let any = inner.parse_terminated(test_only, syn::Token![,])?;
        return Ok(any.iter().any(|t| *t));
    }
    // `any(..)`, `not(..)`: not test-only (their contents are read past).
    if input.peek(syn::token::Paren) {
        let inner;
        syn::parenthesized!(inner in input);
        inner.parse_terminated(test_only, syn::Token![,])?;
    }
    Ok(false)
}

/// The file a `#[path = "…"]` attribute names, if any.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
        syn::Meta::NameValue(syn::MetaNameValue { value: syn::Expr::Lit(l), .. }) => match &l.lit {
            syn::Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Flattens a `use` tree into (binding name, absolute path) pairs; a glob
/// gives its prefix with no binding.
fn flatten(tree: &syn::UseTree, prefix: &mut ModPath, out: &mut Vec<(Option<String>, ModPath)>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                out.push((prefix.last().cloned(), prefix.clone()));
            } else {
                let mut full = prefix.clone();
                full.push(name.clone());
                out.push((Some(name), full));
            }
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix.clone();
            let name = r.ident.to_string();
            if name != "self" {
                full.push(name);
            }
            out.push((Some(r.rename.to_string()), full));
        }
        syn::UseTree::Glob(_) => out.push((None, prefix.clone())),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten(t, prefix, out);
            }
        }
    }
}

/// Paths named in code (types, expressions, patterns, macros' paths).
struct Paths<'a> {
    out: &'a mut Vec<ModPath>,
}

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.segments.len() > 1 {
            self.out.push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_item(&mut self, i: &'ast syn::Item) {
        // Nested modules and `use` are handled by the tree walk.
        if !matches!(i, syn::Item::Mod(_) | syn::Item::Use(_)) {
            syn::visit::visit_item(self, i);
        }
    }
}

impl Tree {
    /// Reads the module tree of the crate whose root file is `root`.
    fn read(root: &Path) -> Tree {
        let mut tree = Tree { modules: BTreeMap::new() };
        let dir = root.parent().expect("a crate root is a file in a directory");
        tree.file(root.to_path_buf(), dir.to_path_buf(), Vec::new());
        tree
    }

    /// Reads a module's file; `dir` is where its children's files are.
    fn file(&mut self, file: PathBuf, dir: PathBuf, path: ModPath) {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let here = file.parent().expect("a source file is in a directory").to_path_buf();
        self.items(&ast.items, &dir, &here, path);
    }

    /// `dir`: where child modules' files are; `here`: the directory of the
    /// file the items are in (a `#[path]` is relative to it).
    fn items(&mut self, items: &[syn::Item], dir: &Path, here: &Path, path: ModPath) {
        self.modules.entry(path.clone()).or_default();
        for item in items {
            match item {
                syn::Item::Mod(m) if !is_test(&m.attrs) => {
                    let name = m.ident.to_string();
                    self.modules.get_mut(&path).unwrap().children.insert(name.clone());
                    let mut child = path.clone();
                    child.push(name.clone());
                    match &m.content {
                        Some((_, inner)) => self.items(inner, &dir.join(&name), here, child),
                        None if path_attr(&m.attrs).is_some() => {
                            let file = here.join(path_attr(&m.attrs).unwrap_or_default());
                            let children = file.parent().expect("a source file is in a directory").to_path_buf();
                            self.file(file, children, child);
                        }
                        None => {
                            let flat = dir.join(format!("{name}.rs"));
                            if flat.exists() {
                                self.file(flat, dir.join(&name), child);
                            } else {
                                self.file(dir.join(&name).join("mod.rs"), dir.join(&name), child);
                            }
                        }
                    }
                }
                syn::Item::Mod(_) => {}
                syn::Item::Use(u) if !is_test(&u.attrs) => {
                    let mut found = Vec::new();
                    flatten(&u.tree, &mut Vec::new(), &mut found);
                    let m = self.modules.get_mut(&path).unwrap();
                    for (name, p) in found {
                        if let Some(name) = name {
                            m.imports.insert(name, p.clone());
                        }
                        m.named.push(p);
                    }
                }
                syn::Item::Use(_) => {}
                other => {
                    let attrs: &[syn::Attribute] = match other {
                        syn::Item::Fn(f) => &f.attrs,
                        syn::Item::Impl(i) => &i.attrs,
                        syn::Item::Struct(s) => &s.attrs,
                        syn::Item::Enum(e) => &e.attrs,
                        syn::Item::Const(c) => &c.attrs,
                        syn::Item::Static(s) => &s.attrs,
                        syn::Item::Trait(t) => &t.attrs,
                        syn::Item::Type(t) => &t.attrs,
                        syn::Item::Macro(m) => &m.attrs,
                        _ => &[],
                    };
                    if !is_test(attrs) {
                        let m = self.modules.get_mut(&path).unwrap();
                        Paths { out: &mut m.named }.visit_item(other);
                    }
                }
            }
        }
    }

    /// The module a path names, from inside module `at` (`None`: outside the crate).
    fn target(&self, at: &ModPath, path: &ModPath, depth: usize) -> Option<ModPath> {
        if depth > 16 || path.is_empty() {
            return None;
        }
        let mut cur: ModPath;
        let mut rest = path.as_slice();
        match rest[0].as_str() {
            "crate" => {
                cur = Vec::new();
                rest = &rest[1..];
            }
            "self" => {
                cur = at.clone();
                rest = &rest[1..];
            }
            "super" => {
                cur = at.clone();
                while rest.first().map(String::as_str) == Some("super") {
                    cur.pop();
                    rest = &rest[1..];
                }
            }
            first => {
                let m = self.modules.get(at)?;
                if m.children.contains(first) {
                    cur = at.clone();
                } else if let Some(p) = m.imports.get(first) {
                    let mut full = p.clone();
                    full.extend(rest[1..].iter().cloned());
                    return self.target(at, &full, depth + 1);
                } else {
                    return None; // std, a dependency, or a local item
                }
            }
        }
        for seg in rest {
            let m = self.modules.get(&cur)?;
            if m.children.contains(seg) {
                cur.push(seg.clone());
            } else if let Some(p) = m.imports.get(seg) {
                // A re-export (or import) of that module: follow it.
                let there = cur.clone();
                return self.target(&there, p, depth + 1).or(Some(there));
            } else {
                break;
            }
        }
        Some(cur)
    }

    /// Every (user, used) module pair.
    fn edges(&self) -> BTreeSet<(ModPath, ModPath)> {
        self.why().into_keys().collect()
    }

    /// Every (user, used) module pair, with the first path that makes it (for the report).
    fn why(&self) -> BTreeMap<(ModPath, ModPath), String> {
        let mut edges = BTreeMap::new();
        for (at, m) in &self.modules {
            for p in &m.named {
                if let Some(t) = self.target(at, p, 0) {
                    if &t != at {
                        edges.entry((at.clone(), t)).or_insert_with(|| p.join("::"));
                    }
                }
            }
        }
        edges
    }

    /// Cycles among siblings, each as its modules' names joined by " ↔ ".
    fn sibling_cycles(&self) -> Vec<String> {
        let why = self.why();
        let edges: BTreeSet<_> = why.keys().cloned().collect();
        let mut cycles = Vec::new();
        for (parent, m) in &self.modules {
            let kids: Vec<&String> = m.children.iter().collect();
            let mut adj: BTreeMap<&String, BTreeSet<&String>> = BTreeMap::new();
            for (a, b) in &edges {
                let (Some(x), Some(y)) = (child_of(parent, a), child_of(parent, b)) else { continue };
                if x != y {
                    let (x, y) = (kids.iter().find(|k| **k == x).unwrap(), kids.iter().find(|k| **k == y).unwrap());
                    adj.entry(x).or_default().insert(y);
                }
            }
            for scc in strongly_connected(&kids, &adj) {
                if scc.len() > 1 {
                    let names: Vec<String> =
                        scc.iter().map(|k| [parent.clone(), vec![(*k).clone()]].concat().join("::")).collect();
                    let why: Vec<String> = edges
                        .iter()
                        .filter(|(a, b)| {
                            let (x, y) = (child_of(parent, a), child_of(parent, b));
                            x != y && x.is_some_and(|x| scc.contains(&x)) && y.is_some_and(|y| scc.contains(&y))
                        })
                        .map(|(a, b)| format!("{} → {} ({})", a.join("::"), b.join("::"), why[&(a.clone(), b.clone())]))
                        .collect();
                    cycles.push(format!("{}\n    {}", names.join(" ↔ "), why.join("\n    ")));
                }
            }
        }
        cycles
    }
}

/// Which child of `parent` the module `m` lies under (`None`: not below `parent`, or `parent` itself).
fn child_of<'a>(parent: &ModPath, m: &'a ModPath) -> Option<&'a String> {
    (m.len() > parent.len() && m[..parent.len()] == parent[..]).then(|| &m[parent.len()])
}

/// Tarjan's strongly connected components.
fn strongly_connected<'a>(
    nodes: &[&'a String],
    adj: &BTreeMap<&'a String, BTreeSet<&'a String>>,
) -> Vec<Vec<&'a String>> {
    struct S<'a, 'b> {
        adj: &'b BTreeMap<&'a String, BTreeSet<&'a String>>,
        index: BTreeMap<&'a String, (usize, usize)>,
        stack: Vec<&'a String>,
        on: BTreeSet<&'a String>,
        next: usize,
        out: Vec<Vec<&'a String>>,
    }
    fn visit<'a>(s: &mut S<'a, '_>, v: &'a String) {
        s.index.insert(v, (s.next, s.next));
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        for &w in s.adj.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.index[v].1.min(s.index[w].1);
                s.index.get_mut(v).unwrap().1 = low;
            } else if s.on.contains(w) {
                let low = s.index[v].1.min(s.index[w].0);
                s.index.get_mut(v).unwrap().1 = low;
            }
        }
        if s.index[v].0 == s.index[v].1 {
            let mut scc = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(w);
                scc.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(scc);
        }
    }
    let mut s = S { adj, index: BTreeMap::new(), stack: Vec::new(), on: BTreeSet::new(), next: 0, out: Vec::new() };
    for &n in nodes {
        if !s.index.contains_key(n) {
            visit(&mut s, n);
        }
    }
    s.out
}

/// The checkout whose workspace is checked: this one, or `TIMEWARP_CYCLES_ROOT`.
fn workspace() -> PathBuf {
    std::env::var_os("TIMEWARP_CYCLES_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// The workspace's member directories: the `members = [..]` list of the top
/// `Cargo.toml` (one or several lines), a `dir/*` glob expanded to the
/// folders under `dir` that hold a `Cargo.toml`.
fn members(root: &Path) -> Vec<PathBuf> {
    let manifest = root.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let at = text
        .lines()
        .scan(0, |pos, l| {
            let here = *pos;
            *pos += l.len() + 1;
            Some((here, l))
        })
        .find(|(_, l)| l.trim_start().starts_with("members"))
        .map(|(pos, _)| pos)
        .unwrap_or_else(|| panic!("{}: no `members = [..]`", manifest.display()));
    let list: String = text[at..].lines().map(|l| l.split('#').next().unwrap()).collect::<Vec<_>>().join("\n");
    let list = &list[list.find('[').unwrap() + 1..list.find(']').unwrap()];
    let mut out = Vec::new();
    for name in list.split(',').map(|m| m.trim().trim_matches('"')).filter(|m| !m.is_empty()) {
        match name.strip_suffix("/*") {
            Some(dir) => {
                let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
                    .unwrap_or_else(|e| panic!("{dir}: {e}"))
                    .map(|e| e.unwrap().path())
                    .filter(|p| p.join("Cargo.toml").exists())
                    .collect();
                found.sort();
                out.extend(found);
            }
            None => out.push(root.join(name)),
        }
    }
    out
}

/// A member's crate roots: its library, binaries, integration tests and
/// benchmarks (cargo's default places; no crate here names another path).
fn roots(member: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        ["src/lib.rs", "src/main.rs"].iter().map(|f| member.join(f)).filter(|f| f.exists()).collect();
    for dir in ["src/bin", "tests", "benches"] {
        let Ok(entries) = std::fs::read_dir(member.join(dir)) else { continue };
        let mut found: Vec<PathBuf> = entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "rs"))
            .collect();
        found.sort();
        out.extend(found);
    }
    out
}

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
/// re-exports, and ignores test modules and parent/child use.
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
    w("b.rs", "pub fn g() { crate::Thing::new(); }\n");
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
    let cycles = tree.sibling_cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let first = cycles[0].lines().next().unwrap();
    for m in ["a", "b", "c"] {
        assert!(first.split(" ↔ ").any(|x| x == m), "{cycles:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
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
