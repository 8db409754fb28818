//! `[[rules]]`: per-command and per-tool decisions (`allow`, `ask`, `deny`) that say when a
//! tool call asks the person. A rule never widens what a call can reach (the sandbox and
//! managed caps still apply); it only says whether to ask first.
//!
//! - [`Rule`]: one rule, matching a `shell` command by an argv prefix (words, each with its
//!   alternatives), or other tools by name globs and the writers by path globs.
//! - [`RuleSet`]: the rules in force; [`RuleSet::judge_shell`] splits a command into its
//!   simple commands ([`crate::domain::shell_split`]) and judges each, the strictest decision
//!   winning (deny > ask > allow); anything uncertain in the command keeps it from `allow`.
//! - [`builtin_rules`]: the defaults that let read-only commands and builds run under `ask`;
//!   the read-only ones match only an argv that is read-only by construction ([`readonly`]).
//! - A `deny` or `ask` rule holds through the global options of the programs the defaults
//!   know (`git -C . push`); an option not understood there is refused.
//! - [`narrowest_prefix`]: the rule an "always" answer saves (the exact command for a program
//!   that runs what its arguments say).

mod defaults;
mod glob;
mod globals;
mod judge;
mod narrow;
pub mod readonly;
mod rule;
mod write_scope;

pub use defaults::builtin_rules;
pub use glob::glob_match;
pub use judge::{Judgement, Part, RuleSet};
pub use narrow::{Saved, narrowest, narrowest_prefix, quoted};
pub use rule::{Decision, Rule, RuleOrigin};
pub use write_scope::write_scope;

#[cfg(test)]
mod tests;
