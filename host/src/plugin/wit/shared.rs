//! The conversions every `warden:plugin` version shares, between its generated WIT types and
//! the host's domain types. Those types have the same shape in each version's bindings, so one
//! macro body ([`wit_conversions`]) is expanded once in each version's file, against that
//! version's `wit` types; what a version adds is converted in its own file.

/// Expands the conversions shared by every version where `wit` names that version's generated
/// `types` module.
macro_rules! wit_conversions {
    () => {
        use $crate::domain::escape::escape_capped;
        use $crate::domain::{
            Alert, AlertLevel, Entry, EntryKind, Event, FileChunk, Item, LineRange, Listing,
            PromptDecision, RequestInfo, ResolveError, ResolveRequest, Resolved, ToolCall,
            TurnEndDecision, TurnInfo,
        };

        /// A WIT item as a domain item. Tool-call arguments that are not JSON are kept as a string.
        pub(crate) fn item_from_wit(item: wit::Item) -> Item {
            match item {
                wit::Item::User(text) => Item::User { text },
                wit::Item::System(text) => Item::System { text },
                wit::Item::Assistant(a) => Item::Assistant {
                    text: a.text,
                    tool_calls: a
                        .tool_calls
                        .into_iter()
                        .map(|c| ToolCall {
                            id: c.id,
                            name: c.name,
                            arguments: serde_json::from_str(&c.arguments)
                                .unwrap_or(serde_json::Value::String(c.arguments)),
                        })
                        .collect(),
                },
                wit::Item::ToolResult(r) => Item::ToolResult {
                    call_id: r.call_id,
                    content: r.content,
                    is_error: r.is_error,
                },
            }
        }

        /// A domain item as a WIT item.
        pub(crate) fn item_to_wit(item: &Item) -> wit::Item {
            match item {
                Item::User { text } => wit::Item::User(text.clone()),
                Item::System { text } => wit::Item::System(text.clone()),
                Item::Assistant { text, tool_calls } => wit::Item::Assistant(wit::AssistantItem {
                    text: text.clone(),
                    tool_calls: tool_calls.iter().map(tool_call_to_wit).collect(),
                }),
                Item::ToolResult {
                    call_id,
                    content,
                    is_error,
                } => wit::Item::ToolResult(wit::ToolResultItem {
                    call_id: call_id.clone(),
                    content: content.clone(),
                    is_error: *is_error,
                }),
            }
        }

        /// A domain tool call as a WIT one (arguments as JSON text).
        pub(crate) fn tool_call_to_wit(c: &ToolCall) -> wit::ToolCall {
            wit::ToolCall {
                id: c.id.clone(),
                name: c.name.clone(),
                arguments: $crate::plugin::arguments::text(&c.arguments),
            }
        }

        pub(crate) fn request_to_wit(r: &RequestInfo) -> wit::RequestInfo {
            wit::RequestInfo {
                session: r.session.clone(),
                prompt: r.prompt.clone(),
                step: r.step,
                history_items: r.history_items,
            }
        }

        pub(crate) fn turn_to_wit(t: &TurnInfo) -> wit::TurnInfo {
            wit::TurnInfo {
                session: t.session.clone(),
                prompt: t.prompt.clone(),
                answer: t.answer.clone(),
                continuations: t.continuations,
            }
        }

        pub(crate) fn prompt_action_from_wit(a: wit::PromptAction) -> PromptDecision {
            match a {
                wit::PromptAction::Continue => PromptDecision::Continue,
                wit::PromptAction::Cancel(reason) => PromptDecision::Cancel(escape_capped(
                    &reason,
                    $crate::plugin::limits::MAX_PLUGIN_STRING,
                )),
                wit::PromptAction::ContinueWith(items) => {
                    PromptDecision::ContinueWith(items.into_iter().map(item_from_wit).collect())
                }
            }
        }

        pub(crate) fn turn_end_from_wit(a: wit::TurnEndAction) -> TurnEndDecision {
            match a {
                wit::TurnEndAction::Finish => TurnEndDecision::Finish,
                wit::TurnEndAction::ContinueWith(items) => {
                    TurnEndDecision::ContinueWith(items.into_iter().map(item_from_wit).collect())
                }
            }
        }

        fn alert_to_wit(a: &Alert) -> wit::Alert {
            wit::Alert {
                level: match a.level {
                    AlertLevel::Info => wit::AlertLevel::Info,
                    AlertLevel::Warn => wit::AlertLevel::Warn,
                    AlertLevel::Error => wit::AlertLevel::Error,
                },
                message: a.message.clone(),
                source: a.source.clone(),
            }
        }

        fn committed_to_wit(entry: &Entry) -> wit::CommittedItem {
            wit::CommittedItem {
                source: entry.source.to_string(),
                item: item_to_wit(&entry.item),
            }
        }

        /// The WIT form of `e`; `None` for events no WIT version has a case for (compaction), and
        /// for tool decisions (a version that has them handles them before calling this).
        pub(crate) fn event_to_wit_common(e: &Event) -> Option<wit::Event> {
            Some(match e {
                Event::PromptSubmitted(text) => wit::Event::PromptSubmitted(text.clone()),
                Event::ItemsCommitted(items) => {
                    wit::Event::ItemsCommitted(items.iter().map(committed_to_wit).collect())
                }
                Event::RequestSent { items, bytes } => wit::Event::RequestSent(wit::RequestStats {
                    items: *items,
                    bytes: *bytes,
                }),
                Event::ResponseReceived { text, tool_calls } => {
                    wit::Event::ResponseReceived(wit::ResponseInfo {
                        text: text.clone(),
                        tool_calls: *tool_calls,
                    })
                }
                Event::ToolRan {
                    name,
                    call_id,
                    is_error,
                } => wit::Event::ToolRan(wit::ToolRun {
                    name: name.clone(),
                    call_id: call_id.clone(),
                    is_error: *is_error,
                }),
                Event::AlertRaised(alert) => wit::Event::AlertRaised(alert_to_wit(alert)),
                Event::Notification(text) => wit::Event::Notification(text.clone()),
                Event::TurnEnded(why) => wit::Event::TurnEnded(why.clone()),
                Event::PluginFailed { plugin, message } => {
                    wit::Event::PluginFailed(wit::PluginFailure {
                        plugin: plugin.clone(),
                        message: message.clone(),
                    })
                }
                Event::Compacted { .. } | Event::ToolDecided { .. } => return None,
            })
        }

        pub(crate) fn file_ref_to_wit(r: &ResolveRequest) -> wit::FileRef {
            wit::FileRef {
                path: r.path.clone(),
                range: r
                    .range
                    .map(|LineRange { start, end }| wit::LineRange { start, end }),
                max_bytes: r.max_bytes,
            }
        }

        /// A resolver's error, its message escaped (it reaches the model and the terminal).
        pub(crate) fn resolve_error_from_wit(e: wit::ResolveError) -> ResolveError {
            let clean = |m: String| escape_capped(&m, $crate::plugin::limits::MAX_PLUGIN_STRING);
            match e {
                wit::ResolveError::OutOfScope(m) => ResolveError::OutOfScope(clean(m)),
                wit::ResolveError::NotFound(m) => ResolveError::NotFound(clean(m)),
                wit::ResolveError::Denied(m) => ResolveError::Denied(clean(m)),
                wit::ResolveError::Binary(m) => ResolveError::Binary(clean(m)),
                wit::ResolveError::Special(m) => ResolveError::Special(clean(m)),
                wit::ResolveError::TooLarge(m) => ResolveError::TooLarge(clean(m)),
                wit::ResolveError::Io(m) => ResolveError::Io(clean(m)),
            }
        }

        pub(crate) fn listing_from_wit(l: wit::Listing) -> Listing {
            Listing {
                path: l.path,
                entries: l.entries,
                truncated: l.truncated,
            }
        }

        impl $crate::plugin::resolver_caps::ListingAnswer for wit::Listing {
            fn path(&self) -> &str {
                &self.path
            }
            fn entries(&self) -> &[String] {
                &self.entries
            }
        }

        impl $crate::plugin::resolver_caps::ErrorAnswer for wit::ResolveError {
            fn message(&self) -> &str {
                let (wit::ResolveError::OutOfScope(m)
                | wit::ResolveError::NotFound(m)
                | wit::ResolveError::Denied(m)
                | wit::ResolveError::Binary(m)
                | wit::ResolveError::Special(m)
                | wit::ResolveError::TooLarge(m)
                | wit::ResolveError::Io(m)) = self;
                m
            }
        }
    };
}

