//! The `tool` world (new in 0.2.0): plugins that serve tools to the model. A tool plugin sees
//! the workspace only through its entry's `fs` grant (a directory preopened at each workspace
//! root's absolute path, listed in the `roots` config key), environment variables only through
//! its `env` grant, and the network only through [`fetch`], which reaches the hosts of its
//! `allowed_hosts` grant.

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "warden:plugin/tool",
        pub_export_macro: true,
        export_macro_name: "__export_tool_world",
        default_bindings_module: "::warden_plugin::tool::bindings",
        runtime_path: "::warden_plugin::__private::wit_bindgen::rt",
    });
}

use crate::Config;
pub use crate::types::{ToolOutput, ToolSpec};
pub use bindings::warden::plugin::outgoing::{HttpRequest, HttpResponse};

/// A tool plugin. Implement it once and export it with [`export_tool!`](crate::export_tool).
pub trait Tool: Sized + 'static {
    /// Build the plugin from its config (which also holds `roots`, the workspace roots,
    /// newline-separated); an `Err` refuses the config with that message.
    fn init(config: Config) -> Result<Self, String>;

    /// The tools this plugin offers; asked once, when the plugin is loaded. Names must be
    /// unique and made of `A-Z a-z 0-9 _ -`; `parameters` is a JSON object schema.
    fn describe(&self) -> Vec<ToolSpec>;

    /// Run tool `name` with `arguments` (a JSON object in text form). An `Err` is committed
    /// as the tool's error result, so the model sees why.
    fn call(&mut self, name: &str, arguments: &str) -> Result<ToolOutput, String>;
}

impl ToolSpec {
    /// A tool spec: `parameters` is the JSON schema of the arguments object, in text form.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters: parameters.into(),
        }
    }
}

impl ToolOutput {
    /// An output with this text.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
        }
    }
}

/// Send one HTTP request through the host. It reaches only the hosts the plugin's
/// `allowed_hosts` grant lists; the error says why a request was refused or failed.
pub fn fetch(request: &HttpRequest) -> Result<HttpResponse, String> {
    bindings::warden::plugin::outgoing::fetch(request)
}

/// `GET url` through [`fetch`].
pub fn get(url: &str) -> Result<HttpResponse, String> {
    fetch(&HttpRequest {
        method: "GET".into(),
        url: url.into(),
        headers: Vec::new(),
        body: Vec::new(),
    })
}

/// Export `$ty`, a [`Tool`], as the component's `act` interface.
#[macro_export]
macro_rules! export_tool {
    ($ty:ty) => {
        const _: () = {
            use $crate::tool::Tool as _;
            use $crate::tool::bindings::exports::warden::plugin::act::Guest;

            ::std::thread_local! {
                static SLOT: $crate::__private::Slot<$ty> = const { $crate::__private::Slot::new() };
            }

            struct Exported;

            impl Guest for Exported {
                fn init(config: ::std::vec::Vec<(::std::string::String, ::std::string::String)>)
                    -> ::std::result::Result<(), ::std::string::String> {
                    $crate::__private::init_slot(&SLOT, <$ty>::init($crate::Config::from(config)))
                }

                fn describe() -> ::std::vec::Vec<$crate::ToolSpec> {
                    SLOT.with(|slot| slot.with(|p| p.describe()))
                }

                fn call(
                    name: ::std::string::String,
                    arguments: ::std::string::String,
                ) -> ::std::result::Result<$crate::ToolOutput, ::std::string::String> {
                    SLOT.with(|slot| slot.with(|p| p.call(&name, &arguments)))
                }
            }

            $crate::tool::bindings::__export_tool_world!(Exported with_types_in $crate::tool::bindings);
        };
    };
}
