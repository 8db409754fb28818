//! `[[rules]]`: per-command and per-tool decisions (`allow`, `ask`, `deny`) that say when a
//! tool call asks the person. A rule never widens what a call can reach (the sandbox and
//! managed caps still apply); it only says whether to ask first.
//!
//! - [`Rule`]: one rule, matching a `shell` command by an argv prefix (words, each with its
//!   alternatives), or other tools by name globs and the writers by path globs.
//! - [`RuleSet`]: the rules in force; [`RuleSet::judge_shell`] splits a command into its
//!   simple commands ([`crate::domain::shell_split`]) and judges each, the strictest decision
//!   winning (deny > ask > allow); anything uncertain in the command keeps it from `allow`.
//! - [`builtin_rules`]: the defaults that let read-only commands and builds run under `ask`.
//! - [`narrowest_prefix`]: the rule an "always" answer saves.

mod defaults;
mod glob;
mod judge;
mod narrow;
mod rule;

pub use defaults::builtin_rules;
pub use glob::glob_match;
pub use judge::{Judgement, Part, RuleSet};
pub use narrow::narrowest_prefix;
pub use rule::{Decision, Rule, RuleOrigin};

#[cfg(test)]
mod tests;