pub(crate) use wit_conversions;

/// Expands what 0.1.0 and 0.2.0 share and 0.3.0 changed: the submitted prompt sent as a record
/// (copied into the guest string by string), and resolver answers whose content is a `string`.
macro_rules! record_prompt_and_text_answers {
    () => {
        use $crate::domain::SubmittedPrompt;

        /// `on-prompt-submit`, the prompt sent as a record (written into this thread's reused
        /// one).
        pub(crate) fn on_prompt_submit(
            m: &mut $crate::plugin::instance::Managed<super::Interceptor>,
            prompt: &SubmittedPrompt,
        ) -> Result<PromptDecision, $crate::plugin::error::PluginError> {
            let action = m.call(
                $crate::domain::CallPoint::OnPromptSubmit.name(),
                |b, store| {
                    with_prompt(prompt, |arg| {
                        b.warden_plugin_intercept()
                            .call_on_prompt_submit(store, arg)
                    })
                },
            )?;
            Ok(prompt_action_from_wit(action))
        }

        /// `on-compaction` is new in 0.3.0: an older plugin adds nothing.
        pub(crate) fn on_compaction(
            _: &mut $crate::plugin::instance::Managed<super::Interceptor>,
            _: &$crate::domain::CompactionInfo,
        ) -> Result<Vec<Item>, $crate::plugin::error::PluginError> {
            Ok(Vec::new())
        }

        pub(crate) fn prompt_to_wit(p: &SubmittedPrompt) -> wit::SubmittedPrompt {
            wit::SubmittedPrompt {
                session: p.session.clone(),
                text: p.text.clone(),
                items: p.items.iter().map(item_to_wit).collect(),
            }
        }

        /// `p` written over `out`, a prompt converted before on this thread: its strings keep
        /// their buffers, so a call allocates nothing on the host for the prompt (only copies).
        fn prompt_into_wit(p: &SubmittedPrompt, out: &mut wit::SubmittedPrompt) {
            fn refill(s: &mut String, from: &str) {
                s.clear();
                s.push_str(from);
            }
            refill(&mut out.session, &p.session);
            refill(&mut out.text, &p.text);
            out.items.truncate(p.items.len());
            for (i, item) in p.items.iter().enumerate() {
                match (out.items.get_mut(i), item) {
                    (Some(wit::Item::User(s)), Item::User { text }) => refill(s, text),
                    (Some(wit::Item::System(s)), Item::System { text }) => refill(s, text),
                    (Some(slot), _) => *slot = item_to_wit(item),
                    (None, _) => out.items.push(item_to_wit(item)),
                }
            }
        }

        /// A prompt with nothing in it (and no buffers).
        const EMPTY_PROMPT: wit::SubmittedPrompt = wit::SubmittedPrompt {
            session: String::new(),
            text: String::new(),
            items: Vec::new(),
        };

        thread_local! {
            /// The last prompt converted on this thread, reused by [`with_prompt`].
            static PROMPT: std::cell::RefCell<wit::SubmittedPrompt> =
                const { std::cell::RefCell::new(EMPTY_PROMPT) };
        }

        /// Run `f` with `p` as a WIT prompt, written into this thread's reused one (a nested
        /// call converts afresh). After a prompt over 64 KiB the buffers are let go, so a large
        /// prompt is not held on to.
        pub(crate) fn with_prompt<R>(
            p: &SubmittedPrompt,
            f: impl FnOnce(&wit::SubmittedPrompt) -> R,
        ) -> R {
            PROMPT.with(|cell| match cell.try_borrow_mut() {
                Ok(mut reused) => {
                    prompt_into_wit(p, &mut reused);
                    let out = f(&reused);
                    if p.text.len() + p.items.iter().map(|i| i.text().len()).sum::<usize>()
                        > 64 << 10
                    {
                        *reused = EMPTY_PROMPT;
                    }
                    out
                }
                Err(_) => f(&prompt_to_wit(p)),
            })
        }

        /// A resolved reference as the host's; its content is already a checked `string`.
        pub(crate) fn resolved_from_wit(r: wit::Resolved) -> Result<Resolved, String> {
            Ok(Resolved {
                path: r.path,
                kind: match r.kind {
                    wit::EntryKind::File => EntryKind::File,
                    wit::EntryKind::Directory => EntryKind::Directory,
                },
                content: r.content,
                total_bytes: r.total_bytes,
                truncated: r.truncated,
            })
        }

        /// A file chunk as the host's; its content is already a checked `string`.
        pub(crate) fn chunk_from_wit(c: wit::FileChunk) -> Result<FileChunk, String> {
            Ok(FileChunk {
                path: c.path,
                content: c.content,
                first_line: c.first_line,
                lines: c.lines,
                total_lines: c.total_lines,
                more: c.more,
            })
        }

        impl $crate::plugin::resolver_caps::ContentAnswer for wit::Resolved {
            fn path(&self) -> &str {
                &self.path
            }
            fn content_len(&self) -> usize {
                self.content.len()
            }
        }

        impl $crate::plugin::resolver_caps::ContentAnswer for wit::FileChunk {
            fn path(&self) -> &str {
                &self.path
            }
            fn content_len(&self) -> usize {
                self.content.len()
            }
        }
    };
}

pub(crate) use record_prompt_and_text_answers;
