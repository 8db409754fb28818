//! An isolated environment for running the real `warden` binary: a temporary workspace, state
//! home and config home, and no managed policy unless a test writes one.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A temporary workspace plus everything warden reads from the environment.
pub struct TestEnv {
    root: tempfile::TempDir,
}

impl Default for TestEnv {
    fn default() -> Self {
        Self::new()
    }
}

impl TestEnv {
    /// A fresh environment with an empty workspace.
    pub fn new() -> Self {
        let root = tempfile::tempdir().expect("tempdir");
        for dir in ["workspace", "home", "state", "config"] {
            std::fs::create_dir_all(root.path().join(dir)).expect("mkdir");
        }
        Self { root }
    }

    /// The workspace directory (`-C`), canonical.
    pub fn workspace(&self) -> PathBuf {
        std::fs::canonicalize(self.root.path().join("workspace")).expect("canonical workspace")
    }

    /// The temporary directory holding workspace, homes and config home.
    pub fn root_path(&self) -> &Path {
        self.root.path()
    }

    /// `$WARDEN_HOME`.
    pub fn state_home(&self) -> PathBuf {
        self.root.path().join("state")
    }

    /// The flag that runs in session `id`: `--session` once it exists, `--new-session` to
    /// create it (an unknown `--session` id is an error).
    pub fn session_flag(&self, id: &str) -> &'static str {
        if self.state_home().join("sessions").join(id).is_dir() {
            "--session"
        } else {
            "--new-session"
        }
    }

    /// Path of the managed policy file named by `$WARDEN_MANAGED_CONFIG` (absent unless
    /// written).
    pub fn managed_path(&self) -> PathBuf {
        self.root.path().join("managed.toml")
    }

    /// Where the binary under test looks for the system managed file (its stand-in for
    /// `/etc/warden/managed.toml`; absent unless written).
    pub fn system_managed_path(&self) -> PathBuf {
        self.root.path().join("etc-warden-managed.toml")
    }

    /// The temporary directory holding the workspace, homes and policy files.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// Write `text` to `rel` inside the workspace, creating directories.
    pub fn write(&self, rel: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = self.workspace().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, text).expect("write");
        path
    }

    /// Write the project config `.warden/config.toml` and trust what it declares (as the
    /// person would with `warden trust`), so that its plugins load. A config that cannot be
    /// trusted (an invalid one, one forbidden by policy) is left untrusted.
    pub fn project_config(&self, text: &str) -> PathBuf {
        let path = self.untrusted_project_config(text);
        self.trust();
        path
    }

    /// Write the project config `.warden/config.toml` without trusting it: a cloned
    /// repository's.
    pub fn untrusted_project_config(&self, text: &str) -> PathBuf {
        self.write(".warden/config.toml", text)
    }

    /// `warden trust -C <workspace>`: trust the project config as it declares things now (a
    /// changed component file or entry must be trusted again). Its outcome is returned, not
    /// checked.
    pub fn trust(&self) -> Output {
        let ws = self.workspace().to_string_lossy().into_owned();
        self.run(&["trust", "-C", &ws])
    }

    /// [`TestEnv::trust`], which must succeed: what it printed.
    pub fn trusted(&self) -> String {
        let out = self.trust();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The user config (`$XDG_CONFIG_HOME/warden/config.toml`), written.
    pub fn user_config(&self, text: &str) -> PathBuf {
        let path = self
            .root
            .path()
            .join("config")
            .join("warden")
            .join("config.toml");
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write user config");
        path
    }

    /// Write the managed policy.
    pub fn managed_config(&self, text: &str) -> PathBuf {
        let path = self.managed_path();
        std::fs::write(&path, text).expect("write managed");
        path
    }

    /// The environment variables of [`TestEnv::command`], for running warden another way
    /// (in a terminal multiplexer).
    pub fn env_vars(&self) -> Vec<(String, String)> {
        let path = |p: PathBuf| p.to_string_lossy().into_owned();
        vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), path(self.root.path().join("home"))),
            (
                "XDG_CONFIG_HOME".into(),
                path(self.root.path().join("config")),
            ),
            ("WARDEN_HOME".into(), path(self.state_home())),
            ("WARDEN_MANAGED_CONFIG".into(), path(self.managed_path())),
            ("WARDEN_LOG".into(), "warn".into()),
        ]
    }

    /// A `warden` command in this environment (cwd = workspace), with model credentials
    /// removed so nothing reaches a real provider.
    pub fn command(&self) -> Command {
        self.command_of(warden_bin())
    }

    /// [`TestEnv::command`] running `program` (a shell that then runs warden) instead.
    pub fn command_of(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(self.workspace())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root.path().join("home"))
            .env("XDG_CONFIG_HOME", self.root.path().join("config"))
            .env("WARDEN_HOME", self.state_home())
            .env("WARDEN_MANAGED_CONFIG", self.managed_path())
            .env(SYSTEM_MANAGED_VAR, self.system_managed_path())
            .env("WARDEN_LOG", "warn")
            .stdin(Stdio::null());
        cmd
    }

    /// Run `warden ARGS` to completion (killed, and the test failed, after two minutes).
    pub fn run(&self, args: &[&str]) -> Output {
        let mut cmd = self.command();
        cmd.args(args);
        output_within(cmd, HANG_LIMIT)
    }

    /// Run `warden ARGS` from directory `dir` instead of the workspace.
    pub fn run_in(&self, dir: &Path, args: &[&str]) -> Output {
        let mut cmd = self.command();
        cmd.current_dir(dir).args(args);
        output_within(cmd, HANG_LIMIT)
    }

    /// Run `warden ARGS` with `input` on standard input.
    pub fn run_with_stdin(&self, args: &[&str], input: &[u8]) -> Output {
        let mut cmd = self.command();
        cmd.args(args).stdin(Stdio::piped());
        output_with_input(cmd, input, HANG_LIMIT)
    }

    /// A directory beside the workspace (created), for runs from elsewhere.
    pub fn outside(&self) -> PathBuf {
        let dir = self.root.path().join("elsewhere");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::canonicalize(dir).expect("canonical")
    }
}

