//! Hostile inputs through the built-in resolver component, sandboxed as in production: every
//! case of `fileref_cases.rs` gets the right status, nothing hangs, and no byte from outside the
//! roots reaches any item, alert, report or tool output. The table is in docs/security.md.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use warden::config::{FileRefConfig, Placement};
use warden::domain::{LineRange, ToolCall};
use warden::domain::{Resolve, ResolveError};
use warden::fileref::{self, ShownFiles, tools};
use warden::plugin::load_resolver;
use warden::plugin::{EngineOptions, PluginEngine};

use crate::fileref_cases::{self as cases, Op, Outcome, SECRET};

fn outcome<T>(result: Result<T, ResolveError>, ok: impl FnOnce(T) -> Outcome) -> Outcome {
    match result {
        Ok(value) => ok(value),
        Err(e) => Outcome {
            status: e.status().to_owned(),
            text: e.to_string(),
            truncated: false,
        },
    }
}

fn run(resolver: &mut dyn Resolve, op: &Op) -> Outcome {
    let resolved = |status: &str, text: String, truncated: bool| Outcome {
        status: status.to_owned(),
        text,
        truncated,
    };
    match op {
        Op::Resolve(path, range) => {
            let request = warden::domain::ResolveRequest {
                path: path.clone(),
                range: range.map(|(start, end)| LineRange { start, end }),
                max_bytes: cases::MAX_BYTES,
            };
            outcome(resolver.resolve(&request), |r| {
                resolved(
                    "resolved",
                    format!("{}\n{}", r.path, r.content),
                    r.truncated,
                )
            })
        }
        Op::ReadFile(path, offset, limit, max) => {
            outcome(resolver.read_file(path, *offset, *limit, *max), |c| {
                resolved("resolved", format!("{}\n{}", c.path, c.content), c.more)
            })
        }
        Op::ListFiles(path, max) => outcome(resolver.list_files(path, *max), |l| {
            resolved(
                "resolved",
                format!("{}\n{}", l.path, l.entries.join("\n")),
                l.truncated,
            )
        }),
    }
}

/// Requests for a resolver that lives on its own thread, so a hang is seen as a timeout.
enum Request {
    Op(Op),
    Prompt(String, Placement),
    Tool(ToolCall),
}

fn spawn_resolver(roots: Vec<PathBuf>) -> (mpsc::Sender<Request>, mpsc::Receiver<Outcome>) {
    let (tx, rx) = mpsc::channel::<Request>();
    let (out_tx, out_rx) = mpsc::channel::<Outcome>();
    std::thread::spawn(move || {
        let engine = PluginEngine::new(EngineOptions::default()).unwrap();
        let mut resolver = load_resolver(&engine, &roots, &FileRefConfig::default()).unwrap();
        for request in rx {
            let out = match request {
                Request::Op(op) => run(&mut resolver, &op),
                Request::Prompt(prompt, placement) => {
                    let config = FileRefConfig {
                        placement,
                        ..FileRefConfig::default()
                    };
                    let parsed = fileref::parse(&prompt);
                    let r = fileref::resolve_prompt(
                        &parsed.segments,
                        &mut resolver,
                        &config,
                        &ShownFiles::new(),
                    );
                    Outcome {
                        status: "resolved".into(),
                        text: format!(
                            "{}\n{}\n{}",
                            serde_json::to_string(
                                &r.entries.iter().map(|e| &e.item).collect::<Vec<_>>()
                            )
                            .unwrap(),
                            serde_json::to_string(&r.alerts).unwrap(),
                            serde_json::to_string(&r.refs).unwrap()
                        ),
                        truncated: false,
                    }
                }
                Request::Tool(call) => {
                    let item = tools::run(&call, &mut resolver, &FileRefConfig::default());
                    Outcome {
                        status: "resolved".into(),
                        text: serde_json::to_string(&item).unwrap(),
                        truncated: false,
                    }
                }
            };
            if out_tx.send(out).is_err() {
                break;
            }
        }
    });
    (tx, out_rx)
}

#[test]
fn hostile_inputs_through_the_component() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let fixture = cases::build(&base, true);
    let (tx, rx) = spawn_resolver(vec![fixture.root.clone(), fixture.root2.clone()]);
    let wait = |rx: &mpsc::Receiver<Outcome>| rx.recv_timeout(Duration::from_secs(30));

    let all = cases::cases(&fixture, true);
    assert!(all.len() >= 40, "{} cases", all.len());
    let mut failures = Vec::new();
    for case in &all {
        let started = Instant::now();
        tx.send(Request::Op(case.op.clone())).unwrap();
        let Ok(out) = wait(&rx) else {
            failures.push(format!("{}: hung", case.name));
            break;
        };
        if let Err(e) = cases::judge(case, &out) {
            failures.push(e);
        }
        if started.elapsed() > Duration::from_secs(10) {
            failures.push(format!("{}: took {:?}", case.name, started.elapsed()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // Whole prompts of hostile refs, in every placement: the secret reaches nothing.
    let outside = fixture.outside.join("secret.txt").display().to_string();
    let prompt = format!(
        "@../outside/secret.txt @{outside} @link-out @dir-out/secret.txt @sneaky/secret.txt \
         @rel-out @zero @stdin @fifo @sock @.env @innocent @small.txt#L0 @small.txt#L3-1 @a#L1 @."
    );
    for placement in [
        Placement::SystemMessage,
        Placement::Reminder,
        Placement::ToolResult,
    ] {
        tx.send(Request::Prompt(prompt.clone(), placement)).unwrap();
        let out = wait(&rx).unwrap();
        assert!(!out.text.contains(SECRET), "{placement:?}: secret leaked");
        assert!(
            out.text.contains("literal hash name"),
            "{placement:?}: {}",
            out.text
        );
        assert_eq!(
            out.text.matches("\"level\":\"warn\"").count(),
            14,
            "{placement:?}: {}",
            out.text
        );
    }

    // The model's tools go through the same rules.
    for (name, args) in [
        (
            "read_file",
            serde_json::json!({"path": "../outside/secret.txt"}),
        ),
        ("read_file", serde_json::json!({"path": "link-out"})),
        ("list_files", serde_json::json!({"path": "dir-out"})),
        ("read_file", serde_json::json!({"path": ".env"})),
    ] {
        tx.send(Request::Tool(ToolCall {
            id: "c".into(),
            name: name.into(),
            arguments: args.clone(),
        }))
        .unwrap();
        let out = wait(&rx).unwrap();
        assert!(!out.text.contains(SECRET), "{args}");
        assert!(
            out.text.contains("\"is_error\":true"),
            "{args}: {}",
            out.text
        );
    }
}
