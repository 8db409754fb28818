//! The 0.3.0 examples in Python and JavaScript (`examples/python-hook`, `examples/js-hook`,
//! `examples/python-tool`), each built once by its own `build.sh` and run by the real binary in
//! a scripted turn. A missing toolchain prints a SKIP line (a failure under `CI=true`).

use std::path::Path;

use serde_json::json;
use warden_tests::mock_server::Reply;

use crate::plugin_langs::built_example;
use crate::plugin_langs_v0_3::{LOADED, session};
use crate::support::{TestEnv, plugin_entry};
use crate::tool_plugins::MODEL;

/// tool-tally in a turn where the model reads a file, reads a missing one and tries a write the
/// guard denies: the warning line at the turn's end; the same in every language.
fn tool_tally_line(example: &'static str) -> Option<String> {
    let wasm = built_example(example)?;
    let env = TestEnv::new();
    env.write("notes.txt", "one\n");
    env.project_config(&format!(
        "{MODEL}{}{}",
        plugin_entry("hook", "tally", &wasm, LOADED, &[("warn_after", "1")]),
        plugin_entry(
            "interceptor",
            "guard",
            Path::new("builtin:tool-guard"),
            "",
            &[("deny", "write_file")]
        ),
    ));
    let (code, _, err) = session(
        &env,
        "tidy up",
        vec![
            Reply::tool_calls(
                "Looking.",
                &[
                    ("c1", "read_file", json!({"path": "notes.txt"})),
                    ("c2", "read_file", json!({"path": "missing.txt"})),
                    ("c3", "write_file", json!({"path": "x.txt", "content": "x"})),
                ],
            ),
            Reply::text("done"),
        ],
        "warden::plugin=info",
    );
    // Exit 4: the one write the model asked for was denied.
    assert_eq!(code, Some(4), "{example}: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("tools: ")).collect();
    assert_eq!(lines.len(), 1, "{example}: {err}");
    let line = lines[0];
    assert!(line.contains("WARN"), "{example}: {line}");
    // `… WARN tools: … plugin="tally"`: the plugin's own text.
    let text = &line[line.find("tools: ").unwrap_or(0)..];
    Some(text.trim_end_matches(" plugin=\"tally\"").to_owned())
}

#[test]
fn the_tool_tally_hook_sums_up_a_turn_alike_in_python_and_javascript() {
    let python = tool_tally_line("python-hook");
    let js = tool_tally_line("js-hook");
    for line in python.iter().chain(js.iter()) {
        assert_eq!(
            line,
            "tools: 2 ran (read_file 2); 1 failed (read_file 1); 1 denied (write_file 1); more than warn_after = 1"
        );
    }
}

/// find_todos lists the marked lines the model asks for, leaves out what the deny globs
/// cover, and refuses a path outside the workspace.
#[test]
fn the_find_todos_tool_lists_marked_lines_and_keeps_to_the_workspace() {
    let Some(wasm) = built_example("python-tool") else {
        return;
    };
    let env = TestEnv::new();
    env.write("src/main.rs", "fn main() {} // TODO: args\n");
    env.write("src/deep/lib.rs", "// FIXME: slow\n// TODOS is no marker\n");
    env.write("secrets/plan.txt", "TODO: rotate the keys\n");
    env.project_config(&format!(
        "{MODEL}{}",
        plugin_entry(
            "tool",
            "todos",
            &wasm,
            &format!("fs = \"read\"\n{LOADED}"),
            &[("deny", "secrets/**")]
        ),
    ));
    let (code, items, err) = session(
        &env,
        "what is left to do?",
        vec![
            Reply::tool_calls(
                "Searching.",
                &[
                    ("t1", "find_todos", json!({})),
                    ("t2", "find_todos", json!({"dir": "src/deep"})),
                    ("t3", "find_todos", json!({"dir": "../"})),
                ],
            ),
            Reply::text("done"),
        ],
        "warn",
    );
    assert_eq!(code, Some(0), "{err}");
    // The results, in the order of the calls.
    let results: Vec<String> = items
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["role"] == "tool")
        .filter_map(|i| i["text"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(results.len(), 3, "{items}");
    let result = |id: &str| -> &str {
        let at = ["t1", "t2", "t3"]
            .iter()
            .position(|t| *t == id)
            .unwrap_or(0);
        &results[at]
    };
    assert_eq!(
        result("t1"),
        "src/main.rs:1: fn main() {} // TODO: args\nsrc/deep/lib.rs:1: // FIXME: slow"
    );
    assert_eq!(result("t2"), "src/deep/lib.rs:1: // FIXME: slow");
    assert!(result("t3").contains("`..` is refused"), "{}", result("t3"));
    assert!(!items.to_string().contains("rotate the keys"), "{items}");
}

/// notebook-resolver shows an `@` reference to a notebook as its cells (the code the model can
/// read, not the JSON around it), with the printed output on request; other files as they are.
#[test]
fn the_notebook_resolver_shows_cells_instead_of_json() {
    let Some(wasm) = built_example("python-resolver") else {
        return;
    };
    let env = TestEnv::new();
    env.write("sales.ipynb", notebook().to_string());
    env.write("notes.txt", "plain {\"cells\": []}\n");
    env.project_config(&format!(
        "[fileref]\nresolver = {:?}\n[fileref.resolver_config]\noutputs = \"true\"\n",
        wasm.display().to_string()
    ));
    let out = env.run(&[
        "preview",
        "--json",
        "--full",
        "sum up @sales.ipynb and @notes.txt",
    ]);
    let text = crate::support::stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::support::stderr(&out)
    );
    assert!(
        text.contains("# [1] markdown\\n# Sales\\nBy month.\\n\\n# [2] code\\ntotal = sum(rows)\\nprint(total)\\n# output\\n42\\n43\\n"),
        "{text}"
    );
    assert!(!text.contains("nbformat"), "{text}");
    assert!(text.contains("plain {\\\"cells\\\": []}"), "{text}");
}

/// The same notebook resolver in JavaScript serves the same text as the Python one.
#[test]
fn the_notebook_resolver_serves_the_same_text_in_python_and_javascript() {
    let shown = |example: &'static str| -> Option<String> {
        let wasm = built_example(example)?;
        let env = TestEnv::new();
        env.write("sales.ipynb", notebook().to_string());
        env.write("broken.ipynb", "{\"cells\": [");
        env.project_config(&format!(
            "[fileref]\nresolver = {:?}\n[fileref.resolver_config]\noutputs = \"true\"\noutput_lines = \"1\"\n",
            wasm.display().to_string()
        ));
        let out = env.run(&["preview", "--json", "--full", "@sales.ipynb @broken.ipynb"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            crate::support::stderr(&out)
        );
        let value: serde_json::Value =
            serde_json::from_str(crate::support::stdout(&out).trim()).unwrap();
        Some(value["items"].to_string())
    };
    let (Some(python), Some(js)) = (shown("python-resolver"), shown("js-resolver")) else {
        return;
    };
    assert_eq!(python, js);
    assert!(
        python.contains("# output\\n42\\n# ... 1 more output lines"),
        "{python}"
    );
    assert!(python.contains("{\\\"cells\\\": ["), "{python}");
}

/// A notebook with a markdown cell and a code cell that printed two lines.
fn notebook() -> serde_json::Value {
    json!({
        "cells": [
            {"cell_type": "markdown", "source": ["# Sales\n", "By month."]},
            {"cell_type": "code", "source": "total = sum(rows)\nprint(total)\n",
             "outputs": [{"output_type": "stream", "name": "stdout", "text": "42\n43\n"}]},
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    })
}

/// The native tests beside each example's logic pass as written: `python3 -m unittest` and
/// `node --test`, with no component built.
#[test]
fn the_examples_native_tests_pass() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for (example, program, args) in [
        ("python-hook", "python3", &["-m", "unittest", "-v"][..]),
        ("python-tool", "python3", &["-m", "unittest", "-v"][..]),
        ("python-resolver", "python3", &["-m", "unittest", "-v"][..]),
        ("js-hook", "node", &["--test"][..]),
        ("js-resolver", "node", &["--test"][..]),
    ] {
        let Ok(out) = std::process::Command::new(program)
            .args(args)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .current_dir(examples.join(example))
            .output()
        else {
            crate::plugin_langs::skip(&format!("{example}'s native tests"), program);
            continue;
        };
        let text = format!(
            "{}{}",
            crate::support::stdout(&out),
            crate::support::stderr(&out)
        );
        assert!(out.status.success(), "{example}: {text}");
        let ran = if program == "python3" {
            text.contains("Ran ") && !text.contains("Ran 0 tests")
        } else {
            text.contains("# pass ") && !text.contains("# pass 0")
        };
        assert!(ran, "{example}: no test ran: {text}");
    }
}
