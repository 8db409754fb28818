//! Generated bindings of `warden:plugin@0.1.0`, private to the plugin host. The hook and
//! resolver worlds reuse the `types` and `host` interfaces generated for the interceptor world,
//! so one set of conversions serves all three.

#![allow(missing_docs, clippy::all)]

pub(crate) mod interceptor {
    wasmtime::component::bindgen!({
        path: "../wit/released/0.1.0",
        world: "warden:plugin/interceptor",
        imports: { default: tracing },
    });
}

pub(crate) mod hook {
    wasmtime::component::bindgen!({
        path: "../wit/released/0.1.0",
        world: "warden:plugin/hook",
        imports: { default: tracing },
        with: {
            "warden:plugin/types": super::interceptor::warden::plugin::types,
            "warden:plugin/host": super::interceptor::warden::plugin::host,
        },
    });
}

pub(crate) mod resolver {
    wasmtime::component::bindgen!({
        path: "../wit/released/0.1.0",
        world: "warden:plugin/resolver",
        imports: { default: tracing },
        with: {
            "warden:plugin/types": super::interceptor::warden::plugin::types,
            "warden:plugin/host": super::interceptor::warden::plugin::host,
        },
    });
}

pub(crate) use interceptor::warden::plugin::types;
