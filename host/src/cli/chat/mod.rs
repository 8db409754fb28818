//! `warden chat [-C DIR] [--resume [ID] | --continue] [--no-history]`: the interactive front
//! end. It is a client of the worker: it reads prompts, hands them to [`Worker::submit`] and
//! prints what comes back.
//!
//! - [`editor`]: the line editor (keys, history, multi-line input).
//! - [`completer`], [`mention`] and [`menu`]: `@` completion over the workspace index.
//! - [`sink`], [`spinner`], [`style`]: the transcript of a turn, its answer rendered by
//!   [`markdown`] block by block as [`blocks`] close; [`approve`]: asking about a
//!   tool call of a plugin marked `approve = "ask"` or one the permission mode asks about,
//!   with an edit's diff ([`edit_preview`]).
//! - [`slash`]: slash commands; [`status`]: `/status` and `/context`; [`init`]: `/init`; [`counted`]: the
//!   `/plugins` table; [`dev_reload`]: dev builds
//!   (`warden plugin dev`) rebuilt while the chat runs, loaded again before the next turn.
//! - [`assemble`]: the worker this chat talks to; [`typeahead`]: text typed during a turn is
//!   kept for the next prompt, and keys typed before an approval question never answer it.
//! - [`resume`]: the session it starts on or switches to (`--resume`, `/resume`, the picker),
//!   and the earlier exchanges shown on resume.

mod approve;
mod assemble;
mod blocks;
mod completer;
mod counted;
mod dev_reload;
mod edit_preview;
mod editor;
mod highlight;
mod init;
mod markdown;
mod mention;
mod menu;
mod resume;
mod sink;
mod slash;
mod spinner;
mod style;
mod typeahead;

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};

use reedline::Signal;

use super::common::home;
use super::exit::{CliError, EXIT_OK};
use super::trust::{WhenWaiting, load_config_trusted};
use crate::complete::BackgroundIndex;
use crate::config::Loaded;
use crate::domain::{Alert, Mode};
use crate::fileref;
use crate::llm::CancelToken;
use crate::store::Home;
use crate::worker::{TurnOutcome, Worker};
use counted::PluginRow;
use sink::ChatSink;
use slash::Slash;
use style::Style;

/// Run the chat until the person leaves; `recap`: show the last exchanges on resume.
pub(crate) fn chat(
    dir: Option<&Path>,
    resume: Option<String>,
    continue_last: bool,
    parent: Option<&str>,
    recap: bool,
    model: &super::run::ModelFlags,
    mode: &super::mode::ModeFlag,
) -> Result<u8, CliError> {
    let home = home()?;
    // What was asked is checked first (unknown ids, another workspace named by -C), and nothing
    // is created before the terminal is.
    let (mut workspace, start) =
        resume::start(&home, dir, resume.as_deref(), continue_last, parent)?;
    resume::require_terminal()?;
    let style = Style::detect();
    let session = match start {
        resume::Start::Pick => resume::pick_at_start(&home, dir, &mut workspace, style)?,
        resume::Start::Resume(ref id) => Some(id.clone()),
        resume::Start::NothingToContinue => {
            eprintln!(
                "{}",
                style.dim("no earlier session of this workspace: starting a new one")
            );
            None
        }
        resume::Start::New | resume::Start::Child(_) => None,
    };
    let mut loaded = load_config_trusted(&workspace, &home, WhenWaiting::Ask)?;
    super::tracked_denied::warn_tracked_denied(&workspace, &loaded.config.fileref.deny);
    for warning in model.apply(&mut loaded.config)? {
        super::common::print_alert(&Alert::warn("config", warning));
    }
    mode.apply(&mut loaded)?;
    let index = BackgroundIndex::spawn(workspace.clone(), loaded.config.fileref.deny.clone());
    // A child session of `parent`: created here, reported to the parent at each turn's end.
    let session = match start {
        resume::Start::Child(parent) => Some(
            crate::store::SessionWriter::create_child(&home, &workspace, &parent)
                .map_err(|err| CliError::usage(err.to_string()))?
                .id()
                .to_owned(),
        ),
        _ => session,
    };
    let telemetry = super::common::start_telemetry(&loaded.config.telemetry, &home);
    let assemble::Assembled {
        worker,
        plugins,
        mcp,
        dev,
    } = assemble::assemble(&loaded.config, &workspace, &home, session.as_deref())?;
    let trace = crate::telemetry::enter_session(worker.session_id(), worker.parent_session());
    let files = edit_preview::Files::new(&workspace, &loaded.config.fileref.deny).map(Rc::new);
    let mut chat = Chat {
        worker,
        files,
        plugins,
        mcp,
        dev,
        loaded,
        home,
        workspace,
        style,
        recap,
        cancel: Arc::new(Mutex::new(CancelToken::new())),
        last: None,
        turn_changes: Vec::new(),
        trace: Some(trace),
    };
    let code = chat.run(index);
    chat.end_session("prompt_input_exit");
    chat.trace = None;
    // Export is flushed and its losses said after the terminal is given back.
    drop(telemetry);
    code
}

