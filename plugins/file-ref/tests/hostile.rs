//! The hostile-input cases run natively against the resolver's logic (the same cases run
//! through the sandboxed component in the host's end-to-end tests).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../tests/e2e/fileref_cases.rs"]
mod cases;

use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cases::{Op, Outcome};
use file_ref::{Settings, Workspace};
use warden_plugin::{Config, LineRange, ResolveError};

fn status(e: &ResolveError) -> (&'static str, String) {
    match e {
        ResolveError::OutOfScope(m) => ("out-of-scope", m.clone()),
        ResolveError::NotFound(m) => ("not-found", m.clone()),
        ResolveError::Denied(m) => ("denied", m.clone()),
        ResolveError::Binary(m) => ("binary", m.clone()),
        ResolveError::Special(m) => ("special", m.clone()),
        ResolveError::TooLarge(m) => ("too-large", m.clone()),
        ResolveError::Io(m) => ("error", m.clone()),
    }
}

fn run(ws: &Workspace, op: &Op) -> Outcome {
    let failed = |e: ResolveError| {
        let (s, text) = status(&e);
        Outcome {
            status: s.into(),
            text,
            truncated: false,
        }
    };
    match op {
        Op::Resolve(path, range) => {
            let range = range.map(|(start, end)| LineRange { start, end });
            match ws.resolve(path, range, cases::MAX_BYTES) {
                Ok(r) => Outcome {
                    status: "resolved".into(),
                    text: format!("{}\n{}", r.path, r.content),
                    truncated: r.truncated,
                },
                Err(e) => failed(e),
            }
        }
        Op::ReadFile(path, offset, limit, max) => match ws.read_file(path, *offset, *limit, *max) {
            Ok(c) => Outcome {
                status: "resolved".into(),
                text: format!("{}\n{}", c.path, c.content),
                truncated: c.more,
            },
            Err(e) => failed(e),
        },
        Op::ListFiles(path, max) => match ws.list_files(path, *max) {
            Ok(l) => Outcome {
                status: "resolved".into(),
                text: format!("{}\n{}", l.path, l.entries.join("\n")),
                truncated: l.truncated,
            },
            Err(e) => failed(e),
        },
    }
}

#[test]
fn hostile_cases() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let fixture = cases::build(&base, true);
    let roots = format!("{}\n{}", fixture.root.display(), fixture.root2.display());
    let config = Config::from(vec![("roots".to_owned(), roots)]);
    let ws = Arc::new(Workspace::new(Settings::from_config(&config).unwrap()).unwrap());
    let all = cases::cases(&fixture, true);
    assert!(all.len() >= 40);
    let mut failures = Vec::new();
    for case in all {
        let (tx, rx) = mpsc::channel();
        let ws = Arc::clone(&ws);
        let op = case.op.clone();
        let started = Instant::now();
        std::thread::spawn(move || {
            let _ = tx.send(run(&ws, &op));
        });
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(outcome) => {
                if let Err(e) = cases::judge(&case, &outcome) {
                    failures.push(e);
                }
                let took = started.elapsed();
                if took > Duration::from_secs(5) {
                    failures.push(format!("{}: took {took:?}", case.name));
                }
            }
            Err(_) => failures.push(format!("{}: hung", case.name)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Print the cases as the Markdown table of `docs/security.md` (run with
/// `--ignored --nocapture`).
#[test]
#[ignore = "prints the table for the docs"]
#[allow(clippy::print_stdout)]
fn print_table() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let fixture = cases::build(&base, true);
    let roots = format!("{}\n{}", fixture.root.display(), fixture.root2.display());
    let config = Config::from(vec![("roots".to_owned(), roots)]);
    let ws = Workspace::new(Settings::from_config(&config).unwrap()).unwrap();
    let base_str = base.display().to_string();
    for case in cases::cases(&fixture, true) {
        let out = run(&ws, &case.op);
        let call = match &case.op {
            Op::Resolve(p, None) => format!("@{}", p.escape_debug()),
            Op::Resolve(p, Some((a, b))) => format!("@{}#L{a}-{b}", p.escape_debug()),
            Op::ReadFile(p, o, l, _) => format!("read_file({}, {o}, {l})", p.escape_debug()),
            Op::ListFiles(p, m) => format!("list_files({}, {m})", p.escape_debug()),
        };
        let call: String = call.replace(&base_str, "<tmp>");
        let call = if call.len() > 60 {
            format!(
                "{}…",
                &call[..call.char_indices().nth(57).map_or(call.len(), |(i, _)| i)]
            )
        } else {
            call
        };
        let detail: String = if out.status == "resolved" {
            if out.truncated {
                "truncated".into()
            } else {
                String::new()
            }
        } else {
            out.text
                .replace(&base_str, "<tmp>")
                .chars()
                .take(90)
                .collect()
        };
        let detail = detail.replace('|', "\\|").replace('\n', "\\n");
        println!(
            "| {} | `{}` | {} | {}{} |",
            case.name,
            call.replace('`', "'"),
            case.status,
            out.status,
            if detail.is_empty() {
                String::new()
            } else {
                format!(": {detail}")
            }
        );
    }
}
