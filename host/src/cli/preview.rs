//! `warden preview [-C DIR] [--json] PROMPT`: what would be committed; no model call, nothing
//! written.

use super::out::outln;
use std::path::Path;

use super::common::{home, load_config, print_alert, setup_error, workspace};
use super::exit::{CliError, EXIT_OK};
use crate::fileref;
use crate::worker::{preview::preview as build, setup};

/// Print what `prompt` would commit.
pub(crate) fn preview(dir: Option<&Path>, json: bool, prompt: &str) -> Result<u8, CliError> {
    let workspace = workspace(dir)?;
    let loaded = load_config(&workspace)?;
    // The compiled-code cache is the only thing written, and only when the state home exists.
    let home = home().ok().filter(|h| h.root().is_dir());
    let engine = setup::engine_for(home.as_ref(), &loaded.config).map_err(setup_error)?;
    let mut resolver = setup::resolver(&engine, &loaded.config, &workspace).map_err(setup_error)?;
    let (mut chain, _hooks) = setup::plugins(&engine, &loaded.config).map_err(setup_error)?;
    let segments = fileref::parse(prompt).segments;
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
            outln!("{}", shown.item.text());
        }
    }
    Ok(EXIT_OK)
}
