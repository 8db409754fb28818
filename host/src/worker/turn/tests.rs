//! In-process tests of the commit rules: a scripted in-memory provider, native interceptors and
//! hooks, the in-memory resolver, and a real session store in a temporary directory. Each test
//! breaks if its rule is broken.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use pretty_assertions::assert_eq;
use serde_json::json;

use super::{TurnOutcome, Worker, WorkerParts};
use crate::config::{Config, FailurePolicy};
use crate::domain::{
    CollectingSink, CompactionInfo, CompactionMarker, Event, Hook, Interceptor, Item,
    PluginFailure, PromptDecision, RequestInfo, Source, StreamEvent, SubmittedPrompt, ToolCall,
    TurnEndDecision, TurnInfo,
};
use crate::fileref::testing::MapResolver;
use crate::fileref::tools::file_tools;
use crate::llm::{CancelToken, LlmError, Provider, Request, Response, StopReason};
use crate::store::{AuditLog, Home, Inbox, SessionWriter, load};
use crate::worker::{ChainEntry, Hooks, ToolRegistry};

/// Answers from a script (then `"done"`), recording every request it receives.
struct Scripted {
    answers: Vec<Response>,
    seen: Arc<Mutex<Vec<Request>>>,
}

fn answer(text: &str) -> Response {
    Response {
        text: text.into(),
        tool_calls: Vec::new(),
        stop_reason: StopReason::EndTurn,
        usage: None,
    }
}

fn tool_answer(id: &str) -> Response {
    Response {
        text: String::new(),
        tool_calls: vec![ToolCall {
            id: id.into(),
            name: "read_file".into(),
            arguments: json!({"path": "a.txt"}),
        }],
        stop_reason: StopReason::ToolUse,
        usage: None,
    }
}

impl Provider for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }

    fn model(&self) -> &str {
        "scripted"
    }

    fn complete(
        &mut self,
        req: &Request,
        on_event: &mut dyn FnMut(&StreamEvent),
        _cancel: &CancelToken,
    ) -> Result<Response, LlmError> {
        self.seen.lock().unwrap().push(req.clone());
        let response = if self.answers.is_empty() {
            answer("done")
        } else {
            self.answers.remove(0)
        };
        on_event(&StreamEvent::TextDelta(response.text.clone()));
        Ok(response)
    }
}

type OnSubmit = Box<dyn FnMut(&SubmittedPrompt) -> PromptDecision + Send>;
type OnRequest = Box<dyn FnMut(&RequestInfo) -> Vec<Item> + Send>;
type OnEnd = Box<dyn FnMut(&TurnInfo) -> TurnEndDecision + Send>;
type OnCompaction = Box<dyn FnMut(&CompactionInfo) -> Vec<Item> + Send>;
type OnPreTool =
    Box<dyn FnMut(&ToolCall) -> Result<crate::domain::ToolDecision, PluginFailure> + Send>;
type OnPostTool = Box<
    dyn FnMut(&ToolCall, &crate::domain::ToolOutput) -> Result<Vec<Item>, PluginFailure> + Send,
>;

/// A native interceptor whose answers are closures.
#[derive(Default)]
struct Native {
    name: String,
    submit: Option<OnSubmit>,
    request: Option<OnRequest>,
    end: Option<OnEnd>,
    compaction: Option<OnCompaction>,
    pre_tool: Option<OnPreTool>,
    post_tool: Option<OnPostTool>,
}

impl Interceptor for Native {
    fn name(&self) -> &str {
        &self.name
    }

    fn on_prompt_submit(
        &mut self,
        prompt: &SubmittedPrompt,
    ) -> Result<PromptDecision, PluginFailure> {
        Ok(self
            .submit
            .as_mut()
            .map_or(PromptDecision::Continue, |f| f(prompt)))
    }

    fn pre_llm_request(&mut self, request: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
        Ok(self.request.as_mut().map_or_else(Vec::new, |f| f(request)))
    }

    fn on_turn_end(&mut self, turn: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
        Ok(self
            .end
            .as_mut()
            .map_or(TurnEndDecision::Finish, |f| f(turn)))
    }

