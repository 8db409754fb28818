//! The line editor: Emacs keys, multi-line input (Alt-Enter, or a trailing `\`), input history
//! kept per workspace under `$WARDEN_HOME/chat-history/`, and the `@` completion menu.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use reedline::{
    ColumnarMenu, EditCommand, Emacs, FileBackedHistory, KeyCode, KeyModifiers, MenuBuilder,
    Prompt, PromptEditMode, PromptHistorySearch, Reedline, ReedlineEvent, ReedlineMenu,
    ValidationResult, Validator, default_emacs_keybindings,
};
use sha2::{Digest, Sha256};

use super::completer::MentionCompleter;
use super::menu::MentionMenu;
use crate::complete::BackgroundIndex;
use crate::store::Home;

const MENU: &str = "completion_menu";
/// What Shift-Tab hands back to the chat (as `Signal::HostCommand`): the next mode.
pub(crate) const NEXT_MODE: &str = "next-mode";
const HISTORY_SIZE: usize = 10_000;

/// The history file of `workspace`: one per workspace, named by a digest of its path.
pub(crate) fn history_file(home: &Home, workspace: &Path) -> PathBuf {
    let digest = hex::encode(Sha256::digest(workspace.as_os_str().as_encoded_bytes()));
    home.root()
        .join("chat-history")
        .join(format!("{}.txt", &digest[..16]))
}

/// The editor for one chat; a history file that cannot be used is reported in the result's
/// second part and the editor keeps its history in memory.
pub(crate) fn build(
    home: &Home,
    workspace: &Path,
    index: BackgroundIndex,
    resources: Vec<String>,
) -> (Reedline, Option<String>) {
    let mut keys = default_emacs_keybindings();
    // Tab opens the menu or inserts the selected entry (Enter does too while the menu is open,
    // unless the selection is what was typed: then Enter submits, see `MentionMenu`).
    keys.add_binding(
        KeyModifiers::NONE,
        KeyCode::Tab,
        ReedlineEvent::UntilFound(vec![
            ReedlineEvent::Menu(MENU.to_owned()),
            ReedlineEvent::MenuAccept,
        ]),
    );
    // Shift-Tab cycles the permission mode; what is typed stays on the line.
    for modifiers in [KeyModifiers::SHIFT, KeyModifiers::NONE] {
        keys.add_binding(
            modifiers,
            KeyCode::BackTab,
            ReedlineEvent::ExecuteHostCommand(NEXT_MODE.to_owned()),
        );
    }
    keys.add_binding(
        KeyModifiers::ALT,
        KeyCode::Enter,
        ReedlineEvent::Edit(vec![EditCommand::InsertNewline]),
    );
    // Typing `@` opens the menu, which then narrows with every key.
    let at = ReedlineEvent::Multiple(vec![
        ReedlineEvent::Edit(vec![EditCommand::InsertChar('@')]),
        ReedlineEvent::Menu(MENU.to_owned()),
    ]);
    keys.add_binding(KeyModifiers::NONE, KeyCode::Char('@'), at.clone());
    keys.add_binding(KeyModifiers::SHIFT, KeyCode::Char('@'), at);

    let menu = ColumnarMenu::default().with_name(MENU).with_columns(1);
    let mut editor = Reedline::create()
        .with_edit_mode(Box::new(Emacs::new(keys)))
        .with_completer(Box::new(MentionCompleter::new(index, resources)))
        .with_menu(ReedlineMenu::EngineCompleter(Box::new(MentionMenu::new(
            menu,
        ))))
        // No quick completions: a lone candidate would be inserted the moment `@` opens the
        // menu, and what the person types next would land behind it.
        .with_quick_completions(false)
        .with_validator(Box::new(TrailingBackslash));

    let path = history_file(home, workspace);
    let problem = match path
        .parent()
        .map(std::fs::create_dir_all)
        .unwrap_or(Ok(()))
        .map_err(|e| e.to_string())
        .and_then(|()| {
            FileBackedHistory::with_file(HISTORY_SIZE, path.clone()).map_err(|e| e.to_string())
        }) {
        Ok(history) => {
            editor = editor.with_history(Box::new(history));
            None
        }
        Err(err) => Some(format!(
            "input history not kept ({}: {err})",
            path.display()
        )),
    };
    (editor, problem)
}

/// A line ending in `\` continues on the next line.
struct TrailingBackslash;

impl Validator for TrailingBackslash {
    fn validate(&self, line: &str) -> ValidationResult {
        if line.ends_with('\\') && !line.ends_with("\\\\") {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Complete
        }
    }
}

/// The submitted text: a `\` that continued a line is dropped.
pub(crate) fn joined(buffer: &str) -> String {
    buffer.replace("\\\n", "\n")
}

/// `warden ›` on the first line, `      …` on the next ones.
pub(crate) struct ChatPrompt;

impl Prompt for ChatPrompt {
    fn render_prompt_left(&self) -> Cow<'_, str> {
        Cow::Borrowed("warden")
    }

    fn render_prompt_right(&self) -> Cow<'_, str> {
        Cow::Borrowed("")
    }

    fn render_prompt_indicator(&self, _mode: PromptEditMode) -> Cow<'_, str> {
        Cow::Borrowed(" › ")
    }

    fn render_prompt_multiline_indicator(&self) -> Cow<'_, str> {
        Cow::Borrowed("       … ")
    }

    fn render_prompt_history_search_indicator(&self, search: PromptHistorySearch) -> Cow<'_, str> {
        Cow::Owned(format!("(search: {}) ", search.term))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trailing_backslash_continues_the_line() {
        assert!(matches!(
            TrailingBackslash.validate("first \\"),
            ValidationResult::Incomplete
        ));
        assert!(matches!(
            TrailingBackslash.validate("done"),
            ValidationResult::Complete
        ));
        assert!(matches!(
            TrailingBackslash.validate("a literal \\\\"),
            ValidationResult::Complete
        ));
        assert_eq!(joined("one \\\ntwo"), "one \ntwo");
    }

    #[test]
    fn one_history_file_per_workspace() {
        let home = Home::new("/state");
        let a = history_file(&home, Path::new("/w/a"));
        let b = history_file(&home, Path::new("/w/b"));
        assert_ne!(a, b);
        assert!(a.starts_with("/state/chat-history"));
    }
}
