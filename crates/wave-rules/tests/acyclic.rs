//! No import circles between the modules of the workspace's crates.
//!
//! Data flows one way (sources -> parse -> RuleSet -> event -> session ->
//! render; the CLI over the core; the binding over both), so no module may
//! reach, through the paths it names, a module that reaches back to it. Every
//! `.rs` file of a crate is one module of its tree (from its `mod` items); a
//! path it names (`use crate::discover::x`, `crate::parse::f()`,
//! `super::Thing`, a child module's name) is an edge to the innermost module
//! that path enters. Each module's own children and its parent are not edges
//! of the graph: a parent declares and re-exports its children, and a child
//! reaches its parent's items by `super::`; only a walk that leaves one
//! family and comes back is a circle. The test fails with every circle
//! found, each as the chain of files that closes it.
//!
//! Parsed with `syn` (the Rust parser of the proc-macro ecosystem), so
//! comments, strings and macros' text are not mistaken for paths.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// One module of a crate: its path of names from the crate root and its file.
#[derive(Debug)]
struct Module {
    names: Vec<String>,
    file: PathBuf,
}

/// The module tree of the crate whose root file is `root` (`lib.rs` or
/// `main.rs`), from its `mod name;` items (inline `mod name { }` blocks are
/// part of their file's module).
fn modules(root: &Path) -> Vec<Module> {
    let mut out = Vec::new();
    let mut stack = vec![(Vec::new(), root.to_path_buf())];
    while let Some((names, file)) = stack.pop() {
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        // A file's children live beside it (`lib.rs`, `main.rs`, `mod.rs`) or
        // in the directory named after it (`discover.rs` -> `discover/`).
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = if names.is_empty() || stem == "mod" {
            file.parent().unwrap().to_path_buf()
        } else {
            file.parent().unwrap().join(&stem)
        };
        for item in &ast.items {
            let syn::Item::Mod(m) = item else { continue };
            if m.content.is_some() {
                continue;
            }
            let name = m.ident.to_string();
            let explicit = m.attrs.iter().find_map(|a| {
                if !a.path().is_ident("path") {
                    return None;
                }
                let syn::Meta::NameValue(nv) = &a.meta else {
                    return None;
                };
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
                else {
                    return None;
                };
                Some(file.parent().unwrap().join(s.value()))
            });
            let child = explicit
                .or_else(|| Some(dir.join(format!("{name}.rs"))).filter(|f| f.is_file()))
                .unwrap_or_else(|| dir.join(&name).join("mod.rs"));
            let mut child_names = names.clone();
            child_names.push(name);
            stack.push((child_names, child));
        }
        out.push(Module { names, file });
    }
    out.sort_by(|a, b| a.names.cmp(&b.names));
    out
}

/// Every path a file names: `use` trees (flattened) and paths in code.
#[derive(Default)]
struct Paths(Vec<Vec<String>>);

impl Paths {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.push_with(prefix, &n.ident.to_string()),
            syn::UseTree::Rename(r) => self.push_with(prefix, &r.ident.to_string()),
            syn::UseTree::Glob(_) => self.0.push(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    fn push_with(&mut self, prefix: &[String], last: &str) {
        let mut p = prefix.to_vec();
        if last != "self" {
            p.push(last.to_string());
        }
        self.0.push(p);
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.0
            .push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
        // The arguments of `format!`, `assert!`, `matches!` and the like are
        // expressions: their paths count too.
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(args) = m.parse_body_with(parser) {
            for e in &args {
                self.visit_expr(e);
            }
        }
    }
}

/// The innermost module of `tree` that `path`, named in module `at`, enters.
fn resolve(tree: &BTreeSet<Vec<String>>, at: &[String], path: &[String]) -> Option<Vec<String>> {
    let (mut base, rest): (Vec<String>, &[String]) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("self") => (at.to_vec(), &path[1..]),
        Some("super") => {
            let mut base = at.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            (base, rest)
        }
        // A bare name: a child module of this one (2018 paths), else an
        // item, a local or another crate's name.
        Some(_) => (at.to_vec(), path),
        None => return None,
    };
    for seg in rest {
        base.push(seg.clone());
        if !tree.contains(&base) {
            base.pop();
            break;
        }
    }
    Some(base)
}

/// The file-to-file edges of one crate, without each module's own family
/// (its children and its parent).
fn edges(root: &Path) -> (Vec<Module>, BTreeMap<usize, BTreeSet<usize>>) {
    let mods = modules(root);
    let tree: BTreeSet<Vec<String>> = mods.iter().map(|m| m.names.clone()).collect();
    let index: BTreeMap<&[String], usize> = mods
        .iter()
        .enumerate()
        .map(|(i, m)| (m.names.as_slice(), i))
        .collect();
    let mut graph: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (i, m) in mods.iter().enumerate() {
        let text = std::fs::read_to_string(&m.file).unwrap();
        let ast = syn::parse_file(&text).unwrap();
        let mut paths = Paths::default();
        paths.visit_file(&ast);
        for p in &paths.0 {
            let bare = !matches!(
                p.first().map(String::as_str),
                Some("crate" | "self" | "super")
            );
            let Some(target) = resolve(&tree, &m.names, p) else {
                continue;
            };
            // A bare name that entered no child is not a module path.
            if bare && target.len() <= m.names.len() {
                continue;
            }
            let family = target.len() + 1 == m.names.len() && m.names.starts_with(&target)
                || m.names.len() + 1 == target.len() && target.starts_with(&m.names);
            if target == m.names || family || target.is_empty() {
                continue;
            }
            graph.entry(i).or_default().insert(index[target.as_slice()]);
        }
    }
    (mods, graph)
}

