//! `warden preview [-C DIR] [--json] [--full] PROMPT`: what would be committed; no model
//! call, nothing written. Each item is shown as a header with its size and its first line;
//! `--full` (and `/preview --full` in the chat) shows whole bodies.

use crate::cli::out::outln;
use std::path::Path;

use crate::cli::common::{home, print_alert, setup_error};
use crate::cli::exit::{CliError, EXIT_CANCELLED, EXIT_OK};
use crate::cli::trust::{WhenWaiting, load_config_trusted};
use crate::fileref;
use crate::front::workspace::Workspace;
use crate::setup;
use crate::worker::preview::ShownItem;
use crate::worker::preview::preview_segments as build;

/// Longest first line shown without `--full`.
const FIRST_LINE: usize = 120;

/// Print what `prompt` would commit.
pub(crate) fn preview(
    dir: Option<&Path>,
    json: bool,
    full: bool,
    prompt: &str,
) -> Result<u8, CliError> {
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
            let (header, body) = shown_item(shown, full);
            outln!("{header}");
            outln!("{body}");
        }
    }
    // As `run` would: exit 3 when an interceptor would cancel the prompt.
    Ok(if result.cancelled_by.is_some() {
        EXIT_CANCELLED
    } else {
        EXIT_OK
    })
}

/// One item as a preview shows it: `── system (fileref) · 9.3 KB, 280 lines` and its first
/// line (`[File: README.md]`), or, with `full`, its whole body. Escaped for the terminal.
pub(crate) fn shown_item(shown: &ShownItem, full: bool) -> (String, String) {
    let text = shown.item.text();
    let lines = text.lines().count();
    let bytes = text.len();
    let size = if bytes < 1024 {
        format!("{bytes} bytes")
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    };
    let header = format!(
        "── {} ({}) · {size}, {lines} line{}",
        shown.item.role(),
        shown.source,
        if lines == 1 { "" } else { "s" }
    );
    let body = if full {
        crate::domain::escape::terminal(text).into_owned()
    } else {
        let first = text.lines().next().unwrap_or("");
        let mut shown = crate::domain::escape::escape_capped(first, FIRST_LINE);
        if lines > 1 {
            shown.push_str(" …");
        }
        shown
    };
    (header, body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Item, Source};

    #[test]
    fn headers_carry_size_and_lines_and_only_full_shows_the_body() {
        let text: String = (1..=280).map(|n| format!("line {n}\n")).collect();
        let shown = ShownItem {
            item: Item::System {
                text: format!("[File: README.md]\n{text}"),
            },
            source: Source::FileRef,
        };
        let (header, body) = shown_item(&shown, false);
        assert!(header.ends_with(", 281 lines"), "{header}");
        assert!(header.contains(" KB"), "{header}");
        assert_eq!(body, "[File: README.md] …");
        let (_, body) = shown_item(&shown, true);
        assert!(body.ends_with("line 280\n"), "{body}");
    }
}
