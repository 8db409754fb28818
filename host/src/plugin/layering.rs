//! The files of the plugin host import one another without a cycle, and only the files under
//! `wit/` name a `warden:plugin` version's generated bindings. Checked on the source text (like
//! the crate's `layering` test), so a wrong import fails here even where the compiler would
//! accept it.
//!
//! A file is a node: `engine` (`engine.rs`), `wit` (`wit/mod.rs`), `wit/v0_1_0`. An edge is a
//! `crate::plugin::…` path or a `super::…` path naming another file (or, from a file under
//! `wit/`, an item declared in `wit/mod.rs`), and a `mod` declaration of a child file. `mod.rs`
//! is the module's facade and no node: a file imports another by its own path, never through
//! the facade's re-exports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The files of `src/plugin`, by node name, with their text.
fn sources() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/plugin");
    let mut out = BTreeMap::new();
    for (dir, prefix) in [(root.clone(), ""), (root.join("wit"), "wit/")] {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = match (prefix, stem.as_str()) {
                // The facade, and this test (whose samples name what it looks for).
                ("", "mod" | "layering") => continue,
                ("wit/", "mod") => "wit".to_owned(),
                _ => format!("{prefix}{stem}"),
            };
            out.insert(name, std::fs::read_to_string(&path).unwrap_or_default());
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier at the start of `text`.
fn ident(text: &str) -> &str {
    let end = text.find(|c| !is_ident(c)).unwrap_or(text.len());
    &text[..end]
}

/// The paths that follow `text` (which comes right after a `…::`): `a::b` gives `[a, b]`, a
/// group `{a::b, c}` gives `[a, b]` and `[c]` (nested groups are cut at their brace).
fn paths_after(text: &str) -> Vec<Vec<String>> {
    fn one(mut text: &str) -> Vec<String> {
        let mut segments = Vec::new();
        loop {
            let name = ident(text);
            if name.is_empty() {
                break;
            }
            segments.push(name.to_owned());
            text = &text[name.len()..];
            match text.strip_prefix("::") {
                Some(rest) => text = rest,
                None => break,
            }
        }
        segments
    }
    match text.strip_prefix('{') {
        Some(group) => {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            group
                .split(',')
                .map(|item| one(item.trim()))
                .filter(|p| !p.is_empty())
                .collect()
        }
        None => vec![one(text)],
    }
}

/// Names a file declares at its top (functions, types, constants, macros, modules, and the
/// names it imports `as`), enough to tell an item of `wit/mod.rs` from a nested module's.
fn declared(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for keyword in [
        "fn ",
        "struct ",
        "enum ",
        "type ",
        "const ",
        "static ",
        "trait ",
        "macro_rules! ",
        "mod ",
        " as ",
    ] {
        let mut rest = text;
        while let Some(at) = rest.find(keyword) {
            rest = &rest[at + keyword.len()..];
            let name = ident(rest);
            if !name.is_empty() {
                out.insert(name.to_owned());
            }
        }
    }
    out
}

/// The import edges of one file, and the imports that go through the facade.
struct Imports {
    files: BTreeSet<String>,
    through_facade: Vec<String>,
}

/// What `file` (a node name) imports, given every node and what `wit/mod.rs` declares.
fn imports(
    file: &str,
    text: &str,
    nodes: &BTreeSet<String>,
    wit_items: &BTreeSet<String>,
) -> Imports {
    let mut out = Imports {
        files: BTreeSet::new(),
        through_facade: Vec::new(),
    };
    // The folder a `super::` in the file names: `wit/` for a file under it, else `plugin/`.
    let in_wit = file.starts_with("wit/");
    for (at, _) in text.match_indices("crate::plugin::") {
        for path in paths_after(&text[at + "crate::plugin::".len()..]) {
            let node = match path.as_slice() {
                [dir, child, ..] if dir == "wit" && nodes.contains(&format!("wit/{child}")) => {
                    format!("wit/{child}")
                }
                [first, ..] if nodes.contains(first) => first.clone(),
                _ => {
                    out.through_facade
                        .push(format!("crate::plugin::{}", path.join("::")));
                    continue;
                }
            };
            out.files.insert(node);
        }
    }
    for (at, _) in text.match_indices("super::") {
        let before = &text[..at];
        if before.ends_with("::") || before.ends_with(is_ident) {
            continue; // the second `super` of a chain, or a longer name
        }
        let mut rest = &text[at..];
        let mut depth = 0;
        while let Some(next) = rest.strip_prefix("super::") {
            depth += 1;
            rest = next;
        }
        for path in paths_after(rest) {
            let Some(first) = path.first() else {
                continue;
            };
            let node = if depth == 1 && in_wit {
                let child = format!("wit/{first}");
                if nodes.contains(&child) {
                    child
                } else if wit_items.contains(first) {
                    "wit".to_owned()
                } else {
                    continue; // a nested module's own item
                }
            } else if nodes.contains(first) {
                first.clone()
            } else {
                continue; // an item of the enclosing file (a test module's `super::*`)
            };
            out.files.insert(node);
        }
    }
    if file == "wit" {
        for child in declared(text) {
            let child = format!("wit/{child}");
            if nodes.contains(&child) {
                out.files.insert(child);
            }
        }
    }
    out.files.remove(file);
    out
}

/// A cycle of `graph`, as the nodes along it, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|n| n == node) {
            let mut cycle = path[start..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut done, &mut Vec::new()))
}

