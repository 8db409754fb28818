//! The sample plugins the binary carries: a `[[plugins]]` entry with
//! `path = "builtin:NAME"` loads NAME's embedded component, with no file on disk. The bytes,
//! their sha256 and what `warden plugin list --builtin` shows are fixed when warden is built
//! (`host/build.rs` compiles the samples from `plugins/`); a `sha256` pin on the entry is
//! checked against them as against a file's bytes.
//!
//! The path stays `builtin:NAME` everywhere (never made absolute, never read from disk), so
//! that it names its source in messages and policy.

use std::borrow::Cow;
use std::path::Path;

use super::component_file::read_component;
use super::error::PluginError;

/// The prefix of a built-in plugin's path.
pub const BUILTIN_PREFIX: &str = "builtin:";

/// One embedded sample plugin.
#[derive(Debug)]
pub struct Builtin {
    /// The name after `builtin:` (the sample crate's name).
    pub name: &'static str,
    /// The world it implements (`interceptor`, `hook`, `tool`).
    pub world: &'static str,
    /// The `warden:plugin` API version it targets.
    pub wit: &'static str,
    /// The sample crate's version.
    pub version: &'static str,
    /// Hex sha256 of the component bytes, computed at build time.
    pub sha256: &'static str,
    /// One line saying what it does.
    pub description: &'static str,
    /// The component.
    pub bytes: &'static [u8],
}

/// Every built-in plugin, by name.
pub static BUILTINS: &[Builtin] = include!(concat!(env!("OUT_DIR"), "/builtin_plugins.rs"));

/// The name after `builtin:`, when `path` is a built-in plugin's path.
pub fn builtin_name(path: &Path) -> Option<&str> {
    path.to_str()?.strip_prefix(BUILTIN_PREFIX)
}

/// The built-in plugin `path` names: `None` for a file path, an error naming the known plugins
/// for an unknown `builtin:` name.
pub fn lookup(path: &Path) -> Option<Result<&'static Builtin, String>> {
    let name = builtin_name(path)?;
    Some(
        BUILTINS
            .iter()
            .find(|b| b.name == name)
            .ok_or_else(|| unknown(name)),
    )
}

/// Why `builtin:NAME` names no built-in plugin.
fn unknown(name: &str) -> String {
    let known: Vec<String> = BUILTINS
        .iter()
        .map(|b| format!("{BUILTIN_PREFIX}{}", b.name))
        .collect();
    format!(
        "names no built-in plugin `{name}`; the built-in plugins are {} (see `warden plugin list --builtin`)",
        known.join(", ")
    )
}

/// The bytes of the component at `path`: the embedded ones for `builtin:NAME`, else the file's
/// (see [`read_component`]).
pub fn read(path: &Path, max_bytes: u64) -> Result<Cow<'static, [u8]>, PluginError> {
    match lookup(path) {
        None => read_component(path, max_bytes).map(Cow::Owned),
        Some(Ok(builtin)) if builtin.bytes.len() as u64 > max_bytes => Err(PluginError::Refused {
            what: path.display().to_string(),
            reason: format!(
                "larger than the {} MiB maximum component size",
                max_bytes >> 20
            ),
        }),
        Some(Ok(builtin)) => Ok(Cow::Borrowed(builtin.bytes)),
        Some(Err(reason)) => Err(PluginError::Refused {
            what: path.display().to_string(),
            reason,
        }),
    }
}

/// For a configured path: `None` when it is not a `builtin:` path, else `Some(None)` when the
/// built-in plugin exists and `Some(Some(problem))` when it does not.
pub fn check_path(path: &Path) -> Option<Option<String>> {
    lookup(path).map(Result::err)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::super::component_file::sha256_hex;
    use super::*;

    #[test]
    fn the_samples_are_carried_with_their_build_time_digest() {
        let names: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
        for name in [
            "tool-guard",
            "keyword-context",
            "pattern-guard",
            "todo-reminder",
            "event-counter",
            "grep-tool",
            "edit-tool",
            "web-fetch",
        ] {
            assert!(names.contains(&name), "{name} missing from {names:?}");
        }
        for b in BUILTINS {
            assert_eq!(sha256_hex(b.bytes), b.sha256, "{}", b.name);
            assert!(!b.world.is_empty() && !b.wit.is_empty(), "{b:?}");
            assert!(!b.description.is_empty(), "{}", b.name);
        }
    }

    #[test]
    fn only_a_builtin_path_is_looked_up() {
        assert!(lookup(Path::new("/x/tool-guard.wasm")).is_none());
        assert!(lookup(Path::new("builtin-tool-guard")).is_none());
        let found = lookup(Path::new("builtin:tool-guard")).unwrap().unwrap();
        assert_eq!(found.world, "interceptor");
        let err = lookup(Path::new("builtin:nope")).unwrap().unwrap_err();
        assert!(err.contains("`nope`"), "{err}");
        assert!(err.contains("builtin:keyword-context"), "{err}");
    }

    #[test]
    fn reading_an_unknown_builtin_is_refused_not_read_from_disk() {
        let err = read(Path::new("builtin:nope"), 1 << 20).unwrap_err();
        assert!(matches!(err, PluginError::Refused { .. }), "{err}");
        let bytes = read(Path::new("builtin:event-counter"), 1 << 20).unwrap();
        assert!(matches!(bytes, Cow::Borrowed(_)));
    }
}
