//! Sample interceptor: when the prompt mentions a configured word, add a system item with
//! configured context.
//!
//! Config: `word` (required), `context` (the text to add; default names the word).
//!
//! At compaction (WIT 0.3.0), when the summary mentions the word, the context is added again
//! with the summary, so it outlives the history it replaces.

use warden_plugin::interceptor::{CompactionInfo, Interceptor, PromptAction, SubmittedPrompt};
use warden_plugin::{Config, Item};

struct KeywordContext {
    word: String,
    context: String,
}

impl Interceptor for KeywordContext {
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
        // The host searches the prompt it lent: nothing of it is copied into the plugin.
        if prompt.contains(&self.word) {
            warden_plugin::debug!("found {:?}", self.word);
            PromptAction::ContinueWith(vec![Item::system(self.context.clone())])
        } else {
            PromptAction::Continue
        }
    }

    fn on_compaction(&mut self, info: CompactionInfo) -> Vec<Item> {
        if info.summary.contains(&self.word) {
            vec![Item::system(self.context.clone())]
        } else {
            Vec::new()
        }
    }
}

warden_plugin::export_interceptor!(KeywordContext);
