//! The permission modes in the decision path: each mode × {Read, Write, Shell} tool, with an
//! approver that says no to every question, compared whole (what was asked, what each call
//! became, the results the model sees and the audit's `by`); a tool plugin's own
//! `approve = "ask"` in every mode; an interceptor's deny before the mode.

use serde_json::Value;

use super::tool_calls::{Approver, calls, tool_audit};
use super::*;
use crate::config::{Approve, FsGrant, ToolGrants};
use crate::domain::builtin::{SHELL, WRITE_FILE};
use crate::domain::{Approval, Mode, Tool, ToolContext, ToolDecision, ToolOutput, ToolSpec};
use crate::store::AuditEvent;
use crate::worker::ToolOwner;
use pretty_assertions::assert_eq;

/// A native tool under a given name that says it ran.
struct Ran(&'static str);

impl Tool for Ran {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.0.into(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
        }
    }

    fn run(&mut self, _: &Value, _: &mut ToolContext<'_>) -> ToolOutput {
        ToolOutput::ok(format!("{} ran", self.0))
    }
}

/// The file tools, native `write_file` and `shell` under the built-in names, and a tool
/// plugin's `edit` granted `fs = "read-write"` (a Write) with `approve` as given.
fn registry(approve: Approve) -> ToolRegistry {
    let mut tools = ToolRegistry::with(file_tools(&Config::default().fileref)).unwrap();
    tools.register(Box::new(Ran(WRITE_FILE))).unwrap();
    tools.register(Box::new(Ran(SHELL))).unwrap();
    tools
        .register_plugin_tool(
            Box::new(Ran("edit")),
            ToolOwner {
                plugin: "edit-tool".into(),
                approve,
                grants: ToolGrants {
                    fs: FsGrant::ReadWrite,
                    ..ToolGrants::default()
                },
                failure: FailurePolicy::Open,
                mcp: None,
            },
        )
        .unwrap();
    tools
}

/// One turn of `read_file`, `write_file`, `shell` and the plugin's `edit` under `mode`, the
/// person answering no to everything: (asked, settled, results, audit `by`/`mode`).
#[allow(clippy::type_complexity)]
fn turn(
    mode: Mode,
    approve: Approve,
    chain: Vec<Box<dyn Interceptor>>,
) -> (
    Vec<(String, String)>,
    Vec<String>,
    Vec<String>,
    Vec<(String, Option<String>)>,
) {
    let mut config = Config::default();
    config.tools.mode = mode;
    let chain = chain
        .into_iter()
        .map(|plugin| ChainEntry {
            plugin,
            failure: FailurePolicy::Closed,
            shadow: None,
            matcher: None,
        })
        .collect();
    let mut h = harness_with(
        vec![
            calls(&[
                ("r", "read_file", json!({"path": "a.txt"})),
                ("w", WRITE_FILE, json!({"path": "a.txt", "content": "x"})),
                ("s", SHELL, json!({"command": "ls"})),
                ("e", "edit", json!({"path": "a.txt"})),
            ]),
            answer("done"),
        ],
        chain,
        Vec::new(),
        config,
        registry(approve),
    );
    let mut sink = Approver::default();
    h.worker.submit("go", &mut sink).unwrap();
    let results = committed(&h)
        .into_iter()
        .filter_map(|(_, _, item)| match item {
            Item::ToolResult { content, .. } => Some(content),
            _ => None,
        })
        .collect();
    let by = tool_audit(&h)
        .into_iter()
        .map(|e| match e {
            AuditEvent::ToolCall { by, mode, .. } => (by, mode.map(|m| m.to_string())),
            _ => unreachable!(),
        })
        .collect();
    (sink.asked, sink.settled, results, by)
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

fn denial(mode: Mode, tool: &str, effect: crate::domain::builtin::ToolEffect) -> String {
    format!("tool call denied by mode: {}", mode.denial(tool, effect))
}

#[test]
fn each_mode_judges_reads_writes_and_commands() {
    use crate::domain::builtin::ToolEffect::{Shell, Write};
    let no = "tool call denied by approval: script ran out";
    let asked = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(t, w)| ((*t).to_owned(), (*w).to_owned()))
            .collect()
    };
    let by = |list: &[(&str, Option<&str>)]| -> Vec<(String, Option<String>)> {
        list.iter()
            .map(|(b, m)| ((*b).to_owned(), m.map(str::to_owned)))
            .collect()
    };

    let read_only = turn(Mode::ReadOnly, Approve::Never, Vec::new());
    assert_eq!(
        read_only,
        (
            asked(&[]),
            strings(&[
                "ran read_file",
                "denied write_file by mode",
                "denied shell by mode",
                "denied edit by mode",
            ]),
            vec![
                "alpha\n".to_owned(),
                denial(Mode::ReadOnly, WRITE_FILE, Write),
                denial(Mode::ReadOnly, SHELL, Shell),
                denial(Mode::ReadOnly, "edit", Write),
            ],
            by(&[
                ("default", None),
                ("mode", Some("read-only")),
                ("mode", Some("read-only")),
                ("mode", Some("read-only")),
            ]),
        )
    );
    assert!(
        read_only.2[1].contains("change it with `/mode ask`"),
        "{}",
        read_only.2[1]
    );

    assert_eq!(
        turn(Mode::Ask, Approve::Never, Vec::new()),
        (
            asked(&[
                ("write_file", "mode ask"),
                ("shell", "mode ask"),
                ("edit", "mode ask")
            ]),
            strings(&[
                "ran read_file",
                "denied write_file by approval",
                "denied shell by approval",
                "denied edit by approval",
            ]),
            strings(&["alpha\n", no, no, no]),
            by(&[
                ("default", None),
                ("approval", Some("ask")),
                ("approval", Some("ask")),
                ("approval", Some("ask")),
            ]),
        )
    );

    assert_eq!(
        turn(Mode::AutoEdit, Approve::Never, Vec::new()),
        (
            asked(&[("shell", "mode auto-edit")]),
            strings(&[
                "ran read_file",
                "ran write_file",
                "denied shell by approval",
                "ran edit",
            ]),
            strings(&["alpha\n", "write_file ran", no, "edit ran"]),
            by(&[
                ("default", None),
                ("mode", Some("auto-edit")),
                ("approval", Some("auto-edit")),
                ("mode", Some("auto-edit")),
            ]),
        )
    );

    assert_eq!(
        turn(Mode::FullAuto, Approve::Never, Vec::new()),
        (
            asked(&[]),
            strings(&["ran read_file", "ran write_file", "ran shell", "ran edit"]),
            strings(&["alpha\n", "write_file ran", "shell ran", "edit ran"]),
            by(&[
                ("default", None),
                ("mode", Some("full-auto")),
                ("mode", Some("full-auto")),
                ("mode", Some("full-auto")),
            ]),
        )
    );
}

