use std::process::Command;

use super::*;

/// Run git in `dir` with `env` only (and `args`); its standard output, and whether it
/// succeeded.
fn git(dir: &Path, env: &[(String, String)], args: &[&str]) -> (String, bool) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
        out.status.success(),
    )
}

fn base_env(dir: &Path) -> Vec<(String, String)> {
    vec![
        ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
        ("HOME".into(), dir.display().to_string()),
        ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
        ("GIT_AUTHOR_NAME".into(), "t".into()),
        ("GIT_AUTHOR_EMAIL".into(), "t@example.com".into()),
        ("GIT_COMMITTER_NAME".into(), "t".into()),
        ("GIT_COMMITTER_EMAIL".into(), "t@example.com".into()),
    ]
}

/// Every program-running key a repository may set, each touching its own marker.
fn hostile(dir: &Path) -> String {
    let m = |what: &str| dir.join(format!("MARK-{what}")).display().to_string();
    format!(
        "[core]\n\tfsmonitor = \"touch {}\"\n\tpager = \"touch {}; cat\"\n\teditor = \"touch {}\"\n\thooksPath = hooks-elsewhere\n\
         [diff]\n\texternal = \"touch {}; true\"\n\
         [diff \"x\"]\n\ttextconv = \"touch {}; cat\"\n\tcommand = \"touch {}; true\"\n\
         [filter \"Y.z\"]\n\tclean = \"touch {}; cat\"\n\tsmudge = \"touch {}; cat\"\n\trequired = true\n\
         [merge \"m\"]\n\tdriver = \"touch {}; false\"\n\
         [alias]\n\tst = \"!touch {}\"\n\tlg = -c core.fsmonitor=x status\n\
         [credential]\n\thelper = \"!touch {}\"\n\
         [log]\n\tshowSignature = true\n[gpg]\n\tprogram = {}\n",
        m("fsmonitor"),
        m("pager"),
        m("editor"),
        m("external"),
        m("textconv"),
        m("command"),
        m("clean"),
        m("smudge"),
        m("merge"),
        m("alias"),
        m("credential"),
        m("gpg"),
    )
}

fn marks(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("MARK"))
        .collect()
}

#[test]
fn a_hostile_repository_runs_nothing_and_git_still_works() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    let plain = base_env(&ws);
    assert!(git(&ws, &plain, &["init", "-q", "-b", "main"]).1);
    std::fs::write(ws.join(".gitignore"), "MARK*\n").unwrap();
    std::fs::write(ws.join("a.txt"), "a\n").unwrap();
    assert!(git(&ws, &plain, &["add", "."]).1);
    assert!(git(&ws, &plain, &["commit", "-qm", "one"]).1);
    let config = ws.join(".git/config");
    let text = std::fs::read_to_string(&config).unwrap() + &hostile(&ws);
    std::fs::write(&config, text).unwrap();
    std::fs::create_dir_all(ws.join("hooks-elsewhere")).unwrap();
    std::fs::write(
        ws.join("hooks-elsewhere/pre-commit"),
        format!("#!/bin/sh\ntouch {}/MARK-hook\n", ws.display()),
    )
    .unwrap();
    let mut perms = std::fs::metadata(ws.join("hooks-elsewhere/pre-commit"))
        .unwrap()
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(ws.join("hooks-elsewhere/pre-commit"), perms).unwrap();
    std::fs::write(
        ws.join(".gitattributes"),
        "*.txt diff=x filter=Y.z merge=m\n",
    )
    .unwrap();
    std::fs::write(ws.join("a.txt"), "a\nchanged\n").unwrap();

    let mut env = plain.clone();
    env.push(("GIT_EXTERNAL_DIFF".into(), "false".into()));
    env.push((
        "GIT_CONFIG_PARAMETERS".into(),
        "'core.fsmonitor'='x'".into(),
    ));
    apply(&mut env, &hardening(&[ws.join(".git")], Some(&ws)));
    let (status, ok) = git(&ws, &env, &["status", "--short"]);
    assert!(ok && status.contains("a.txt"), "{status}");
    let (diff, ok) = git(&ws, &env, &["diff"]);
    assert!(ok && diff.contains("+changed"), "{diff}");
    let (log, ok) = git(&ws, &env, &["log", "-p"]);
    assert!(ok && log.contains("+a"), "{log}");
    assert!(git(&ws, &env, &["show"]).1);
    assert!(git(&ws, &env, &["blame", "a.txt"]).1);
    let (st, _) = git(&ws, &env, &["st"]);
    let (lg, _) = git(&ws, &env, &["lg"]);
    assert!(git(&ws, &env, &["add", "."]).1);
    let (commit, ok) = git(&ws, &env, &["commit", "-qm", "two"]);
    assert!(ok, "{commit}");
    assert!(git(&ws, &env, &["checkout", "-q", "HEAD~1", "--", "a.txt"]).1);
    assert_eq!(marks(&ws), Vec::<String>::new(), "{st} {lg}");
}

#[test]
fn a_driver_key_is_given_a_value_that_runs_nothing_of_the_repositorys() {
    assert_eq!(neutral("filter.Y.z.clean", "evil").as_deref(), Some(""));
    assert_eq!(neutral("diff.x.textconv", "evil").as_deref(), Some("cat"));
    assert_eq!(
        neutral("diff.x.command", "evil").as_deref(),
        Some(DIFF_COMMAND)
    );
    assert_eq!(
        neutral("merge.m.driver", "evil").as_deref(),
        Some(MERGE_DRIVER)
    );
    assert_eq!(neutral("alias.st", "!evil").as_deref(), Some(""));
    assert_eq!(
        neutral("submodule.s.update", "!evil").as_deref(),
        Some("checkout")
    );
    assert_eq!(neutral("submodule.s.update", "rebase"), None);
    assert_eq!(neutral("browser.evil.cmd", "x").as_deref(), Some("false"));
    assert_eq!(neutral("user.name", "t"), None);
    assert_eq!(neutral("diff.textconv", "x"), None);
}

#[test]
fn the_users_program_running_variables_are_removed_and_ours_come_last() {
    let mut env = vec![
        ("PATH".to_owned(), "/bin".to_owned()),
        ("GIT_SSH_COMMAND".to_owned(), "evil".to_owned()),
        ("GIT_CONFIG_KEY_0".to_owned(), "core.pager".to_owned()),
        ("GIT_PAGER".to_owned(), "evil".to_owned()),
    ];
    apply(&mut env, &[("core.fsmonitor".into(), "false".into())]);
    let get = |n: &str| env.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    assert_eq!(get("GIT_SSH_COMMAND"), None);
    assert_eq!(get("GIT_PAGER"), Some("cat"));
    assert_eq!(get("GIT_CONFIG_COUNT"), Some("1"));
    assert_eq!(get("GIT_CONFIG_KEY_0"), Some("core.fsmonitor"));
    assert_eq!(get("PATH"), Some("/bin"));
}
