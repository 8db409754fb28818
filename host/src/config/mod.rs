//! Layered TOML configuration: built-in defaults < user < project < managed.

mod error;
mod load;
mod schema;

pub use error::ConfigError;
pub use load::{LayerKind, Loaded, Origin, Origins, Sources, load, load_with_origins};
pub use schema::*;