/// Read by the binary under test only (never by `warden`): where its system managed file is.
pub const SYSTEM_MANAGED_VAR: &str = "WARDEN_TEST_SYSTEM_MANAGED_CONFIG";

/// A `warden` process that runs longer than this is hung: the test fails instead of blocking.
pub const HANG_LIMIT: Duration = Duration::from_secs(120);

/// Run `cmd` to completion, killing it and failing the test if it outlives `limit`.
pub fn output_within(cmd: Command, limit: Duration) -> Output {
    output_with_input(cmd, &[], limit)
}

/// [`output_within`], writing `input` to the child's stdin (when it is piped) and closing it.
pub fn output_with_input(mut cmd: Command, input: &[u8], limit: Duration) -> Output {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn warden");
    if let Some(mut stdin) = child.stdin.take() {
        let input = input.to_vec();
        std::thread::spawn(move || {
            let _ = std::io::Write::write_all(&mut stdin, &input);
        });
    }
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let read = |pipe: Option<std::process::ChildStdout>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = std::io::Read::read_to_end(&mut pipe, &mut buf);
            }
            buf
        })
    };
    let out_thread = read(stdout);
    let err_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut pipe) = stderr {
            let _ = std::io::Read::read_to_end(&mut pipe, &mut buf);
        }
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let err = err_thread.join().unwrap_or_default();
            panic!(
                "warden hung for more than {limit:?}; stderr:\n{}",
                String::from_utf8_lossy(&err)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out_thread.join().unwrap_or_default(),
        stderr: err_thread.join().unwrap_or_default(),
    }
}

/// The `warden` binary under test: the one built with the tests, or the one named by
/// `$WARDEN_E2E_BIN` (to check that a new test fails against an older build).
pub fn warden_bin() -> &'static Path {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| {
        std::env::var_os("WARDEN_E2E_BIN").map_or_else(
            || PathBuf::from(env!("CARGO_BIN_EXE_warden-under-test")),
            PathBuf::from,
        )
    })
}

/// Standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A `[[plugins]]` entry: `kind`, `name`, `path`, `extra` lines (`timeout_ms = 100`, …) and
/// its `[plugins.config]` table.
pub fn plugin_entry(
    kind: &str,
    name: &str,
    path: &Path,
    extra: &str,
    config: &[(&str, &str)],
) -> String {
    let mut out = format!(
        "[[plugins]]\nname = \"{name}\"\nkind = \"{kind}\"\npath = {:?}\n{extra}\n",
        path.display().to_string()
    );
    if !config.is_empty() {
        out.push_str("[plugins.config]\n");
        for (k, v) in config {
            out.push_str(&format!("{k} = {v:?}\n"));
        }
    }
    out.push('\n');
    out
}

/// The `tools` of the first turn of `warden audit SESSION --json`.
pub fn audited_tools(env: &TestEnv, session: &str) -> Vec<serde_json::Value> {
    let out = env.run(&["audit", session, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    value["turns"][0]["tools"].as_array().unwrap().clone()
}

/// `warden run --json go` against the scripted model at `openai_url`, which must exit 0: the
/// output and the session's id.
pub fn run_go_json(env: &TestEnv, openai_url: &str) -> (Output, String) {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", openai_url)
        .args(["run", "--json", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let session = value["session"].as_str().unwrap().to_owned();
    (out, session)
}
