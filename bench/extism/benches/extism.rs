//! warden's warm `on-prompt-submit` beside Extism running the same logic, in one run.
//!
//! `bench/extism/run.sh` builds what it needs and runs it. The logic is the `keyword-context`
//! sample's: look for `deploy` in a 1 KB prompt and answer `continue-with` one system item
//! (`Deploys go through CI.`).
//!
//! - `native function (floor)`: the logic as a plain Rust function (`memchr::memmem`);
//! - `warden warm instance`: `InterceptorPlugin::on_prompt_submit` on the live instance of the
//!   sample (the component warden carries as `builtin:keyword-context`, or the file
//!   `WARDEN_BENCH_KEYWORD_WASM` names);
//! - `extism JSON`: the Extism guest (`WARDEN_BENCH_EXTISM_GUEST`, built from `guest/`) on its
//!   live instance, the prompt as JSON in, the decision as JSON out, both converted from and to
//!   warden's types on the host;
//! - `extism raw bytes`: the same guest's raw export: the prompt text's bytes in, the context's
//!   bytes out (empty: continue).
//!
//! Every variant returns a `warden::domain::PromptDecision`; before measuring, the bench checks
//! that all four give the same one for the prompt with the word and `Continue` without it.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;

use criterion::Criterion;
use extism::{Manifest, Plugin, Wasm};
use memchr::memmem::Finder;
use serde::{Deserialize, Serialize};
use warden::domain::{Item, PromptDecision, SubmittedPrompt};
use warden::plugin::{EngineOptions, InterceptorPlugin, Limits, PluginEngine};

const WORD: &str = "deploy";
const CONTEXT: &str = "Deploys go through CI.";
/// The sample as warden carries it.
const BUILTIN_KEYWORD: &str = "builtin:keyword-context";

/// The 1 KB prompt of `host/benches/plugin.rs` (`prompt_1k`): 1 000 bytes of lorem ipsum, then
/// the word (or not).
fn prompt_1k(with_word: bool) -> SubmittedPrompt {
    let mut text = "lorem ipsum dolor sit amet ".repeat(37);
    text.truncate(1000);
    if with_word {
        text.push_str(" deploy");
    }
    SubmittedPrompt {
        session: "bench".into(),
        items: vec![Item::user(text.clone())],
        text,
    }
}

fn config() -> Vec<(String, String)> {
    vec![
        ("word".into(), WORD.into()),
        ("context".into(), CONTEXT.into()),
    ]
}

/// The floor: the same logic as a plain function.
struct Native {
    finder: Finder<'static>,
    context: String,
}

impl Native {
    fn new() -> Self {
        Self {
            finder: Finder::new(WORD.as_bytes()).into_owned(),
            context: CONTEXT.to_owned(),
        }
    }

    fn on_prompt_submit(&self, prompt: &SubmittedPrompt) -> PromptDecision {
        if self.finder.find(prompt.text.as_bytes()).is_some() {
            PromptDecision::ContinueWith(vec![Item::system(self.context.clone())])
        } else {
            PromptDecision::Continue
        }
    }
}

/// The prompt as the Extism guest reads it: `{"session":…,"text":…,"items":[{"user":…}]}`.
#[derive(Serialize)]
struct WirePrompt<'a> {
    session: &'a str,
    text: &'a str,
    items: Vec<WireItem<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum WireItem<'a> {
    User(&'a str),
    System(&'a str),
}

/// The guest's answer: `{"continue":null}` or `{"continue_with":[{"system":…}]}`.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum WireDecision {
    Continue(()),
    ContinueWith(Vec<WireOwnedItem>),
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum WireOwnedItem {
    User(String),
    System(String),
}

impl<'a> From<&'a SubmittedPrompt> for WirePrompt<'a> {
    fn from(prompt: &'a SubmittedPrompt) -> Self {
        Self {
            session: &prompt.session,
            text: &prompt.text,
            // A submitted prompt holds the user item and file (system) items only.
            items: prompt
                .items
                .iter()
                .filter_map(|item| match item {
                    Item::User { text } => Some(WireItem::User(text)),
                    Item::System { text } => Some(WireItem::System(text)),
                    _ => None,
                })
                .collect(),
        }
    }
}

impl From<WireDecision> for PromptDecision {
    fn from(decision: WireDecision) -> Self {
        match decision {
            WireDecision::Continue(()) => PromptDecision::Continue,
            WireDecision::ContinueWith(items) => PromptDecision::ContinueWith(
                items
                    .into_iter()
                    .map(|item| match item {
                        WireOwnedItem::User(text) => Item::user(text),
                        WireOwnedItem::System(text) => Item::system(text),
                    })
                    .collect(),
            ),
        }
    }
}

/// One live instance of the Extism guest, configured like the sample.
struct ExtismKeyword {
    plugin: Plugin,
}

impl ExtismKeyword {
    /// `bytes`: the guest module (the crate is built without Extism's file registration).
    fn load(bytes: &[u8]) -> Result<Self, extism::Error> {
        let manifest = Manifest::new([Wasm::data(bytes.to_vec())])
            .with_config_key("word", WORD)
            .with_config_key("context", CONTEXT);
        Ok(Self {
            plugin: Plugin::new(&manifest, [], false)?,
        })
    }

