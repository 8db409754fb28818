//! `/status` (session, model, mode, workspace, how full the window is) and `/context` (what
//! fills the window, kind by kind, in tokens and as a share of the window).

use crate::domain::usage::short_count;
use crate::front::usage::Costing;
use crate::worker::{ContextPart, Worker};

/// `12.3k tokens (6% of 200.0k)`, or without the share when the window is not known.
fn share(tokens: u64, window: Option<u64>) -> String {
    match window {
        Some(window) if window > 0 => format!(
            "{} tokens ({}% of {})",
            short_count(tokens),
            tokens.saturating_mul(100) / window,
            short_count(window)
        ),
        _ => format!("{} tokens", short_count(tokens)),
    }
}

/// The `/context` lines: one per kind, then the total.
pub fn context_lines(parts: &[ContextPart], window: Option<u64>) -> Vec<String> {
    let mut lines = vec![format!(
        "what the next request carries (estimated at {} bytes a token):",
        crate::worker::BYTES_PER_TOKEN
    )];
    for part in parts {
        let items = if part.items == 1 {
            "1 item".to_owned()
        } else {
            format!("{} items", part.items)
        };
        lines.push(format!(
            "  {:<22} {:>10}  {}",
            part.kind,
            items,
            share(part.tokens(), window)
        ));
    }
    let total: u64 = parts.iter().map(ContextPart::tokens).sum();
    lines.push(format!(
        "  {:<22} {:>10}  {}",
        "in all",
        "",
        share(total, window)
    ));
    if window.is_none() {
        lines.push(
            "  (the model's window is not known: set `[model] context_window` to see shares)"
                .to_owned(),
        );
    }
    lines
}

/// The `/status` lines.
pub fn status_lines(
    worker: &Worker,
    costing: &Costing,
    provider: &str,
    workspace: &std::path::Path,
) -> Vec<String> {
    let total: u64 = worker.context_parts().iter().map(ContextPart::tokens).sum();
    let mut lines = vec![
        format!("session    {}", worker.session_id()),
        format!("workspace  {}", workspace.display()),
        format!("model      {provider} · {}", costing.model),
        format!("mode       {}", worker.mode()),
        format!("items      {}", worker.history().len()),
        format!("context    {}", share(total, costing.window)),
    ];
    if let Some(line) = crate::front::usage::status_line(worker.records(), costing) {
        lines.push(format!("last       {line}"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_shows_its_tokens_and_share() {
        let parts = vec![
            ContextPart {
                kind: "system prompt",
                items: 1,
                bytes: 4000,
            },
            ContextPart {
                kind: "tool results",
                items: 3,
                bytes: 36_000,
            },
        ];
        let lines = context_lines(&parts, Some(100_000));
        assert!(
            lines[1].contains("system prompt") && lines[1].contains("1 item"),
            "{lines:?}"
        );
        assert!(
            lines[1].ends_with("1.0k tokens (1% of 100.0k)"),
            "{lines:?}"
        );
        assert!(
            lines[2].ends_with("9.0k tokens (9% of 100.0k)"),
            "{lines:?}"
        );
        assert!(
            lines[3].contains("in all") && lines[3].ends_with("(10% of 100.0k)"),
            "{lines:?}"
        );
        let unknown = context_lines(&parts, None);
        assert!(
            unknown.last().is_some_and(|l| l.contains("context_window")),
            "{unknown:?}"
        );
    }
}
