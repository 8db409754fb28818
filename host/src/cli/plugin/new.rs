//! `warden plugin new NAME --world W [--lang L]`: write a plugin project into `./NAME` from
//! templates embedded in the binary. A Rust project depends on the SDK by path: on the copy of
//! the SDK this binary carries, written into the project's `vendor/warden-plugin` (with a lock
//! file of the versions the SDK is built with), so that it builds anywhere; on warden's own SDK
//! when written inside warden's source tree; on `--sdk-path DIR` when given.

use std::path::{Component, Path, PathBuf};

use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;

mod script;

/// The world a new plugin implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum NewWorld {
    /// May continue, cancel or extend a turn.
    Interceptor,
    /// Observes every event; changes nothing.
    Hook,
    /// Turns `@path` references into file content.
    Resolver,
    /// Serves tools to the model, through the capabilities its entry grants.
    Tool,
}

/// The language of a new plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum NewLang {
    /// Rust with the `warden-plugin` SDK.
    Rust,
    /// Python with componentize-py.
    Python,
    /// JavaScript with componentize-js.
    Js,
}

impl NewWorld {
    fn as_str(self) -> &'static str {
        match self {
            Self::Interceptor => "interceptor",
            Self::Hook => "hook",
            Self::Resolver => "resolver",
            Self::Tool => "tool",
        }
    }
}

/// warden's own SDK, when this binary was built from a source tree that is still there.
fn source_tree_sdk() -> Option<(PathBuf, PathBuf)> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let repo = std::fs::canonicalize(repo).ok()?;
    let sdk = repo.join("plugins").join("sdk");
    sdk.join("Cargo.toml").is_file().then_some((repo, sdk))
}

/// `to` relative to `from` (both absolute, canonical), with `/` separators.
fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// A crate and directory name: lowercase ASCII letters, digits, `-` and `_`, starting with a
/// letter.
fn check_name(name: &str) -> Result<(), CliError> {
    let ok = name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(CliError::usage(format!(
            "plugin name {name:?}: use lowercase letters, digits, `-` and `_`, starting with a letter"
        )))
    }
}

/// Write the project; prints what was written and how to build it.
pub(crate) fn new(
    name: &str,
    world: NewWorld,
    lang: NewLang,
    sdk_path: Option<&Path>,
) -> Result<u8, CliError> {
    check_name(name)?;
    let cwd = std::env::current_dir()
        .map_err(|err| CliError::failure(format!("cannot read the current directory: {err}")))?;
    let dir = cwd.join(name);
    if dir.exists() {
        return Err(CliError::usage(format!(
            "{}: already exists; choose another name or remove it",
            dir.display()
        )));
    }
    let files = match lang {
        NewLang::Rust => rust_files(name, world, &cwd.join(name), sdk_path)?,
        NewLang::Python | NewLang::Js => script::files(name, world, lang)?,
    };
    for (rel, text, executable) in &files {
        write(&dir.join(rel), text, *executable)?;
    }
    outln!(
        "wrote {} ({} {})",
        dir.display(),
        lang_name(lang),
        world.as_str()
    );
    match lang {
        NewLang::Rust => outln!("build: cd {name} && cargo build --release --target wasm32-wasip2"),
        NewLang::Python => outln!("build: cd {name} && ./build.sh"),
        NewLang::Js => outln!("build: cd {name} && npm install && ./build.sh"),
    }
    Ok(EXIT_OK)
}

fn lang_name(lang: NewLang) -> &'static str {
    match lang {
        NewLang::Rust => "rust",
        NewLang::Python => "python",
        NewLang::Js => "js",
    }
}

type Files = Vec<(String, String, bool)>;

