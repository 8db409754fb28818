//! The `hook` world: plugins that observe every event and can change nothing.

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "warden:plugin/hook",
        pub_export_macro: true,
        export_macro_name: "__export_hook_world",
        default_bindings_module: "::warden_plugin::hook::bindings",
        runtime_path: "::warden_plugin::__private::wit_bindgen::rt",
    });
}

use crate::Config;
pub use crate::types::{
    Alert, CommittedItem, CompactionStats, HistoryRange, PluginFailure, RequestStats, ResponseInfo,
    ToolDecision, ToolRun,
};

use bindings::warden::plugin::types::Event as WitEvent;

/// Everything a hook can observe, delivered by value (as in 0.2.0: a compaction is delivered
/// to [`Hook::on_compaction`], so a `match` over these cases stays exhaustive).
#[derive(Clone, Debug)]
pub enum Event {
    /// A prompt was submitted (its text).
    PromptSubmitted(String),
    /// Items were committed to history.
    ItemsCommitted(Vec<CommittedItem>),
    /// A model request was sent.
    RequestSent(RequestStats),
    /// A model answer was received.
    ResponseReceived(ResponseInfo),
    /// A tool ran.
    ToolRan(ToolRun),
    /// A tool call was allowed, denied or rewritten, before it ran (new in 0.2.0).
    ToolDecided(ToolDecision),
    /// An alert was raised.
    AlertRaised(Alert),
    /// A notification was committed (its text).
    Notification(String),
    /// The turn ended (why).
    TurnEnded(String),
    /// A plugin failed.
    PluginFailed(PluginFailure),
}

/// The event as the hook trait takes it, or the compaction it reports.
#[doc(hidden)]
pub fn split(event: WitEvent) -> Result<Event, CompactionStats> {
    Ok(match event {
        WitEvent::PromptSubmitted(v) => Event::PromptSubmitted(v),
        WitEvent::ItemsCommitted(v) => Event::ItemsCommitted(v),
        WitEvent::RequestSent(v) => Event::RequestSent(v),
        WitEvent::ResponseReceived(v) => Event::ResponseReceived(v),
        WitEvent::ToolRan(v) => Event::ToolRan(v),
        WitEvent::ToolDecided(v) => Event::ToolDecided(v),
        WitEvent::AlertRaised(v) => Event::AlertRaised(v),
        WitEvent::Notification(v) => Event::Notification(v),
        WitEvent::TurnEnded(v) => Event::TurnEnded(v),
        WitEvent::PluginFailed(v) => Event::PluginFailed(v),
        WitEvent::Compacted(stats) => return Err(stats),
    })
}

/// A hook plugin. Implement it once and export it with [`export_hook!`](crate::export_hook).
pub trait Hook: Sized + 'static {
    /// Build the plugin from its config; an `Err` refuses the config with that message.
    fn init(config: Config) -> Result<Self, String>;

    /// Receive one event, by value.
    fn on_event(&mut self, event: Event);

    /// History was compacted: a compaction group was committed (new in 0.3.0). Default:
    /// nothing.
    fn on_compaction(&mut self, stats: CompactionStats) {
        let _ = stats;
    }
}

/// Export `$ty`, a [`Hook`], as the component's `observe` interface.
#[macro_export]
macro_rules! export_hook {
    ($ty:ty) => {
        const _: () = {
            use $crate::hook::bindings::exports::warden::plugin::observe::Guest;
            use $crate::hook::Hook as _;

            ::std::thread_local! {
                static SLOT: $crate::__private::Slot<$ty> = const { $crate::__private::Slot::new() };
            }

            struct Exported;

            impl Guest for Exported {
                fn init(config: ::std::vec::Vec<(::std::string::String, ::std::string::String)>)
                    -> ::std::result::Result<(), ::std::string::String> {
                    $crate::__private::init_slot(&SLOT, <$ty>::init($crate::Config::from(config)))
                }

                fn on_event(
                    event: $crate::hook::bindings::warden::plugin::types::Event,
                ) {
                    match $crate::hook::split(event) {
                        Ok(event) => SLOT.with(|slot| slot.with(|p| p.on_event(event))),
                        Err(stats) => SLOT.with(|slot| slot.with(|p| p.on_compaction(stats))),
                    }
                }
            }

            $crate::hook::bindings::__export_hook_world!(Exported with_types_in $crate::hook::bindings);
        };
    };
}