struct Chat {
    worker: Worker,
    /// Reads workspace files for an edit's diff in an approval.
    files: Option<Rc<edit_preview::Files>>,
    plugins: Vec<PluginRow>,
    /// The MCP servers as started, for `/mcp`.
    mcp: Vec<crate::mcp::ServerRow>,
    /// The dev builds loaded, reloaded before a turn when rebuilt.
    dev: dev_reload::DevBuilds,
    loaded: Loaded,
    home: Home,
    workspace: PathBuf,
    style: Style,
    /// Show the last exchanges on resume (not with `--no-history`).
    recap: bool,
    /// The running turn's token, cancelled by Ctrl-C or Esc.
    cancel: Arc<Mutex<CancelToken>>,
    /// The last command's output (`/last`).
    last: Option<sink::LastOutput>,
    /// What the last turn changed (`/diff`).
    turn_changes: Vec<crate::domain::FileChange>,
    /// The session whose trace the turns' spans join (see docs/telemetry.md).
    trace: Option<crate::telemetry::SessionTrace>,
}

impl Chat {
    /// The session is left (the chat ends, `/new`, `/resume`; `reason` as `SessionEnd` hooks
    /// are told it): those hooks run, then its audit head is signed when `[audit] sign_key`
    /// says so; a failure is said.
    fn end_session(&mut self, reason: &str) {
        self.worker.end_session(reason);
        let id = self.worker.session_id();
        let Some(signed) =
            crate::worker::audit_sign::end_session(&self.home, id, &self.loaded.config.audit)
        else {
            return;
        };
        match crate::worker::audit_sign::describe(id, &signed) {
            Ok(line) => eprintln!("{}", self.style.dim(&line)),
            Err(problem) => eprintln!("{}", self.style.alert(&Alert::warn("audit", problem))),
        }
    }

    /// The worker switched to another session (`/new`, `/resume`): its turns join that
    /// session's trace, not the first one's.
    fn trace_switched_session(&mut self) {
        // One session's context at a time: the old one is left before the new one is entered.
        self.trace = None;
        // A child session resumed links to its parent's trace, as when it was started.
        self.trace = Some(crate::telemetry::enter_session(
            self.worker.session_id(),
            self.worker.parent_session(),
        ));
    }

