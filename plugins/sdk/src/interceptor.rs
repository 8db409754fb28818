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
pub use crate::types::{Item, PromptAction, RequestInfo, SubmittedPrompt, TurnEndAction, TurnInfo};

/// An interceptor plugin. Implement it once and export it with
/// [`export_interceptor!`](crate::export_interceptor).
pub trait Interceptor: Sized + 'static {
    /// Build the plugin from its config; an `Err` refuses the config with that message.
    fn init(config: Config) -> Result<Self, String>;

    /// Judge a submitted prompt. Default: let it through.
    fn on_prompt_submit(&mut self, prompt: SubmittedPrompt) -> PromptAction {
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

                fn on_prompt_submit(prompt: $crate::SubmittedPrompt) -> $crate::PromptAction {
                    SLOT.with(|slot| slot.with(|p| p.on_prompt_submit(prompt)))
                }

                fn pre_llm_request(request: $crate::RequestInfo) -> ::std::vec::Vec<$crate::Item> {
                    SLOT.with(|slot| slot.with(|p| p.pre_llm_request(request)))
                }

                fn on_turn_end(turn: $crate::TurnInfo) -> $crate::TurnEndAction {
                    SLOT.with(|slot| slot.with(|p| p.on_turn_end(turn)))
                }
            }

            $crate::interceptor::bindings::__export_interceptor_world!(Exported with_types_in $crate::interceptor::bindings);
        };
    };
}
