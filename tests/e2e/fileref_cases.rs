//! Hostile-input cases for a resolver, shared by the native tests of the built-in resolver's
//! logic (`plugins/file-ref/tests/hostile.rs`) and the end-to-end tests through the sandboxed
//! component (`fileref_hostile.rs`). Plain `std` only.
//!
//! The fixture holds a workspace root, a second root, and an `outside` directory whose files
//! carry [`SECRET`]; no case may ever return that marker.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Marker written into every file outside the roots.
pub const SECRET: &str = "WARDEN-SECRET-OUTSIDE-9d1c";

/// Bytes asked per file in the cases.
pub const MAX_BYTES: u64 = 16384;

/// The fixture's paths.
pub struct Fixture {
    /// Primary root.
    pub root: PathBuf,
    /// Secondary root.
    pub root2: PathBuf,
    /// Outside every root; holds the secret.
    pub outside: PathBuf,
    /// Held so the socket stays bound.
    pub _socket: Option<std::os::unix::net::UnixListener>,
}

/// One call to make.
#[derive(Debug, Clone)]
pub enum Op {
    /// `resolve(path, range)`.
    Resolve(String, Option<(u32, u32)>),
    /// `read_file(path, offset, limit, max_bytes)`.
    ReadFile(String, u32, u32, u64),
    /// `list_files(path, max_entries)`.
    ListFiles(String, u32),
}

/// What came back, reduced to what the cases check.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// `resolved` or an error status (`not-found`, `out-of-scope`, …).
    pub status: String,
    /// Everything returned as text: path, content or entries, or the error message.
    pub text: String,
    /// The content was cut.
    pub truncated: bool,
}

/// A further check of an outcome.
pub type Check = fn(&Outcome) -> Result<(), String>;

/// One case.
pub struct Case {
    /// Short name, as in the table of `docs/security.md`.
    pub name: &'static str,
    /// The call.
    pub op: Op,
    /// Expected status.
    pub status: &'static str,
    /// Further check of the outcome.
    pub check: Option<Check>,
}

fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(path, bytes).unwrap();
}

