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
        // `mod name;` items, and the names an `internals!(a, b)` macro
        // declares (lib.rs: private, or public under the `internals` feature).
        let mut declared = Vec::new();
        for item in &ast.items {
            match item {
                syn::Item::Mod(m) if m.content.is_none() => {
                    declared.push((m.ident.to_string(), m.attrs.clone()))
                }
                syn::Item::Macro(m) if m.mac.path.is_ident("internals") => {
                    let names = m
                        .mac
                        .parse_body_with(
                            syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated,
                        )
                        .unwrap_or_else(|e| panic!("{}: internals!: {e}", file.display()));
                    declared.extend(names.into_iter().map(|n| (n.to_string(), Vec::new())));
                }
                _ => {}
            }
        }
        // A module declared twice under opposite `cfg`s is one module.
        let mut seen = BTreeSet::new();
        declared.retain(|(name, _)| seen.insert(name.clone()));
        for (name, attrs) in declared {
            let explicit = attrs.iter().find_map(|a| {
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

    // `pub(crate)` and `pub(in path)` name who may see an item, not a path
    // this file reaches.
    fn visit_vis_restricted(&mut self, _: &'ast syn::VisRestricted) {}

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
/// (its children and its parent). An import of the crate root (`crate::X`)
/// is an edge to it: the layering names it; the circles leave it out, as
/// the root declares and re-exports every module.
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
            if target == m.names || family {
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
    let (mods, mut graph) = edges(root);
    for tos in graph.values_mut() {
        tos.retain(|&to| !mods[to].names.is_empty());
    }
    circles(mods.len(), &graph)
        .into_iter()
        .map(|chain| {
            let files: Vec<String> = chain
                .iter()
                .map(|&i| shown(&mods[i].file, workspace))
                .collect();
            format!(
                "a circle of {} files: {}",
                chain.len() - 1,
                files.join(" -> ")
            )
        })
        .collect()
}

/// The root file of each crate of the workspace: the core, the CLI, the binding.
const CRATE_ROOTS: [&str; 3] = [
    "crates/memory-rules/src/lib.rs",
    "crates/wave-rules/src/lib.rs",
    "src/lib.rs",
];

/// `file` as a message names it: relative to the workspace.
fn shown(file: &Path, workspace: &Path) -> String {
    file.strip_prefix(workspace)
        .unwrap_or(file)
        .display()
        .to_string()
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
    let mut found = Vec::new();
    for root in CRATE_ROOTS {
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

/// One layered crate: its root file, its layers (the folders of its
/// `src`), lowest first, the folders of one layer being peers; and whether
/// the crate root counts as its top (its modules then name an item's own
/// module, never the root's re-export of it).
type Layering = (&'static str, &'static [&'static [&'static str]], bool);

/// The layered crates: the one place the layer order is declared.
const LAYERED: [Layering; 2] = [
    (
        "crates/memory-rules/src/lib.rs",
        &[
            &["base"],
            &["matchers"],
            &["rules"],
            &["formats"],
            &["sources"],
            &["load"],
            &["memory"],
            &["delivery"],
        ],
        // The core's modules reach the façade's names (`crate::Rule`).
        false,
    ),
    // The CLI: its base (options, environment, output, settings files,
    // launch); the roads (hooks, the MCP server); eval (which installs
    // hooks); the tools over eval's results (report, the language server);
    // one file per subcommand; the command line and `run` on top.
    (
        "crates/wave-rules/src/lib.rs",
        &[
            &["base"],
            &["hook", "mcp"],
            &["eval"],
            &["lsp", "report"],
            &["commands"],
            &["cli"],
        ],
        true,
    ),
];

/// Every import from a lower layer to a higher one, or (`root_on_top`) to
/// the crate root, the façade over every layer, as text (one line each).
/// The root itself is not checked.
fn wrong_way(root: &Path, workspace: &Path, layers: &[&[&str]], root_on_top: bool) -> Vec<String> {
    let (mods, graph) = edges(root);
    let rank = |m: &Module| match m.names.first() {
        None => root_on_top.then_some(layers.len()),
        Some(top) => layers.iter().position(|l| l.contains(&top.as_str())),
    };
    let layer = |m: &Module| {
        m.names
            .first()
            .map_or("the crate root", String::as_str)
            .to_string()
    };
    let name = |m: &Module| shown(&m.file, workspace);
    let mut out = Vec::new();
    for (&from, tos) in &graph {
        let Some(low) = rank(&mods[from]).filter(|_| !mods[from].names.is_empty()) else {
            continue;
        };
        for &to in tos {
            if rank(&mods[to]).is_some_and(|r| r > low) {
                out.push(format!(
                    "{} ({}) imports {} ({}), a higher layer",
                    name(&mods[from]),
                    layer(&mods[from]),
                    name(&mods[to]),
                    layer(&mods[to])
                ));
            }
        }
    }
    out
}

/// Every inherent `impl` block written outside its type's module family
/// (the module that defines the type, its parent and its children): a method
/// lives with its type, so a call to it names the type's module, and the
/// layering above sees it.
fn stray_impls(root: &Path, workspace: &Path) -> Vec<String> {
    let mods = modules(root);
    let mut defined: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut impls = Vec::new();
    for (i, m) in mods.iter().enumerate() {
        let ast = syn::parse_file(&std::fs::read_to_string(&m.file).unwrap()).unwrap();
        for item in &ast.items {
            match item {
                syn::Item::Struct(s) => defined.entry(s.ident.to_string()).or_default().push(i),
                syn::Item::Enum(e) => defined.entry(e.ident.to_string()).or_default().push(i),
                syn::Item::Impl(imp) if imp.trait_.is_none() => {
                    if let syn::Type::Path(p) = &*imp.self_ty {
                        let last = p.path.segments.last().unwrap().ident.to_string();
                        impls.push((i, last));
                    }
                }
                _ => {}
            }
        }
    }
    let family = |a: &[String], b: &[String]| {
        a == b
            || (a.len() + 1 == b.len() && b.starts_with(a))
            || (b.len() + 1 == a.len() && a.starts_with(b))
    };
    let mut out = Vec::new();
    for (at, ty) in impls {
        let Some(homes) = defined.get(&ty) else {
            continue;
        };
        if homes
            .iter()
            .any(|&h| family(&mods[h].names, &mods[at].names))
        {
            continue;
        }
        let file = |i: usize| shown(&mods[i].file, workspace);
        out.push(format!(
            "impl {ty} in {}, defined in {}",
            file(at),
            file(homes[0])
        ));
    }
    out
}

#[test]
fn each_layered_crate_imports_only_the_layers_below_each_layer() {
    let ws = workspace();
    for (root, layers, root_on_top) in LAYERED {
        let found = wrong_way(&ws.join(root), &ws, layers, root_on_top);
        let order: Vec<String> = layers.iter().map(|l| l.join(", ")).collect();
        assert!(
            found.is_empty(),
            "imports running up the layers of {root} ({}; move the shared piece down):\n{}",
            order.join(" < "),
            found.join("\n")
        );
        // Every folder of the crate is a layer, so none is left unchecked.
        let src = ws.join(root).parent().unwrap().to_path_buf();
        for entry in std::fs::read_dir(&src).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                let dir = entry.file_name().to_string_lossy().into_owned();
                assert!(
                    layers.iter().any(|l| l.contains(&dir.as_str())),
                    "{}/{dir} is in no layer of LAYERED",
                    shown(&src, &ws)
                );
            }
        }
    }
}

#[test]
fn methods_live_with_their_type() {
    let ws = workspace();
    let mut found = Vec::new();
    for root in CRATE_ROOTS {
        found.extend(stray_impls(&ws.join(root), &ws));
    }
    assert!(
        found.is_empty(),
        "inherent impl blocks away from their type (move the methods to the type's module):\n{}",
        found.join("\n")
    );
}

#[test]
fn an_import_up_the_layers_and_a_method_away_from_its_type_are_named() {
    let t = fixture(&[
        ("lib.rs", "mod base;\nmod rules;\n"),
        ("base/mod.rs", "pub mod fs;\n"),
        (
            "base/fs.rs",
            "pub struct File;\nuse crate::rules::parser::Reader;\n",
        ),
        ("rules/mod.rs", "pub mod parser;\npub mod keys;\n"),
        ("rules/parser.rs", "pub struct Reader;\n"),
        (
            "rules/keys.rs",
            "use crate::rules::parser::Reader;\nimpl Reader { pub fn key(&self) {} }\n",
        ),
    ]);
    let up = wrong_way(
        &t.path().join("lib.rs"),
        t.path(),
        &[&["base"], &["rules"]],
        false,
    );
    assert_eq!(
        up,
        ["base/fs.rs (base) imports rules/parser.rs (rules), a higher layer"]
    );
    let stray = stray_impls(&t.path().join("lib.rs"), t.path());
    assert_eq!(
        stray,
        ["impl Reader in rules/keys.rs, defined in rules/parser.rs"]
    );
}

#[test]
fn a_peer_import_passes_and_an_import_of_a_higher_layer_or_the_crate_root_is_named() {
    let t = fixture(&[
        (
            "lib.rs",
            "mod base;\nmod hook;\nmod mcp;\nmod cli;\npub use cli::run;\npub const LIMIT: usize = 1;\n",
        ),
        ("base/mod.rs", "pub mod env;\n"),
        ("base/env.rs", "pub struct Env;\n"),
        ("hook/mod.rs", "pub mod agent;\n"),
        (
            "hook/agent.rs",
            "use crate::base::env::Env;\nuse crate::mcp::serve::answer;\nuse crate::LIMIT;\n",
        ),
        ("mcp/mod.rs", "pub mod serve;\n"),
        ("mcp/serve.rs", "pub fn answer() {}\n"),
        ("cli/mod.rs", "pub mod dispatch;\npub fn run() {}\n"),
        ("cli/dispatch.rs", "use crate::hook::agent;\n"),
    ]);
    let layers: &[&[&str]] = &[&["base"], &["hook", "mcp"], &["cli"]];
    let up = wrong_way(&t.path().join("lib.rs"), t.path(), layers, true);
    assert_eq!(
        up,
        ["hook/agent.rs (hook) imports lib.rs (the crate root), a higher layer"]
    );
    // The same import from the crate's base, one layer down, is named too.
    std::fs::write(
        t.path().join("base/env.rs"),
        "pub struct Env;\nuse crate::cli::run;\n",
    )
    .unwrap();
    let up = wrong_way(&t.path().join("lib.rs"), t.path(), layers, true);
    assert_eq!(up.len(), 2, "{up:?}");
    assert!(up.contains(&"base/env.rs (base) imports cli/mod.rs (cli), a higher layer".to_string()));
}

/// The core's façade: at most 4 public modules and at most 40 names
/// re-exported at the root, each name with one path.
#[test]
fn the_core_facade_is_four_namespaces_and_at_most_forty_names() {
    let ws = workspace();
    let text = std::fs::read_to_string(ws.join("crates/memory-rules/src/lib.rs")).unwrap();
    let ast = syn::parse_file(&text).unwrap();
    let public = |vis: &syn::Visibility, attrs: &[syn::Attribute]| {
        matches!(vis, syn::Visibility::Public(_)) && !attrs.iter().any(|a| a.path().is_ident("cfg"))
    };
    let mut modules = Vec::new();
    let mut names = Vec::new();
    for item in &ast.items {
        match item {
            syn::Item::Mod(m) if public(&m.vis, &m.attrs) => modules.push(m.ident.to_string()),
            syn::Item::Use(u) if public(&u.vis, &u.attrs) => {
                let mut paths = Paths::default();
                paths.use_tree(&mut Vec::new(), &u.tree);
                names.extend(paths.0.into_iter().filter_map(|p| p.last().cloned()));
            }
            _ => {}
        }
    }
    assert!(modules.len() <= 4, "public modules: {modules:?}");
    assert!(
        names.len() <= 40,
        "{} names re-exported: {names:?}",
        names.len()
    );
    let unique: BTreeSet<&String> = names.iter().collect();
    assert_eq!(
        unique.len(),
        names.len(),
        "a name re-exported twice: {names:?}"
    );
    for name in &names {
        assert!(
            !modules.contains(name),
            "{name} is both a public module and a re-export"
        );
    }
}

/// A newcomer finds a behaviour by its file name: no two files of one crate
/// share a name (`mod.rs`, `lib.rs`, `main.rs` and `tests.rs` aside), the
/// core's top has at most 16 entries, and no source file is over 800 lines
/// before its tests.
#[test]
fn file_names_are_unique_per_crate_and_files_stay_readable() {
    let ws = workspace();
    let mut problems = Vec::new();
    for root in CRATE_ROOTS {
        let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
        for m in modules(&ws.join(root)) {
            let rel = m.file.strip_prefix(&ws).unwrap_or(&m.file).to_path_buf();
            let name = m.file.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&m.file).unwrap();
            let before_tests = text
                .find("#[cfg(test)]")
                .map_or(text.as_str(), |i| &text[..i])
                .lines()
                .count();
            if before_tests > 800 {
                problems.push(format!(
                    "{}: {before_tests} lines before its tests (at most 800)",
                    rel.display()
                ));
            }
            if ["mod.rs", "lib.rs", "main.rs", "tests.rs"].contains(&name.as_str()) {
                continue;
            }
            if let Some(other) = seen.insert(name.clone(), rel.clone()) {
                problems.push(format!(
                    "{} and {} share a name",
                    other.display(),
                    rel.display()
                ));
            }
        }
    }
    let top = std::fs::read_dir(ws.join("crates/memory-rules/src"))
        .unwrap()
        .count();
    if top > 16 {
        problems.push(format!(
            "crates/memory-rules/src has {top} entries (at most 16)"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
