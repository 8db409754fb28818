//! The worker: domain types and the turn loop.

mod item;

pub use item::{Alert, AlertLevel, Item, LineRange, Segment, Source, ToolCall};