fn symlink(target: impl AsRef<Path>, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// Build the fixture under `dir` (which should be canonical).
pub fn build(dir: &Path, with_big_dir: bool) -> Fixture {
    let root = dir.join("root");
    let root2 = dir.join("root2");
    let outside = dir.join("outside");
    write(
        &outside.join("secret.txt"),
        format!("{SECRET}\n").as_bytes(),
    );
    write(
        &outside.join("dir/secret.txt"),
        format!("{SECRET}\n").as_bytes(),
    );
    write(&root2.join("notes.txt"), b"second root\n");
    symlink("../outside/secret.txt", &root2.join("up"));

    write(&root.join("small.txt"), b"one\ntwo\nthree\n");
    write(&root.join("src/main.rs"), b"fn main() {}\n");
    write(&root.join(".env"), format!("TOKEN={SECRET}\n").as_bytes());
    write(&root.join("sub/.env.local"), b"X=1\n");
    write(&root.join("key.pem"), b"-----BEGIN-----\n");
    write(&root.join(".git/config"), b"[core]\n");
    write(&root.join(".gitignore"), b"*.log\nbuild/\n");
    write(&root.join("build.log"), b"ignored but named\n");
    write(&root.join("build/out.txt"), b"built\n");
    write(&root.join("a#L1"), b"literal hash name\n");
    write(&root.join("a"), b"plain a\n");
    write(&root.join("%2e%2e/x"), b"not decoded\n");
    write(&root.join("new\nline"), b"newline name\n");
    // Cyrillic `е` (U+0435): looks like `.env`, is another file.
    write(&root.join(".\u{435}nv"), b"look-alike\n");
    write(&root.join("nul.bin"), b"abc\0def");
    // Plain ASCII is checked 256 bytes at a time: one odd byte at a block's edges, or late in a
    // long file, must still be found.
    for (name, at, byte) in [
        ("nul-at-255.txt", 255, 0u8),
        ("nul-at-256.txt", 256, 0),
        ("nul-at-15000.txt", 15_000, 0),
        ("bad-at-511.txt", 511, 0xff),
    ] {
        let mut bytes = vec![b'a'; 16_000];
        bytes[at] = byte;
        write(&root.join(name), &bytes);
    }
    // Every ASCII byte but NUL, with `é` across a block edge: text.
    let mut plain: Vec<u8> = (1..=127u8).chain(1..=127).chain(1..=127).collect();
    plain.splice(255..255, "é".bytes());
    plain.extend_from_slice(b"plain-ok");
    write(&root.join("controls.txt"), &plain);
    write(
        &root.join("bad-utf8.txt"),
        b"good start\nthen \xff\xfe bad\nend\n",
    );
    // `é` is 2 bytes; with the cap at an odd offset the cut falls inside one.
    let mut cut = b"x".to_vec();
    cut.extend("é".repeat(MAX_BYTES as usize).as_bytes());
    write(&root.join("cut-utf8.txt"), &cut);
    write(&root.join("one-line.txt"), &vec![b'a'; 5 * 1024 * 1024]);

    // Sparse files: all hole, or text then hole.
    let zero = fs::File::create(root.join("sparse-10g.bin")).unwrap();
    zero.set_len(10 * 1024 * 1024 * 1024).unwrap();
    let mut text = fs::File::create(root.join("big-1g.txt")).unwrap();
    for i in 0..4000 {
        writeln!(text, "line {i} of a large text file").unwrap();
    }
    text.set_len(1024 * 1024 * 1024).unwrap();

    symlink(outside.join("secret.txt"), &root.join("link-out"));
    symlink(outside.join("dir"), &root.join("dir-out"));
    symlink("../outside/secret.txt", &root.join("rel-out"));
    symlink("sub/../../outside", &root.join("sneaky"));
    symlink("loop-b", &root.join("loop-a"));
    symlink("loop-a", &root.join("loop-b"));
    symlink("self", &root.join("self"));
    symlink("/dev/zero", &root.join("zero"));
    symlink("/dev/stdin", &root.join("stdin"));
    symlink(".env", &root.join("innocent"));
    symlink("small.txt", &root.join("alias.txt"));
    symlink(root2.join("notes.txt"), &root.join("to-root2"));

    let status = std::process::Command::new("mkfifo")
        .arg(root.join("fifo"))
        .status()
        .unwrap();
    assert!(status.success());
    let socket = std::os::unix::net::UnixListener::bind(root.join("sock")).ok();

    let mut deep = root.join("deep");
    for i in 0..100 {
        deep.push(format!("d{i}"));
    }
    write(&deep.join("bottom.txt"), b"deep down\n");

    if with_big_dir {
        let big = root.join("big");
        fs::create_dir_all(&big).unwrap();
        for i in 0..100_000 {
            fs::File::create(big.join(format!("f{i:06}"))).unwrap();
        }
    }
    Fixture {
        root,
        root2,
        outside,
        _socket: socket,
    }
}

fn contains(needle: &'static str) -> impl Fn(&Outcome) -> Result<(), String> {
    move |o| {
        if o.text.contains(needle) {
            Ok(())
        } else {
            Err(format!("expected {needle:?} in output"))
        }
    }
}

fn r(path: &str) -> Op {
    Op::Resolve(path.to_owned(), None)
}

fn rr(path: &str, start: u32, end: u32) -> Op {
    Op::Resolve(path.to_owned(), Some((start, end)))
}

/// The cases, for the fixture `f`.
pub fn cases(f: &Fixture, with_big_dir: bool) -> Vec<Case> {
    let outside_abs = f.outside.join("secret.txt").display().to_string();
    let inside_abs = f.root.join("small.txt").display().to_string();
    let root2_abs = f.root2.join("notes.txt").display().to_string();
    let root2_up = f.root2.join("up").display().to_string();
    let long = "x".repeat(5000);
    let deep: String = (0..100).map(|i| format!("d{i}/")).collect();
    let mut cases = vec![
        Case {
            name: "`../` to a sibling",
            op: r("../outside/secret.txt"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "long `../` chain",
            op: r("../../../../../../../../etc/passwd"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "`..` after a subdirectory",
            op: r("src/../../outside/secret.txt"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "absolute path outside",
            op: r(&outside_abs),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "`/etc/passwd`",
            op: r("/etc/passwd"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "`/dev/zero` by path",
            op: r("/dev/zero"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "absolute path inside",
            op: r(&inside_abs),
            status: "resolved",
            check: Some(|o| contains("two")(o)),
        },
        Case {
            name: "absolute path in a second root",
            op: r(&root2_abs),
            status: "resolved",
            check: Some(|o| contains("second root")(o)),
        },
        Case {
            name: "symlink out of the second root",
            op: r(&root2_up),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "symlink to a file outside (absolute)",
            op: r("link-out"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "symlink to a file outside (relative)",
            op: r("rel-out"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "symlink to a directory outside",
            op: r("dir-out"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "file under a symlinked outside directory",
            op: r("dir-out/secret.txt"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "symlink whose target climbs out",
            op: r("sneaky/secret.txt"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "symlink loop",
            op: r("loop-a"),
            status: "error",
            check: Some(|o| contains("symbolic links")(o)),
        },
        Case {
            name: "self-referencing symlink",
            op: r("self"),
            status: "error",
            check: None,
        },
        Case {
            name: "symlink to /dev/zero",
            op: r("zero"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "symlink to /dev/stdin",
            op: r("stdin"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "absolute symlink into the second root",
            op: r("to-root2"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "symlink inside the root",
            op: r("alias.txt"),
            status: "resolved",
            check: Some(|o| contains("three")(o)),
        },
        Case {
            name: "FIFO",
            op: r("fifo"),
            status: "special",
            check: None,
        },
        Case {
            name: "unix socket",
            op: r("sock"),
            status: "special",
            check: None,
        },
        Case {
            name: "10 GB sparse file (all NUL)",
            op: r("sparse-10g.bin"),
            status: "binary",
            check: None,
        },
        Case {
            name: "1 GB file, text then hole",
            op: r("big-1g.txt"),
            status: "resolved",
            check: Some(|o| {
                if o.truncated && o.text.contains("1073741824 bytes total") {
                    Ok(())
                } else {
                    Err("expected truncation marker with the full size".into())
                }
            }),
        },
        Case {
            name: "line range in a 1 GB file",
            op: rr("big-1g.txt", 3, 4),
            status: "resolved",
            check: Some(|o| contains("line 2 of")(o)),
        },
        Case {
            name: "one 5 MB line",
            op: r("one-line.txt"),
            status: "resolved",
            check: Some(|o| {
                if o.truncated && o.text.len() < 17_000 {
                    Ok(())
                } else {
                    Err("expected a cut under 17 000 bytes".into())
                }
            }),
        },
        Case {
            name: "5 MB line through read_file",
            op: Op::ReadFile("one-line.txt".into(), 1, 10, MAX_BYTES),
            status: "resolved",
            check: Some(|o| {
                if o.text.len() < 17_000 {
                    Ok(())
                } else {
                    Err("too long".into())
                }
            }),
        },
        Case {
            name: "invalid UTF-8 mid-file",
            op: r("bad-utf8.txt"),
            status: "binary",
            check: None,
        },
        Case {
            name: "UTF-8 cut at the cap",
            op: r("cut-utf8.txt"),
            status: "resolved",
            check: Some(|o| {
                if o.truncated {
                    Ok(())
                } else {
                    Err("expected truncation".into())
                }
            }),
        },
        Case {
            name: "NUL bytes",
            op: r("nul.bin"),
            status: "binary",
            check: None,
        },
        Case {
            name: "NUL at the end of a 256-byte block",
            op: r("nul-at-255.txt"),
            status: "binary",
            check: Some(|o| contains("NUL byte at offset 255")(o)),
        },
        Case {
            name: "NUL at the start of a block",
            op: r("nul-at-256.txt"),
            status: "binary",
            check: Some(|o| contains("NUL byte at offset 256")(o)),
        },
        Case {
            name: "NUL late in a long ASCII file",
            op: r("nul-at-15000.txt"),
            status: "binary",
            check: Some(|o| contains("NUL byte at offset 15000")(o)),
        },
        Case {
            name: "invalid byte at a block's end",
            op: r("bad-at-511.txt"),
            status: "binary",
            check: Some(|o| contains("at offset 511")(o)),
        },
        Case {
            name: "control characters and `é` across a block edge",
            op: r("controls.txt"),
            status: "resolved",
            check: Some(|o| {
                let mut plain: String = (1..=127u8)
                    .chain(1..=127)
                    .chain(1..=127)
                    .map(char::from)
                    .collect();
                plain.insert(255, 'é');
                plain.push_str("plain-ok");
                if o.text.contains(&plain) {
                    Ok(())
                } else {
                    Err("the text came back changed".into())
                }
            }),
        },
        Case {
            name: "name with a newline",
            op: r("new\nline"),
            status: "resolved",
            check: Some(|o| contains("newline name")(o)),
        },
        Case {
            name: "`%2e%2e` is not decoded",
            op: r("%2e%2e/../../outside/secret.txt"),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "`%2e%2e` names a real directory",
            op: r("%2e%2e/x"),
            status: "resolved",
            check: Some(|o| contains("not decoded")(o)),
        },
        Case {
            name: "very long path",
            op: r(&long),
            status: "not-found",
            check: None,
        },
        Case {
            name: "NUL in the path",
            op: r("small.txt\0../x"),
            status: "not-found",
            check: None,
        },
        Case {
            name: "look-alike of `.env`",
            op: r(".\u{435}nv"),
            status: "resolved",
            check: Some(|o| contains("look-alike")(o)),
        },
        Case {
            name: "full-width dots are not `..`",
            op: r("\u{ff0e}\u{ff0e}/outside/secret.txt"),
            status: "not-found",
            check: None,
        },
        Case {
            name: "deep nesting",
            op: r(&format!("deep/{deep}bottom.txt")),
            status: "resolved",
            check: Some(|o| contains("deep down")(o)),
        },
        Case {
            name: "deep directory listing",
            op: r("deep"),
            status: "resolved",
            check: Some(|o| contains("d0/d1/d2/d3/")(o)),
        },
        Case {
            name: "`.git/config`",
            op: r(".git/config"),
            status: "denied",
            check: None,
        },
        Case {
            name: "`.git` directory",
            op: r(".git"),
            status: "denied",
            check: None,
        },
        Case {
            name: "`.env`",
            op: r(".env"),
            status: "denied",
            check: None,
        },
        Case {
            name: "`.env.local` in a subdirectory",
            op: r("sub/.env.local"),
            status: "denied",
            check: None,
        },
        Case {
            name: "`*.pem`",
            op: r("key.pem"),
            status: "denied",
            check: None,
        },
        Case {
            name: "symlink to `.env`",
            op: r("innocent"),
            status: "denied",
            check: None,
        },
        Case {
            name: "`.env` by read_file",
            op: Op::ReadFile(".env".into(), 0, 0, MAX_BYTES),
            status: "denied",
            check: None,
        },
        Case {
            name: "gitignored file named explicitly",
            op: r("build.log"),
            status: "resolved",
            check: Some(|o| contains("ignored but named")(o)),
        },
        Case {
            name: "root listing skips ignored, denied, .git",
            op: r("."),
            status: "resolved",
            check: Some(|o| {
                let lines: Vec<&str> = o.text.lines().collect();
                for bad in [".git/", ".env", "build.log", "build/", "key.pem"] {
                    if lines.contains(&bad) {
                        return Err(format!("{bad} listed"));
                    }
                }
                if lines.contains(&"small.txt") {
                    Ok(())
                } else {
                    Err("small.txt missing".into())
                }
            }),
        },
        Case {
            name: "range past EOF",
            op: rr("small.txt", 50, 60),
            status: "not-found",
            check: Some(|o| contains("past the end")(o)),
        },
        Case {
            name: "reversed range",
            op: rr("small.txt", 3, 2),
            status: "error",
            check: Some(|o| contains("start is after the end")(o)),
        },
        Case {
            name: "`#L0`",
            op: rr("small.txt", 0, 0),
            status: "error",
            check: Some(|o| contains("numbered from 1")(o)),
        },
        Case {
            name: "range end past EOF is clamped",
            op: rr("small.txt", 2, 99),
            status: "resolved",
            check: Some(|o| {
                if o.text.contains("two\nthree\n") && !o.text.contains("one") {
                    Ok(())
                } else {
                    Err("expected lines 2-3".into())
                }
            }),
        },
        Case {
            name: "file literally named `a#L1`",
            op: r("a#L1"),
            status: "resolved",
            check: Some(|o| contains("literal hash name")(o)),
        },
        Case {
            name: "path through a file",
            op: r("small.txt/x"),
            status: "not-found",
            check: None,
        },
        Case {
            name: "range on a directory",
            op: rr("src", 1, 2),
            status: "error",
            check: None,
        },
        Case {
            name: "read_file past EOF",
            op: Op::ReadFile("small.txt".into(), 9, 1, MAX_BYTES),
            status: "not-found",
            check: None,
        },
        Case {
            name: "list_files on a file",
            op: Op::ListFiles("small.txt".into(), 10),
            status: "error",
            check: None,
        },
        Case {
            name: "list_files outside",
            op: Op::ListFiles("../outside".into(), 10),
            status: "out-of-scope",
            check: None,
        },
        Case {
            name: "missing file",
            op: r("nope.txt"),
            status: "not-found",
            check: None,
        },
    ];
    if with_big_dir {
        cases.push(Case {
            name: "directory of 100 000 entries",
            op: r("big"),
            status: "resolved",
            check: Some(|o| {
                if o.truncated
                    && o.text.contains("more entries not listed")
                    && o.text.lines().count() < 1000
                {
                    Ok(())
                } else {
                    Err("expected a bounded listing".into())
                }
            }),
        });
        cases.push(Case {
            name: "list_files over 100 000 entries",
            op: Op::ListFiles("big".into(), 50),
            status: "resolved",
            check: Some(|o| {
                if o.truncated && o.text.lines().count() <= 51 {
                    Ok(())
                } else {
                    Err("expected 50 entries".into())
                }
            }),
        });
    }
    cases
}

/// Check one outcome against its case; never lets the secret through.
pub fn judge(case: &Case, outcome: &Outcome) -> Result<(), String> {
    if outcome.text.contains(SECRET) {
        return Err(format!("{}: the secret leaked", case.name));
    }
    if outcome.status != case.status {
        return Err(format!(
            "{}: expected {}, got {} ({})",
            case.name,
            case.status,
            outcome.status,
            outcome.text.chars().take(200).collect::<String>()
        ));
    }
    match case.check {
        Some(check) => check(outcome).map_err(|e| format!("{}: {e}", case.name)),
        None => Ok(()),
    }
}
