//! Slash commands: `/help`, `/session`, `/resume [ID]`, `/new`, `/plugins`, `/mcp`,
//! `/preview [--full] PROMPT`,
//! `/compact`, `/config`, `/mode [MODE]`, `/rules [remove ID]`, `/undo [N]`, `/last`,
//! `/diff [session]`, `/cost`, `/clear`, `/model [NAME]`, `/init`, `/status`, `/context`, `/quit`; and the nearest command
//! suggested for a mistyped one.

/// A parsed slash command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Slash {
    /// List the commands and keys.
    Help,
    /// Id, workspace, items and file of the session.
    Session,
    /// Continue another session of this workspace (by id or prefix; empty: pick from a list).
    Resume(String),
    /// Start a new session (`/new`, `/clear`).
    New,
    /// Session, model, mode, workspace and how full the window is.
    Status,
    /// What fills the model's window: system prompt, history by kind, tool results, files.
    Context,
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
    /// Write `AGENTS.md` from a survey of the repository by the model.
    Init,
    /// Show the model, or name another of the same provider for this chat.
    Model(Option<String>),
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
  /new, /clear     start a new session (the current one stays resumable)
  /status          session, model, permission mode, workspace and how full the window is
  /context         what fills the model's window: system prompt, history by kind, tool
                   results and files, in tokens and as a share of the window
  /plugins         loaded plugins: world, sha256, failure policy, calls and failures
  /mcp             MCP servers: state (started, or failed and why) and tools
  /preview PROMPT  what PROMPT would commit: headers and sizes (no model call, nothing
                   written); /preview --full PROMPT shows the whole bodies
  /compact         summarise the session and re-read its files; history keeps everything
  /config          effective configuration and the files it came from
  /init            ask the model to survey the repository and write AGENTS.md from its
                   answer (an existing file is replaced only if you say yes)
  /model [NAME]    show the model, or switch to model NAME of the same provider for this
                   chat (unless managed policy locks `model.name`)
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
  Esc              interrupt the running answer (as Ctrl-C)
  Shift-Tab        the next permission mode (up to what managed policy allows)
  !COMMAND         run COMMAND in the sandbox; its output joins the conversation
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
        ("new" | "clear", true) => Slash::New,
        ("status", true) => Slash::Status,
        ("context", true) => Slash::Context,
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
        ("init", true) => Slash::Init,
        ("model", true) => Slash::Model(None),
        ("model", false) => Slash::Model(Some(arg.to_owned())),
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
        _ => Slash::Unknown(unknown(name)),
    })
}

/// Every command's name, for the suggestion after a typo.
const NAMES: &[&str] = &[
    "help", "session", "resume", "new", "clear", "plugins", "mcp", "preview", "compact", "config",
    "mode", "rules", "undo", "last", "diff", "cost", "status", "context", "model", "init", "quit",
    "exit",
];

/// The hint for an unknown command `name`: the nearest command when one is within a couple of
/// edits of it (`/hlep` → `/help`), and where the list is.
fn unknown(name: &str) -> String {
    match nearest(name) {
        Some(near) => {
            format!("unknown command /{name}; did you mean /{near}? /help lists the commands")
        }
        None => format!("unknown command /{name}; /help lists the commands"),
    }
}

/// The command nearest to `name` by edit distance, when close enough to be a typo: at most one
/// edit for a short name, two for a longer one.
fn nearest(name: &str) -> Option<&'static str> {
    let name = name.to_ascii_lowercase();
    let limit = if name.chars().count() <= 3 { 1 } else { 2 };
    NAMES
        .iter()
        .map(|candidate| (distance(&name, candidate), *candidate))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, candidate)| candidate)
}

/// The Levenshtein distance between `a` and `b`, in characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands_and_hints_at_the_rest() {
        assert_eq!(parse("/help"), Some(Slash::Help));
        assert_eq!(parse("  /session "), Some(Slash::Session));
        assert_eq!(parse("/mcp"), Some(Slash::Mcp));
        assert_eq!(parse("/clear"), Some(Slash::New));
        assert_eq!(parse("/model"), Some(Slash::Model(None)));
        assert_eq!(parse("/init"), Some(Slash::Init));
        assert_eq!(
            parse("/model gpt-x"),
            Some(Slash::Model(Some("gpt-x".into())))
        );
        assert_eq!(parse("/status"), Some(Slash::Status));
        assert_eq!(parse("/context"), Some(Slash::Context));
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
        assert_eq!(
            parse("/hlep"),
            Some(Slash::Unknown(
                "unknown command /hlep; did you mean /help? /help lists the commands".into()
            ))
        );
        assert!(matches!(parse("/comapct"), Some(Slash::Unknown(h)) if h.contains("/compact?")));
        assert_eq!(parse("// comment"), None);
        assert_eq!(parse("hello"), None);
    }
}