    fn on_compaction(&mut self, info: &CompactionInfo) -> Result<Vec<Item>, PluginFailure> {
        Ok(self.compaction.as_mut().map_or_else(Vec::new, |f| f(info)))
    }

    fn pre_tool_call(
        &mut self,
        call: &ToolCall,
    ) -> Result<crate::domain::ToolDecision, PluginFailure> {
        self.pre_tool
            .as_mut()
            .map_or(Ok(crate::domain::ToolDecision::Allow), |f| f(call))
    }

    fn post_tool_call(
        &mut self,
        call: &ToolCall,
        output: &crate::domain::ToolOutput,
    ) -> Result<Vec<Item>, PluginFailure> {
        self.post_tool
            .as_mut()
            .map_or_else(|| Ok(Vec::new()), |f| f(call, output))
    }
}

/// A hook that fails on every event.
struct Failing;

impl Hook for Failing {
    fn name(&self) -> &str {
        "failing"
    }

    fn on_event(&mut self, _event: &Event) -> Result<(), PluginFailure> {
        Err(PluginFailure::new("failing", "on-event", "always fails"))
    }
}

struct Harness {
    _dir: tempfile::TempDir,
    home: Home,
    worker: Worker,
    seen: Arc<Mutex<Vec<Request>>>,
}

fn harness(
    answers: Vec<Response>,
    chain: Vec<Box<dyn Interceptor>>,
    hooks: Vec<Box<dyn Hook>>,
    config: Config,
) -> Harness {
    let tools = ToolRegistry::with(file_tools(&config.fileref)).unwrap();
    let chain = chain
        .into_iter()
        .map(|plugin| ChainEntry {
            plugin,
            failure: FailurePolicy::Closed,
            shadow: None,
            matcher: None,
        })
        .collect();
    harness_with(answers, chain, hooks, config, tools)
}

fn harness_with(
    answers: Vec<Response>,
    chain: Vec<ChainEntry>,
    hooks: Vec<Box<dyn Hook>>,
    config: Config,
    tools: ToolRegistry,
) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::new(dir.path().join("home"));
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    let writer = SessionWriter::create(&home, Some("s1"), &workspace).unwrap();
    let audit = AuditLog::open(&home, writer.id()).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let worker = Worker::new(WorkerParts {
        writer,
        audit,
        provider: Box::new(Scripted {
            answers,
            seen: seen.clone(),
        }),
        resolver: Box::new(MapResolver::with(&[
            ("a.txt", "alpha\n"),
            ("b.txt", "beta\n"),
        ])),
        chain,
        hooks: Hooks::new(hooks),
        tools,
        config,
    });
    Harness {
        _dir: dir,
        home,
        worker,
        seen,
    }
}

/// (group, source, item) of every committed record, read back from disk.
fn committed(h: &Harness) -> Vec<(u64, Source, Item)> {
    load(&h.home, "s1")
        .unwrap()
        .records
        .into_iter()
        .map(|r| (r.group, r.source, r.item))
        .collect()
}

fn adder(name: &str, text: &'static str) -> Box<dyn Interceptor> {
    Box::new(Native {
        name: name.into(),
        submit: Some(Box::new(move |_| {
            PromptDecision::ContinueWith(vec![Item::system(text)])
        })),
        ..Native::default()
    })
}

#[test]
fn the_prompt_group_is_user_then_files_then_interceptor_items_in_one_commit() {
    let mut h = harness(
        Vec::new(),
        vec![adder("first", "from first"), adder("second", "from second")],
        Vec::new(),
        Config::default(),
    );
    let outcome = h
        .worker
        .submit("read @a.txt and @b.txt", &mut CollectingSink::default())
        .unwrap();
    assert_eq!(
        outcome,
        TurnOutcome::Answered {
            text: "done".into()
        }
    );
    let records = committed(&h);
    assert_eq!(
        records[..5],
        [
            (1, Source::User, Item::user("read @a.txt and @b.txt")),
            (1, Source::FileRef, Item::system("[File: a.txt]\nalpha\n")),
            (1, Source::FileRef, Item::system("[File: b.txt]\nbeta\n")),
            (
                1,
                Source::Plugin("first".into()),
                Item::system("from first")
            ),
            (
                1,
                Source::Plugin("second".into()),
                Item::system("from second")
            ),
        ]
    );
    assert_eq!(records[5], (2, Source::Provider, Item::assistant("done")));
}