#[test]
fn a_plugins_own_ask_holds_in_every_mode_the_mode_did_not_deny() {
    for mode in [Mode::Ask, Mode::AutoEdit, Mode::FullAuto] {
        let (asked, _, results, _) = turn(mode, Approve::Ask, Vec::new());
        assert!(
            asked.contains(&("edit".to_owned(), "edit-tool".to_owned())),
            "{mode}: {asked:?}"
        );
        assert!(
            results[3].starts_with("tool call denied by approval"),
            "{mode}"
        );
    }
    // Read-only denies it before anyone is asked.
    let (asked, settled, _, _) = turn(Mode::ReadOnly, Approve::Ask, Vec::new());
    assert!(asked.is_empty(), "{asked:?}");
    assert_eq!(settled[3], "denied edit by mode");
}

#[test]
fn an_interceptors_deny_comes_before_the_mode_and_the_person() {
    let deny_all: Box<dyn Interceptor> = Box::new(Native {
        name: "deny-all".into(),
        pre_tool: Some(Box::new(|_: &ToolCall| {
            Ok(ToolDecision::Deny("no tools today".into()))
        })),
        ..Native::default()
    });
    let (asked, settled, _, by) = turn(Mode::Ask, Approve::Ask, vec![deny_all]);
    assert!(asked.is_empty(), "{asked:?}");
    assert_eq!(
        settled,
        strings(&[
            "denied read_file by plugin:deny-all",
            "denied write_file by plugin:deny-all",
            "denied shell by plugin:deny-all",
            "denied edit by plugin:deny-all",
        ])
    );
    assert!(
        by.iter()
            .all(|(b, m)| b == "plugin:deny-all" && m.is_none()),
        "{by:?}"
    );
}

#[test]
fn the_mode_changes_for_the_session_but_never_above_the_cap() {
    let mut config = Config::default();
    config.policy.max_mode = Some(Mode::AutoEdit);
    let mut h = harness_with(
        vec![
            calls(&[("w", WRITE_FILE, json!({"path": "a.txt", "content": "x"}))]),
            answer("done"),
        ],
        Vec::new(),
        Vec::new(),
        config,
        registry(Approve::Never),
    );
    assert_eq!(h.worker.set_mode(Mode::FullAuto), Err(Mode::AutoEdit));
    assert_eq!(h.worker.mode(), Mode::Ask);
    h.worker.set_mode(Mode::ReadOnly).unwrap();
    let mut sink = Approver {
        answers: vec![Approval::Yes],
        ..Approver::default()
    };
    h.worker.submit("go", &mut sink).unwrap();
    assert!(sink.asked.is_empty());
    assert_eq!(sink.settled, strings(&["denied write_file by mode"]));
}
