//! `warden chat` through a real terminal: tmux runs it in a detached session, the test types
//! with `send-keys` and reads the screen with `capture-pane`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{TestEnv, stderr, warden_bin};

const WAIT: Duration = Duration::from_secs(60);

#[path = "chat_keys.rs"]
mod keys;

/// A chat running in its own tmux server.
pub(crate) struct Terminal {
    socket: String,
    exit_file: PathBuf,
}

fn tmux_installed() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

impl Terminal {
    /// Start `warden ARGS` in `env`'s workspace with `extra` variables.
    pub(crate) fn start(env: &TestEnv, args: &[&str], extra: &[(&str, String)]) -> Self {
        Self::start_at(env, &env.workspace(), args, extra)
    }

    /// Start `warden ARGS` from directory `dir` with `extra` variables. The screen stays
    /// readable however soon warden exits: the tmux server starts with `remain-on-exit` on.
    pub(crate) fn start_at(
        env: &TestEnv,
        dir: &Path,
        args: &[&str],
        extra: &[(&str, String)],
    ) -> Self {
        Self::start_sized(env, dir, args, extra, 160)
    }

    /// [`Terminal::start_at`] in a terminal `columns` wide.
    pub(crate) fn start_sized(
        env: &TestEnv,
        dir: &Path,
        args: &[&str],
        extra: &[(&str, String)],
        columns: u16,
    ) -> Self {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::SeqCst);
        let socket = format!("warden-e2e-{}-{n}", std::process::id());
        let exit_file = env.state_home().join(format!("chat-exit-code-{n}"));
        let conf = env.root().join(format!("tmux-{n}.conf"));
        std::fs::write(&conf, "set-option -g remain-on-exit on\n").expect("tmux config");
        let mut vars: Vec<String> = env
            .env_vars()
            .into_iter()
            .map(|(k, v)| format!("{k}={}", shell_quote(&v)))
            .collect();
        vars.push("TERM=xterm-256color".into());
        for (k, v) in extra {
            vars.push(format!("{k}={}", shell_quote(v)));
        }
        let mut command = format!(
            "cd {} && env -i {} {}",
            shell_quote(&dir.to_string_lossy()),
            vars.join(" "),
            shell_quote(&warden_bin().to_string_lossy())
        );
        for arg in args {
            command.push(' ');
            command.push_str(&shell_quote(arg));
        }
        command.push_str(&format!(
            "; echo $? > {}",
            shell_quote(&exit_file.to_string_lossy())
        ));
        let status = Command::new("tmux")
            .args(["-L", &socket, "-f", &conf.to_string_lossy()])
            .args([
                "new-session",
                "-d",
                "-s",
                "chat",
                "-x",
                &columns.to_string(),
                "-y",
                "50",
                &command,
            ])
            .status()
            .expect("tmux new-session");
        assert!(status.success());
        Self { socket, exit_file }
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Type `text` literally.
    pub(crate) fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "chat", "-l", text]);
    }

    /// Press keys by tmux name (`Tab`, `Enter`, `C-c`, `C-d`).
    pub(crate) fn press(&self, key: &str) {
        self.tmux(&["send-keys", "-t", "chat", key]);
    }

    /// Make the terminal `cols` columns wide.
    pub(crate) fn resize(&self, cols: u16) {
        self.tmux(&[
            "resize-window",
            "-t",
            "chat",
            "-x",
            &cols.to_string(),
            "-y",
            "50",
        ]);
    }

    pub(crate) fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "chat", "-S", "-500"])
    }

    /// The screen with the lines the terminal wrapped joined back (`capture-pane -J`): a line
    /// break left is one the program wrote.
    pub(crate) fn screen_joined(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-t", "chat", "-S", "-500"])
    }

    /// The screen with its colours, as escape sequences.
    pub(crate) fn screen_with_colours(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-e", "-t", "chat", "-S", "-500"])
    }

    /// Wait until the screen shows `needle`; fail with the screen otherwise.
    pub(crate) fn wait_for(&self, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return screen;
            }
            if start.elapsed() > WAIT {
                panic!("the screen never showed {needle:?}:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Wait until the screen shows `needle` after the last `marker` (the prompt back after an
    /// answer, say), so that keys typed next reach the line editor.
    pub(crate) fn wait_for_after(&self, marker: &str, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if let Some(at) = screen.rfind(marker)
                && screen[at..].contains(needle)
            {
                return screen;
            }
            if start.elapsed() > WAIT {
                panic!("the screen never showed {needle:?} after {marker:?}:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Wait for the process to exit and return its status. A Ctrl-D sent while the last
    /// answer was still being drawn reaches the terminal before the line editor reads keys
    /// again, and the terminal driver takes it as an end-of-file nobody reads: while the chat
    /// shows an empty prompt and has not exited, Ctrl-D is pressed again every 3 s.
    pub(crate) fn exit_code(&self) -> i32 {
        let start = Instant::now();
        let mut pressed = Instant::now();
        loop {
            if let Ok(text) = std::fs::read_to_string(&self.exit_file)
                && let Ok(code) = text.trim().parse()
            {
                return code;
            }
            if start.elapsed() > WAIT {
                panic!("warden chat did not exit:\n{}", self.screen());
            }
            if pressed.elapsed() > Duration::from_secs(3)
                && self
                    .screen()
                    .trim_end()
                    .lines()
                    .last()
                    .is_some_and(|line| line.trim_end() == "warden ›")
            {
                self.press("C-d");
                pressed = Instant::now();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

pub(crate) fn skip() -> bool {
    if tmux_installed() {
        return false;
    }
    eprintln!("SKIP chat tmux tests: tmux not installed");
    true
}

/// `warden chat` in a terminal, its model the mock server, without colours, at its prompt.
pub(crate) fn chat_against(env: &TestEnv, server: &MockServer) -> Terminal {
    let term = Terminal::start(
        env,
        &["chat"],
        &[
            ("OPENAI_API_KEY", "sk-test".into()),
            ("OPENAI_BASE_URL", server.openai_url()),
            ("NO_COLOR", "1".into()),
        ],
    );
    term.wait_for("warden ›");
    term
}

pub(crate) fn session_id(screen: &str) -> String {
    screen
        .lines()
        .find_map(|l| l.trim().strip_prefix("session    "))
        .expect("a /session line")
        .trim()
        .to_owned()
}

pub(crate) fn export(env: &TestEnv, id: &str) -> Vec<Value> {
    let out = env.run(&["session", "export", id]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .cloned()
        .unwrap()
}

#[test]
fn a_lone_candidate_is_not_inserted_before_it_is_chosen() {
    if skip() {
        return;
    }
    // One file only: typing `@` must not insert it at once (the typed partial would then stay
    // behind the inserted path, as `@a.txt a`).
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    let term = Terminal::start(&env, &["chat"], &[("NO_COLOR", "1".into())]);
    term.wait_for("warden ›");
    term.type_text("see @a");
    std::thread::sleep(Duration::from_millis(300));
    term.press("Tab");
    term.wait_for("see @a.txt");
    term.press("Enter");
    // The echo answer is drawn line by line: wait for the line itself, not its first line.
    let screen = term.wait_for("last user text: \"see @a.txt\"");
    assert!(!screen.contains("@a.txt a"), "{screen}");
    term.press("C-d");
}

#[test]
fn completes_a_mention_attaches_the_file_and_answers() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.write("my notes.md", "remember the milk\n");
    env.write("src/main.rs", "fn main() {}\n");
    env.write("README.md", "readme\n");
    let term = Terminal::start(&env, &["chat"], &[("NO_COLOR", "1".into())]);
    term.wait_for("warden ›");

    term.type_text("summarise @my");
    std::thread::sleep(Duration::from_millis(300));
    term.press("Tab");
    term.wait_for("summarise @\"my notes.md\"");
    term.press("Enter");
    let screen = term.wait_for("[echo provider]");
    assert!(screen.contains("+ my notes.md  (18 bytes)"), "{screen}");

    term.type_text("/session");
    term.press("Enter");
    let screen = term.wait_for("file       ");
    let id = session_id(&screen);

    term.type_text("/nonsense");
    term.press("Enter");
    term.wait_for("unknown command /nonsense; /help lists the commands");

    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
    let screen = term.screen();
    assert!(
        screen.contains(&format!("warden chat --resume {id}")),
        "{screen}"
    );

    let items = export(&env, &id);
    assert_eq!(items[0]["role"], "user");
    assert_eq!(items[0]["text"], "summarise @\"my notes.md\"");
    assert_eq!(items[1]["source"], "fileref");
    assert!(
        items[1]["text"]
            .as_str()
            .unwrap()
            .contains("remember the milk")
    );
    assert_eq!(items[2]["role"], "assistant");

    // The input history survives: the next chat of this workspace offers the prompt again.
    let term = Terminal::start(&env, &["chat", "--continue"], &[("NO_COLOR", "1".into())]);
    term.wait_for("(resumed, 3 items)");
    for _ in ["/nonsense", "/session", "the prompt"] {
        term.press("Up");
    }
    term.wait_for("› summarise @\"my notes.md\"");
    term.press("C-c");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn ctrl_c_cancels_a_slow_answer_and_commits_nothing_partial() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\ntimeout_s = 60\n",
    );
    let server = MockServer::start().unwrap();
    server.push(Reply::stall(
        "the first words of an answer that never ends",
        3,
    ));
    let term = Terminal::start(
        &env,
        &["chat"],
        &[
            ("OPENAI_API_KEY", "sk-test".into()),
            ("OPENAI_BASE_URL", server.openai_url()),
        ],
    );
    term.wait_for("warden ›");
    term.type_text("tell me a long story");
    term.press("Enter");
    term.wait_for("the first");
    term.press("C-c");
    term.wait_for("partial answer was not committed");
    // The chat is still usable: the prompt comes back.
    term.type_text("/session");
    term.press("Enter");
    let screen = term.wait_for("file       ");
    let id = session_id(&screen);
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);

    let items = export(&env, &id);
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["text"], "tell me a long story");
    assert!(items.iter().all(|i| i["role"] != "assistant"));
}

/// `--provider` / `--model` choose the model for one chat, as on `run`: a provider without its
/// key stops before the editor starts, naming the variable.
#[test]
fn the_provider_flag_chooses_the_model_for_one_chat() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    let term = sessions::start_in(
        &env,
        &env.workspace(),
        &["chat", "--provider", "openai", "--model", "gpt-test"],
    );
    assert_eq!(term.exit_code(), 2, "{}", term.screen());
    assert!(
        term.screen().contains("OPENAI_API_KEY"),
        "{}",
        term.screen()
    );
}

/// A tool plugin marked `approve = "ask"`: the chat shows the call and asks; `n` denies it (the
/// model is told so), `a` runs it and every later call of that tool without asking; `/plugins`
/// lists the tool plugin with its calls.
#[test]
fn a_tool_call_is_shown_and_approved_or_denied_in_the_terminal() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.write("notes.txt", "a needle here\n");
    env.project_config(&format!(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n\
         [[plugins]]\nname = \"search\"\nkind = \"tool\"\npath = {:?}\nfs = \"read\"\napprove = \"ask\"\n",
        warden_tests::fixtures::grep_tool().display().to_string()
    ));
    let server = MockServer::start().unwrap();
    for (id, answer) in [
        ("g1", "first done"),
        ("g2", "second done"),
        ("g3", "third done"),
    ] {
        server.push(Reply::tool_calls(
            "",
            &[(
                id,
                "search_text",
                serde_json::json!({"pattern": "needle", "literal": true}),
            )],
        ));
        server.push(Reply::text(answer));
    }
    let term = chat_against(&env, &server);

    term.type_text("search once");
    term.press("Enter");
    let screen = term.wait_for("allow? [y]es / [n]o / [a]lways");
    assert!(
        screen.contains("? tool search_text of plugin search wants to run"),
        "{screen}"
    );
    assert!(
        screen.contains("path: (none)\n  sizes: pattern 6 bytes, literal 4 bytes\n"),
        "{screen}"
    );
    assert!(
        screen.contains(r#"arguments: {"literal":true,"pattern":"needle"}"#),
        "{screen}"
    );
    term.type_text("n");
    term.wait_for("first done");

    term.type_text("search again");
    term.press("Enter");
    let start = Instant::now();
    while term.screen().matches("wants to run").count() < 2 {
        assert!(start.elapsed() < WAIT, "{}", term.screen());
        std::thread::sleep(Duration::from_millis(100));
    }
    term.type_text("a");
    term.wait_for("second done");

    term.type_text("search a third time");
    term.press("Enter");
    let screen = term.wait_for("third done");
    assert_eq!(screen.matches("wants to run").count(), 2, "{screen}");

    term.type_text("/plugins");
    term.press("Enter");
    let screen = term.wait_for("calls=2 failures=0");
    assert!(screen.contains("search  tool  sha256:"), "{screen}");

    term.type_text("/session");
    term.press("Enter");
    let screen = term.wait_for("file       ");
    let id = session_id(&screen);
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);

    let results: Vec<(String, bool)> = export(&env, &id)
        .iter()
        .filter(|i| i["role"] == "tool")
        .map(|i| {
            (
                i["text"].as_str().unwrap_or("").to_owned(),
                i["is_error"] == true,
            )
        })
        .collect();
    assert_eq!(
        results,
        [
            (
                "tool call denied by approval: the person declined to run it".to_owned(),
                true
            ),
            ("notes.txt:1: a needle here".to_owned(), false),
            ("notes.txt:1: a needle here".to_owned(), false),
        ]
    );
}

/// An interceptor's `pre-tool-call` judges the model's calls in the chat as in `warden run`:
/// the `tool-guard` sample's deny reaches the model as the call's error result.
#[test]
fn a_guard_denies_the_models_tool_call_in_the_chat() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.write("secret.txt", "the launch code\n");
    env.project_config(&format!(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n\
         [[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = {:?}\n\
         [plugins.config]\ndeny = \"read_file:secret*\"\n",
        warden_tests::fixtures::tool_guard().display().to_string()
    ));
    let server = MockServer::start().unwrap();
    server.script_tool_call(
        "r1",
        "read_file",
        serde_json::json!({"path": "secret.txt"}),
        "nothing to see",
    );
    let term = chat_against(&env, &server);
    term.type_text("read the secret");
    term.press("Enter");
    term.wait_for("nothing to see");
    term.type_text("/session");
    term.press("Enter");
    let screen = term.wait_for("file       ");
    let id = session_id(&screen);
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);

    let results: Vec<Value> = export(&env, &id)
        .into_iter()
        .filter(|i| i["role"] == "tool")
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    let text = results[0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("tool call denied by plugin:guard: "),
        "{text}"
    );
    assert!(!text.contains("launch code"), "{text}");
    let sent = server.requests()[1].body.to_string();
    assert!(!sent.contains("launch code"), "{sent}");
}

/// A cloned project's plugins: the chat shows what the project declares and asks; `n` runs the
/// chat without them (one alert says so); after a trust, a changed grant is shown as a change
/// and asked again; `y` records the trust, so that `warden run` then runs them.
#[test]
fn a_projects_plugins_are_shown_and_asked_for_before_they_load() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    let project = |grants: &str| {
        format!(
            "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n\
             [[plugins]]\nname = \"probe\"\nkind = \"tool\"\npath = {:?}\n{grants}\n",
            warden_tests::fixtures::hostile_tool().display().to_string()
        )
    };
    env.user_config("[policy.project_tool_grants]\nenv = [\"LANG\"]\n");
    env.untrusted_project_config(&project("env = [\"LANG\"]"));
    let server = MockServer::start().unwrap();
    server.push(Reply::text("answered without it"));
    server.push(Reply::text("answered with it"));
    let start = |env: &TestEnv| {
        Terminal::start(
            env,
            &["chat"],
            &[
                ("OPENAI_API_KEY", "sk-test".into()),
                ("OPENAI_BASE_URL", server.openai_url()),
                ("NO_COLOR", "1".into()),
            ],
        )
    };
    let offered = |index: usize| -> Vec<String> {
        server.requests()[index].body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap_or("").to_owned())
            .collect()
    };

    let term = start(&env);
    let screen = term.wait_for("trust it and load it? [y/N]");
    assert!(
        screen.contains("declares code that runs in this workspace"),
        "{screen}"
    );
    assert!(
        screen.contains(r#"+ new      probe (tool)"#)
            && screen.contains(r#"grants: fs = "none", env = ["LANG"]"#),
        "{screen}"
    );
    term.type_text("n");
    term.press("Enter");
    let screen = term.wait_for("warden ›");
    assert_eq!(
        screen
            .matches("this session runs without the project's code")
            .count(),
        1,
        "{screen}"
    );
    assert!(screen.contains("warden trust -C"), "{screen}");
    term.type_text("hello");
    term.press("Enter");
    term.wait_for_after("answered without it", "warden ›");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
    assert!(
        !offered(0).contains(&"probe".to_owned()),
        "{:?}",
        offered(0)
    );
    drop(term);

    // Trusted, then a grant changes: the change is shown and asked.
    assert_eq!(env.trust().status.code(), Some(0));
    env.untrusted_project_config(&project("env = [\"LANG\"]\nfs = \"read\""));
    let term = start(&env);
    let screen = term.wait_for("trust it and load it? [y/N]");
    assert!(
        screen.contains("has changed what it runs since you trusted it"),
        "{screen}"
    );
    assert!(screen.contains("~ changed  probe (tool)"), "{screen}");
    assert!(screen.contains(r#"grants.fs: "none" → "read""#), "{screen}");
    term.type_text("y");
    term.press("Enter");
    term.wait_for("warden ›");
    term.type_text("hello");
    term.press("Enter");
    term.wait_for_after("answered with it", "warden ›");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
    assert!(offered(1).contains(&"probe".to_owned()), "{:?}", offered(1));

    // The yes was recorded: `warden run` loads the plugin without asking.
    let out = env.run(&["doctor"]);
    assert!(
        crate::support::stdout(&out).contains("project plugins trusted (as declared now)"),
        "{}",
        crate::support::stdout(&out)
    );
}

/// The permission mode in the chat: a write of the `edit-tool` sample (`fs = "read-write"`)
/// asks under the default `ask`, showing a diff against the file as it is; `n` is a denied
/// line in the transcript; after `/mode read-only` the next write is refused without a
/// question, and its line says so.
#[test]
fn an_edits_approval_shows_its_diff_a_no_is_a_denied_line_and_read_only_refuses() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\nthree\n");
    env.user_config(&format!(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n\
         [[plugins]]\nname = \"edit\"\nkind = \"tool\"\npath = {:?}\nfs = \"read-write\"\n",
        warden_tests::fixtures::edit_tool().display().to_string()
    ));
    let server = MockServer::start().unwrap();
    for (id, answer) in [("w1", "first done"), ("w2", "second done")] {
        server.push(Reply::tool_calls(
            "",
            &[(
                id,
                "write_file",
                serde_json::json!({"path": "a.txt", "content": "one\n2\u{1b}[31m\nthree\n"}),
            )],
        ));
        server.push(Reply::text(answer));
    }
    let term = chat_against(&env, &server);

    term.type_text("edit it");
    term.press("Enter");
    let screen = term.wait_for("allow? [y]es / [n]o / [a]lways");
    assert!(
        screen.contains("? tool write_file wants to write files (mode ask)"),
        "{screen}"
    );
    assert!(screen.contains("  path: a.txt\n"), "{screen}");
    assert!(
        screen.contains("  @@ -1,3 +1,3 @@\n   one\n  -two\n  +2\\u{1b}[31m\n   three\n"),
        "{screen}"
    );
    term.type_text("n");
    let screen = term.wait_for("first done");
    assert!(
        screen.contains("  ✗ write_file a.txt — denied by approval: the person declined to run it"),
        "{screen}"
    );

    term.type_text("/mode read-only");
    term.press("Enter");
    term.wait_for("mode read-only for this chat");
    term.type_text("edit again");
    term.press("Enter");
    let screen = term.wait_for("second done");
    assert!(
        screen.contains("  ✗ write_file a.txt — denied by mode: read-only"),
        "{screen}"
    );
    assert_eq!(
        screen.matches("wants to write files").count(),
        1,
        "{screen}"
    );
    term.type_text("/mode full-auto-ish");
    term.press("Enter");
    term.wait_for("unknown mode \"full-auto-ish\"");
    term.type_text("/mode");
    term.press("Enter");
    term.wait_for("mode read-only: read-only | ask | auto-edit | full-auto");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );
    let sent = server.requests()[3].body.to_string();
    assert!(
        sent.contains("tool call denied by mode: read-only"),
        "{sent}"
    );
}

/// Managed `policy.max_mode` holds in the chat: `/mode` above it is refused, naming the key.
#[test]
fn mode_above_the_managed_cap_is_refused_in_the_chat() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    let managed = env.managed_config("[policy]\nmax_mode = \"auto-edit\"\n");
    env.user_config("[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n");
    let server = MockServer::start().unwrap();
    let term = chat_against(&env, &server);
    term.type_text("/mode full-auto");
    term.press("Enter");
    let screen = term.wait_for("choose `auto-edit` or lower");
    // A long line wraps on the screen.
    let joined = screen.replace('\n', "");
    assert!(joined.contains(&managed.display().to_string()), "{screen}");
    assert!(joined.contains("key `policy.max_mode`"), "{screen}");
    term.type_text("/mode");
    term.press("Enter");
    term.wait_for("mode ask (managed policy allows up to auto-edit)");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

/// `/undo` in the chat: a write the model made in this chat (under `auto-edit`, so nothing is
/// asked) is put back, the transcript names the file and what was done, and the file holds its
/// bytes from before the turn.
#[test]
fn undo_in_the_chat_puts_back_what_the_last_turn_wrote() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.write("a.txt", "original\n");
    env.user_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n[tools]\nmode = \"auto-edit\"\n",
    );
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[(
            "w1",
            "write_file",
            serde_json::json!({"path": "a.txt", "content": "changed\n"}),
        )],
    ));
    server.push(Reply::text("wrote it"));
    let term = chat_against(&env, &server);
    term.type_text("change a.txt");
    term.press("Enter");
    term.wait_for_after("wrote it", "warden ›");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
        "changed\n"
    );
    term.type_text("/undo");
    term.press("Enter");
    let screen = term.wait_for_after("/undo", "warden ›");
    assert!(
        screen.contains("a.txt") && screen.contains("restored"),
        "{screen}"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
        "original\n"
    );
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

mod sessions;
