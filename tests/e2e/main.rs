//! End-to-end tests.

mod store;
