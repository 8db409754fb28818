//! Prompts from stdin and files, the prompt size limit, and exit code 2 for every usage or
//! configuration error.

use serde_json::Value;

use crate::support::{TestEnv, stderr, stdout};

fn user_text(env: &TestEnv, out: &std::process::Output) -> String {
    let value: Value = serde_json::from_str(stdout(out).trim())
        .unwrap_or_else(|err| panic!("{err}: {}\nstderr: {}", stdout(out), stderr(out)));
    let id = value["session"].as_str().unwrap();
    let export = env.run(&["session", "export", id]);
    let history: Value = serde_json::from_str(&stdout(&export)).unwrap();
    history[0]["text"].as_str().unwrap().to_owned()
}

#[test]
fn a_prompt_comes_from_stdin_or_a_file() {
    let env = TestEnv::new();
    let long = format!("line one\n{}\nlast line\n", "x".repeat(5000));
    let out = env.run_with_stdin(&["run", "--json", "-"], long.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(user_text(&env, &out), long);

    let path = env.write("prompt.md", "from a file\n");
    let out = env.run(&["run", "--json", "--file", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(user_text(&env, &out), "from a file\n");

    // Both a file and a prompt is ambiguous.
    let out = env.run(&["run", "--file", path.to_str().unwrap(), "and this"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = env.run(&["run", "--file", "missing.md"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("missing.md"), "{}", stderr(&out));
}

#[test]
fn an_oversized_prompt_is_refused_before_anything_is_committed() {
    let env = TestEnv::new();
    env.project_config("[worker]\nmax_prompt_bytes = 100\n");
    let out = env.run_with_stdin(&["run", "-"], "y".repeat(101).as_bytes());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("worker.max_prompt_bytes"),
        "{}",
        stderr(&out)
    );
    let list = env.run(&["session", "list", "--json", "--all"]);
    assert_eq!(stdout(&list).trim(), "[]", "no session was created");
}

#[test]
fn usage_and_configuration_errors_exit_2() {
    let env = TestEnv::new();
    let out = env.run(&["preview", "  "]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    for (text, key) in [
        ("[worker]\nmax_steps = 0\n", "worker.max_steps"),
        ("[fileref]\nmax_bytes = 0\n", "fileref.max_bytes"),
    ] {
        let path = env.project_config(text);
        for cmd in [&["run", "hi"][..], &["preview", "hi"][..]] {
            let out = env.run(cmd);
            assert_eq!(out.status.code(), Some(2), "{text}: {}", stderr(&out));
            let err = stderr(&out);
            assert!(
                err.contains(&format!("{}:2", path.display())) && err.contains(key),
                "{err}"
            );
        }
    }
}

#[test]
fn help_lists_the_exit_codes() {
    let env = TestEnv::new();
    let out = env.run(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    for line in ["0 ", "1 ", "2 ", "3 "] {
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with(line) && l.contains("  ")),
            "{text}"
        );
    }
    assert!(text.contains("cancelled"), "{text}");
}

#[test]
fn config_errors_name_the_config_file_and_the_plugin_entry() {
    let env = TestEnv::new();
    let wasm = env.write("plugins/p.wasm", "not really");
    let wasm = wasm.to_str().unwrap();
    let cases = [
        (
            format!("[[plugins]]\nname = \"r\"\nkind = \"resolver\"\npath = \"{wasm}\"\n"),
            "fileref.resolver",
        ),
        (
            format!(
                "[[plugins]]\nname = \"p\"\nkind = \"hook\"\npath = \"{wasm}\"\nsha256 = \"zz\"\n"
            ),
            "64 hex digits",
        ),
        (
            "[[plugins]]\nname = \"gone\"\nkind = \"hook\"\npath = \"nowhere.wasm\"\n".to_owned(),
            "gone",
        ),
    ];
    for (text, expected) in cases {
        let path = env.project_config(&text);
        let out = env.run(&["preview", "hi"]);
        assert_eq!(out.status.code(), Some(2), "{text}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(path.to_str().unwrap()) && err.contains(expected),
            "{text}: {err}"
        );
        assert!(
            !err.contains("p.wasm:"),
            "names the config, not the component: {err}"
        );
    }
}
