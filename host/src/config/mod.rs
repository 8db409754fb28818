//! Layered TOML configuration: built-in defaults < user < project < managed.

mod ceilings;
mod error;
mod load;
mod schema;

pub use ceilings::{clamp_plugins, clamp_resolver, memory_ceiling_mb, timeout_ceiling_ms};
pub use error::ConfigError;
pub use load::{LayerKind, Loaded, Origin, Origins, Sources, load, load_with_origins};
pub use schema::*;
