//! Sample interceptor: when the prompt mentions a configured word, add a system item with
//! configured context.
//!
//! Config: `word` (required), `context` (the text to add; default names the word).

use memchr::memmem::Finder;
use warden_plugin::interceptor::{Interceptor, PromptAction, SubmittedPrompt};
use warden_plugin::{Config, Item};

struct KeywordContext {
    word: String,
    /// A searcher for `word`, built once: every prompt is searched for it.
    finder: Finder<'static>,
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
        let finder = Finder::new(word.as_bytes()).into_owned();
        Ok(Self {
            word,
            finder,
            context,
        })
    }

    fn on_prompt_submit(&mut self, prompt: SubmittedPrompt) -> PromptAction {
        if self.finder.find(prompt.text.as_bytes()).is_some() {
            warden_plugin::debug!("found {:?}", self.word);
            PromptAction::ContinueWith(vec![Item::system(self.context.clone())])
        } else {
            PromptAction::Continue
        }
    }
}

warden_plugin::export_interceptor!(KeywordContext);
