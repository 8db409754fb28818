//! A warden interceptor: when the prompt mentions a configured word, add a system item with
//! configured context.
//!
//! Config: `word` (required), `context` (the text to add; default names the word).

use warden_plugin::interceptor::{Interceptor, PromptAction, SubmittedPrompt};
use warden_plugin::{Config, Item};

struct Plugin {
    word: String,
    context: String,
}

impl Plugin {
    /// The decision on a prompt, apart from the export glue so that `cargo test` can check it.
    fn decide(&self, text: &str) -> PromptAction {
        if text.contains(&self.word) {
            warden_plugin::info!("the prompt mentions {:?}", self.word);
            PromptAction::ContinueWith(vec![Item::system(self.context.clone())])
        } else {
            PromptAction::Continue
        }
    }
}

impl Interceptor for Plugin {
    fn init(config: Config) -> Result<Self, String> {
        let word = config.require("word")?.to_owned();
        if word.is_empty() {
            return Err("config key `word` must not be empty".to_owned());
        }
        let context = config
            .get("context")
            .map(str::to_owned)
            .unwrap_or_else(|| format!("The prompt mentions {word}."));
        Ok(Self { word, context })
    }

    fn on_prompt_submit(&mut self, prompt: SubmittedPrompt) -> PromptAction {
        self.decide(&prompt.text)
    }
}

warden_plugin::export_interceptor!(Plugin);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_the_context_only_when_the_word_is_there() {
        let plugin = Plugin {
            word: "deploy".into(),
            context: "Deploys go through CI.".into(),
        };
        match plugin.decide("how do I deploy?") {
            PromptAction::ContinueWith(items) => {
                assert_eq!(items.len(), 1);
                assert_eq!(items[0].text(), "Deploys go through CI.");
            }
            other => panic!("expected one item, got {other:?}"),
        }
        assert!(matches!(plugin.decide("hello"), PromptAction::Continue));
        // Natively, log lines go to stderr and are kept for the test to read.
        let logged = warden_plugin::take_logged();
        assert_eq!(logged.len(), 1, "{logged:?}");
        assert_eq!(logged[0].1, "the prompt mentions \"deploy\"");
    }
}