/// The import graph of the plugin host's files.
fn graph() -> BTreeMap<String, Imports> {
    let sources = sources();
    let nodes: BTreeSet<String> = sources.keys().cloned().collect();
    let wit_items = sources
        .get("wit")
        .map(|t| declared(t.as_str()))
        .unwrap_or_default();
    sources
        .iter()
        .map(|(file, text)| (file.clone(), imports(file, text, &nodes, &wit_items)))
        .collect()
}

#[test]
fn the_plugin_files_import_each_other_without_a_cycle() {
    let graph = graph();
    assert!(graph.len() > 20, "{:?}", graph.keys());
    let facade: Vec<String> = graph
        .iter()
        .flat_map(|(file, i)| i.through_facade.iter().map(move |p| format!("{file}: {p}")))
        .collect();
    assert!(
        facade.is_empty(),
        "imports through plugin/mod.rs instead of the file that defines the item:\n{}",
        facade.join("\n")
    );
    let edges: BTreeMap<String, BTreeSet<String>> =
        graph.into_iter().map(|(file, i)| (file, i.files)).collect();
    let cycle = find_cycle(&edges);
    assert!(
        cycle.is_none(),
        "plugin files import each other in a circle: {}",
        cycle.unwrap_or_default().join(" -> ")
    );
}

/// The basic types import no operation: the version and the world import nothing but the
/// version, and no shared file imports a version's file.
#[test]
fn basic_types_and_shared_machinery_import_no_version() {
    let graph = graph();
    let of = |file: &str| graph.get(file).map(|i| i.files.clone()).unwrap_or_default();
    assert!(of("version").is_empty(), "{:?}", of("version"));
    assert_eq!(of("world"), BTreeSet::from(["version".to_owned()]));
    for file in [
        "engine",
        "inspect",
        "instance",
        "loader",
        "state",
        "wit/shared",
    ] {
        let versions: Vec<String> = of(file)
            .into_iter()
            .filter(|n| n.starts_with("wit"))
            .collect();
        assert!(
            versions.is_empty(),
            "{file} imports version code: {versions:?}"
        );
    }
}

/// `v0_1_0`, `v0_2_0`, … (a version's module) appear in `text`.
fn version_modules(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (at, _) in text.match_indices('v') {
        if text[..at].ends_with(is_ident) {
            continue;
        }
        let name = ident(&text[at..]);
        let parts: Vec<&str> = name[1..].split('_').collect();
        if parts.len() == 3
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        {
            out.insert(name.to_owned());
        }
    }
    out
}

/// Only `wit/` generates bindings or names a version's module; the other files reach the
/// newest version's types through `wit::latest` and the others through `wit`'s dispatch.
#[test]
fn only_wit_files_name_the_generated_bindings() {
    let mut wrong = Vec::new();
    let mut generating = BTreeSet::new();
    for (file, text) in sources() {
        if text.contains("bindgen!") {
            generating.insert(file.clone());
        }
        if file == "wit" || file.starts_with("wit/") {
            continue;
        }
        if text.contains("bindgen!") {
            wrong.push(format!("{file} generates bindings"));
        }
        for name in version_modules(&text) {
            wrong.push(format!("{file} names `{name}`"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        generating,
        BTreeSet::from([
            "wit/v0_1_0".to_owned(),
            "wit/v0_2_0".to_owned(),
            "wit/v0_3_0".to_owned()
        ]),
        "one file of bindings per version"
    );
}

#[test]
fn the_scan_sees_imports_and_cycles() {
    let nodes: BTreeSet<String> = ["engine", "state", "wit", "wit/v0_1_0", "wit/shared"]
        .map(str::to_owned)
        .into();
    let wit_items = declared("pub(crate) enum Versioned {}\nmod v0_1_0;\nuse v0_2_0 as latest;");
    let found = imports(
        "wit/v0_1_0",
        "use super::shared::x;\nuse super::{Versioned, types};\n\
         use crate::plugin::engine::E;\n//! [`s`](crate::plugin::wit::v0_1_0::convert)\n\
         mod tests { use super::super::state::S; use crate::plugin::Facade; }",
        &nodes,
        &wit_items,
    );
    assert_eq!(
        found.files,
        ["engine", "state", "wit", "wit/shared"]
            .map(str::to_owned)
            .into()
    );
    assert_eq!(
        found.through_facade,
        vec!["crate::plugin::Facade".to_owned()]
    );
    let parent = imports(
        "wit",
        "mod v0_1_0;\nuse super::state::S;",
        &nodes,
        &wit_items,
    );
    assert_eq!(
        parent.files,
        ["state", "wit/v0_1_0"].map(str::to_owned).into()
    );

    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in edges {
            g.entry((*from).to_owned())
                .or_default()
                .insert((*to).to_owned());
        }
        g
    };
    assert_eq!(
        find_cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(["a", "b", "c", "a"].map(str::to_owned).to_vec())
    );
    assert_eq!(
        find_cycle(&graph(&[("a", "b"), ("a", "c"), ("b", "c")])),
        None
    );
    assert_eq!(
        version_modules("use super::wit::v0_2_0; V0_2; v0_2; xv1_0_0"),
        BTreeSet::from(["v0_2_0".to_owned()])
    );
}
