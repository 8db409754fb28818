//! The `keyword-context` sample (`plugins/keyword-context`) as an Extism plug-in: when the
//! prompt mentions the configured word, answer with one system item holding the configured
//! context.
//!
//! Config (Extism plug-in config): `word` (required, not empty), `context` (default names the
//! word). Read once, on the first call, and kept in the instance, as the sample keeps what its
//! `init` read.
//!
//! Two exports:
//! - `on_prompt_submit`: JSON in (`{"session":…,"text":…,"items":[{"user":…}]}`), JSON out
//!   (`{"continue_with":[{"system":…}]}` or `{"continue":null}`);
//! - `on_prompt_submit_raw`: the prompt text's bytes in, the context's bytes out (empty: let it
//!   through).

use std::sync::OnceLock;

use extism_pdk::{FnResult, Json, config, plugin_fn};
use memchr::memmem::Finder;
use serde::{Deserialize, Serialize};

/// A history item on the wire: `{"user": text}`, `{"system": text}`.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Item {
    /// What the person typed.
    User(String),
    /// Context added for the model.
    System(String),
}

/// The submitted prompt.
#[derive(Deserialize)]
pub struct Prompt {
    /// Session id.
    pub session: String,
    /// The prompt as typed.
    pub text: String,
    /// Items about to be committed.
    pub items: Vec<Item>,
}

/// The decision: `{"continue":null}` or `{"continue_with":[…]}`.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Let it through.
    Continue(()),
    /// Let it through and append these items.
    ContinueWith(Vec<Item>),
}

struct Settings {
    finder: Finder<'static>,
    context: String,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

fn settings() -> Result<&'static Settings, extism_pdk::Error> {
    if let Some(settings) = SETTINGS.get() {
        return Ok(settings);
    }
    let word =
        config::get("word")?.ok_or_else(|| extism_pdk::Error::msg("missing config key `word`"))?;
    if word.is_empty() {
        return Err(extism_pdk::Error::msg(
            "config key `word` must not be empty",
        ));
    }
    let context = config::get("context")?.unwrap_or_else(|| format!("The prompt mentions {word}."));
    let finder = Finder::new(word.as_bytes()).into_owned();
    Ok(SETTINGS.get_or_init(|| Settings { finder, context }))
}

/// JSON in, JSON out.
#[plugin_fn]
pub fn on_prompt_submit(Json(prompt): Json<Prompt>) -> FnResult<Json<Decision>> {
    let settings = settings()?;
    Ok(Json(
        if settings.finder.find(prompt.text.as_bytes()).is_some() {
            Decision::ContinueWith(vec![Item::System(settings.context.clone())])
        } else {
            Decision::Continue(())
        },
    ))
}

/// The prompt text's bytes in, the context's bytes out (empty: let it through).
#[plugin_fn]
pub fn on_prompt_submit_raw(text: Vec<u8>) -> FnResult<Vec<u8>> {
    let settings = settings()?;
    Ok(if settings.finder.find(&text).is_some() {
        settings.context.as_bytes().to_vec()
    } else {
        Vec::new()
    })
}
