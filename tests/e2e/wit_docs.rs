//! docs/plugins.md names every type and function of the newest released `warden:plugin`
//! version: each record, variant, enum, flags, resource and type alias, and each function of
//! every interface, parsed from `wit/released/<version>/*.wit`.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// The newest version `wit/RELEASED` lists (its last entry).
fn newest_released() -> String {
    let text = std::fs::read_to_string(repo().join("wit/RELEASED")).unwrap();
    text.lines()
        .rev()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .find_map(|l| l.split_whitespace().next())
        .expect("a released version")
        .to_owned()
}

/// `(what, name)` of every named type and function in `wit`.
fn declared(wit: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in wit.lines() {
        let line = line.trim();
        if line.starts_with("//") {
            continue;
        }
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or_default();
        if matches!(
            first,
            "record" | "variant" | "enum" | "flags" | "resource" | "type"
        ) {
            if let Some(name) = words.next() {
                let name = name.trim_end_matches(['{', '=', ';']).to_owned();
                out.push((first.to_owned(), name));
            }
            continue;
        }
        // `name: func(…)`, `[static] name: func`, `constructor(…)` inside a resource.
        if let Some((name, rest)) = line.split_once(':')
            && rest.trim_start().starts_with("func")
        {
            let name = name.trim().rsplit(' ').next().unwrap_or_default();
            if !name.is_empty() {
                out.push(("func".to_owned(), name.to_owned()));
            }
        }
    }
    out
}

#[test]
fn the_plugin_docs_name_every_wit_type_and_function_of_the_newest_release() {
    let version = newest_released();
    let dir = repo().join("wit/released").join(&version);
    let docs = std::fs::read_to_string(repo().join("docs/plugins.md")).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wit"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .wit files in {}", dir.display());
    let mut missing = Vec::new();
    let mut seen = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (what, name) in declared(&text) {
            seen += 1;
            let named = docs.contains(&format!("`{name}`"))
                || docs.contains(&format!("`{name}("))
                || docs.contains(&format!("`{name}:"));
            if !named {
                missing.push(format!(
                    "{what} `{name}` ({})",
                    file.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    assert!(seen > 40, "the parser found only {seen} declarations");
    assert!(
        missing.is_empty(),
        "docs/plugins.md does not mention these of warden:plugin@{version}:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_parser_sees_each_kind_of_declaration() {
    let found = declared(
        "record a-b {\n x: u32,\n}\nvariant v { c }\nenum e { x }\nflags f { y }\n\
         resource r {\n  constructor();\n  get: func() -> u32;\n}\ntype t = u32;\n\
         // skipped: func\n  do-it: func(x: u32);\n",
    );
    let names: Vec<&str> = found.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["a-b", "v", "e", "f", "r", "get", "t", "do-it"]);
}
