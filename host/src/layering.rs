//! The layers point one way: each folder of the crate may import only the folders listed for
//! it here (see `docs/architecture.md`). Checked on the source text, so a wrong import fails
//! this test even where the compiler would accept it.

use std::collections::BTreeSet;
use std::path::Path;

/// Folder → the folders it may import (besides itself).
const ALLOWED: &[(&str, &[&str])] = &[
    ("domain", &[]),
    ("trace", &[]),
    ("config", &["domain"]),
    ("store", &["domain"]),
    ("llm", &["domain"]),
    ("confine", &["domain"]),
    ("fileref", &["domain", "config", "confine"]),
    ("plugin", &["domain", "config", "confine", "trace"]),
    ("complete", &["domain", "config"]),
    ("tools", &["domain", "config", "confine"]),
    ("sandbox", &["domain", "config", "confine"]),
    ("mcp", &["domain", "config", "confine", "sandbox"]),
    (
        "command_hook",
        &["domain", "config", "confine", "sandbox", "trace"],
    ),
    ("oci", &["domain", "config"]),
    ("telemetry", &["domain", "config", "store", "trace"]),
    (
        "worker",
        &[
            "domain", "config", "store", "llm", "confine", "fileref", "plugin", "tools", "trace",
        ],
    ),
    (
        "setup",
        &[
            "domain",
            "config",
            "store",
            "llm",
            "confine",
            "fileref",
            "plugin",
            "tools",
            "sandbox",
            "worker",
            "mcp",
            "command_hook",
            "trace",
        ],
    ),
    (
        "serve",
        &[
            "domain", "config", "store", "llm", "confine", "fileref", "plugin", "tools", "sandbox",
            "worker", "setup", "trace",
        ],
    ),
    (
        "front",
        &[
            "domain",
            "config",
            "store",
            "llm",
            "confine",
            "fileref",
            "plugin",
            "tools",
            "sandbox",
            "worker",
            "setup",
            "mcp",
            "command_hook",
            "telemetry",
            "trace",
        ],
    ),
    (
        "acp",
        &[
            "domain",
            "config",
            "store",
            "llm",
            "confine",
            "fileref",
            "plugin",
            "tools",
            "sandbox",
            "worker",
            "setup",
            "mcp",
            "command_hook",
            "telemetry",
            "trace",
            "front",
        ],
    ),
    (
        "cli",
        &[
            "domain",
            "config",
            "store",
            "llm",
            "confine",
            "fileref",
            "plugin",
            "complete",
            "tools",
            "sandbox",
            "worker",
            "setup",
            "serve",
            "front",
            "acp",
            "mcp",
            "command_hook",
            "oci",
            "telemetry",
            "trace",
        ],
    ),
];

/// `crate::<folder>` names used in `text` (code and doc links alike).
fn imports(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// Every `.rs` file below `dir` (shared with the call-point names check).
pub(crate) fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_folder_imports_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let folders: Vec<&str> = ALLOWED.iter().map(|(f, _)| *f).collect();
    let mut wrong = Vec::new();
    for (folder, allowed) in ALLOWED {
        let mut sources = Vec::new();
        files(&src.join(folder), &mut sources);
        assert!(!sources.is_empty(), "no sources under src/{folder}");
        for file in sources {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for name in imports(&text) {
                let is_layer = folders.contains(&name.as_str());
                if is_layer && name != *folder && !allowed.contains(&name.as_str()) {
                    wrong.push(format!("{} imports crate::{name}", file.display()));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layering:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_folder_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut unknown = Vec::new();
    for entry in std::fs::read_dir(&src).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() && !ALLOWED.iter().any(|(f, _)| *f == name) {
            unknown.push(name);
        }
    }
    assert!(unknown.is_empty(), "folders without a layer: {unknown:?}");
}

#[test]
fn the_scan_sees_imports() {
    let found = imports("use crate::worker::Item;\n//! [`x`](crate::plugin::X)");
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        vec!["plugin".to_owned(), "worker".to_owned()]
    );
}
