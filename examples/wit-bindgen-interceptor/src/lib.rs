//! The `keyword-context` sample written with stock `wit-bindgen` and `wit/` alone.
//!
//! Config: `word` (required), `context` (the text to add; default names the word), `mode`
//! (`add`, the default, appends a system item with the context; `cancel` cancels the prompt
//! with the context as the reason).

use std::cell::RefCell;

wit_bindgen::generate!({
    path: "../../wit/released/0.1.0",
    world: "warden:plugin/interceptor",
});

use exports::warden::plugin::intercept::Guest;
use warden::plugin::host::log;
use warden::plugin::types::{
    Item, LogLevel, PromptAction, RequestInfo, SubmittedPrompt, TurnEndAction, TurnInfo,
};

struct Settings {
    word: String,
    context: String,
    cancel: bool,
}

thread_local! {
    static SETTINGS: RefCell<Option<Settings>> = const { RefCell::new(None) };
}

struct KeywordContext;

impl Guest for KeywordContext {
    fn init(config: Vec<(String, String)>) -> Result<(), String> {
        let get = |key: &str| {
            config
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
        };
        let word = get("word").ok_or("missing config key `word`")?;
        if word.is_empty() {
            return Err("config key `word` must not be empty".into());
        }
        let context = get("context").unwrap_or_else(|| format!("The prompt mentions {word}."));
        let cancel = match get("mode").as_deref() {
            None | Some("add") => false,
            Some("cancel") => true,
            Some(other) => {
                return Err(format!(
                    "config key `mode`: expected add or cancel, got {other:?}"
                ));
            }
        };
        SETTINGS.with(|s| {
            *s.borrow_mut() = Some(Settings {
                word,
                context,
                cancel,
            })
        });
        Ok(())
    }

    fn on_prompt_submit(prompt: SubmittedPrompt) -> PromptAction {
        SETTINGS.with(|s| match s.borrow().as_ref() {
            Some(s) if prompt.text.contains(&s.word) => {
                log(LogLevel::Debug, &format!("found {:?}", s.word));
                if s.cancel {
                    PromptAction::Cancel(s.context.clone())
                } else {
                    PromptAction::ContinueWith(vec![Item::System(s.context.clone())])
                }
            }
            _ => PromptAction::Continue,
        })
    }

    fn pre_llm_request(_request: RequestInfo) -> Vec<Item> {
        Vec::new()
    }

    fn on_turn_end(_turn: TurnInfo) -> TurnEndAction {
        TurnEndAction::Finish
    }
}

export!(KeywordContext);