fn rust_files(
    name: &str,
    world: NewWorld,
    dir: &Path,
    sdk_path: Option<&Path>,
) -> Result<Files, CliError> {
    let feature = world.as_str();
    let in_tree = source_tree_sdk().and_then(|(repo, sdk)| {
        let parent = std::fs::canonicalize(dir.parent()?).ok()?;
        parent
            .starts_with(&repo)
            .then(|| relative(&parent.join(name), &sdk))
    });
    let explicit = match sdk_path {
        Some(path) => Some(
            std::fs::canonicalize(path)
                .map_err(|err| CliError::usage(format!("--sdk-path {}: {err}", path.display())))?
                .display()
                .to_string(),
        ),
        None => None,
    };
    let sdk_version = super::vendor::sdk_version().map_err(CliError::failure)?;
    let vendored = explicit.is_none() && in_tree.is_none();
    let (path, note) = match explicit.or(in_tree) {
        Some(path) => (
            path,
            "This project was written inside warden's source tree (or with `--sdk-path`), so it \
             depends on that SDK by path and always builds against the SDK and WIT found there."
                .to_owned(),
        ),
        None => (
            super::vendor::VENDOR_DIR.to_owned(),
            format!(
                "`vendor/warden-plugin/` is a copy of the SDK (version {sdk_version}) that \
                 `warden plugin new` carries, so the project builds anywhere, with no warden \
                 checkout; `Cargo.lock` holds the dependency versions that SDK is built and \
                 tested with. The SDK is not published to a registry."
            ),
        ),
    };
    // An interceptor reads tool-call arguments with `ToolCall::args` (the `json` feature).
    let features = if world == NewWorld::Interceptor {
        format!("\"{feature}\", \"json\"")
    } else {
        format!("\"{feature}\"")
    };
    let sdk = format!("warden-plugin = {{ path = {path:?}, features = [{features}] }}");
    let source = match world {
        NewWorld::Interceptor => include_str!("templates/rust/interceptor.rs"),
        NewWorld::Hook => include_str!("templates/rust/hook.rs"),
        NewWorld::Resolver => include_str!("templates/rust/resolver.rs"),
        NewWorld::Tool => include_str!("templates/rust/tool.rs"),
    };
    // The tool template parses its arguments with serde_json.
    let sdk = if world == NewWorld::Tool {
        format!("{sdk}\nserde_json = \"1\"")
    } else {
        sdk
    };
    let file = name.replace('-', "_");
    let fill = |text: &str| {
        text.replace("{{name}}", name)
            .replace("{{world}}", feature)
            .replace("{{file}}", &file)
            .replace("{{sdk}}", &sdk)
            .replace("{{sdk_note}}", &note)
            .replace("{{sdk_version}}", &sdk_version)
            .replace("{{dev_loop}}", dev_loop(world))
            .replace(
                "{{config}}",
                &config_example(
                    name,
                    world,
                    &format!("/path/to/{name}/target/wasm32-wasip2/release/{file}.wasm"),
                ),
            )
    };
    let mut files: Files = vec![
        (
            "Cargo.toml".into(),
            fill(include_str!("templates/rust/Cargo.toml")),
            false,
        ),
        (
            "README.md".into(),
            fill(include_str!("templates/rust/README.md")),
            false,
        ),
        (
            ".gitignore".into(),
            include_str!("templates/rust/gitignore").into(),
            false,
        ),
        ("src/lib.rs".into(), source.to_owned(), false),
    ];
    if vendored {
        let extra: &[&str] = if world == NewWorld::Tool {
            &["serde_json"]
        } else {
            &[]
        };
        let lock = super::vendor::lock_file(name, extra).map_err(CliError::failure)?;
        files.push(("Cargo.lock".into(), lock, false));
        for (rel, bytes) in super::vendor::sdk_files().map_err(CliError::failure)? {
            files.push((format!("{}/{rel}", super::vendor::VENDOR_DIR), bytes, false));
        }
    }
    Ok(files)
}

/// The first steps of the Rust README after the build: load the build for yourself with
/// `warden plugin dev` (a resolver is chosen with `fileref.resolver` instead).
fn dev_loop(world: NewWorld) -> &'static str {
    match world {
        NewWorld::Resolver => {
            "warden plugin dev .                  # your @file resolver here, for you alone: no trust, no config edit;\n                                     # it watches the file, and each rebuild is used by the next run\nwarden preview \"@some/file\"          # what the model would get"
        }
        NewWorld::Tool => {
            "warden plugin dev . --fs read        # load this build for you, here, reading the workspace: no trust,\n                                     # no config edit; each rebuild is picked up by the next run"
        }
        _ => {
            "warden plugin dev .                  # load this build for you, here: no trust, no config edit;\n                                     # it watches the file, and each rebuild is picked up by the next run"
        }
    }
}

fn config_example(name: &str, world: NewWorld, path: &str) -> String {
    match world {
        NewWorld::Interceptor => format!(
            "[[plugins]]\nname = \"{name}\"\nkind = \"interceptor\"\npath = \"{path}\"\n[plugins.config]\nword = \"deploy\"\ncontext = \"Deploys go through CI.\""
        ),
        NewWorld::Hook => {
            format!("[[plugins]]\nname = \"{name}\"\nkind = \"hook\"\npath = \"{path}\"")
        }
        NewWorld::Resolver => format!("[fileref]\nresolver = \"{path}\""),
        NewWorld::Tool => format!(
            "[[plugins]]\nname = \"{name}\"\nkind = \"tool\"\npath = \"{path}\"\nfs = \"read\""
        ),
    }
}

fn write(path: &Path, text: &str, executable: bool) -> Result<(), CliError> {
    let fail = |err: std::io::Error| CliError::failure(format!("{}: {err}", path.display()));
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(fail)?;
    }
    std::fs::write(path, text).map_err(fail)?;
    #[cfg(unix)]
    if executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(fail)?;
    }
    #[cfg(not(unix))]
    let _ = executable;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_then_descend() {
        assert_eq!(
            relative(Path::new("/r/examples/x"), Path::new("/r/plugins/sdk")),
            "../../plugins/sdk"
        );
        assert_eq!(
            relative(Path::new("/r/x"), Path::new("/r/plugins/sdk")),
            "../plugins/sdk"
        );
    }

    #[test]
    fn names_are_checked() {
        assert!(check_name("my-guard_2").is_ok());
        for bad in ["", "My", "2x", "a/b", "../x", "a b"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
