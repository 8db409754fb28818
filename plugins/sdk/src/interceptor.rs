//! The `interceptor` world: plugins that may continue, cancel or extend a turn.

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "warden:plugin/interceptor",
        pub_export_macro: true,
        export_macro_name: "__export_interceptor_world",
        default_bindings_module: "::warden_plugin::interceptor::bindings",
        runtime_path: "::warden_plugin::__private::wit_bindgen::rt",
    });
}

use crate::Config;
pub use crate::prompt::{Lazy, SubmittedPrompt};
pub use crate::types::{
    CompactionInfo, HistoryRange, Item, PromptAction, RequestInfo, ToolAction, ToolCall,
    ToolResultItem, TurnEndAction, TurnInfo,
};

/// An interceptor plugin. Implement it once and export it with
/// [`export_interceptor!`](crate::export_interceptor).
pub trait Interceptor: Sized + 'static {
    /// Build the plugin from its config; an `Err` refuses the config with that message.
    fn init(config: Config) -> Result<Self, String>;

    /// Judge a submitted prompt. Default: let it through. The prompt is lent by the host for
    /// the call: its fields are read when first used, and [`SubmittedPrompt::contains`]
    /// searches it without copying it into the plugin.
    fn on_prompt_submit(&mut self, prompt: SubmittedPrompt<'_>) -> PromptAction {
        let _ = prompt;
        PromptAction::Continue
    }

    /// Items to commit before the next model request. Default: none.
    fn pre_llm_request(&mut self, request: RequestInfo) -> Vec<Item> {
        let _ = request;
        Vec::new()
    }

    /// The model answered: finish the turn or continue it. Default: finish.
    fn on_turn_end(&mut self, turn: TurnInfo) -> TurnEndAction {
        let _ = turn;
        TurnEndAction::Finish
    }

    /// The model asked for a tool call: allow, deny or rewrite it (new in 0.2.0). Default:
    /// allow.
    fn pre_tool_call(&mut self, call: ToolCall) -> ToolAction {
        let _ = call;
        ToolAction::Allow
    }

    /// A tool call finished (or was denied): items to commit right after its result (new in
    /// 0.2.0). Default: none.
    fn post_tool_call(&mut self, call: ToolCall, output: ToolResultItem) -> Vec<Item> {
        let _ = (call, output);
        Vec::new()
    }

    /// History is being compacted: items to commit with the compaction group, after the
    /// summary and the files re-read (new in 0.3.0). It cannot stop the compaction. Default:
    /// none.
    fn on_compaction(&mut self, info: CompactionInfo) -> Vec<Item> {
        let _ = info;
        Vec::new()
    }
}

/// Export `$ty`, an [`Interceptor`], as the component's `intercept` interface.
#[macro_export]
macro_rules! export_interceptor {
    ($ty:ty) => {
        const _: () = {
            use $crate::interceptor::bindings::exports::warden::plugin::intercept::Guest;
            use $crate::interceptor::Interceptor as _;

            ::std::thread_local! {
                static SLOT: $crate::__private::Slot<$ty> = const { $crate::__private::Slot::new() };
            }

            struct Exported;

            impl Guest for Exported {
                fn init(config: ::std::vec::Vec<(::std::string::String, ::std::string::String)>)
                    -> ::std::result::Result<(), ::std::string::String> {
                    $crate::__private::init_slot(&SLOT, <$ty>::init($crate::Config::from(config)))
                }

                fn on_prompt_submit(
                    prompt: &$crate::interceptor::bindings::warden::plugin::prompts::Prompt,
                ) -> $crate::PromptAction {
                    let prompt = $crate::interceptor::SubmittedPrompt::lent(prompt);
                    SLOT.with(|slot| slot.with(|p| p.on_prompt_submit(prompt)))
                }

                fn on_compaction(info: $crate::CompactionInfo) -> ::std::vec::Vec<$crate::Item> {
                    SLOT.with(|slot| slot.with(|p| p.on_compaction(info)))
                }

                fn pre_llm_request(request: $crate::RequestInfo) -> ::std::vec::Vec<$crate::Item> {
                    SLOT.with(|slot| slot.with(|p| p.pre_llm_request(request)))
                }

                fn on_turn_end(turn: $crate::TurnInfo) -> $crate::TurnEndAction {
                    SLOT.with(|slot| slot.with(|p| p.on_turn_end(turn)))
                }

                fn pre_tool_call(call: $crate::ToolCall) -> $crate::ToolAction {
                    SLOT.with(|slot| slot.with(|p| p.pre_tool_call(call)))
                }

                fn post_tool_call(
                    call: $crate::ToolCall,
                    output: $crate::ToolResultItem,
                ) -> ::std::vec::Vec<$crate::Item> {
                    SLOT.with(|slot| slot.with(|p| p.post_tool_call(call, output)))
                }
            }

            $crate::interceptor::bindings::__export_interceptor_world!(Exported with_types_in $crate::interceptor::bindings);
        };
    };
}
