//! `warden hooks import FILE`: each command hook of the file written as a `[[hooks]]` entry
//! into the chosen layer's config (`--to user|project`), keeping that file's comments; an entry already there (same
//! event, matcher and command) is not written twice; what could not be carried over is said.

use std::path::PathBuf;

use clap::Args;
use toml_edit::{ArrayOfTables, Item, Table, value};

use crate::cli::config_file::{layer_file, read_doc, write_checked};
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::config::LayerKind;
use crate::config::hook_import::{
    ImportedHook, PluginRoot, import as read_hooks, replace_plugin_root,
};
use crate::domain::escape::escape;
use crate::front::workspace::Workspace;

/// The arguments of `warden hooks import`.
#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// A Claude Code `settings.json` / `settings.local.json` / plugin `hooks.json`, or a Codex
    /// `hooks.json` / `config.toml`.
    file: PathBuf,
    /// The layer written: `project` (`.warden/config.toml`; the default for a file inside the
    /// workspace's `.claude/` or `.codex/`; its hooks run once it is trusted) or `user` (the
    /// default for any other file).
    #[arg(long, value_enum, value_name = "LAYER", conflicts_with_all = ["project", "user"])]
    to: Option<Layer>,
    /// Same as `--to project`.
    #[arg(long, conflicts_with = "user")]
    project: bool,
    /// Same as `--to user`.
    #[arg(long)]
    user: bool,
    /// Print the entries instead of writing them.
    #[arg(long)]
    dry_run: bool,
    /// Workspace directory (default: found from the current directory).
    #[arg(short = 'C', long = "dir", value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// The layer `--to` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Layer {
    User,
    Project,
}

/// Whether `file` is a workspace's own hooks file: under `root`, in its `.claude/` or
/// `.codex/` folder (or one of theirs, deeper down).
fn project_file(file: &std::path::Path, root: &std::path::Path) -> bool {
    let Ok(file) = std::fs::canonicalize(file) else {
        return false;
    };
    file.strip_prefix(root).is_ok_and(|rel| {
        rel.components()
            .any(|c| matches!(c.as_os_str().to_str(), Some(".claude" | ".codex")))
    })
}

/// The folder of the plugin a `hooks/hooks.json` belongs to (the folder holding `hooks/`; for
/// any other file, the file's own folder), relative to the workspace `root` when inside it.
fn plugin_root(file: &std::path::Path, root: &std::path::Path) -> Option<PluginRoot> {
    let file = std::fs::canonicalize(file).ok()?;
    let folder = file.parent()?;
    let folder = if folder.file_name().is_some_and(|n| n == "hooks") {
        folder.parent()?
    } else {
        folder
    };
    Some(match folder.strip_prefix(root) {
        Ok(rel) => PluginRoot::Workspace(rel.to_string_lossy().into_owned()),
        Err(_) => PluginRoot::Outside(folder.to_string_lossy().into_owned()),
    })
}

pub(super) fn import(args: &ImportArgs) -> Result<u8, CliError> {
    let root = Workspace::find(args.dir.as_deref())?.root;
    let text = std::fs::read_to_string(&args.file)
        .map_err(|err| CliError::usage(format!("{}: {err}", args.file.display())))?;
    let name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut found = read_hooks(&name, &text).map_err(|why| {
        CliError::usage(format!(
            "{}: {why}; nothing was written",
            args.file.display()
        ))
    })?;
    if let Some(plugin) = plugin_root(&args.file, &root) {
        replace_plugin_root(&mut found, &plugin);
    }
    let wanted = match (args.to, args.project, args.user) {
        (Some(Layer::Project), _, _) | (None, true, _) => LayerKind::Project,
        (Some(Layer::User), _, _) | (None, _, true) => LayerKind::User,
        _ if project_file(&args.file, &root) => LayerKind::Project,
        _ => LayerKind::User,
    };
    let file = layer_file(&root, wanted, "--to project")?;
    let mut doc = read_doc(&file)?;
    let list = match doc.get_mut("hooks") {
        Some(item) => item.as_array_of_tables_mut().ok_or_else(|| {
            CliError::usage(format!(
                "{}: `hooks` is not a list of [[hooks]] tables; nothing was written",
                file.display()
            ))
        })?,
        None => {
            doc.insert("hooks", Item::ArrayOfTables(ArrayOfTables::new()));
            doc.get_mut("hooks")
                .and_then(Item::as_array_of_tables_mut)
                .ok_or_else(|| CliError::failure("the [[hooks]] list could not be made"))?
        }
    };
    let mut names: Vec<String> = list
        .iter()
        .filter_map(|t| t.get("name").and_then(Item::as_str).map(str::to_owned))
        .collect();
    let mut written = Vec::new();
    let mut already = 0;
    for hook in &found.hooks {
        if list.iter().any(|t| same(t, hook)) {
            already += 1;
            continue;
        }
        let entry = entry(hook, &mut names);
        list.push(entry.clone());
        written.push(entry);
    }
    let verb = if args.dry_run { "would add" } else { "added" };
    if !written.is_empty() && !args.dry_run {
        write_checked(&root, &file, &doc.to_string())?;
    }
    outln!(
        "{}: {verb} {} hook{}{}",
        file.display(),
        written.len(),
        if written.len() == 1 { "" } else { "s" },
        if already > 0 {
            format!(" ({already} already there)")
        } else {
            String::new()
        }
    );
    let mut shown = toml_edit::DocumentMut::new();
    let mut entries = ArrayOfTables::new();
    for entry in written {
        entries.push(entry);
    }
    shown.insert("hooks", Item::ArrayOfTables(entries));
    for line in shown.to_string().lines().filter(|l| !l.is_empty()) {
        outln!("  {}", escape(line));
    }
    for why in &found.skipped {
        outln!("not imported: {}", escape(why));
    }
    for note in &found.notes {
        outln!("imported without: {}", escape(note));
    }
    if wanted == LayerKind::Project && !args.dry_run {
        outln!("  a project's hooks run once it is trusted: run `warden trust`");
    }
    Ok(EXIT_OK)
}

/// Whether `table` already holds `hook` (same event, matcher and command).
fn same(table: &Table, hook: &ImportedHook) -> bool {
    let text = |key: &str| table.get(key).and_then(Item::as_str);
    text("event") == Some(hook.event.name())
        && text("matcher") == hook.matcher.as_deref()
        && text("command") == Some(hook.command.as_str())
}

/// The `[[hooks]]` table of `hook`, under a name not in `names` (which it joins).
fn entry(hook: &ImportedHook, names: &mut Vec<String>) -> Table {
    let base = crate::config::default_name(&hook.command);
    let mut name = base.clone();
    let mut n = 2;
    while names.contains(&name) {
        name = format!("{base}-{n}");
        n += 1;
    }
    names.push(name.clone());
    let mut table = Table::new();
    table.insert("name", value(name));
    table.insert("event", value(hook.event.name()));
    if let Some(matcher) = &hook.matcher {
        table.insert("matcher", value(matcher.as_str()));
    }
    table.insert("type", value("command"));
    table.insert("command", value(hook.command.as_str()));
    if let Some(timeout) = hook.timeout {
        table.insert("timeout", value(i64::try_from(timeout).unwrap_or(i64::MAX)));
    }
    table
}
