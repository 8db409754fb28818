//! Arguments of `warden plugin check | new | replay | bench | pin`, and their dispatch.

use std::path::PathBuf;

use clap::Subcommand;

use crate::cli::CliError;

#[derive(Debug, Subcommand)]
pub(crate) enum PluginCommand {
    /// Print a component's world, API version, sha256 and imports, or why it cannot run.
    Check {
        /// The component file.
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
        /// Depend on the Rust SDK at this path instead of by version.
        #[arg(long, value_name = "DIR")]
        sdk_path: Option<PathBuf>,
    },
    /// Feed a plugin the inputs a recorded session saw; print what it would decide beside what
    /// the chain decided then. Nothing is committed.
    Replay {
        /// Session id.
        session: String,
        /// The component file.
        file: PathBuf,
        /// A config value for the plugin's `init` (repeatable).
        #[arg(long = "config", value_name = "KEY=VALUE")]
        config: Vec<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Print only the points where the decision differs.
        #[arg(long)]
        diff: bool,
    },
    /// Time a plugin's call points on a synthetic turn (warm instance, fresh instance) and its
    /// start-up (warm compiled-code cache, cold).
    Bench {
        /// The component file.
        file: PathBuf,
        /// A config value for the plugin's `init` (repeatable).
        #[arg(long = "config", value_name = "KEY=VALUE")]
        config: Vec<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write the sha256 of a configured plugin's file into the config file that declared it.
    Pin {
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
                config,
                json,
                diff,
            } => super::replay::replay(&session, &file, &config, json, diff),
            Self::Bench { file, config, json } => super::bench::bench(&file, &config, json),
            Self::Pin { name, dir } => super::pin::pin(&name, dir.as_deref()),
            Self::ClearCache => super::clear_cache::clear_cache(),
        }
    }
}
