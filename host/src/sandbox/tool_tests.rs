use super::*;

#[test]
fn arguments_are_checked_and_the_deadline_capped() {
    assert_eq!(
        parse(&json!({"command": "ls"}), 120),
        Ok(("ls".to_owned(), 120))
    );
    assert_eq!(
        parse(&json!({"command": "ls", "timeout_s": 900}), 120),
        Ok(("ls".to_owned(), 120))
    );
    assert!(parse(&json!({"command": ""}), 120).is_err());
    assert!(parse(&json!({"command": "ls", "timeout_s": 0}), 120).is_err());
    assert!(parse(&json!({"command": "ls", "cwd": "/"}), 120).is_err());
}

/// Unconfined (no launcher in a unit test): cancelling the turn kills the process group,
/// background processes included; the exit status and the environment are as documented.
#[test]
fn cancelling_kills_the_group_and_a_plain_command_reports_its_status() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.tools.shell.sandbox = ShellSandbox::None;
    let vars = vec![
        ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
        ("OPENAI_API_KEY".to_owned(), "sk-unit".to_owned()),
    ];
    let tool = ShellTool::new(
        &config,
        &[dir.path().to_owned()],
        PathBuf::from("/nonexistent"),
        vars,
    );
    let out = tool.execute("echo hi; env; exit 3", Duration::from_secs(60), &|| false);
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.starts_with("hi\n"), "{}", out.content);
    assert!(out.content.ends_with("exit status: 3"), "{}", out.content);
    assert!(!out.content.contains("sk-unit"), "{}", out.content);

    let pids = dir.path().join("pids");
    let seen = pids.clone();
    let cancelled = move || std::fs::read_to_string(&seen).is_ok_and(|t| t.lines().count() >= 2);
    let out = tool.execute(
        "sleep 1000 & echo $! > pids.tmp; echo $$ >> pids.tmp; mv pids.tmp pids; sleep 1000",
        Duration::from_secs(600),
        &cancelled,
    );
    assert!(
        out.is_error && out.content.contains("cancelled"),
        "{}",
        out.content
    );
    // SIGKILL went to the whole group when the call returned; a process dies once the kernel
    // next schedules it, so each is given a moment (bounded) to be gone or a zombie.
    for pid in std::fs::read_to_string(&pids).unwrap().split_whitespace() {
        let state_of = || {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .unwrap_or("")
                .to_owned()
        };
        let mut state = state_of();
        for _ in 0..100 {
            if state.is_empty() || state == "Z" {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
            state = state_of();
        }
        assert!(
            state.is_empty() || state == "Z",
            "{pid} still runs ({state})"
        );
    }
}

#[test]
fn a_launcher_setup_failure_is_a_refusal_naming_the_missing_piece() {
    let out = report(
        "true",
        End::Exited(Some(SETUP_FAILED), None),
        Some(Captured {
            bytes: format!("{SETUP_ERROR_PREFIX}user namespace (unshare CLONE_NEWUSER): Operation not permitted\n").into_bytes(),
            total: 10,
        }),
        Duration::from_secs(1),
        ShellSandbox::Required,
        &[],
        None,
    );
    assert!(out.is_error);
    assert!(
        out.content.contains("shell is refused")
            && out
                .content
                .contains("user namespace (unshare CLONE_NEWUSER)")
            && out.content.contains("Nothing ran"),
        "{}",
        out.content
    );
}

#[test]
fn the_description_names_the_granted_hosts_and_the_result_the_refusals() {
    let mut config = Config::default();
    let spec = |config: &Config| {
        ShellTool::new(
            config,
            &[PathBuf::from("/")],
            PathBuf::from("/x"),
            Vec::new(),
        )
        .spec()
        .description
    };
    assert!(spec(&config).contains("no network"));
    config.tools.shell.allowed_hosts = vec!["api.github.com".into(), "*.pypi.org".into()];
    assert!(
        spec(&config).contains("network: api.github.com, *.pypi.org only"),
        "{}",
        spec(&config)
    );
    config.tools.shell.network = true;
    assert!(spec(&config).contains("network allowed"));

    let refused = [
        "network: refused CONNECT evil.example:443: not in `[tools.shell] allowed_hosts`"
            .to_owned(),
    ];
    let out = report(
        "curl",
        End::Exited(Some(0), None),
        Some(Captured {
            bytes: b"out".to_vec(),
            total: 3,
        }),
        Duration::from_secs(1),
        ShellSandbox::Required,
        &refused,
        Some("[sandbox: never shown: the command succeeded]".to_owned()),
    );
    assert_eq!(
        out.content,
        format!("out\n[{}]\nexit status: 0", refused[0])
    );
}
