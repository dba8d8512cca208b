//! The module graph `module_cycles.rs` checks: a crate's module tree read
//! from its sources with syn (macro bodies included), the paths each
//! module names, and the workspace's crates and roots.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

pub(crate) type ModPath = Vec<String>;

#[derive(Default)]
pub(crate) struct Module {
    /// Child module names.
    pub(crate) children: BTreeSet<String>,
    /// Names brought in by `use` (last segment or rename) → absolute path.
    pub(crate) imports: BTreeMap<String, ModPath>,
    /// Absolute paths this module names (unresolved through imports yet).
    pub(crate) named: Vec<ModPath>,
    /// Paths named by `#[deprecated]` items: aliases kept one release at an
    /// old path, which call the new home wherever it is (reported, not
    /// counted: they go with the next release).
    pub(crate) deprecated: Vec<ModPath>,
}

pub(crate) struct Tree {
    pub(crate) modules: BTreeMap<ModPath, Module>,
}

/// `#[deprecated]`: an alias kept for one release.
pub(crate) fn is_deprecated(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("deprecated"))
}

/// `#[cfg(test)]`, or `#[cfg(all(.., test, ..))]`: compiled for tests only.
pub(crate) fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg") && a.parse_args_with(test_only).unwrap_or(false))
}

/// Whether a `cfg` predicate holds only under `test`.
pub(crate) fn test_only(input: syn::parse::ParseStream<'_>) -> syn::Result<bool> {
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
pub(crate) fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
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
pub(crate) fn flatten(tree: &syn::UseTree, prefix: &mut ModPath, out: &mut Vec<(Option<String>, ModPath)>) {
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

/// Paths named in code (types, expressions, patterns, macros' paths, and
/// what macro invocations hold).
pub(crate) struct Paths<'a> {
    pub(crate) out: &'a mut Vec<ModPath>,
}

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.segments.len() > 1 {
            self.out.push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_item(&mut self, i: &'ast syn::Item) {
        match i {
            // Nested modules are handled by the tree walk (and a module's
            // own `use` declarations too: they never reach this visitor).
            syn::Item::Mod(_) => {}
            // A `use` inside a function body or a macro names its paths
            // for the module around it.
            syn::Item::Use(u) => {
                let mut found = Vec::new();
                flatten(&u.tree, &mut Vec::new(), &mut found);
                self.out.extend(found.into_iter().map(|(_, p)| p));
            }
            _ => syn::visit::visit_item(self, i),
        }
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // syn keeps a macro's body as tokens: read them (`with_place!{..}`
        // held the call that closed a circle this test did not see).
        syn::visit::visit_macro(self, m);
        self.tokens(m.tokens.clone());
    }
}

impl Paths<'_> {
    /// What a macro's tokens name: parsed as items, statements or
    /// comma-separated expressions where they parse as one of those (so
    /// nested macros and `use` are read as in code); where they parse as
    /// none (a macro's own syntax, `with_place!(p, map => { .. })`), every
    /// path-shaped run of tokens, and each delimited group read the same way.
    pub(crate) fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        use syn::parse::Parser;
        if let Ok(file) = syn::parse2::<syn::File>(tokens.clone()) {
            return self.visit_file(&file);
        }
        if let Ok(stmts) = syn::Block::parse_within.parse2(tokens.clone()) {
            return stmts.iter().for_each(|s| self.visit_stmt(s));
        }
        let exprs = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(exprs) = exprs.parse2(tokens.clone()) {
            return exprs.iter().for_each(|e| self.visit_expr(e));
        }
        self.path_runs(tokens);
    }

    /// Every `a::b(::c)*` run in `tokens` (a leading `::` or `$crate`
    /// included), and what each delimited group holds ([`Paths::tokens`]).
    pub(crate) fn path_runs(&mut self, tokens: proc_macro2::TokenStream) {
        use proc_macro2::{Spacing, TokenTree};
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let colons = |i: usize| {
            matches!((trees.get(i), trees.get(i + 1)),
                (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                    if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':')
        };
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => {
                    self.tokens(g.stream());
                    i += 1;
                }
                TokenTree::Ident(first) => {
                    let mut path = vec![first.to_string()];
                    let mut j = i + 1;
                    while colons(j) {
                        let Some(TokenTree::Ident(next)) = trees.get(j + 2) else { break };
                        path.push(next.to_string());
                        j += 3;
                    }
                    if path.len() > 1 {
                        self.out.push(path);
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }
}

impl Tree {
    /// Reads the module tree of the crate whose root file is `root`.
    pub(crate) fn read(root: &Path) -> Tree {
        let mut tree = Tree { modules: BTreeMap::new() };
        let dir = root.parent().expect("a crate root is a file in a directory");
        tree.file(root.to_path_buf(), dir.to_path_buf(), Vec::new());
        tree
    }

    /// Reads a module's file; `dir` is where its children's files are.
    pub(crate) fn file(&mut self, file: PathBuf, dir: PathBuf, path: ModPath) {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let here = file.parent().expect("a source file is in a directory").to_path_buf();
        self.items(&ast.items, &dir, &here, path);
    }

    /// `dir`: where child modules' files are; `here`: the directory of the
    /// file the items are in (a `#[path]` is relative to it).
    pub(crate) fn items(&mut self, items: &[syn::Item], dir: &Path, here: &Path, path: ModPath) {
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
                        let out = if is_deprecated(attrs) { &mut m.deprecated } else { &mut m.named };
                        Paths { out }.visit_item(other);
                    }
                }
            }
        }
    }

    /// The module a path names, from inside module `at` (`None`: outside the crate).
    pub(crate) fn target(&self, at: &ModPath, path: &ModPath, depth: usize) -> Option<ModPath> {
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

    /// Every (user, used) module pair that only deprecated aliases make.
    pub(crate) fn deprecated_edges(&self) -> BTreeSet<(ModPath, ModPath)> {
        let edges = self.edges();
        let mut out = BTreeSet::new();
        for (at, m) in &self.modules {
            for p in &m.deprecated {
                if let Some(t) = self.target(at, p, 0) {
                    if &t != at && !edges.contains(&(at.clone(), t.clone())) {
                        out.insert((at.clone(), t));
                    }
                }
            }
        }
        out
    }

    /// Every (user, used) module pair.
    pub(crate) fn edges(&self) -> BTreeSet<(ModPath, ModPath)> {
        self.why().into_keys().collect()
    }

    /// Every (user, used) module pair, with the first path that makes it (for the report).
    pub(crate) fn why(&self) -> BTreeMap<(ModPath, ModPath), String> {
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
    pub(crate) fn sibling_cycles(&self) -> Vec<String> {
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
pub(crate) fn child_of<'a>(parent: &ModPath, m: &'a ModPath) -> Option<&'a String> {
    (m.len() > parent.len() && m[..parent.len()] == parent[..]).then(|| &m[parent.len()])
}

/// Tarjan's strongly connected components.
pub(crate) fn strongly_connected<'a>(
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
    pub(crate) fn visit<'a>(s: &mut S<'a, '_>, v: &'a String) {
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
pub(crate) fn workspace() -> PathBuf {
    std::env::var_os("TIMEWARP_CYCLES_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// The workspace's member directories: the `members = [..]` list of the top
/// `Cargo.toml` (one or several lines), a `dir/*` glob expanded to the
/// folders under `dir` that hold a `Cargo.toml`.
pub(crate) fn members(root: &Path) -> Vec<PathBuf> {
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
pub(crate) fn roots(member: &Path) -> Vec<PathBuf> {
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
