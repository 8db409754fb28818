//! Sample interceptor: keeps a task list from its configuration and, before a model request,
//! reminds the model of it with a `<system-reminder>` item — at the first request it sees,
//! then again once `every` requests have passed without a reminder. The item is committed to
//! history like any other, so the model sees it, a resume keeps it, and an export shows it.
//!
//! Config: `tasks` (required; tasks separated by `;` or newlines, blanks ignored — an empty
//! list never reminds), `every` (requests between reminders, default 5, at least 1).

use warden_plugin::interceptor::{Interceptor, RequestInfo};
use warden_plugin::{Config, Item};

/// The reminder's state: the tasks and how many requests ago it last reminded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoReminder {
    tasks: Vec<String>,
    every: u32,
    since: Option<u32>,
}

impl TodoReminder {
    /// A reminder of `tasks` every `every` requests.
    pub fn new(tasks: &str, every: u32) -> Result<Self, String> {
        if every == 0 {
            return Err("config key `every` must be at least 1".to_owned());
        }
        let tasks = tasks
            .split([';', '\n'])
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect();
        Ok(Self {
            tasks,
            every,
            since: None,
        })
    }

    /// The reminder text due before this request, if one is due.
    pub fn next_request(&mut self) -> Option<String> {
        if self.tasks.is_empty() {
            return None;
        }
        let due = self.since.is_none_or(|n| n + 1 >= self.every);
        if !due {
            self.since = self.since.map(|n| n + 1);
            return None;
        }
        self.since = Some(0);
        let mut text = String::from("<system-reminder>\nOpen tasks (todo-reminder):\n");
        for task in &self.tasks {
            text.push_str("- ");
            text.push_str(task);
            text.push('\n');
        }
        text.push_str("</system-reminder>");
        Some(text)
    }
}

impl Interceptor for TodoReminder {
    fn init(config: Config) -> Result<Self, String> {
        Self::new(config.require("tasks")?, config.parse_or("every", 5)?)
    }

    fn pre_llm_request(&mut self, request: RequestInfo) -> Vec<Item> {
        let _ = request;
        self.next_request().map(Item::system).into_iter().collect()
    }
}

// The logic above is tested natively; the export exists only in the component.
#[cfg(target_arch = "wasm32")]
warden_plugin::export_interceptor!(TodoReminder);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reminds_first_then_every_n_requests() {
        let mut r =
            TodoReminder::new("write tests; update docs\n\n", 3).unwrap_or_else(|e| panic!("{e}"));
        let due: Vec<bool> = (0..7).map(|_| r.next_request().is_some()).collect();
        assert_eq!(due, [true, false, false, true, false, false, true]);
        let mut r = TodoReminder::new("a;b", 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            r.next_request().as_deref(),
            Some("<system-reminder>\nOpen tasks (todo-reminder):\n- a\n- b\n</system-reminder>")
        );
        assert!(r.next_request().is_some());
    }

    #[test]
    fn an_empty_list_never_reminds_and_every_must_be_positive() {
        let mut r = TodoReminder::new(" ; \n", 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.next_request(), None);
        assert!(TodoReminder::new("a", 0).is_err());
    }
}