#[test]
fn a_cancel_commits_nothing_and_sends_nothing() {
    let cancel = Box::new(Native {
        name: "guard".into(),
        submit: Some(Box::new(|_| PromptDecision::Cancel("no secrets".into()))),
        ..Native::default()
    });
    let mut h = harness(
        Vec::new(),
        vec![adder("before", "never committed"), cancel],
        Vec::new(),
        Config::default(),
    );
    let mut sink = CollectingSink::default();
    let outcome = h.worker.submit("read @a.txt", &mut sink).unwrap();
    assert_eq!(
        outcome,
        TurnOutcome::Cancelled {
            plugin: "guard".into(),
            reason: "no secrets".into()
        }
    );
    assert_eq!(committed(&h), Vec::new());
    assert!(h.seen.lock().unwrap().is_empty());
    assert!(sink.alerts.iter().any(|a| a.message.contains("no secrets")));
}

#[test]
fn notifications_and_pre_request_items_are_committed_before_each_request_exactly_once() {
    let reminder = Box::new(Native {
        name: "reminder".into(),
        request: Some(Box::new(|info: &RequestInfo| {
            vec![Item::system(format!("step {}", info.step))]
        })),
        ..Native::default()
    });
    let mut h = harness(
        vec![tool_answer("t1")],
        vec![reminder],
        Vec::new(),
        Config::default(),
    );
    Inbox::push(&h.home, "s1", "build finished").unwrap();
    h.worker
        .submit("hello", &mut CollectingSink::default())
        .unwrap();

    let requests = h.seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    let notification = Item::system("[Notification] build finished (not a blocking request)");
    // Before the first request: the notification, then the interceptor's item.
    assert_eq!(
        requests[0].items,
        vec![
            Item::user("hello"),
            notification.clone(),
            Item::system("step 0")
        ]
    );
    // Before the second: only the new pre-request item; the notification is not repeated.
    assert_eq!(
        requests[1].items[3..],
        [
            Item::Assistant {
                text: String::new(),
                tool_calls: tool_answer("t1").tool_calls
            },
            Item::ToolResult {
                call_id: "t1".into(),
                content: "alpha\n".into(),
                is_error: false
            },
            Item::system("step 1"),
        ]
    );
    let records = committed(&h);
    let groups: Vec<(u64, Source)> = records.iter().map(|(g, s, _)| (*g, s.clone())).collect();
    assert_eq!(
        groups,
        vec![
            (1, Source::User),
            (2, Source::Notify),
            (2, Source::Plugin("reminder".into())),
            (3, Source::Provider),
            (4, Source::Tool),
            (5, Source::Plugin("reminder".into())),
            (6, Source::Provider),
        ]
    );
    assert_eq!(
        records
            .iter()
            .filter(|(_, s, _)| *s == Source::Notify)
            .count(),
        1
    );
}

#[test]
fn every_request_is_built_from_history_alone() {
    let mut h = harness(
        vec![tool_answer("t1")],
        vec![adder("adder", "context")],
        Vec::new(),
        Config::default(),
    );
    h.worker
        .submit("look at @a.txt", &mut CollectingSink::default())
        .unwrap();
    let records = committed(&h);
    let requests = h.seen.lock().unwrap().clone();
    // Each request holds exactly the history committed before it, in order.
    for request in &requests {
        let n = request.items.len();
        let history: Vec<Item> = records[..n].iter().map(|(_, _, i)| i.clone()).collect();
        assert_eq!(request.items, history);
    }
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].items.len() + 1,
        records.len(),
        "the last answer follows the last request"
    );
}

