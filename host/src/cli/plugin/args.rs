//! Arguments of `warden plugin check | new | list | replay | bench | dev | pin | package | keygen |
//! sign | verify | push | add | update | remove`, and their dispatch.

use std::path::PathBuf;

use clap::Subcommand;

use crate::cli::CliError;
use crate::config::FsGrant;

#[derive(Debug, Subcommand)]
pub(crate) enum PluginCommand {
    /// Print a component's world, API version, sha256 and imports, or why it cannot run.
    Check {
        /// The component file, or `oci://HOST/REPO:TAG` (read, not cached).
        file: PathBuf,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write a plugin project into ./NAME that builds out of the box.
    New {
        /// Project and crate name.
        name: String,
        /// The world the plugin implements.
        #[arg(long, value_enum)]
        world: super::new::NewWorld,
        /// The language.
        #[arg(long, value_enum, default_value = "rust")]
        lang: super::new::NewLang,
        /// Depend on the Rust SDK at this path instead of writing the SDK this binary carries
        /// into the project.
        #[arg(long, value_name = "DIR")]
        sdk_path: Option<PathBuf>,
    },
    /// Feed a plugin the inputs a recorded session saw; print what it would decide beside what
    /// the chain decided then. Nothing is committed.
    Replay {
        /// Session id.
        session: String,
        /// The component file, or `builtin:NAME` (default: the file of the entry --name names).
        file: Option<PathBuf>,
        /// The plugin's name: its decisions are compared with those the chain recorded under
        /// this name, and its `[[plugins]]` entry in the session's workspace gives its config.
        #[arg(long)]
        name: Option<String>,
        /// A `[[hooks]]` entry of the session's workspace to replay (its command, run in the
        /// sandbox at each recorded point of its event) instead of a component.
        #[arg(long, value_name = "NAME", conflicts_with_all = ["file", "name", "config"])]
        hook: Option<String>,
        /// A config value for the plugin's `init` (repeatable; over the entry's config).
        #[arg(long = "config", value_name = "KEY=VALUE")]
        config: Vec<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Print only the points where the decision differs.
        #[arg(long)]
        diff: bool,
    },
    /// List every call where an interceptor in `shadow` mode would have decided otherwise
    /// than the chain, with the session and the call point.
    ShadowReport {
        /// Only calls since this long ago (`2h`, `3days`) or since this time (RFC 3339).
        #[arg(long, value_name = "DURATION|DATE")]
        since: Option<String>,
        /// Only the sessions of this directory's workspace (default: every session).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Call one point of a component once and print its answer as JSON: an interceptor's
    /// call point (`pre-tool-call '{"tool":"shell","arguments":{…}}'`, …) or a tool plugin's
    /// tool (its name and arguments).
    Call {
        /// The component file, or `builtin:NAME`.
        file: PathBuf,
        /// The call point (`on-prompt-submit`, `pre-llm-request`, `on-turn-end`,
        /// `pre-tool-call`, `post-tool-call`, `on-compaction`), or a tool's name.
        point: String,
        /// The input, a JSON object.
        input: String,
        /// A config value for the plugin's `init` (repeatable).
        #[arg(long = "config", value_name = "KEY=VALUE")]
        config: Vec<String>,
        /// Workspace directory the plugin sees as its root (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Time every call point of a plugin's world on a synthetic turn (warm instance, fresh
    /// instance) and its start-up (warm compiled-code cache, cold).
    Bench {
        /// The component file, or `builtin:NAME` (default: the file of the entry --name names).
        file: Option<PathBuf>,
        /// The `[[plugins]]` entry whose config, limits and grants apply (default: the entry
        /// whose path is FILE, if any).
        #[arg(long)]
        name: Option<String>,
        /// A config value for the plugin's `init` (repeatable; over the entry's config).
        #[arg(long = "config", value_name = "KEY=VALUE")]
        config: Vec<String>,
        /// A tool plugin's arguments for TOOL, a JSON object (repeatable; default: the
        /// schema's required properties, each with a plain value); for an interceptor, the
        /// tool calls its `pre-tool-call` and `post-tool-call` are timed on.
        #[arg(long = "args", value_name = "TOOL=JSON")]
        args: Vec<String>,
        /// A tool plugin's file-system grant over the bench's synthetic workspace (default:
        /// its entry's, else none).
        #[arg(long, value_name = "none|read|read-write", value_parser = fs_grant)]
        fs: Option<FsGrant>,
        /// Workspace directory whose configuration is read (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Load a plugin under development for this user in this workspace, without writing any
    /// config file or asking for trust; watch its file and say which build the next run loads.
    Dev {
        /// The component file, or the project directory (cargo's wasm32-wasip2 release output,
        /// else its `plugin.wasm`).
        path: Option<PathBuf>,
        /// Its name (default: the configured entry pointing at the file, else the file's stem);
        /// with --stop, the entry to remove.
        #[arg(long)]
        name: Option<String>,
        /// `interceptor`, `hook` or `tool` (default: the configured entry's, else the world's).
        #[arg(long)]
        kind: Option<String>,
        /// A config value for the plugin's `init` (repeatable; over the entry's config).
        #[arg(long = "config", value_name = "KEY=VALUE")]
        config: Vec<String>,
        /// A tool plugin's file-system grant over the workspace (over the entry's; default:
        /// the configured entry's, else none).
        #[arg(long, value_name = "none|read|read-write", value_parser = fs_grant)]
        fs: Option<FsGrant>,
        /// Load it and exit instead of watching the file.
        #[arg(long)]
        once: bool,
        /// Stop loading the dev build (the one --name names, else every one of the workspace).
        #[arg(long, conflicts_with_all = ["path", "once", "kind", "config", "fs"])]
        stop: bool,
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Write the standard metadata sections (name, version, description, ...) into a
    /// component, in place or into OUT. Package first, then sign: packaging removes a signature.
    Package {
        /// The component file.
        file: PathBuf,
        /// Component name.
        #[arg(long)]
        name: Option<String>,
        /// Version of the plugin.
        #[arg(long = "version")]
        plugin_version: Option<String>,
        /// One-line description.
        #[arg(long)]
        description: Option<String>,
        /// Authors (free text, e.g. "Ada <ada@example.com>").
        #[arg(long)]
        authors: Option<String>,
        /// URL of the source code.
        #[arg(long)]
        source: Option<String>,
        /// SPDX license expression (e.g. "Apache-2.0 OR MIT").
        #[arg(long)]
        licenses: Option<String>,
        /// URL of the project's page.
        #[arg(long)]
        homepage: Option<String>,
        /// Source control revision.
        #[arg(long)]
        revision: Option<String>,
        /// Write here instead of replacing FILE.
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        out: Option<PathBuf>,
    },
    /// Write a new Ed25519 signing key pair: DIR/warden-signing.key (secret, mode 0600) and
    /// DIR/warden-signing.pub. An existing key is never overwritten.
    Keygen {
        /// Directory of the key files.
        dir: PathBuf,
    },
    /// Embed a signature in a component (in place, atomically, or into OUT).
    Sign {
        /// The component file.
        file: PathBuf,
        /// The secret key file (from `warden plugin keygen`).
        #[arg(long, value_name = "KEY")]
        key: PathBuf,
        /// Write here instead of replacing FILE.
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        out: Option<PathBuf>,
    },
    /// Check who signed a component: against --key, or `policy.trusted_keys` of the
    /// configuration in force. Exit 2 when it is unsigned, changed or signed by another key.
    Verify {
        /// The component file, or `oci://HOST/REPO:TAG` (read, not cached).
        file: PathBuf,
        /// A public key file (`.pub`) to verify against.
        #[arg(long, value_name = "PUB")]
        key: Option<PathBuf>,
        /// Workspace directory whose configuration is read (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// List the configured plugins, or with `--builtin` the sample plugins this binary carries
    /// (`path = "builtin:NAME"`).
    List {
        /// The plugins carried by the binary instead of the configured ones.
        #[arg(long)]
        builtin: bool,
        /// Print one JSON array.
        #[arg(long)]
        json: bool,
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Write the sha256 of a configured plugin's file into the config file that declared it.
    Pin {
        /// The plugin's name in `[[plugins]]`.
        name: String,
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Publish a component to an OCI registry as a wasm artifact; prints the pinned
    /// reference `oci://HOST/REPO@sha256:…`.
    Push {
        /// The component file.
        file: PathBuf,
        /// Where: `oci://HOST[:PORT]/REPO:TAG`.
        reference: String,
        /// Recorded as the artifact's author.
        #[arg(long)]
        author: Option<String>,
        /// Plain HTTP (only for a registry on this machine, which is reached that way anyway).
        #[arg(long)]
        plain_http: bool,
    },
    /// Fetch a plugin from an OCI registry into the local cache and add a pinned
    /// `[[plugins]]` entry for it to the user (default) or project config.
    Add {
        /// `oci://HOST[:PORT]/REPO:TAG` or `oci://HOST[:PORT]/REPO@sha256:…`.
        reference: String,
        /// Its name (default: the repository's last segment).
        #[arg(long)]
        name: Option<String>,
        /// `interceptor`, `hook` or `tool` (default: from the component's world; must match it).
        #[arg(long, value_parser = ["interceptor", "hook", "tool"])]
        kind: Option<String>,
        /// Write into the project config (`.warden/config.toml`).
        #[arg(long, conflicts_with_all = ["user", "managed"])]
        project: bool,
        /// Write into the user config (the default).
        #[arg(long, conflicts_with = "managed")]
        user: bool,
        /// Write into this managed file (one an operator rolls out as
        /// `/etc/warden/managed.toml`), created if missing, its comments kept.
        #[arg(long, value_name = "FILE")]
        managed: Option<PathBuf>,
        /// `enforce` or `shadow` (interceptors only: its decisions are recorded, not applied).
        #[arg(long, value_parser = ["enforce", "shadow"])]
        mode: Option<String>,
        /// A config value for the plugin's `init` (repeatable).
        #[arg(long = "config", value_name = "KEY=VALUE")]
        config: Vec<String>,
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Plain HTTP (only for a registry on this machine, which is reached that way anyway).
        #[arg(long)]
        plain_http: bool,
    },
    /// Fetch the newest version under the tag each `oci://` plugin was added from and pin it;
    /// a version that changes world or imports more is refused without `--accept`, a lower
    /// version without `--allow-downgrade`.
    Update {
        /// Only this plugin (default: every plugin with an `oci://` source).
        name: Option<String>,
        /// Take a version that asks for more (another world, new imports).
        #[arg(long)]
        accept: bool,
        /// Take a version lower than the one pinned (the tag was moved back).
        #[arg(long)]
        allow_downgrade: bool,
        /// Put back the pin the last update of NAME replaced.
        #[arg(long, requires = "name", conflicts_with_all = ["accept", "allow_downgrade"])]
        rollback: bool,
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Plain HTTP (only for a registry on this machine, which is reached that way anyway).
        #[arg(long)]
        plain_http: bool,
    },
    /// Put the pinned component of each `oci://` plugin (or of NAME) into the plugin cache,
    /// changing no config file.
    Fetch {
        /// Only this plugin (default: every plugin with an `oci://` source).
        name: Option<String>,
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Plain HTTP (only for a registry on this machine, which is reached that way anyway).
        #[arg(long)]
        plain_http: bool,
    },
    /// Remove a plugin's `[[plugins]]` entry from the config file that declares it.
    Remove {
        /// The plugin's name in `[[plugins]]`.
        name: String,
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Empty the compiled-code cache ($WARDEN_HOME/cache/compiled); plugins compile again on
    /// their next start.
    ClearCache,
}

impl PluginCommand {
    /// Run the command.
    pub(crate) fn run(self) -> Result<u8, CliError> {
        match self {
            Self::Check { file, json } => super::check::check(&file, json),
            Self::New {
                name,
                world,
                lang,
                sdk_path,
            } => super::new::new(&name, world, lang, sdk_path.as_deref()),
            Self::Replay {
                session,
                file,
                name,
                hook,
                config,
                json,
                diff,
            } => super::replay::replay(&super::replay::ReplayArgs {
                session: &session,
                file: file.as_deref(),
                name: name.as_deref(),
                hook: hook.as_deref(),
                config: &config,
                json,
                diff,
            }),
            Self::ShadowReport { since, dir, json } => {
                super::shadow_report::report(since.as_deref(), dir.as_deref(), json)
            }
            Self::Dev {
                path,
                name,
                kind,
                config,
                fs,
                once,
                stop,
                dir,
            } => super::dev::dev(&super::dev::DevArgs {
                path: path.as_deref(),
                name: name.as_deref(),
                kind: kind.as_deref(),
                config: &config,
                fs,
                once,
                stop,
                dir: dir.as_deref(),
            }),
            Self::Bench {
                file,
                name,
                config,
                args,
                fs,
                dir,
                json,
            } => super::bench::bench(&super::bench::BenchArgs {
                file: file.as_deref(),
                name: name.as_deref(),
                config: &config,
                args: &args,
                fs,
                dir: dir.as_deref(),
                json,
            }),
            Self::Call {
                file,
                point,
                input,
                config,
                dir,
            } => super::call::call(&file, &point, &input, &config, dir.as_deref()),
            Self::Pin { name, dir } => super::pin::pin(&name, dir.as_deref()),
            Self::Package {
                file,
                name,
                plugin_version,
                description,
                authors,
                source,
                licenses,
                homepage,
                revision,
                out,
            } => {
                let meta = crate::plugin::metadata::PluginMetadata {
                    name,
                    version: plugin_version,
                    description,
                    authors,
                    source,
                    licenses,
                    homepage,
                    revision,
                };
                super::package::package(&file, &meta, out.as_deref())
            }
            Self::Keygen { dir } => super::keygen::keygen(&dir),
            Self::Sign { file, key, out } => super::sign::sign_file(&file, &key, out.as_deref()),
            Self::Verify { file, key, dir } => {
                super::verify::verify_file(&file, key.as_deref(), dir.as_deref())
            }
            Self::List { builtin, json, dir } => super::list::list(builtin, json, dir.as_deref()),
            Self::Push {
                file,
                reference,
                author,
                plain_http,
            } => super::push::push(&file, &reference, author, plain_http),
            Self::Add {
                reference,
                name,
                kind,
                project,
                user: _,
                managed,
                mode,
                config,
                dir,
                plain_http,
            } => super::add::add(&super::add::AddRequest {
                reference: &reference,
                name: name.as_deref(),
                kind: kind.as_deref().and_then(|k| {
                    serde_json::from_value(serde_json::Value::String(k.to_owned())).ok()
                }),
                project,
                managed: managed.as_deref(),
                shadow: mode.as_deref() == Some("shadow"),
                config: &config,
                dir: dir.as_deref(),
                plain_http,
            }),
            Self::Update {
                name: Some(name),
                rollback: true,
                dir,
                plain_http,
                ..
            } => super::rollback::rollback(&name, dir.as_deref(), plain_http),
            Self::Update {
                name,
                accept,
                allow_downgrade,
                rollback: _,
                dir,
                plain_http,
            } => super::update::update(
                name.as_deref(),
                super::update::UpdateFlags {
                    accept,
                    allow_downgrade,
                    plain_http,
                },
                dir.as_deref(),
            ),
            Self::Fetch {
                name,
                dir,
                plain_http,
            } => super::fetch::fetch(name.as_deref(), dir.as_deref(), plain_http),
            Self::Remove { name, dir } => super::remove::remove(&name, dir.as_deref()),
            Self::ClearCache => super::clear_cache::clear_cache(),
        }
    }
}

/// `--fs`'s value: a grant as `fs = "…"` spells it.
fn fs_grant(text: &str) -> Result<FsGrant, String> {
    FsGrant::parse(text).ok_or_else(|| "expected none, read or read-write".to_owned())
}

/// `word` after `a`, or `an` before a vowel (`an interceptor`, `a hook`).
pub(super) fn with_article(word: &str) -> String {
    let article = if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {word}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fs_grant_and_article() {
        assert_eq!(fs_grant("read-write"), Ok(FsGrant::ReadWrite));
        assert!(fs_grant("write").is_err());
        assert_eq!(with_article("interceptor"), "an interceptor");
        assert_eq!(with_article("hook"), "a hook");
    }
}
