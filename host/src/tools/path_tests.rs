#![allow(clippy::unwrap_used)]

use std::os::unix::fs::symlink;
use std::path::PathBuf;

use serde_json::json;

use super::*;
use crate::config::FileRefConfig;
use crate::domain::ToolOutput;
use crate::domain::builtin::{EDIT_FILE, GLOB, GREP, WRITE_FILE};
use crate::tools::args::output;
use crate::tools::workspace::Workspace;

fn roots(given: &str, real: &str) -> Vec<(PathBuf, PathBuf)> {
    vec![(PathBuf::from(given), PathBuf::from(real))]
}

#[test]
fn paths_are_located_lexically_inside_a_root() {
    let r = roots("/work/ws", "/real/ws");
    let at = |p: &str| locate(&r, p).map(|l| l.relative());
    assert_eq!(at("src/a.rs").unwrap(), "src/a.rs");
    assert_eq!(at("./src/../b.rs").unwrap(), "b.rs");
    assert_eq!(at(".").unwrap(), ".");
    assert_eq!(at("/work/ws/src/a.rs").unwrap(), "src/a.rs");
    assert_eq!(at("/real/ws/src/a.rs").unwrap(), "src/a.rs");
    assert_eq!(at("/work/ws/../ws/x").unwrap(), "x");
    for outside in [
        "../outside",
        "src/../../x",
        "/etc/passwd",
        "/work/wsx/a",
        "/work/ws/../other/a",
        "/..",
    ] {
        assert!(
            matches!(locate(&r, outside), Err(ToolError::Outside { .. })),
            "{outside}"
        );
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    tools: Workspace,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(ws.join(".warden")).unwrap();
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::write(ws.join(".env"), "SECRET=1\n").unwrap();
        std::fs::write(ws.join("src/a.rs"), "fn a() {}\n").unwrap();
        std::fs::write(dir.path().join("outside.txt"), "o").unwrap();
        symlink(".git", ws.join("gitdir")).unwrap();
        symlink(".env", ws.join("innocent")).unwrap();
        symlink("src/a.rs", ws.join("alias.rs")).unwrap();
        symlink("..", ws.join("up")).unwrap();
        let tools = Workspace::open(std::slice::from_ref(&ws), &FileRefConfig::default()).unwrap();
        Self {
            _dir: dir,
            ws,
            tools,
        }
    }

    fn call(&mut self, name: &str, args: serde_json::Value) -> ToolOutput {
        let ws = &self.tools;
        output(match name {
            WRITE_FILE => crate::tools::write::write(ws, &args),
            EDIT_FILE => crate::tools::edit::edit(ws, &args),
            GREP => crate::tools::grep::grep(ws, &args),
            GLOB => crate::tools::glob::glob(ws, &args),
            other => panic!("no tool {other}"),
        })
    }

    fn path(&self, p: &str) -> PathBuf {
        self.ws.join(p)
    }
}

fn refused(out: &ToolOutput, needle: &str) {
    assert!(out.is_error, "{}", out.content);
    assert!(out.content.contains(needle), "{}", out.content);
}

#[test]
fn writes_reach_only_allowed_real_paths() {
    let mut f = Fixture::new();
    let out = f.call(
        WRITE_FILE,
        json!({"path": "new/dir/x.txt", "content": "hi\n"}),
    );
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(f.path("new/dir/x.txt")).unwrap(),
        "hi\n"
    );
    for (path, needle) in [
        (".warden/config.toml", "propose the change to the person"),
        (".git/hooks/pre-commit", "protected"),
        ("gitdir/hooks/x", "protected"),
        (".env", "deny globs"),
        ("sub/.env", "deny globs"),
        ("../outside", "outside"),
        ("up/outside.txt", "outside"),
        ("alias.rs", "symbolic link"),
        ("innocent", "symbolic link"),
        ("src", "directory"),
    ] {
        let out = f.call(WRITE_FILE, json!({"path": path, "content": "x"}));
        refused(&out, needle);
    }
    let abs = f.ws.parent().unwrap().join("elsewhere.txt");
    refused(
        &f.call(WRITE_FILE, json!({"path": abs, "content": "x"})),
        "outside",
    );
    assert!(
        !f.path("sub").exists(),
        "no directory made for a refused write"
    );
    assert!(!abs.exists());
    assert_eq!(
        std::fs::read_to_string(f.path(".env")).unwrap(),
        "SECRET=1\n"
    );
    assert_eq!(
        std::fs::read_to_string(f.path("src/a.rs")).unwrap(),
        "fn a() {}\n"
    );
}

