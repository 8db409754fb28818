//! The environment of a sandboxed command: an allowlist of harmless names from warden's own
//! environment, the names `[tools.shell] env` adds, and `TMPDIR` (the call's private
//! directory). Nothing else: no `*_API_KEY`, `*_TOKEN`, no `WARDEN_*`, unless configured by
//! name (the configuration refuses `WARDEN_*`, and secret-looking names from a project).

use std::path::Path;

/// Names passed through when warden has them set.
pub const ALLOWED: &[&str] = &[
    "PATH", "HOME", "LANG", "LANGUAGE", "TERM", "USER", "LOGNAME", "TZ",
];

/// Whether `name` is in the built-in allowlist (`LC_*` included).
pub fn allowed(name: &str) -> bool {
    ALLOWED.contains(&name) || name.starts_with("LC_")
}

/// The command's environment from `vars` (warden's own), `extra` names and the private `tmp`.
pub fn command_env(
    vars: impl IntoIterator<Item = (String, String)>,
    extra: &[String],
    tmp: &Path,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = vars
        .into_iter()
        .filter(|(name, _)| name != "TMPDIR" && (allowed(name) || extra.iter().any(|e| e == name)))
        .collect();
    if !env.iter().any(|(name, _)| name == "PATH") {
        env.push(("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()));
    }
    env.push(("TMPDIR".into(), tmp.to_string_lossy().into_owned()));
    env.sort();
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_and_configured_names_pass() {
        let vars = [
            ("PATH", "/bin"),
            ("LC_ALL", "C"),
            ("OPENAI_API_KEY", "sk"),
            ("GITHUB_TOKEN", "t"),
            ("WARDEN_HOME", "/w"),
            ("TMPDIR", "/tmp"),
            ("CARGO_HOME", "/c"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()));
        let env = command_env(vars, &["CARGO_HOME".to_owned()], Path::new("/tmp/x"));
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["CARGO_HOME", "LC_ALL", "PATH", "TMPDIR"]);
        assert!(env.contains(&("TMPDIR".to_owned(), "/tmp/x".to_owned())));
    }
}
