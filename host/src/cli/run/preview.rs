//! `warden preview [-C DIR] [--json] PROMPT`: what would be committed; no model call, nothing
//! written.

use crate::cli::out::outln;
use std::path::Path;

use crate::cli::common::{home, print_alert, setup_error};
use crate::cli::exit::{CliError, EXIT_CANCELLED, EXIT_OK};
use crate::cli::trust::{WhenWaiting, load_config_trusted};
use crate::cli::workspace::Workspace;
use crate::fileref;
use crate::setup;
use crate::worker::preview::preview_segments as build;

/// Print what `prompt` would commit.
pub(crate) fn preview(dir: Option<&Path>, json: bool, prompt: &str) -> Result<u8, CliError> {
    let workspace = Workspace::find(dir)?;
    let state = home()?;
    let loaded = load_config_trusted(&workspace.root, &state, WhenWaiting::Refuse)?;
    super::prompt::check(prompt, loaded.config.worker.max_prompt_bytes)?;
    // The compiled-code cache is the only thing written, and only when the state home exists.
    let home = Some(state).filter(|h| h.root().is_dir());
    let engine = setup::engine_for(home.as_ref(), &loaded.config).map_err(setup_error)?;
    let mut resolver =
        setup::resolver(&engine, &loaded.config, &workspace.root).map_err(setup_error)?;
    let (mut chain, _hooks) =
        setup::plugins(&engine, &loaded.config, &workspace.root).map_err(setup_error)?;
    let mut segments = fileref::parse(prompt).segments;
    workspace.rebase(&mut segments);
    let result = build(&segments, &mut resolver, &mut chain, &loaded.config);
    if json {
        let value = serde_json::json!({
            "items": result.items,
            "alerts": result.alerts,
            "refs": result.refs,
        });
        outln!("{value}");
    } else {
        for alert in &result.alerts {
            print_alert(alert);
        }
        for shown in &result.items {
            outln!("── {} ({})", shown.item.role(), shown.source);
            outln!("{}", crate::domain::escape::terminal(shown.item.text()));
        }
    }
    // As `run` would: exit 3 when an interceptor would cancel the prompt.
    Ok(if result.cancelled_by.is_some() {
        EXIT_CANCELLED
    } else {
        EXIT_OK
    })
}
