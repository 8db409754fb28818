//! `warden mcp add NAME [--user|--project] [-C DIR] (--url URL | -- COMMAND [ARG…])
//! [--env VAR]… [--header NAME=VALUE]… [--fs none|read|read-write] [--network]
//! [--allowed-host HOST]… [--approve ask|never]`: write an `[[mcp]]` entry into the user
//! config (default) or the project config, keeping that file's comments. The file with the
//! entry is first checked by the loader every command uses (the policy's ceilings, the
//! secret rules for headers and variables, unique names across layers); an entry it refuses
//! is not written.

use std::path::PathBuf;

use clap::Args;
use toml_edit::{Array, ArrayOfTables, InlineTable, Item, Table, value};

use crate::cli::config_file::{layer_file, read_doc, write_checked};
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::config::LayerKind;
use crate::domain::escape::escape;
use crate::front::workspace::Workspace;

/// The arguments of `warden mcp add`.
#[derive(Debug, Args)]
pub(crate) struct AddArgs {
    /// The server's name: its tools are `mcp__NAME__TOOL`, its resources `@NAME:URI`.
    name: String,
    /// Streamable HTTP: the server's endpoint (instead of a command after `--`).
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// A stdio server: the program and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
    /// An environment variable passed to a stdio server (repeatable).
    #[arg(long = "env", value_name = "VAR")]
    env: Vec<String>,
    /// An HTTP header, its value `env:VAR` or `SCHEME env:VAR` (repeatable).
    #[arg(long = "header", value_name = "NAME=VALUE")]
    headers: Vec<String>,
    /// A stdio server's access to the workspace (default: none).
    #[arg(long, value_parser = ["none", "read", "read-write"])]
    fs: Option<String>,
    /// Let a stdio server reach the network.
    #[arg(long)]
    network: bool,
    /// A host a stdio server may reach through the filtering proxy (repeatable).
    #[arg(long = "allowed-host", value_name = "HOST")]
    allowed_hosts: Vec<String>,
    /// Whether each call is approved by the person (default: ask).
    #[arg(long, value_parser = ["ask", "never"])]
    approve: Option<String>,
    /// Write into the project config (`.warden/config.toml`).
    #[arg(long, conflicts_with = "user")]
    project: bool,
    /// Write into the user config (the default).
    #[arg(long)]
    user: bool,
    /// Workspace directory (default: found from the current directory).
    #[arg(short = 'C', long = "dir", value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Check and write the entry; print the file and the entry written.
pub(super) fn add(args: &AddArgs) -> Result<u8, CliError> {
    let root = Workspace::find(args.dir.as_deref())?.root;
    let wanted = if args.project {
        LayerKind::Project
    } else {
        LayerKind::User
    };
    let file = layer_file(&root, wanted, "--project")?;
    let entry = entry(args)?;
    let mut doc = read_doc(&file)?;
    match doc.get_mut("mcp") {
        Some(item) => item
            .as_array_of_tables_mut()
            .ok_or_else(|| {
                CliError::usage(format!(
                    "{}: `mcp` is not a list of [[mcp]] tables; nothing was written",
                    file.display()
                ))
            })?
            .push(entry.clone()),
        None => {
            let mut list = ArrayOfTables::new();
            list.push(entry.clone());
            doc.insert("mcp", Item::ArrayOfTables(list));
        }
    }
    write_checked(&root, &file, &doc.to_string())?;
    outln!(
        "{}: added MCP server {}",
        file.display(),
        escape(&args.name)
    );
    let mut shown = toml_edit::DocumentMut::new();
    let mut list = ArrayOfTables::new();
    list.push(entry);
    shown.insert("mcp", Item::ArrayOfTables(list));
    for line in shown.to_string().lines().filter(|l| !l.is_empty()) {
        outln!("  {}", escape(line));
    }
    if args.project {
        outln!("  the project's MCP servers start once trusted: run `warden trust`");
    }
    Ok(EXIT_OK)
}

/// The `[[mcp]]` table the arguments describe.
fn entry(args: &AddArgs) -> Result<Table, CliError> {
    let strings = |list: &[String]| {
        let mut array = Array::new();
        for item in list {
            array.push(item.as_str());
        }
        value(array)
    };
    let mut entry = Table::new();
    entry.insert("name", value(args.name.as_str()));
    match (&args.url, args.command.is_empty()) {
        (Some(url), true) => {
            entry.insert("url", value(url.as_str()));
        }
        (None, false) => {
            entry.insert("command", strings(&args.command));
        }
        (Some(_), false) => {
            return Err(CliError::usage(
                "give either --url URL or a command after `--`, not both; nothing was written",
            ));
        }
        (None, true) => {
            return Err(CliError::usage(
                "give the server: --url URL (Streamable HTTP) or a command after `--` (stdio), e.g. `warden mcp add docs -- node server.js`; nothing was written",
            ));
        }
    }
    if !args.headers.is_empty() {
        let mut headers = InlineTable::new();
        for pair in &args.headers {
            let (name, val) = pair
                .split_once('=')
                .filter(|(name, _)| !name.is_empty())
                .ok_or_else(|| {
                    CliError::usage(format!(
                        "--header {pair:?}: expected NAME=VALUE (the value `env:VAR` or `Bearer env:VAR`); nothing was written"
                    ))
                })?;
            headers.insert(name, val.into());
        }
        entry.insert("headers", value(headers));
    }
    if !args.env.is_empty() {
        entry.insert("env", strings(&args.env));
    }
    if let Some(fs) = &args.fs {
        entry.insert("fs", value(fs.as_str()));
    }
    if args.network {
        entry.insert("network", value(true));
    }
    if !args.allowed_hosts.is_empty() {
        entry.insert("allowed_hosts", strings(&args.allowed_hosts));
    }
    if let Some(approve) = &args.approve {
        entry.insert("approve", value(approve.as_str()));
    }
    Ok(entry)
}
