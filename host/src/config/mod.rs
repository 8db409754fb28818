//! Layered TOML configuration: built-in defaults < user < project < managed.

mod schema;

pub use schema::*;
