//! Session ids on the command line: an unknown id is an error naming the closest ones, a named
//! session is created only when asked, and every command treats ids the same way.

use serde_json::Value;

use crate::support::{TestEnv, stderr, stdout};

fn session_of(out: &std::process::Output) -> String {
    let value: Value = serde_json::from_str(stdout(out).trim())
        .unwrap_or_else(|err| panic!("{err}: {}\nstderr: {}", stdout(out), stderr(out)));
    value["session"].as_str().unwrap().to_owned()
}

#[test]
fn an_unknown_session_is_a_usage_error_naming_the_closest_ids() {
    let env = TestEnv::new();
    let out = env.run(&["run", "--json", "--new-session", "my-work", "one"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(session_of(&out), "my-work");

    // Creating it twice is refused.
    let out = env.run(&["run", "--new-session", "my-work", "two"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--session my-work"),
        "{}",
        stderr(&out)
    );

    // A typo does not start a new session.
    let out = env.run(&["run", "--session", "my-wrok", "two"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("my-wrok") && err.contains("my-work"), "{err}");
    let list = env.run(&["session", "list", "--json", "--all"]);
    let list: Value = serde_json::from_str(&stdout(&list)).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");

    // The existing one continues.
    let out = env.run(&["run", "--json", "--session", "my-work", "two"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn unknown_and_invalid_ids_exit_2_on_every_command() {
    let env = TestEnv::new();
    for id in ["no-such-session", "../escape"] {
        for args in [
            vec!["session", "show", id],
            vec!["session", "export", id],
            vec!["session", "delete", id],
            vec!["notify", "--session", id, "hello"],
            vec!["run", "--session", id, "hello"],
            vec!["audit", id],
        ] {
            let out = env.run(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        }
    }
}

#[test]
fn session_list_shows_titles_and_hides_empty_sessions() {
    let env = TestEnv::new();
    let out = env.run(&["run", "--json", "explain the build\nin detail"]);
    let id = session_of(&out);
    // A cancelled first turn leaves a session with no committed group.
    env.project_config(&format!(
        "[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = \"{}\"\n[plugins.config]\npattern = \"forbidden\"\n",
        warden_tests::fixtures::pattern_guard().display()
    ));
    let out = env.run(&["run", "--json", "forbidden"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let empty = session_of(&out);

    let out = env.run(&["session", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert!(header.contains("ID") && header.contains("TITLE"), "{text}");
    assert!(
        text.contains(&id) && text.contains("explain the build"),
        "{text}"
    );
    assert!(
        !text.contains("in detail"),
        "title is the first line: {text}"
    );
    assert!(!text.contains(&empty), "{text}");

    let out = env.run(&["session", "list", "--all"]);
    assert!(stdout(&out).contains(&empty), "{}", stdout(&out));

    // Prune needs a criterion, then removes only what it names.
    let out = env.run(&["session", "prune"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = env.run(&["session", "prune", "--empty", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains(&empty), "{}", stdout(&out));
    let out = env.run(&["session", "list", "--all", "--json"]);
    let list: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");

    let out = env.run(&["session", "delete", &id]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.run(&["session", "show", &id]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn no_such_session_exits_2_on_every_command_that_takes_one() {
    let env = TestEnv::new();
    let out = env.run(&["run", "--json", "--new-session", "kept", "one"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for args in [
        vec!["chat", "--resume", "bogus"],
        vec!["chat", "--parent", "bogus"],
        vec!["run", "--session", "bogus", "hello"],
        vec!["run", "--parent", "bogus", "hello"],
        vec!["undo", "--session", "bogus"],
        vec!["compact", "bogus"],
        vec!["session", "verify", "bogus"],
        vec!["session", "salvage", "bogus"],
        vec!["session", "show", "bogus"],
        vec!["plugin", "replay", "bogus", "guard.wasm"],
    ] {
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("no session \"bogus\""),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let list = env.run(&["session", "list", "--json", "--all"]);
    let list: Value = serde_json::from_str(&stdout(&list)).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1, "nothing created: {list}");
}

#[test]
fn a_unique_prefix_names_a_session_and_an_ambiguous_one_lists_the_candidates() {
    let env = TestEnv::new();
    for name in ["abcd-1111", "abcd-2222", "zzzz-3333"] {
        let out = env.run(&["run", "--json", "--new-session", name, "first"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let out = env.run(&["run", "--json", "--session", "zz", "second"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(session_of(&out), "zzzz-3333");
    for args in [
        vec!["session", "show", "abcd-1"],
        vec!["session", "export", "abcd-1"],
        vec!["session", "verify", "abcd-1"],
        vec!["undo", "--session", "abcd-1"],
        vec!["audit", "abcd-1"],
        vec!["notify", "--session", "abcd-1", "hello"],
    ] {
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("abcd-1111") || stdout(&out).contains("first"),
            "{args:?}: {}",
            stdout(&out)
        );
    }
    let out = env.run(&["session", "show", "abcd"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("ambiguous") && err.contains("abcd-1111") && err.contains("abcd-2222"),
        "{err}"
    );
    assert!(!err.contains("zzzz-3333"), "{err}");
    // An ambiguous prefix deletes nothing.
    let out = env.run(&["session", "delete", "abcd"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let list = env.run(&["session", "list", "--json"]);
    let list: Value = serde_json::from_str(&stdout(&list)).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 3, "{list}");
    let out = env.run(&["chat", "--resume", "abcd"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("abcd-2222"), "{}", stderr(&out));
    // An unknown id suggests the closest ones.
    let out = env.run(&["session", "show", "zzzz-3334"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("did you mean zzzz-3333"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn piped_chat_is_refused_before_a_session_is_created() {
    let env = TestEnv::new();
    let out = env.run_with_stdin(&["chat"], b"hi\n");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("terminal") && err.contains("warden run -"),
        "{err}"
    );
    assert!(!err.contains("resume with"), "{err}");
    let list = env.run(&["session", "list", "--json", "--all"]);
    let list: Value = serde_json::from_str(&stdout(&list)).unwrap();
    assert!(list.as_array().unwrap().is_empty(), "{list}");
}

#[test]
fn chat_resume_with_another_workspace_named_by_c_is_refused() {
    let env = TestEnv::new();
    let out = env.run(&["run", "--json", "--new-session", "here", "first"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let elsewhere = env.outside();
    let out = env.run(&[
        "chat",
        "-C",
        elsewhere.to_str().unwrap(),
        "--resume",
        "here",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("a session always runs in its own workspace"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn session_list_shows_children_under_their_parent() {
    let env = TestEnv::new();
    let out = env.run(&[
        "run",
        "--json",
        "--new-session",
        "parent-1",
        "plan the work",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.run(&["run", "--json", "--new-session", "other-1", "unrelated"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.run(&["run", "--json", "--parent", "parent-1", "do part one"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let child = session_of(&out);

    let out = env.run(&["session", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let parent_at = lines
        .iter()
        .position(|l| l.starts_with("parent-1"))
        .unwrap();
    let child_line = lines[parent_at + 1];
    assert!(
        child_line.contains(&format!("└ {child}")) && child_line.contains("do part one"),
        "{text}"
    );
    let out = env.run(&["session", "list", "--json"]);
    let list: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let parent = list
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "parent-1")
        .unwrap();
    assert_eq!(parent["children"], serde_json::json!([child]));
}