#[test]
fn an_overwrite_keeps_the_mode_and_leaves_no_temporary_file() {
    use std::os::unix::fs::PermissionsExt;
    let mut f = Fixture::new();
    std::fs::write(f.path("run.sh"), "old").unwrap();
    std::fs::set_permissions(f.path("run.sh"), std::fs::Permissions::from_mode(0o751)).unwrap();
    let out = f.call(WRITE_FILE, json!({"path": "run.sh", "content": "new"}));
    assert!(
        out.content.starts_with("Overwrote run.sh"),
        "{}",
        out.content
    );
    let meta = std::fs::metadata(f.path("run.sh")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o7777, 0o751);
    let out = f.call(
        EDIT_FILE,
        json!({"path": "run.sh", "old_string": "new", "new_string": "newer"}),
    );
    assert_eq!(out.content, "Replaced 1 occurrence in run.sh");
    let meta = std::fs::metadata(f.path("run.sh")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o7777, 0o751);
    let names: Vec<_> = std::fs::read_dir(&f.ws)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("warden-tmp"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[test]
fn edits_are_exact_and_refusals_say_why() {
    let mut f = Fixture::new();
    std::fs::write(f.path("src/b.rs"), "let x = 1;\nlet x = 1;\nlet y = 2;\n").unwrap();
    let edit = |f: &mut Fixture, old: &str, new: &str, all: bool| {
        f.call(
            EDIT_FILE,
            json!({"path": "src/b.rs", "old_string": old, "new_string": new, "replace_all": all}),
        )
    };
    refused(&edit(&mut f, "let x = 1;", "z", false), "occurs 2 times");
    refused(&edit(&mut f, "nothing", "z", false), "not found");
    refused(&edit(&mut f, "", "z", false), "empty");
    let out = edit(&mut f, "let x = 1;", "let x = 3;", true);
    assert_eq!(out.content, "Replaced 2 occurrences in src/b.rs");
    let out = edit(&mut f, "y = 2", "y = 4", false);
    assert_eq!(out.content, "Replaced 1 occurrence in src/b.rs");
    assert_eq!(
        std::fs::read_to_string(f.path("src/b.rs")).unwrap(),
        "let x = 3;\nlet x = 3;\nlet y = 4;\n"
    );
    for (path, needle) in [
        ("alias.rs", "symbolic link"),
        (".env", "deny globs"),
        ("src/missing.rs", "does not exist"),
        (".git/config", "protected"),
    ] {
        let out = f.call(
            EDIT_FILE,
            json!({"path": path, "old_string": "a", "new_string": "b"}),
        );
        refused(&out, needle);
    }
}

#[test]
fn searches_follow_the_listing_rules() {
    let mut f = Fixture::new();
    std::fs::write(f.path(".gitignore"), "target/\n").unwrap();
    std::fs::create_dir_all(f.path("target")).unwrap();
    std::fs::write(f.path("target/out.rs"), "SECRET in build output\n").unwrap();
    std::fs::write(f.path("src/c.rs"), "// secret sauce\n").unwrap();
    let out = f.call(GREP, json!({"pattern": "secret", "ignore_case": true}));
    assert_eq!(out.content, "src/c.rs:1: // secret sauce\n");
    let out = f.call(GREP, json!({"pattern": "SECRET", "path": "innocent"}));
    refused(&out, "deny globs");
    let out = f.call(GREP, json!({"pattern": "fn", GLOB: "a.*"}));
    assert_eq!(out.content, "src/a.rs:1: fn a() {}\n");
    let out = f.call(GLOB, json!({"pattern": "*.rs"}));
    // Symlinks are listed (as `list_files` lists them), never followed.
    assert_eq!(out.content, "alias.rs\nsrc/a.rs\nsrc/c.rs\n");
    let out = f.call(GLOB, json!({"pattern": "src/**/a.rs"}));
    assert_eq!(out.content, "src/a.rs\n");
    refused(
        &f.call(GLOB, json!({"pattern": "*", "path": "../"})),
        "outside",
    );
    refused(&f.call(GREP, json!({"pattern": "("})), "invalid pattern");
}