/// Every circle of the graph: one per strongly connected component of more
/// than one module, as a shortest chain through it.
fn circles(n: usize, graph: &BTreeMap<usize, BTreeSet<usize>>) -> Vec<Vec<usize>> {
    // Tarjan's strongly connected components, iteratively.
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on = vec![false; n];
    let mut stack = Vec::new();
    let mut comps = Vec::new();
    let mut next = 0;
    let empty = BTreeSet::new();
    for s in 0..n {
        if index[s] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, Vec<usize>)> =
            vec![(s, graph.get(&s).unwrap_or(&empty).iter().copied().collect())];
        index[s] = next;
        low[s] = next;
        next += 1;
        stack.push(s);
        on[s] = true;
        while let Some((v, succ)) = work.last_mut() {
            let v = *v;
            if let Some(w) = succ.pop() {
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    work.push((w, graph.get(&w).unwrap_or(&empty).iter().copied().collect()));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some((u, _)) = work.last() {
                    low[*u] = low[*u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        on[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    if comp.len() > 1 {
                        comps.push(comp);
                    }
                }
            }
        }
    }
    // A shortest circle through the component's first module (breadth first).
    comps
        .into_iter()
        .map(|comp| {
            let inside: BTreeSet<usize> = comp.iter().copied().collect();
            let start = *inside.iter().next().unwrap();
            let mut prev = BTreeMap::new();
            let mut queue = std::collections::VecDeque::from([start]);
            'bfs: while let Some(v) = queue.pop_front() {
                for &w in graph.get(&v).unwrap_or(&empty) {
                    if !inside.contains(&w) || prev.contains_key(&w) {
                        continue;
                    }
                    prev.insert(w, v);
                    if w == start {
                        break 'bfs;
                    }
                    queue.push_back(w);
                }
            }
            let mut chain = vec![start];
            let mut at = prev[&start];
            while at != start {
                chain.push(at);
                at = prev[&at];
            }
            chain.push(start);
            chain.reverse();
            chain
        })
        .collect()
}

/// The circles of the crate rooted at `root`, as text (one line each).
fn report(root: &Path, workspace: &Path) -> Vec<String> {
    let (mods, graph) = edges(root);
    circles(mods.len(), &graph)
        .into_iter()
        .map(|chain| {
            let files: Vec<String> = chain
                .iter()
                .map(|&i| {
                    mods[i]
                        .file
                        .strip_prefix(workspace)
                        .unwrap_or(&mods[i].file)
                        .display()
                        .to_string()
                })
                .collect();
            format!(
                "a circle of {} files: {}",
                chain.len() - 1,
                files.join(" -> ")
            )
        })
        .collect()
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

#[test]
fn the_workspace_crates_have_no_import_circles() {
    let ws = workspace();
    let roots = [
        "crates/memory-rules/src/lib.rs",
        "crates/wave-rules/src/lib.rs",
        "src/lib.rs",
    ];
    let mut found = Vec::new();
    for root in roots {
        let file = ws.join(root);
        assert!(file.is_file(), "{root}: the crate root is missing");
        found.extend(report(&file, &ws));
    }
    assert!(
        found.is_empty(),
        "import circles (data flows one way; move the shared piece down):\n{}",
        found.join("\n")
    );
}

fn fixture(files: &[(&str, &str)]) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let f = t.path().join(name);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text).unwrap();
    }
    t
}

#[test]
fn a_circle_through_a_call_path_is_found_and_named_file_by_file() {
    // skill -> discover -> parse -> skill, as the old skill.rs closed it: a
    // call through a full path, no `use`.
    let t = fixture(&[
        (
            "lib.rs",
            "pub mod discover;\npub mod parse;\npub mod skill;\n",
        ),
        (
            "discover.rs",
            "use crate::parse::parse;\npub fn open() {}\n",
        ),
        ("parse.rs", "pub fn parse() { crate::skill::check(); }\n"),
        (
            "skill.rs",
            "pub fn check() { let _ = crate::discover::open(); }\n",
        ),
    ]);
    let found = report(&t.path().join("lib.rs"), t.path());
    assert_eq!(
        found,
        ["a circle of 3 files: discover.rs -> parse.rs -> skill.rs -> discover.rs"]
    );
}

#[test]
fn one_way_flows_parents_and_children_are_no_circle() {
    let t = fixture(&[
        (
            "lib.rs",
            "pub mod fs;\npub mod formats;\npub use formats::claude::read;\n",
        ),
        ("fs.rs", "pub fn open() {}\n"),
        (
            "formats/mod.rs",
            "pub mod claude;\npub use claude::read;\npub struct Shared;\n",
        ),
        (
            "formats/claude.rs",
            "use super::Shared;\npub fn read() -> Shared { crate::fs::open(); Shared }\n",
        ),
    ]);
    assert!(report(&t.path().join("lib.rs"), t.path()).is_empty());
}

#[test]
fn a_circle_through_a_macro_argument_or_super_path_is_found() {
    let t = fixture(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a/mod.rs", "mod inner;\n"),
        ("a/inner.rs", "fn f() { assert!(super::super::b::ok()); }\n"),
        (
            "b.rs",
            "pub fn ok() -> bool { matches!(crate::a::inner::X, 1) }\n",
        ),
    ]);
    let found = report(&t.path().join("lib.rs"), t.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("a/inner.rs") && found[0].contains("b.rs"),
        "{found:?}"
    );
}
