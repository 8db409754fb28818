//! End-to-end tests.

mod llm;