    fn run(&mut self, index: BackgroundIndex) -> Result<u8, CliError> {
        if let Err(err) = typeahead::esc_interrupts(Arc::clone(&self.cancel)) {
            tracing::debug!("{err}");
        }
        let current = Arc::clone(&self.cancel);
        if let Err(err) = ctrlc::set_handler(move || {
            current
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .cancel();
        }) {
            tracing::debug!("no Ctrl-C handler: {err}");
        }
        let resources = self
            .mcp
            .iter()
            .flat_map(|row| {
                row.resources
                    .iter()
                    .map(|uri| format!("{}:{uri}", row.name))
            })
            .collect();
        let (mut editor, problem) = editor::build(&self.home, &self.workspace, index, resources);
        if let Some(problem) = problem {
            eprintln!("{}", self.style.alert(&Alert::warn("chat", problem)));
        }
        let items = self.worker.history().len();
        let resumed = if items > 0 {
            format!(" (resumed, {items} items)")
        } else {
            String::new()
        };
        let model = &self.loaded.config.model;
        let provider = self.provider_name();
        let name = model
            .name
            .as_deref()
            .unwrap_or_else(|| crate::llm::default_model(model.provider));
        eprintln!(
            "{}",
            self.style.dim(&format!(
                "warden chat · {provider} · {name} · session {}{resumed} · /help for commands · \
                 Ctrl-D to leave",
                self.worker.session_id()
            ))
        );
        self.show_recap();
        loop {
            let ahead = typeahead::take_set_aside();
            if !ahead.is_empty() {
                editor.run_edit_commands(&[reedline::EditCommand::InsertString(ahead)]);
            }
            match editor.read_line(&editor::ChatPrompt) {
                Ok(Signal::Success(buffer)) => {
                    // Trailing blanks (the space a completion adds) are not part of the prompt.
                    let text = editor::joined(&buffer).trim_end().to_owned();
                    if text.trim().is_empty() {
                        continue;
                    }
                    if let Some(command) = text.trim_start().strip_prefix('!') {
                        self.person_command(command.trim());
                        continue;
                    }
                    match slash::parse(&text) {
                        Some(Slash::Quit) => break,
                        Some(command) => self.command(command),
                        None => {
                            self.turn(&text);
                        }
                    }
                }
                Ok(Signal::HostCommand(command)) if command == editor::NEXT_MODE => {
                    // The line editor left the cursor on the prompt's line: what is said goes
                    // below it, and the prompt is drawn again under that with its text.
                    eprintln!();
                    self.next_mode();
                }
                Ok(Signal::CtrlD) => break,
                Ok(_) => continue,
                Err(err) => {
                    self.goodbye();
                    return Err(CliError::failure(format!("terminal: {err}")));
                }
            }
        }
        self.goodbye();
        Ok(EXIT_OK)
    }

