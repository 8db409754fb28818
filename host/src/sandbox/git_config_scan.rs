//! The configuration a repository under the roots carries, read outside the sandbox without
//! running any program of it: every config file git could read for each repository (its
//! `config`, `config.worktree`, each linked worktree's `config.worktree`, each submodule's
//! `config` under `modules/`, and every file they include, conditionally or not), listed by
//! git itself (`git config --file F --list --null`, which reads and runs nothing else). What
//! it finds names the per-repository drivers (`filter.<name>`, `diff.<name>` …) that
//! [`git_harden`](super::git_harden) neutralizes.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::hidden::gitfile_target;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Most config files read for one command (includes counted).
const MAX_FILES: usize = 64;
/// Largest config file read, in bytes (a larger one is still listed by git, capped output).
const MAX_OUTPUT: u64 = 1 << 20;
/// How deep `modules/` is walked for submodules of submodules.
const MAX_MODULE_DEPTH: usize = 4;
/// Longest wait for one `git config` listing.
const LIST_DEADLINE: Duration = Duration::from_secs(5);

/// The config files of the repository directories among `repos` (a `.git` directory, or
/// what a gitfile points to), those that exist as regular files.
pub fn config_files(repos: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    // A gitfile (`gitdir: …`) names its repository, wherever it lies.
    let targets: Vec<PathBuf> = repos.iter().filter_map(|r| gitfile_target(r)).collect();
    for repo in repos.iter().chain(&targets).filter(|r| r.is_dir()) {
        push_repo(repo, &mut out, 0);
        if let Ok(text) = std::fs::read_to_string(repo.join("commondir")) {
            let common = repo.join(text.trim());
            push_repo(&common, &mut out, MAX_MODULE_DEPTH);
        }
        for worktree in dir_entries(&repo.join("worktrees")) {
            push_file(&worktree.join("config.worktree"), &mut out);
        }
    }
    out.truncate(MAX_FILES);
    out
}

fn push_repo(repo: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    push_file(&repo.join("config"), out);
    push_file(&repo.join("config.worktree"), out);
    if depth >= MAX_MODULE_DEPTH {
        return;
    }
    for module in dir_entries(&repo.join("modules")) {
        // A submodule named `a/b` lives in `modules/a/b`: its config may sit one level down.
        push_repo(&module, out, depth + 1);
    }
}

fn push_file(path: &Path, out: &mut Vec<PathBuf>) {
    if out.len() < MAX_FILES && path.is_file() && !out.iter().any(|p| p == path) {
        out.push(path.to_owned());
    }
}

/// The directories in `dir` (not through symbolic links), at most [`MAX_FILES`].
fn dir_entries(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .take(MAX_FILES)
        .collect()
}

/// Every `(key, value)` of `files` and of the files they include (`include.path`,
/// `includeIf.<condition>.path`, whatever the condition), keys as git lists them (section
/// and name in lower case, the subsection as written). `home` resolves `~/`.
pub fn entries(files: &[PathBuf], home: Option<&Path>) -> Vec<(String, String)> {
    let mut queue: Vec<PathBuf> = files.to_vec();
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut out = Vec::new();
    while let Some(file) = queue.pop() {
        if seen.len() >= MAX_FILES || seen.contains(&file) {
            continue;
        }
        seen.push(file.clone());
        // A FIFO or device would block git's read: regular files only.
        if !std::fs::metadata(&file).is_ok_and(|m| m.is_file()) {
            continue;
        }
        for (key, value) in cached_list(&file) {
            let lower = key.to_ascii_lowercase();
            if (lower == "include.path" || lower.starts_with("includeif."))
                && lower.ends_with(".path")
                && let Some(included) = include_target(&file, &value, home)
            {
                queue.push(included);
            }
            out.push((key, value));
        }
    }
    out
}

/// Where an include of `value` in `file` points.
fn include_target(file: &Path, value: &str, home: Option<&Path>) -> Option<PathBuf> {
    let path = if let Some(rest) = value.strip_prefix("~/") {
        home?.join(rest)
    } else if Path::new(value).is_absolute() {
        PathBuf::from(value)
    } else {
        file.parent()?.join(value)
    };
    Some(path)
}

/// Most files whose listing is kept between calls.
const CACHE_FILES: usize = 256;

/// What identifies one version of a file: device, inode, size, modification and change
/// times (the change time moves on every write, including one that restores the mtime).
type Stamp = (u64, u64, u64, i64, i64, i64, i64);

/// Listings by path, each with the stamp of the file it was read from.
type Cache = std::collections::HashMap<PathBuf, (Stamp, Vec<(String, String)>)>;

fn stamp(file: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(file).ok()?;
    Some((
        m.dev(),
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    ))
}

