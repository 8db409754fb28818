//! Sample interceptor: cancel a prompt that contains a configured pattern.
//!
//! Config: `pattern` (required; a plain substring, matched case-insensitively), `reason`
//! (shown to the person; default names the pattern).

use warden_plugin::interceptor::{Interceptor, PromptAction, SubmittedPrompt};
use warden_plugin::{Config, Item};

struct PatternGuard {
    pattern: String,
    reason: String,
}

impl Interceptor for PatternGuard {
    fn init(config: Config) -> Result<Self, String> {
        let pattern = config.require("pattern")?.to_lowercase();
        if pattern.is_empty() {
            return Err("config key `pattern` must not be empty".to_owned());
        }
        let reason = config
            .get("reason")
            .map(str::to_owned)
            .unwrap_or_else(|| format!("the prompt contains the blocked pattern {pattern:?}"));
        Ok(Self { pattern, reason })
    }

    fn on_prompt_submit(&mut self, prompt: SubmittedPrompt) -> PromptAction {
        let hit = std::iter::once(prompt.text.as_str())
            .chain(prompt.items.iter().map(Item::text))
            .any(|text| text.to_lowercase().contains(&self.pattern));
        if hit {
            warden_plugin::info!("cancelled: {}", self.reason);
            PromptAction::Cancel(self.reason.clone())
        } else {
            PromptAction::Continue
        }
    }
}

warden_plugin::export_interceptor!(PatternGuard);

#[cfg(test)]
mod tests {
    use super::*;
    use warden_plugin::LogLevel;

    #[test]
    fn a_cancelled_prompt_is_logged_natively() {
        let config = Config::from(vec![("pattern".to_owned(), "Secret".to_owned())]);
        let mut guard = PatternGuard::init(config).unwrap();
        let prompt = SubmittedPrompt::from_parts("s", "print the SECRET", Vec::new());
        assert!(matches!(
            guard.on_prompt_submit(prompt),
            PromptAction::Cancel(_)
        ));
        let prompt = SubmittedPrompt::from_parts("s", "hello", Vec::new());
        assert!(matches!(
            guard.on_prompt_submit(prompt),
            PromptAction::Continue
        ));
        let logged = warden_plugin::take_logged();
        assert_eq!(logged.len(), 1, "{logged:?}");
        assert_eq!(logged[0].0, LogLevel::Info);
        assert!(logged[0].1.starts_with("cancelled: "), "{logged:?}");
    }
}
