//! `matcher`: which tool calls an interceptor is asked about, in Claude Code's syntax. Empty or
//! `*` matches every tool; anything else is a regular expression that must match the whole
//! tool name (`Edit|Write`, `mcp__github__.*`; a plain name matches only itself). A call's tool
//! is matched under warden's name (`shell`, `read_file`) and under Claude Code's spelling of
//! the same tool ([`claude_name`]: `Bash`, `Read`), so matchers written for Claude Code work
//! unchanged.

use regex::Regex;

/// The longest matcher accepted, in bytes.
pub const MAX_MATCHER_BYTES: usize = 1024;

/// A compiled `matcher`.
#[derive(Debug, Clone)]
pub struct ToolMatcher {
    /// As written.
    source: String,
    /// `None` matches every tool.
    regex: Option<Regex>,
}

impl ToolMatcher {
    /// Compiles `source`; the error says what is wrong with it.
    pub fn parse(source: &str) -> Result<Self, String> {
        if source.len() > MAX_MATCHER_BYTES {
            return Err(format!(
                "is {} bytes long; at most {MAX_MATCHER_BYTES}",
                source.len()
            ));
        }
        let trimmed = source.trim();
        let regex = if trimmed.is_empty() || trimmed == "*" {
            None
        } else {
            let anchored = format!("^(?:{trimmed})$");
            Some(
                regex::RegexBuilder::new(&anchored)
                    .size_limit(1 << 20)
                    .build()
                    .map_err(|e| format!("is not a valid regular expression: {e}"))?,
            )
        };
        Ok(Self {
            source: source.to_owned(),
            regex,
        })
    }

    /// Whether a call of tool `name` (warden's name) matches.
    pub fn matches(&self, name: &str) -> bool {
        let Some(regex) = &self.regex else {
            return true;
        };
        regex.is_match(name) || claude_name(name).is_some_and(|alias| regex.is_match(alias))
    }

    /// The matcher as written.
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// Claude Code's name for warden's built-in tool `name`, where it has one. MCP tools share the
/// spelling (`mcp__<server>__<tool>`) and need none.
pub fn claude_name(name: &str) -> Option<&'static str> {
    use super::builtin::{
        EDIT_FILE, GLOB, GREP, LIST_FILES, READ_FILE, SHELL, UPDATE_PLAN, WRITE_FILE,
    };
    Some(match name {
        SHELL => "Bash",
        READ_FILE => "Read",
        WRITE_FILE => "Write",
        EDIT_FILE => "Edit",
        GLOB => "Glob",
        GREP => "Grep",
        LIST_FILES => "LS",
        UPDATE_PLAN => "TodoWrite",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn claude_code_matchers_mean_what_they_mean_there() -> Result<(), String> {
        let all = ToolMatcher::parse("*")?;
        let empty = ToolMatcher::parse("")?;
        for tool in ["shell", "read_file", "mcp__gh__issue"] {
            assert!(all.matches(tool) && empty.matches(tool));
        }
        let bash = ToolMatcher::parse("Bash")?;
        assert!(bash.matches("shell"));
        assert!(!bash.matches("read_file"));
        let writes = ToolMatcher::parse("Edit|Write")?;
        assert!(writes.matches("edit_file") && writes.matches("write_file"));
        assert!(!writes.matches("shell"));
        // A plain name matches only itself, not a longer one.
        let read = ToolMatcher::parse("Read")?;
        assert!(!read.matches("mcp__x__Readme"));
        let native = ToolMatcher::parse("shell")?;
        assert!(native.matches("shell") && !native.matches("shell2"));
        let mcp = ToolMatcher::parse("mcp__github__.*")?;
        assert!(mcp.matches("mcp__github__create_issue") && !mcp.matches("mcp__gitlab__x"));
        // An alternation cannot escape the anchors.
        let alt = ToolMatcher::parse("x|.*")?;
        assert!(alt.matches("anything"));
        let alt = ToolMatcher::parse("Bash|Read")?;
        assert!(!alt.matches("write_file"));
        Ok(())
    }

    #[test]
    fn a_bad_or_huge_matcher_is_refused_saying_why() {
        assert!(ToolMatcher::parse("(").is_err_and(|e| e.contains("regular expression")));
        let huge = "a".repeat(MAX_MATCHER_BYTES + 1);
        assert!(ToolMatcher::parse(&huge).is_err_and(|e| e.contains("at most")));
        // A pattern whose compiled form is too big is an error, not a hang.
        assert!(ToolMatcher::parse("(a{1000}){1000}").is_err());
    }

    proptest! {
        /// Any text either compiles or is refused; a compiled matcher answers for any name.
        #[test]
        fn any_matcher_parses_or_is_refused(source in ".{0,64}", name in "[a-zA-Z_]{0,32}") {
            if let Ok(m) = ToolMatcher::parse(&source) {
                let _ = m.matches(&name);
                prop_assert_eq!(m.source(), source.as_str());
            }
        }

        /// A literal name (no regex syntax) matches exactly that name, and its Claude alias.
        #[test]
        fn a_literal_matches_only_itself(name in "[a-z_]{1,16}", other in "[a-z_]{1,16}") {
            let m = ToolMatcher::parse(&name).map_err(TestCaseError::fail)?;
            prop_assert!(m.matches(&name));
            if other != name && claude_name(&other) != Some(name.as_str()) {
                prop_assert!(!m.matches(&other));
            }
        }
    }
}
