//! Slash commands: `/help`, `/session`, `/resume [ID]`, `/new`, `/plugins`, `/mcp`,
//! `/preview [--full] PROMPT`,
//! `/compact`, `/config`, `/mode [MODE]`, `/rules [remove ID]`, `/undo [N]`, `/last`,
//! `/diff [session]`, `/cost`, `/quit`.

/// A parsed slash command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Slash {
    /// List the commands and keys.
    Help,
    /// Id, workspace, items and file of the session.
    Session,
    /// Continue another session of this workspace (by id or prefix; empty: pick from a list).
    Resume(String),
    /// Start a new session.
    New,
    /// Loaded plugins with their calls and failures.
    Plugins,
    /// MCP servers: state and tools.
    Mcp,
    /// What a prompt would commit: headers and sizes, or (`--full`) whole bodies.
    Preview {
        /// Show whole bodies.
        full: bool,
        /// The prompt.
        prompt: String,
    },
    /// Summarise the session and re-read its files (history keeps everything).
    Compact,
    /// Effective configuration.
    Config,
    /// Show the permission mode, or change it for this chat.
    Mode(Option<String>),
    /// List the rules in force, or (`Some(id)`) remove a user-layer rule.
    Rules(Option<String>),
    /// Put back the files the last N turns (default 1) wrote or edited.
    Undo(usize),
    /// The last command's whole output.
    Last,
    /// The diffs of the last turn's changes, or (`true`) of the whole session, from its
    /// checkpoints.
    Diff(bool),
    /// The session's tokens and what they cost.
    Cost,
    /// Leave.
    Quit,
    /// Not a command (or missing its argument): the hint to show.
    Unknown(String),
}

/// The help text.
pub(crate) const HELP: &str = "\
commands:
  /help            this list
  /session         id, workspace, items and file of this session
  /resume [ID]     continue session ID (or a unique prefix) of this workspace;
                   without ID, pick one from a numbered list
  /new             start a new session
  /plugins         loaded plugins: world, sha256, failure policy, calls and failures
  /mcp             MCP servers: state (started, or failed and why) and tools
  /preview PROMPT  what PROMPT would commit: headers and sizes (no model call, nothing
                   written); /preview --full PROMPT shows the whole bodies
  /compact         summarise the session and re-read its files; history keeps everything
  /config          effective configuration and the files it came from
  /mode [MODE]     show the permission mode, or change it for this chat:
                   read-only | ask | auto-edit | full-auto
  /rules           the rules in force and where each comes from;
                   /rules remove ID removes one of your own (user layer)
  /undo [N]        put back the files the last N turns (default 1) wrote or edited
  /last            the last command's whole output
  /diff [session]  the diffs of what the last turn changed (or the whole session changed)
  /cost            this session's input, output and cache tokens, and their price
  /quit            leave (as does Ctrl-D on an empty line)
keys:
  @                complete a workspace path (Tab or Enter inserts; Tab again inside a directory;
                   Enter sends a path already typed in full)
  Alt-Enter, \\     a new line in the prompt
  Ctrl-C           cancel the running turn, or clear the line
  Ctrl-D           leave, on an empty line
  Ctrl-R           search the input history";