#[test]
fn continuations_stop_at_their_bound() {
    let again = Box::new(Native {
        name: "again".into(),
        end: Some(Box::new(|_| {
            TurnEndDecision::ContinueWith(vec![Item::system("keep going")])
        })),
        ..Native::default()
    });
    let mut config = Config::default();
    config.worker.max_continuations = 2;
    let mut h = harness(Vec::new(), vec![again], Vec::new(), config);
    let mut sink = CollectingSink::default();
    let outcome = h.worker.submit("go", &mut sink).unwrap();
    assert!(matches!(outcome, TurnOutcome::Answered { .. }));
    assert_eq!(
        h.seen.lock().unwrap().len(),
        3,
        "1 request + 2 continuations"
    );
    let kept = committed(&h)
        .into_iter()
        .filter(|(_, _, i)| *i == Item::system("keep going"))
        .count();
    assert_eq!(kept, 2);
    assert!(
        sink.alerts
            .iter()
            .any(|a| a.message.contains("worker.max_continuations"))
    );
}

#[test]
fn the_tool_loop_stops_at_max_steps() {
    let mut config = Config::default();
    // Under the repeat limit: the same call comes back only twice.
    config.worker.max_steps = 2;
    let answers = (0..10).map(|i| tool_answer(&format!("t{i}"))).collect();
    let mut h = harness(answers, Vec::new(), Vec::new(), config);
    let outcome = h
        .worker
        .submit("loop", &mut CollectingSink::default())
        .unwrap();
    assert!(
        matches!(&outcome, TurnOutcome::Limited { reason } if reason.contains("worker.max_steps")),
        "{outcome:?}"
    );
    assert_eq!(h.seen.lock().unwrap().len(), 2);
}

#[test]
fn a_failing_hook_changes_nothing() {
    let run = |hooks: Vec<Box<dyn Hook>>| {
        let mut h = harness(
            vec![tool_answer("t1")],
            vec![adder("adder", "context")],
            hooks,
            Config::default(),
        );
        let mut sink = CollectingSink::default();
        let outcome = h.worker.submit("see @a.txt", &mut sink).unwrap();
        let items: Vec<(Source, Item)> =
            committed(&h).into_iter().map(|(_, s, i)| (s, i)).collect();
        let requests: Vec<Vec<Item>> = h
            .seen
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.items.clone())
            .collect();
        (outcome, items, requests, sink.alerts)
    };
    let (outcome, items, requests, _) = run(Vec::new());
    let (outcome_f, items_f, requests_f, alerts_f) = run(vec![Box::new(Failing)]);
    assert_eq!(outcome, outcome_f);
    assert_eq!(items, items_f);
    assert_eq!(requests, requests_f);
    // Reported once per turn, not once per event.
    assert_eq!(
        alerts_f
            .iter()
            .filter(|a| a.source == "plugin:failing")
            .count(),
        1
    );
}

#[test]
fn file_items_record_their_metadata_and_dedup_survives_a_resume() {
    let mut h = harness(Vec::new(), Vec::new(), Vec::new(), Config::default());
    h.worker
        .submit("@a.txt", &mut CollectingSink::default())
        .unwrap();
    let loaded = load(&h.home, "s1").unwrap();
    let file = &loaded.records[1];
    assert_eq!(file.files.len(), 1);
    assert_eq!(file.files[0].path, "a.txt");
    assert_eq!(file.files[0].bytes, 6);
    assert_eq!(
        file.files[0].sha256,
        crate::fileref::dedup::digest_hex("alpha\n")
    );

    // A new worker over the same session (a resume) shows the unchanged file as a note.
    drop(h.worker);
    let writer = SessionWriter::open(&h.home, "s1").unwrap();
    let audit = AuditLog::open(&h.home, "s1").unwrap();
    let mut worker = Worker::new(WorkerParts {
        writer,
        audit,
        provider: Box::new(Scripted {
            answers: Vec::new(),
            seen: Arc::new(Mutex::new(Vec::new())),
        }),
        resolver: Box::new(MapResolver::with(&[("a.txt", "alpha\n")])),
        chain: Vec::new(),
        hooks: Hooks::new(Vec::new()),
        tools: ToolRegistry::new(),
        config: Config::default(),
    });
    worker
        .submit("@a.txt again", &mut CollectingSink::default())
        .unwrap();
    let records = load(&h.home, "s1").unwrap().records;
    assert_eq!(
        records[4].item,
        Item::system("[File: a.txt unchanged since it was last shown]")
    );
}