/// [`list`], kept for as long as the file's stamp is the same (taken before it is read, so
/// that a file changed meanwhile is read again next time). Saves a process per config file
/// on every command.
fn cached_list(file: &Path) -> Vec<(String, String)> {
    static CACHE: std::sync::OnceLock<std::sync::Mutex<Cache>> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let Some(stamp) = stamp(file) else {
        return list(file);
    };
    if let Ok(cache) = cache.lock()
        && let Some((seen, entries)) = cache.get(file)
        && *seen == stamp
    {
        return entries.clone();
    }
    let entries = list(file);
    if let Ok(mut cache) = cache.lock() {
        if cache.len() >= CACHE_FILES {
            cache.clear();
        }
        cache.insert(file.to_owned(), (stamp, entries.clone()));
    }
    entries
}

/// `git config --file FILE --list --null`: its entries (none when git is missing or the file
/// does not parse — then git in the sandbox refuses it too).
fn list(file: &Path) -> Vec<(String, String)> {
    let child = Command::new("git")
        .args(["config", "--no-includes", "--null", "--list", "--file"])
        .arg(file)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(err) => {
            tracing::debug!("git config --list {}: {err}", file.display());
            return Vec::new();
        }
    };
    let Some(stdout) = child.stdout.take() else {
        return Vec::new();
    };
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.take(MAX_OUTPUT).read_to_end(&mut bytes);
        bytes
    });
    let started = Instant::now();
    let mut poll = Duration::from_micros(200);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < LIST_DEADLINE => {
                std::thread::sleep(poll);
                poll = (poll * 2).min(Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                tracing::warn!("git config --list {}: no answer, killed", file.display());
                break;
            }
        }
    }
    let bytes = reader.join().unwrap_or_default();
    parse_list(&bytes)
}

/// `key\nvalue\0` records (a key alone when it has no value).
fn parse_list(bytes: &[u8]) -> Vec<(String, String)> {
    bytes
        .split(|b| *b == 0)
        .filter(|r| !r.is_empty())
        .map(|record| {
            let text = String::from_utf8_lossy(record);
            match text.split_once('\n') {
                Some((k, v)) => (k.to_owned(), v.to_owned()),
                None => (text.into_owned(), String::new()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_and_include_is_listed_and_nothing_runs() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(git.join("modules/lib")).unwrap();
        std::fs::create_dir_all(git.join("worktrees/wt")).unwrap();
        let mark = dir.path().join("ran");
        std::fs::write(
            git.join("config"),
            format!(
                "[filter \"Up.Case\"]\n\tclean = touch {}\n[includeIf \"gitdir:/nowhere/\"]\n\tpath = extra.inc\n",
                mark.display()
            ),
        )
        .unwrap();
        std::fs::write(git.join("extra.inc"), "[diff \"x\"]\n\ttextconv = evil\n").unwrap();
        std::fs::write(
            git.join("modules/lib/config"),
            "[merge \"m\"]\n\tdriver = evil\n",
        )
        .unwrap();
        std::fs::write(
            git.join("worktrees/wt/config.worktree"),
            "[core]\n\tfsmonitor = evil\n",
        )
        .unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(
            elsewhere.path().join("config"),
            "[diff \"far\"]\n\tcommand = evil\n",
        )
        .unwrap();
        let gitfile = dir.path().join("wt.git");
        std::fs::write(
            &gitfile,
            format!("gitdir: {}\n", elsewhere.path().display()),
        )
        .unwrap();
        let files = config_files(&[git.clone(), gitfile]);
        assert_eq!(files.len(), 4, "{files:?}");
        let keys: Vec<String> = entries(&files, None).into_iter().map(|(k, _)| k).collect();
        for key in [
            "filter.Up.Case.clean",
            "diff.x.textconv",
            "merge.m.driver",
            "core.fsmonitor",
            "diff.far.command",
        ] {
            assert!(keys.iter().any(|k| k == key), "{key}: {keys:?}");
        }
        assert!(!mark.exists());
    }

    #[test]
    fn a_changed_file_is_listed_again() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        std::fs::write(&config, "[diff \"a\"]\n\ttextconv = x\n").unwrap();
        let keys = |p: &Path| -> Vec<String> {
            entries(&[p.to_owned()], None)
                .into_iter()
                .map(|(k, _)| k)
                .collect()
        };
        assert_eq!(keys(&config), ["diff.a.textconv"]);
        assert_eq!(keys(&config), ["diff.a.textconv"]);
        std::fs::write(&config, "[diff \"b\"]\n\ttextconv = x\n").unwrap();
        assert_eq!(keys(&config), ["diff.b.textconv"]);
    }

    #[test]
    fn a_fifo_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("config");
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        assert!(entries(&[fifo], None).is_empty());
    }
}