/// `Some` when `line` is a slash command (a line starting with `/` followed by a letter).
pub(crate) fn parse(line: &str) -> Option<Slash> {
    let line = line.trim();
    let rest = line.strip_prefix('/')?;
    if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let (name, arg) = match rest.split_once(char::is_whitespace) {
        Some((name, arg)) => (name, arg.trim()),
        None => (rest, ""),
    };
    Some(match (name, arg.is_empty()) {
        ("help", _) => Slash::Help,
        ("session", true) => Slash::Session,
        ("resume", _) => Slash::Resume(arg.to_owned()),
        ("new", true) => Slash::New,
        ("plugins", true) => Slash::Plugins,
        ("mcp", true) => Slash::Mcp,
        ("preview", false) => match arg.strip_prefix("--full") {
            Some(rest) if rest.trim().is_empty() => {
                Slash::Unknown("usage: /preview [--full] PROMPT".into())
            }
            Some(rest) if rest.starts_with(char::is_whitespace) => Slash::Preview {
                full: true,
                prompt: rest.trim().to_owned(),
            },
            _ => Slash::Preview {
                full: false,
                prompt: arg.to_owned(),
            },
        },
        ("preview", true) => Slash::Unknown("usage: /preview [--full] PROMPT".into()),
        ("compact", true) => Slash::Compact,
        ("config", true) => Slash::Config,
        ("mode", true) => Slash::Mode(None),
        ("mode", false) => Slash::Mode(Some(arg.to_owned())),
        ("rules", true) => Slash::Rules(None),
        ("rules", false) => match arg.strip_prefix("remove") {
            Some(id) if id.starts_with(char::is_whitespace) && !id.trim().is_empty() => {
                Slash::Rules(Some(id.trim().to_owned()))
            }
            _ => Slash::Unknown("usage: /rules [remove ID]".into()),
        },
        ("undo", true) => Slash::Undo(1),
        ("undo", false) => match arg.parse::<usize>() {
            Ok(n) if n > 0 => Slash::Undo(n),
            _ => Slash::Unknown("usage: /undo [N] (N a number of turns, at least 1)".into()),
        },
        ("last", true) => Slash::Last,
        ("diff", true) => Slash::Diff(false),
        ("diff", false) if arg == "session" => Slash::Diff(true),
        ("diff", false) => Slash::Unknown("usage: /diff [session]".into()),
        ("cost", true) => Slash::Cost,
        ("quit" | "exit", true) => Slash::Quit,
        _ => Slash::Unknown(format!("unknown command /{name}; /help lists the commands")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands_and_hints_at_the_rest() {
        assert_eq!(parse("/help"), Some(Slash::Help));
        assert_eq!(parse("  /session "), Some(Slash::Session));
        assert_eq!(parse("/mcp"), Some(Slash::Mcp));
        assert_eq!(parse("/rules"), Some(Slash::Rules(None)));
        assert_eq!(
            parse("/rules remove always:ls"),
            Some(Slash::Rules(Some("always:ls".into())))
        );
        assert!(matches!(parse("/rules drop x"), Some(Slash::Unknown(_))));
        assert_eq!(parse("/resume abc"), Some(Slash::Resume("abc".into())));
        assert_eq!(
            parse("/preview look @a.rs"),
            Some(Slash::Preview {
                full: false,
                prompt: "look @a.rs".into()
            })
        );
        assert_eq!(
            parse("/preview --full look @a.rs"),
            Some(Slash::Preview {
                full: true,
                prompt: "look @a.rs".into()
            })
        );
        assert!(matches!(parse("/preview --full"), Some(Slash::Unknown(_))));
        assert_eq!(parse("/quit"), Some(Slash::Quit));
        assert_eq!(parse("/compact"), Some(Slash::Compact));
        assert_eq!(parse("/cost"), Some(Slash::Cost));
        assert_eq!(parse("/undo"), Some(Slash::Undo(1)));
        assert_eq!(parse("/undo 3"), Some(Slash::Undo(3)));
        assert!(matches!(parse("/undo 0"), Some(Slash::Unknown(_))));
        assert!(matches!(parse("/undo x"), Some(Slash::Unknown(_))));
        assert_eq!(parse("/resume"), Some(Slash::Resume(String::new())));
        assert_eq!(parse("/last"), Some(Slash::Last));
        assert_eq!(parse("/diff"), Some(Slash::Diff(false)));
        assert_eq!(parse("/diff session"), Some(Slash::Diff(true)));
        assert!(matches!(parse("/diff x"), Some(Slash::Unknown(_))));
        assert!(matches!(parse("/frob"), Some(Slash::Unknown(h)) if h.contains("/help")));
        assert_eq!(
            parse("/etc/passwd is a path"),
            Some(Slash::Unknown(
                "unknown command /etc/passwd; /help lists the commands".into()
            ))
        );
        assert_eq!(parse("// comment"), None);
        assert_eq!(parse("hello"), None);
    }
}
