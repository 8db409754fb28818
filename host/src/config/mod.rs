//! Layered TOML configuration: built-in defaults < user < project < managed.

mod error;
mod load;
mod schema;

pub use error::ConfigError;
pub use load::{LayerKind, Loaded, Sources, load};
pub use schema::*;
