//! Git run hardened: configuration that turns off every way git runs another program, given
//! to every sandboxed command through the environment (`GIT_CONFIG_COUNT`,
//! `GIT_CONFIG_KEY_<n>`, `GIT_CONFIG_VALUE_<n>`: the precedence of `git -c`, above every
//! config file, so a repository cannot undo it), with the user's program-running `GIT_*`
//! variables removed and the pager and editors set to harmless ones.
//!
//! Two parts: [`FIXED`], the same for every repository (hooks, fsmonitor, external diff,
//! pager, editors, credential helpers, ssh, askpass, gpg, `ext::`, bare repositories), and
//! the keys named in the configuration of the repositories under the roots
//! ([`git_config_scan`](super::git_config_scan)) whose neutral value depends on the
//! repository (`filter.<name>.{clean,smudge,process}`, `diff.<name>.{textconv,command}`,
//! `merge.<name>.driver`, `alias.<name>`, `diff.external` …): each given a value that runs
//! nothing of the repository's ([`neutral`]).

use std::path::{Path, PathBuf};

use super::git_config_scan::{config_files, entries};

/// Stands in for a repository's `diff.<name>.command` and `diff.external`: the plain diff of the two files the
/// external diff is given, by git itself (no external diff, no textconv).
pub const DIFF_COMMAND: &str = "f() { git --no-pager diff --no-index --no-ext-diff --no-textconv -- \"$2\" \"$5\"; [ $? -le 1 ]; }; f";

/// Stands in for a repository's `merge.<name>.driver`: git's own three-way merge.
pub const MERGE_DRIVER: &str = "git merge-file --marker-size=%L %A %O %B";

/// The configuration every sandboxed git runs with, whatever the repository says.
pub const FIXED: &[(&str, &str)] = &[
    ("core.hooksPath", "/dev/null"),
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.editor", ":"),
    ("sequence.editor", ":"),
    ("core.askPass", ""),
    ("core.sshCommand", "ssh"),
    ("core.alternateRefsCommand", ""),
    ("credential.helper", ""),
    ("interactive.diffFilter", "cat"),
    ("protocol.ext.allow", "never"),
    ("safe.bareRepository", "explicit"),
    ("gpg.program", "/dev/null"),
    ("gpg.openpgp.program", "/dev/null"),
    ("gpg.x509.program", "/dev/null"),
    ("gpg.ssh.program", "/dev/null"),
    ("gpg.ssh.defaultKeyCommand", ""),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("push.gpgSign", "false"),
    ("log.showSignature", "false"),
    ("merge.verifySignatures", "false"),
];

/// Variables of the environment set for every sandboxed command.
pub const SET: &[(&str, &str)] = &[
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_EDITOR", ":"),
    ("GIT_SEQUENCE_EDITOR", ":"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_PROXY_COMMAND", ""),
];

/// Variables removed: they run programs, point git at other programs, repositories or
/// configuration, or would come after ours (`GIT_CONFIG_PARAMETERS`).
pub const REMOVED: &[&str] = &[
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG",
    "GIT_EXTERNAL_DIFF",
    "GIT_DIFF_OPTS",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_EXEC_PATH",
    "GIT_TEMPLATE_DIR",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "EDITOR",
    "VISUAL",
];

/// What a repository's `key` (as `git config --list` names it) = `value` is given instead,
/// when it names a program git would run; `None` for a key that runs nothing.
pub fn neutral(key: &str, value: &str) -> Option<String> {
    let (section, rest) = key.split_once('.')?;
    let (name, item) = rest.rsplit_once('.').unwrap_or(("", rest));
    let section = section.to_ascii_lowercase();
    let item = item.to_ascii_lowercase();
    let value = match (section.as_str(), item.as_str()) {
        ("filter", "clean" | "smudge" | "process") if !name.is_empty() => "",
        ("filter", "required") if !name.is_empty() => "false",
        ("diff", "textconv") if !name.is_empty() => "cat",
        ("diff", "cachetextconv") if !name.is_empty() => "false",
        ("diff", "command") if !name.is_empty() => DIFF_COMMAND,
        // An empty `diff.external` does not unset it (git fails with "cannot run").
        ("diff", "external") if name.is_empty() => DIFF_COMMAND,
        ("merge", "driver") if !name.is_empty() => MERGE_DRIVER,
        ("alias", _) if name.is_empty() => "",
        ("trailer", "command" | "cmd") if !name.is_empty() => "",
        ("difftool" | "mergetool", "cmd") if !name.is_empty() => "false",
        // `git help -w`/`-m` runs the browser or man viewer these name.
        ("browser" | "man", "cmd" | "path") if !name.is_empty() => "false",
        ("remote", "uploadpack") if !name.is_empty() => "git-upload-pack",
        ("remote", "receivepack") if !name.is_empty() => "git-receive-pack",
        ("submodule", "update") if !name.is_empty() && value.starts_with('!') => "checkout",
        _ => return None,
    };
    Some(value.to_owned())
}

/// The whole hardening for the repositories among `repos` (each `.git` under the roots and
/// what gitfiles point to): [`FIXED`], then each driver key their configuration names, once.
/// `home` resolves `~/` in includes.
pub fn hardening(repos: &[PathBuf], home: Option<&Path>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = FIXED
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    for (key, value) in entries(&config_files(repos), home) {
        if let Some(neutral) = neutral(&key, &value)
            && !out.iter().any(|(k, _)| *k == key)
        {
            out.push((key, neutral));
        }
    }
    out
}

/// `env` with the variables of [`REMOVED`] (and any `GIT_CONFIG_KEY_*`/`GIT_CONFIG_VALUE_*`)
/// taken out, [`SET`] set, and `config` given as `GIT_CONFIG_COUNT` and its pairs.
pub fn apply(env: &mut Vec<(String, String)>, config: &[(String, String)]) {
    env.retain(|(name, _)| {
        !REMOVED.contains(&name.as_str())
            && !name.starts_with("GIT_CONFIG_KEY_")
            && !name.starts_with("GIT_CONFIG_VALUE_")
            && !SET.iter().any(|(n, _)| n == name)
    });
    env.extend(SET.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    env.push(("GIT_CONFIG_COUNT".into(), config.len().to_string()));
    for (i, (key, value)) in config.iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{i}"), key.clone()));
        env.push((format!("GIT_CONFIG_VALUE_{i}"), value.clone()));
    }
}

#[cfg(test)]
#[path = "git_harden_tests.rs"]
mod tests;