fn sent_items(h: &Harness, request: usize) -> Vec<Item> {
    h.seen.lock().unwrap()[request].items.clone()
}

#[test]
fn compaction_is_one_group_and_the_next_request_starts_at_its_marker() {
    let keeper = Box::new(Native {
        name: "keeper".into(),
        compaction: Some(Box::new(|info| {
            vec![Item::system(format!(
                "kept {}-{} {}",
                info.replaces.from,
                info.replaces.to,
                info.files.join(",")
            ))]
        })),
        ..Native::default()
    });
    let mut h = harness(
        vec![tool_answer("t1"), answer("one"), answer("the summary")],
        vec![keeper],
        Vec::new(),
        Config::default(),
    );
    let mut sink = CollectingSink::default();
    h.worker.submit("read @b.txt", &mut sink).unwrap();
    let before = committed(&h).len() as u64;
    let done = h.worker.compact(&mut sink).unwrap().unwrap();
    assert_eq!(
        done.replaces,
        CompactionMarker {
            from: 1,
            to: before
        }
    );
    // The summary request: everything so far, then the documented prompt.
    let asked = sent_items(&h, 2);
    assert_eq!(asked.len() as u64, before + 1);
    assert_eq!(
        asked.last(),
        Some(&Item::user(crate::domain::SUMMARY_PROMPT))
    );

    let records = load(&h.home, "s1").unwrap().records;
    let group: Vec<_> = records[before as usize..].iter().collect();
    assert!(group.iter().all(|r| r.group == group[0].group));
    assert_eq!(group[0].compaction, Some(done.replaces));
    let shape: Vec<(Source, Item)> = group
        .iter()
        .map(|r| (r.source.clone(), r.item.clone()))
        .collect();
    assert_eq!(
        shape[1..],
        [
            (
                Source::Compaction,
                Item::system("[Summary of the conversation before compaction]\nthe summary")
            ),
            (Source::FileRef, Item::system("[File: b.txt]\nbeta\n")),
            (Source::FileRef, Item::system("[File: a.txt]\nalpha\n")),
            (
                Source::Plugin("keeper".into()),
                Item::system(format!("kept 1-{before} b.txt,a.txt"))
            ),
        ]
    );

    // The next request holds the group (without its marker) and the new turn only; a file
    // re-read by the compaction counts as shown.
    h.worker.submit("again @a.txt", &mut sink).unwrap();
    let sent = sent_items(&h, 3);
    assert_eq!(
        sent[..4],
        shape[1..]
            .iter()
            .map(|(_, i)| i.clone())
            .collect::<Vec<_>>()[..]
    );
    assert_eq!(sent[4], Item::user("again @a.txt"));
    assert_eq!(
        sent[5],
        Item::system("[File: a.txt unchanged since it was last shown]")
    );
    assert_eq!(sent.len(), 6);
}

#[test]
fn a_prompt_past_compact_at_tokens_compacts_what_came_before_it() {
    let mut config = Config::default();
    // The system prompt and tool specs alone are past it: every turn with history compacts.
    config.worker.compact_at_tokens = Some(10);
    let mut h = harness(
        vec![answer("first"), answer("summary of one"), answer("second")],
        Vec::new(),
        Vec::new(),
        config,
    );
    let mut sink = CollectingSink::default();
    h.worker.submit("one @a.txt", &mut sink).unwrap();
    // Nothing to compact before the first prompt: one request only.
    assert_eq!(h.seen.lock().unwrap().len(), 1);
    h.worker.submit("two", &mut sink).unwrap();
    assert_eq!(h.seen.lock().unwrap().len(), 3);
    assert_eq!(
        sent_items(&h, 2),
        [
            Item::system("[Summary of the conversation before compaction]\nsummary of one"),
            Item::system("[File: a.txt]\nalpha\n"),
            Item::user("two"),
        ]
    );
}

