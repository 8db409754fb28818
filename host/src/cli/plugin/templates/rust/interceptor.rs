//! A warden interceptor: when the prompt mentions a configured word, add a system item with
//! configured context; a `shell` command that mentions the word is denied with that context
//! as the reason (reading the call's arguments with `ToolCall::args`).
//!
//! Config: `word` (required), `context` (the text to add; default names the word).

use warden_plugin::interceptor::{Interceptor, PromptAction, SubmittedPrompt, ToolAction, ToolCall};
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

    /// The decision on a tool call: a `shell` command mentioning the word is denied.
    fn judge(&self, call: &ToolCall) -> ToolAction {
        if call.name != "shell" {
            return ToolAction::Allow;
        }
        match call.args() {
            Ok(args) if args.str("command").is_some_and(|c| c.contains(&self.word)) => {
                ToolAction::Deny(self.context.clone())
            }
            _ => ToolAction::Allow,
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

    fn pre_tool_call(&mut self, call: ToolCall) -> ToolAction {
        self.judge(&call)
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

    #[test]
    fn denies_a_shell_command_that_mentions_the_word() {
        let plugin = Plugin {
            word: "deploy".into(),
            context: "Deploys go through CI.".into(),
        };
        let call = |name: &str, arguments: &str| ToolCall {
            id: "c1".into(),
            name: name.into(),
            arguments: arguments.into(),
        };
        assert!(matches!(
            plugin.judge(&call("shell", r#"{"command":"./deploy.sh"}"#)),
            ToolAction::Deny(reason) if reason == "Deploys go through CI."
        ));
        assert!(matches!(
            plugin.judge(&call("shell", r#"{"command":"ls"}"#)),
            ToolAction::Allow
        ));
        assert!(matches!(
            plugin.judge(&call("read_file", r#"{"path":"deploy.md"}"#)),
            ToolAction::Allow
        ));
    }
}