    /// The configured provider's name as configuration writes it.
    fn provider_name(&self) -> String {
        serde_json::to_value(self.loaded.config.model.provider)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    /// `!COMMAND`: the person's own command, run in the sandbox as the `shell` tool runs one;
    /// what it printed joins the conversation for the model's next request.
    fn person_command(&mut self, command: &str) {
        if command.is_empty() {
            eprintln!(
                "usage: !COMMAND (runs COMMAND in the sandbox; its output joins the conversation)"
            );
            return;
        }
        let token = self.worker.new_cancel_token();
        *self.cancel.lock().unwrap_or_else(PoisonError::into_inner) = token.clone();
        let mut sink = ChatSink::new(self.style).with_cancel(token);
        let typeahead = typeahead::KeepTypeahead::start();
        let result = self.worker.run_person_command(&mut sink, command);
        drop(typeahead);
        sink.settle();
        if sink.last.is_some() {
            self.last = sink.last.take();
        }
        match result {
            Ok(_) => eprintln!(
                "{}",
                self.style
                    .dim("  (its output is in the conversation: the model reads it next turn)")
            ),
            Err(err) => eprintln!(
                "{}",
                self.style.alert(&Alert::error("chat", err.to_string()))
            ),
        }
    }

    fn goodbye(&self) {
        let id = self.worker.session_id();
        eprintln!("session {id}");
        eprintln!("resume with: warden chat --resume {id}");
    }

    /// One turn; Ctrl-C cancels it and nothing partial is committed. Returns the answer when
    /// the model answered.
    fn turn(&mut self, text: &str) -> Option<String> {
        self.reload_dev_builds();
        let token = self.worker.new_cancel_token();
        *self.cancel.lock().unwrap_or_else(PoisonError::into_inner) = token.clone();
        let segments = fileref::parse(text).segments;
        let mut sink = ChatSink::new(self.style)
            .with_files(self.files.clone())
            .with_cancel(token);
        let typeahead = typeahead::KeepTypeahead::start();
        let dev_builds =
            crate::cli::dev_writes::DevBuildFiles::of(&self.loaded.config, &self.workspace);
        let result = self
            .worker
            .submit_segments(&segments, &mut dev_builds.watching(&mut sink));
        drop(typeahead);
        sink.settle();
        if sink.last.is_some() {
            self.last = sink.last.take();
        }
        self.turn_changes = std::mem::take(&mut sink.changes);
        let mut answer = None;
        match result {
            Ok(TurnOutcome::Answered { text }) => {
                if !sink.streamed {
                    print!("{text}");
                }
                println!();
                answer = Some(text);
            }
            // The worker already raised an alert naming the plugin (or Ctrl-C) and its reason.
            Ok(
                TurnOutcome::Cancelled { .. }
                | TurnOutcome::Interrupted { .. }
                | TurnOutcome::Limited { .. },
            ) => {}
            Ok(TurnOutcome::Stopped { reason }) => {
                eprintln!("{}", self.style.alert(&Alert::error("host", reason)));
            }
            Err(err) => {
                eprintln!(
                    "{}",
                    self.style.alert(&Alert::error("host", err.to_string()))
                );
            }
        }
        let costing = crate::front::usage::Costing::of(&self.loaded.config.model);
        if let Some(status) = crate::front::usage::status_line(self.worker.records(), &costing) {
            eprintln!("{}", self.style.dim(&status));
        }
        answer
    }

    /// Load the dev builds rebuilt since the last turn, and say so.
    fn reload_dev_builds(&mut self) {
        for reload in self.dev.refresh() {
            match &reload {
                dev_reload::Reload::Loaded { name, sha256 } => {
                    for row in self.plugins.iter_mut() {
                        row.rebuilt(name, sha256);
                    }
                    eprintln!("{}", self.style.dim(&reload.message()));
                }
                dev_reload::Reload::Refused { name, .. } => eprintln!(
                    "{}",
                    self.style
                        .alert(&Alert::warn(format!("plugin:{name}"), reload.message()))
                ),
            }
        }
    }

    fn command(&mut self, command: Slash) {
        match command {
            Slash::Help => eprintln!("{}", slash::HELP),
            Slash::Session => {
                let id = self.worker.session_id().to_owned();
                let file = self
                    .home
                    .history_path(&id)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                eprintln!("session    {id}");
                eprintln!("workspace  {}", self.workspace.display());
                eprintln!("items      {}", self.worker.history().len());
                eprintln!("file       {file}");
            }
            Slash::Resume(id) => self.resume(&id),
            Slash::Status => {
                let costing = crate::front::usage::Costing::of(&self.loaded.config.model);
                let provider = self.provider_name();
                for line in crate::front::status::status_lines(
                    &self.worker,
                    &costing,
                    &provider,
                    &self.workspace,
                ) {
                    eprintln!("{}", crate::domain::escape::terminal(&line));
                }
            }
            Slash::Context => {
                let costing = crate::front::usage::Costing::of(&self.loaded.config.model);
                for line in crate::front::status::context_lines(
                    &self.worker.context_parts(),
                    costing.window,
                ) {
                    eprintln!("{line}");
                }
            }
            Slash::New => match crate::front::assemble::new_session(&self.home, &self.workspace) {
                Ok((writer, audit)) => {
                    let old = self.worker.session_id().to_owned();
                    self.end_session("clear");
                    self.worker.switch_session(writer, audit);
                    self.trace_switched_session();
                    eprintln!(
                        "{}",
                        self.style.dim(&format!(
                            "new session {} (the previous one is {old})",
                            self.worker.session_id()
                        ))
                    );
                }
                Err(err) => eprintln!("{}", self.style.alert(&Alert::error("chat", err.message))),
            },
            Slash::Plugins => {
                if self.plugins.is_empty() {
                    eprintln!("no plugins loaded (the built-in resolver handles @ mentions)");
                }
                for row in &self.plugins {
                    eprintln!("{}", row.render());
                }
            }
            Slash::Mcp => {
                for line in crate::cli::mcp::rows_text(&self.mcp) {
                    eprintln!("{}", crate::domain::escape::terminal(&line));
                }
            }
            Slash::Preview { full, prompt } => {
                let segments = fileref::parse(&prompt).segments;
                let preview = self.worker.preview(&segments);
                for alert in &preview.alerts {
                    eprintln!("{}", self.style.alert(alert));
                }
                for shown in &preview.items {
                    let (header, body) = crate::cli::run::shown_item(shown, full);
                    println!("{}", self.style.bold(&header));
                    println!("{body}");
                }
            }
            Slash::Compact => {
                let mut sink = ChatSink::new(self.style);
                let result = self.worker.compact(&mut sink);
                sink.settle();
                match result {
                    Ok(Some(done)) => {
                        eprintln!("{}", self.style.dim(&crate::cli::compact::describe(&done)))
                    }
                    Ok(None) => eprintln!("nothing to compact yet"),
                    Err(err) => eprintln!(
                        "{}",
                        self.style.alert(&Alert::error("chat", err.to_string()))
                    ),
                }
            }
            Slash::Undo(turns) => {
                let mut sink = ChatSink::new(self.style);
                let result = self.worker.undo(&mut sink, turns, false);
                sink.settle();
                match result {
                    Ok(report) => crate::cli::undo::print_report(&report, self.worker.session_id()),
                    Err(err) => eprintln!(
                        "{}",
                        self.style.alert(&Alert::error("chat", err.to_string()))
                    ),
                }
            }
            Slash::Last => match &self.last {
                Some(last) => {
                    eprintln!("{}", self.style.bold(&last.line));
                    for line in last.output.lines() {
                        eprintln!("{}", crate::domain::escape::escape(line));
                    }
                }
                None => eprintln!("no command has run in this chat yet"),
            },
            Slash::Diff(false) => {
                if self.turn_changes.is_empty() {
                    eprintln!("the last turn changed no file");
                }
                sink::print_changes(self.style, &self.turn_changes);
            }
            Slash::Diff(true) => match self.worker.session_diff() {
                Ok(changes) if changes.is_empty() => {
                    eprintln!("no file of this session differs from before its changes");
                }
                Ok(changes) => sink::print_changes(self.style, &changes),
                Err(err) => eprintln!(
                    "{}",
                    self.style
                        .alert(&Alert::error("chat", format!("/diff session: {err}")))
                ),
            },
            Slash::Config => self.show_config(),
            Slash::Cost => {
                let costing = crate::front::usage::Costing::of(&self.loaded.config.model);
                for line in crate::front::usage::cost_lines(self.worker.records(), &costing) {
                    eprintln!("{line}");
                }
            }
            Slash::Init => self.init(),
            Slash::Mode(asked) => self.mode(asked.as_deref()),
            Slash::Model(asked) => self.model(asked.as_deref()),
            Slash::Rules(None) => {
                for rule in &self.worker.rules().rules {
                    let what = rule.covers_text();
                    eprintln!(
                        "{:<5} {}  {}  ({})",
                        rule.decision.name(),
                        crate::domain::escape::terminal(&rule.id),
                        crate::domain::escape::terminal(&what),
                        crate::domain::escape::terminal(&rule.origin.describe())
                    );
                }
            }
            Slash::Rules(Some(id)) => match self.worker.remove_user_rule(&id) {
                Ok(()) => eprintln!("removed rule `{}`", crate::domain::escape::terminal(&id)),
                Err(err) => eprintln!("{}", crate::domain::escape::terminal(&err)),
            },
            Slash::Quit => {}
            Slash::Unknown(hint) => eprintln!("{hint}"),
        }
    }

    /// `/mode`: show the mode; `/mode MODE`: change it for this chat, unless managed policy
    /// refuses it (the message names the file and key).
    fn mode(&mut self, asked: Option<&str>) {
        let Some(name) = asked else {
            let cap = self
                .loaded
                .config
                .policy
                .max_mode
                .map(|max| format!(" (managed policy allows up to {max})"))
                .unwrap_or_default();
            eprintln!(
                "mode {}{cap}: read-only | ask | auto-edit | full-auto",
                self.worker.mode()
            );
            return;
        };
        let mode = match name.parse::<Mode>() {
            Ok(mode) => mode,
            Err(err) => {
                eprintln!(
                    "{}",
                    self.style.alert(&Alert::error("chat", err.to_string()))
                );
                return;
            }
        };
        let refused =
            crate::front::mode::switch(&mut self.loaded, &mut self.worker, mode, "/mode").err();
        match refused {
            Some(message) => eprintln!("{}", self.style.alert(&Alert::error("chat", message))),
            None => eprintln!("{}", self.style.dim(&format!("mode {mode} for this chat"))),
        }
    }

    /// `/init`: ask the model to survey the repository and write the instructions file
    /// (`worker.instructions_file`, `AGENTS.md`) from its answer; an existing file is replaced
    /// only when the person says yes.
    fn init(&mut self) {
        let name = match self.loaded.config.worker.instructions_file.as_str() {
            "" => crate::config::DEFAULT_INSTRUCTIONS_FILE.to_owned(),
            name => name.to_owned(),
        };
        let path = self.workspace.join(&name);
        if let Err(refused) = init::may_write(&path, &name, self.style) {
            eprintln!("{refused}");
            return;
        }
        let Some(answer) = self.turn(&init::prompt(&name)) else {
            eprintln!(
                "{}",
                self.style.alert(&Alert::warn(
                    "chat",
                    format!("/init: no answer; {name} not written")
                ))
            );
            return;
        };
        match init::write(&path, &answer) {
            Ok(bytes) => eprintln!(
                "{}",
                self.style.dim(&format!(
                    "wrote {name} ({bytes} bytes): it is read at the start of every session here"
                ))
            ),
            Err(err) => eprintln!("{}", self.style.alert(&Alert::error("chat", err))),
        }
    }

    /// `/model`: show the model; `/model NAME`: name NAME (same provider) in this chat's next
    /// requests, unless managed policy locks `model.name` (the message names file and line).
    fn model(&mut self, asked: Option<&str>) {
        let provider = self.provider_name();
        let Some(name) = asked else {
            let locked = self
                .loaded
                .locked_by("model.name")
                .map(|_| " (locked by managed policy)")
                .unwrap_or_default();
            eprintln!(
                "model {provider} · {}{locked}; /model NAME switches to another model of {provider}",
                crate::domain::escape::terminal(&self.worker.model_in_use())
            );
            return;
        };
        if let Some(lock) = self.loaded.locked_by("model.name") {
            let message = format!(
                "/model {}: `model.name` is locked by managed policy ({}:{}, key `policy.locked`)",
                crate::domain::escape::terminal(name),
                lock.file.display(),
                lock.line
            );
            eprintln!("{}", self.style.alert(&Alert::error("chat", message)));
            return;
        }
        if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
            eprintln!(
                "{}",
                self.style.alert(&Alert::error(
                    "chat",
                    "usage: /model NAME (one word, as the provider names the model)"
                ))
            );
            return;
        }
        self.worker.set_model(name);
        self.loaded.config.model.name = Some(name.to_owned());
        eprintln!(
            "{}",
            self.style
                .dim(&format!("model {provider} · {name} for this chat"))
        );
    }

    /// Shift-Tab: the next mode up that managed policy allows, after the most permissive one
    /// allowed the least permissive again.
    fn next_mode(&mut self) {
        let now = self.worker.mode();
        let at = Mode::ALL.iter().position(|m| *m == now).unwrap_or(0);
        let next = (1..Mode::ALL.len())
            .map(|step| Mode::ALL[(at + step) % Mode::ALL.len()])
            .find(|mode| super::mode::allowed(&self.loaded, *mode, "mode").is_ok());
        match next {
            Some(mode) => self.mode(Some(mode.name())),
            None => eprintln!(
                "{}",
                self.style.alert(&Alert::warn(
                    "chat",
                    format!("mode {now}: managed policy allows no other mode here")
                ))
            ),
        }
    }

    fn show_config(&self) {
        eprintln!("layers, lowest first: built-in defaults");
        for file in &self.loaded.files {
            eprintln!("  {}", file.display());
        }
        match toml::to_string_pretty(&self.loaded.config) {
            Ok(text) => println!("{text}"),
            Err(err) => eprintln!("cannot show the configuration: {err}"),
        }
    }
}