/// Without `compact_at_tokens`, the default share of a known window decides; a share of 0
/// (or an unknown window) never compacts.
#[test]
fn the_default_share_of_the_window_compacts_and_zero_turns_it_off() {
    let mut config = Config::default();
    config.model.context_window = Some(100);
    let mut h = harness(
        vec![answer("first"), answer("summary of one"), answer("second")],
        Vec::new(),
        Vec::new(),
        config.clone(),
    );
    assert_eq!(
        h.worker.compaction_limit().map(|(limit, _)| limit),
        Some(85)
    );
    let mut sink = CollectingSink::default();
    h.worker.submit("one", &mut sink).unwrap();
    h.worker.submit("two", &mut sink).unwrap();
    assert_eq!(
        h.seen.lock().unwrap().len(),
        3,
        "a summary request was made"
    );

    config.worker.compact_at_percent = 0;
    let mut h = harness(
        vec![answer("first"), answer("second")],
        Vec::new(),
        Vec::new(),
        config,
    );
    assert_eq!(h.worker.compaction_limit(), None);
    h.worker.submit("one", &mut sink).unwrap();
    h.worker.submit("two", &mut sink).unwrap();
    assert_eq!(h.seen.lock().unwrap().len(), 2);
}

#[test]
fn reported_usage_drives_the_compaction_estimate() {
    let mut config = Config::default();
    config.worker.compact_at_tokens = Some(100_000);
    let mut big = answer("first");
    big.usage = Some(crate::llm::Usage {
        input_tokens: 150_000,
        output_tokens: 10,
        ..Default::default()
    });
    let mut h = harness(
        vec![big, answer("summary"), answer("second")],
        Vec::new(),
        Vec::new(),
        config,
    );
    let mut sink = CollectingSink::default();
    h.worker.submit("one", &mut sink).unwrap();
    h.worker.submit("two", &mut sink).unwrap();
    let seen = h.seen.lock().unwrap();
    assert_eq!(
        seen.len(),
        3,
        "the reported usage did not trigger compaction"
    );
    assert_eq!(
        seen[1].items.last(),
        Some(&Item::user(crate::domain::SUMMARY_PROMPT))
    );
}

#[test]
fn without_reported_usage_small_sessions_are_not_compacted() {
    let mut config = Config::default();
    config.worker.compact_at_tokens = Some(100_000);
    let mut h = harness(Vec::new(), Vec::new(), Vec::new(), config);
    let mut sink = CollectingSink::default();
    h.worker.submit("one", &mut sink).unwrap();
    h.worker.submit("two", &mut sink).unwrap();
    assert_eq!(h.seen.lock().unwrap().len(), 2);
}

/// An interceptor that fails at the `compaction` point.
struct FailsAtCompaction;

impl Interceptor for FailsAtCompaction {
    fn name(&self) -> &str {
        "fragile"
    }
    fn on_prompt_submit(&mut self, _: &SubmittedPrompt) -> Result<PromptDecision, PluginFailure> {
        Ok(PromptDecision::Continue)
    }
    fn pre_llm_request(&mut self, _: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
        Ok(Vec::new())
    }
    fn on_turn_end(&mut self, _: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
        Ok(TurnEndDecision::Finish)
    }
    fn on_compaction(&mut self, _: &CompactionInfo) -> Result<Vec<Item>, PluginFailure> {
        Err(PluginFailure::new("fragile", "compaction", "broken"))
    }
}

