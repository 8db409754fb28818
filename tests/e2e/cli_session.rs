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
    let out = env.run(&["session", "prune", "--empty"]);
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