    /// JSON in, JSON out, from and to warden's types.
    fn json(&mut self, prompt: &SubmittedPrompt) -> Result<PromptDecision, extism::Error> {
        let input = serde_json::to_vec(&WirePrompt::from(prompt))?;
        let output: &[u8] = self.plugin.call("on_prompt_submit", input.as_slice())?;
        Ok(serde_json::from_slice::<WireDecision>(output)?.into())
    }

    /// The text's bytes in, the context's bytes out (empty: continue).
    fn raw(&mut self, prompt: &SubmittedPrompt) -> Result<PromptDecision, extism::Error> {
        let output: &[u8] = self
            .plugin
            .call("on_prompt_submit_raw", prompt.text.as_bytes())?;
        Ok(if output.is_empty() {
            PromptDecision::Continue
        } else {
            PromptDecision::ContinueWith(vec![Item::system(std::str::from_utf8(output)?)])
        })
    }
}

/// Everything the run needs, loaded and checked.
struct Subjects {
    native: Native,
    warden: InterceptorPlugin,
    extism_json: ExtismKeyword,
    extism_raw: ExtismKeyword,
}

fn load() -> Result<Subjects, String> {
    let guest = std::env::var_os("WARDEN_BENCH_EXTISM_GUEST")
        .map(PathBuf::from)
        .ok_or(
            "WARDEN_BENCH_EXTISM_GUEST is not set: it names the Extism guest \
                (keyword_context_extism.wasm); bench/extism/run.sh builds it and sets it",
        )?;
    if !guest.is_file() {
        return Err(format!(
            "WARDEN_BENCH_EXTISM_GUEST={}: no such file (bench/extism/run.sh builds it)",
            guest.display()
        ));
    }
    let component = std::env::var_os("WARDEN_BENCH_KEYWORD_WASM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(BUILTIN_KEYWORD));
    let engine = PluginEngine::new(EngineOptions::default())
        .map_err(|err| format!("warden's plugin engine: {err}"))?;
    let warden = InterceptorPlugin::load(
        &engine,
        "warm",
        &component,
        None,
        Limits::default(),
        config(),
    )
    .map_err(|err| format!("loading {}: {err}", component.display()))?;
    let bytes = std::fs::read(&guest)
        .map_err(|err| format!("reading the Extism guest {}: {err}", guest.display()))?;
    let extism = || {
        ExtismKeyword::load(&bytes)
            .map_err(|err| format!("loading the Extism guest {}: {err:#}", guest.display()))
    };
    Ok(Subjects {
        native: Native::new(),
        warden,
        extism_json: extism()?,
        extism_raw: extism()?,
    })
}

/// All four give the expected decision, with the word and without it.
fn check(s: &mut Subjects) -> Result<(), String> {
    for (with_word, expected) in [
        (
            true,
            PromptDecision::ContinueWith(vec![Item::system(CONTEXT)]),
        ),
        (false, PromptDecision::Continue),
    ] {
        let prompt = prompt_1k(with_word);
        let answers = [
            ("native function", Ok(s.native.on_prompt_submit(&prompt))),
            (
                "warden warm instance",
                s.warden
                    .on_prompt_submit(&prompt)
                    .map_err(|e| e.to_string()),
            ),
            (
                "extism JSON",
                s.extism_json.json(&prompt).map_err(|e| format!("{e:#}")),
            ),
            (
                "extism raw bytes",
                s.extism_raw.raw(&prompt).map_err(|e| format!("{e:#}")),
            ),
        ];
        for (name, answer) in answers {
            match answer {
                Ok(decision) if decision == expected => {}
                Ok(decision) => {
                    return Err(format!(
                        "{name}, prompt {} the word: {decision:?}, expected {expected:?}",
                        if with_word { "with" } else { "without" }
                    ));
                }
                Err(err) => return Err(format!("{name}: the call failed: {err}")),
            }
        }
    }
    Ok(())
}

fn bench(c: &mut Criterion, s: &mut Subjects) {
    let prompt = prompt_1k(true);
    let mut group = c.benchmark_group("on-prompt-submit 1KB beside Extism");
    group.bench_function("native function (floor)", |b| {
        b.iter(|| black_box(s.native.on_prompt_submit(black_box(&prompt))))
    });
    group.bench_function("warden warm instance", |b| {
        b.iter(|| black_box(s.warden.on_prompt_submit(black_box(&prompt)).unwrap()))
    });
    group.bench_function("extism JSON", |b| {
        b.iter(|| black_box(s.extism_json.json(black_box(&prompt)).unwrap()))
    });
    group.bench_function("extism raw bytes", |b| {
        b.iter(|| black_box(s.extism_raw.raw(black_box(&prompt)).unwrap()))
    });
    group.finish();
}

fn main() -> ExitCode {
    let mut subjects = match load().and_then(|mut s| check(&mut s).map(|()| s)) {
        Ok(subjects) => subjects,
        Err(message) => {
            eprintln!("extism bench: {message}");
            return ExitCode::FAILURE;
        }
    };
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion, &mut subjects);
    criterion.final_summary();
    ExitCode::SUCCESS
}