#[test]
fn a_closed_failure_at_compaction_commits_none_of_it() {
    let mut config = Config::default();
    config.worker.compact_at_tokens = Some(10);
    let mut h = harness(
        Vec::new(),
        vec![Box::new(FailsAtCompaction)],
        Vec::new(),
        config,
    );
    let mut sink = CollectingSink::default();
    h.worker.submit("one", &mut sink).unwrap();
    let before = committed(&h);
    // On demand: an error, nothing committed.
    assert!(h.worker.compact(&mut sink).is_err());
    assert_eq!(committed(&h), before);
    // Automatically: a warning, and the turn goes on uncompacted.
    let outcome = h.worker.submit("two", &mut sink).unwrap();
    assert!(matches!(outcome, TurnOutcome::Answered { .. }));
    assert!(
        sink.alerts
            .iter()
            .any(|a| a.message.contains("compaction failed")),
        "{:?}",
        sink.alerts
    );
    assert!(
        committed(&h)
            .iter()
            .all(|(_, s, _)| *s != Source::Compaction)
    );
    let last = h.seen.lock().unwrap().last().unwrap().items.clone();
    assert_eq!(last[0], Item::user("one"));
}

mod modes;
mod tool_calls;

/// Every call point of a turn is in the audit log, in the order it happened, referring to the
/// history by sequence number; each written with a batch the turn writes anyway.
#[test]
fn every_call_point_is_recorded_in_turn_order_by_reference_to_the_history() {
    use crate::store::{AuditEvent, PointEndRecord, PointInputRecord, read_audit};

    let mut h = harness(
        vec![tool_answer("c1"), answer("done")],
        vec![adder("kw", "ctx")],
        Vec::new(),
        Config::default(),
    );
    let outcome = h
        .worker
        .submit("read @b.txt", &mut CollectingSink::default())
        .unwrap();
    assert_eq!(
        outcome,
        TurnOutcome::Answered {
            text: "done".into()
        }
    );
    let records = load(&h.home, "s1").unwrap().records;
    let seq_of = |pick: &dyn Fn(&Item) -> bool| {
        records
            .iter()
            .find(|r| pick(&r.item))
            .map(|r| r.seq)
            .unwrap()
    };
    let user = seq_of(&|i| matches!(i, Item::User { .. }));
    let file = seq_of(&|i| i.text().starts_with("[File: b.txt"));
    let ctx = seq_of(&|i| i.text() == "ctx");
    let done = seq_of(&|i| i.text() == "done");

    let audit: Vec<AuditEvent> = read_audit(&h.home, "s1")
        .unwrap()
        .0
        .into_iter()
        .map(|r| r.event)
        .filter(|e| {
            matches!(
                e,
                AuditEvent::Point(_)
                    | AuditEvent::ModelRequest { .. }
                    | AuditEvent::ToolCall { .. }
            )
        })
        .collect();
    let shown: Vec<String> = audit
        .iter()
        .map(|e| match e {
            AuditEvent::Point(p) => format!("{:?} {:?} {:?}", p.input, p.end, p.added),
            AuditEvent::ModelRequest { items, .. } => format!("request of {items} items"),
            AuditEvent::ToolCall { call_id, .. } => format!("tool call {call_id}"),
            _ => unreachable!(),
        })
        .collect();
    let point = |input: PointInputRecord, added: Vec<u64>| {
        format!("{input:?} {:?} {added:?}", PointEndRecord::Done)
    };
    assert_eq!(
        shown,
        vec![
            point(
                PointInputRecord::OnPromptSubmit {
                    items: vec![user, file]
                },
                vec![ctx]
            ),
            point(
                PointInputRecord::PreLlmRequest {
                    step: 0,
                    history_items: 3
                },
                Vec::new()
            ),
            "request of 3 items".to_owned(),
            "tool call c1".to_owned(),
            point(
                PointInputRecord::PostToolCall {
                    call_id: "c1".into(),
                    arguments: None
                },
                Vec::new()
            ),
            point(
                PointInputRecord::PreLlmRequest {
                    step: 1,
                    history_items: 5
                },
                Vec::new()
            ),
            "request of 5 items".to_owned(),
            point(
                PointInputRecord::OnTurnEnd {
                    answer: done,
                    continuations: 0
                },
                Vec::new()
            ),
        ]
    );
}

#[path = "served_tests.rs"]
mod served;
