//! The `@` completion menu: reedline's columnar menu with two changes. An empty menu says
//! "no matching files" (not reedline's `NO RECORDS FOUND`), and when taking the selection would
//! leave the line as it is (the path is typed in full), the menu offers nothing to take, so
//! Enter submits the prompt at once instead of being spent on a no-op insertion.

use reedline::{
    ColumnarMenu, Completer, Editor, Menu, MenuEvent, MenuSettings, Painter, Suggestion,
    UndoBehavior,
};

/// What an empty menu shows.
pub(crate) const NO_MATCHES: &str = "no matching files";

/// See the module documentation.
pub(crate) struct MentionMenu {
    inner: ColumnarMenu,
    /// Taking the selection would change nothing; computed each time the menu is laid out
    /// for the line on screen, and cleared by any event until then.
    settled: bool,
}

impl MentionMenu {
    pub(crate) fn new(inner: ColumnarMenu) -> Self {
        Self {
            inner,
            settled: false,
        }
    }

    /// Whether taking the selection leaves `editor`'s line as it is, but for the blank a file
    /// completion adds.
    fn accept_changes_nothing(&self, editor: &Editor) -> bool {
        let line = editor.get_buffer();
        let values = self.inner.get_values();
        let Some(span) = values.first().map(|v| v.span) else {
            return false;
        };
        let Some(typed) = line.get(span.start..span.end) else {
            return false;
        };
        // Only a line whose mention is one of the offered paths can be settled.
        if !values.iter().any(|v| v.value == typed) {
            return false;
        }
        let mut scratch = Editor::default();
        scratch.edit_buffer(
            |buffer| {
                buffer.set_buffer(line.to_owned());
                buffer.set_insertion_point(span.end);
            },
            UndoBehavior::NoOp,
        );
        self.inner.replace_in_buffer(&mut scratch);
        let after = scratch.get_buffer();
        after == line || after == format!("{} {}", &line[..span.end], &line[span.end..])
    }
}

impl Menu for MentionMenu {
    fn settings(&self) -> &MenuSettings {
        self.inner.settings()
    }

    fn name(&self) -> &str {
        self.inner.name()
    }

    fn indicator(&self) -> &str {
        self.inner.indicator()
    }

    fn is_active(&self) -> bool {
        self.inner.is_active()
    }

    fn set_active(&mut self, active: bool) {
        self.inner.set_active(active);
    }

    fn clear_input(&mut self) {
        self.inner.clear_input();
    }

    fn on_activate(&mut self) {
        self.inner.on_activate();
    }

    fn on_deactivate(&mut self) {
        self.inner.on_deactivate();
    }

    fn handle_menu_event(&mut self, event: &MenuEvent) {
        self.settled = false;
        self.inner.handle_menu_event(event);
    }

    fn menu_event(&mut self, event: MenuEvent) {
        self.settled = false;
        self.inner.menu_event(event);
    }

    fn can_quick_complete(&self) -> bool {
        self.inner.can_quick_complete()
    }

    fn can_partially_complete(
        &mut self,
        values_updated: bool,
        editor: &mut Editor,
        completer: &mut dyn Completer,
    ) -> bool {
        self.settled = false;
        self.inner
            .can_partially_complete(values_updated, editor, completer)
    }

    fn update_values(&mut self, editor: &mut Editor, completer: &mut dyn Completer) {
        self.inner.update_values(editor, completer);
        self.settled = self.accept_changes_nothing(editor);
    }

    fn reset_position(&mut self) {
        self.inner.reset_position();
    }

    fn update_working_details(
        &mut self,
        editor: &mut Editor,
        completer: &mut dyn Completer,
        painter: &Painter,
    ) {
        self.inner
            .update_working_details(editor, completer, painter);
        self.settled = self.accept_changes_nothing(editor);
    }

    fn replace_in_buffer(&self, editor: &mut Editor) {
        self.inner.replace_in_buffer(editor);
    }

    fn menu_required_lines(&self, terminal_columns: u16) -> u16 {
        self.inner.menu_required_lines(terminal_columns)
    }

    fn menu_string(&self, available_lines: u16, use_ansi_coloring: bool) -> String {
        let drawn = self.inner.menu_string(available_lines, use_ansi_coloring);
        // Empty values draw nothing while results are awaited, and reedline's notice after.
        if self.inner.get_values().is_empty() && !drawn.is_empty() {
            return NO_MATCHES.to_owned();
        }
        drawn
    }

    fn min_rows(&self) -> u16 {
        self.inner.min_rows()
    }

    /// Nothing to take once the selection is what was typed: reedline then lets Enter through
    /// to submit, and Tab does nothing.
    fn get_values(&self) -> &[Suggestion] {
        if self.settled {
            &[]
        } else {
            self.inner.get_values()
        }
    }

    fn results_are_provisional(&self) -> bool {
        self.inner.results_are_provisional()
    }

    fn is_awaiting_first_answer(&self) -> bool {
        self.inner.is_awaiting_first_answer()
    }

    fn set_cursor_pos(&mut self, pos: (u16, u16)) {
        self.inner.set_cursor_pos(pos);
    }
}
