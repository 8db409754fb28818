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
pub use crate::types::Event;

/// A hook plugin. Implement it once and export it with [`export_hook!`](crate::export_hook).
pub trait Hook: Sized + 'static {
    /// Build the plugin from its config; an `Err` refuses the config with that message.
    fn init(config: Config) -> Result<Self, String>;

    /// Receive one event, by value.
    fn on_event(&mut self, event: Event);
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

                fn on_event(event: $crate::Event) {
                    SLOT.with(|slot| slot.with(|p| p.on_event(event)))
                }
            }

            $crate::hook::bindings::__export_hook_world!(Exported with_types_in $crate::hook::bindings);
        };
    };
}
