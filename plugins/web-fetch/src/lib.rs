//! Bundled tool plugin: `web_fetch`, one web page as readable text.
//!
//! It reaches the network only through the host's `outgoing.fetch`, so only the hosts of its
//! entry's `allowed_hosts` grant; the host asks the person before the first call to each host
//! of a session (`approve = "per-host"`). An HTML page is turned into text here, in the guest
//! (`html2text`: links kept as numbered references, no tags); any other `text/*` or JSON body
//! is passed as it is; anything else is refused. The text is cut at `max_chars` (config,
//! default 20000, at most 200000), saying so.
//!
//! Arguments: `url` (required, `http://` or `https://`).

use serde_json::Value;
use warden_plugin::Config;
use warden_plugin::tool::{Tool, ToolOutput, ToolSpec, get};

/// Default cap on the text returned, in characters.
const DEFAULT_MAX_CHARS: usize = 20_000;
/// Highest cap the config may set.
const MAX_CHARS: usize = 200_000;
/// Columns the text is wrapped at.
const WIDTH: usize = 100;

/// The `web_fetch` tool.
pub struct WebFetch {
    max_chars: usize,
}

/// What a body is, from its `content-type`.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    Html,
    Text,
}

fn kind(content_type: Option<&str>, body: &[u8]) -> Option<Kind> {
    let ct = content_type.unwrap_or("").to_ascii_lowercase();
    let essence = ct.split(';').next().unwrap_or("").trim();
    match essence {
        "text/html" | "application/xhtml+xml" => Some(Kind::Html),
        "" => {
            // No type: sniff the start, as a browser would for a page.
            let head = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
            if head.contains("<html") || head.contains("<!doctype html") {
                Some(Kind::Html)
            } else {
                Some(Kind::Text)
            }
        }
        e if e.starts_with("text/") || e == "application/json" || e.ends_with("+json") => {
            Some(Kind::Text)
        }
        e if e == "application/xml" || e.ends_with("+xml") => Some(Kind::Text),
        _ => None,
    }
}

/// `text` cut to `max` characters, with a line saying how much was left out.
pub fn cap(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push_str(&format!("\n[cut: {} of {total} characters shown]", max));
    out
}

/// The readable text of an HTML document.
pub fn html_text(html: &[u8]) -> Result<String, String> {
    html2text::from_read(html, WIDTH)
        .map_err(|e| format!("the page could not be read as HTML: {e}"))
}

impl WebFetch {
    fn fetch(&self, url: &str) -> Result<String, String> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!(
                "`url` must start with http:// or https://, not {url:?}"
            ));
        }
        let response = get(url)?;
        if !(200..300).contains(&response.status) {
            return Err(format!("{url} answered HTTP {}", response.status));
        }
        let content_type = response
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.as_str());
        let text = match kind(content_type, &response.body) {
            Some(Kind::Html) => html_text(&response.body)?,
            Some(Kind::Text) => String::from_utf8_lossy(&response.body).into_owned(),
            None => {
                return Err(format!(
                    "{url} is `{}`, not a page or text; web_fetch reads only HTML and text",
                    content_type.unwrap_or("?")
                ));
            }
        };
        Ok(cap(text.trim(), self.max_chars))
    }
}

impl Tool for WebFetch {
    fn init(config: Config) -> Result<Self, String> {
        let max_chars = config.parse_or("max_chars", DEFAULT_MAX_CHARS)?;
        if max_chars == 0 || max_chars > MAX_CHARS {
            return Err(format!("max_chars must be 1–{MAX_CHARS}, not {max_chars}"));
        }
        Ok(Self { max_chars })
    }

    fn describe(&self) -> Vec<ToolSpec> {
        vec![ToolSpec::new(
            "web_fetch",
            "Fetch one web page (http or https) and return it as readable text: HTML turned \
             into text with links as numbered references, other text as it is, cut past a \
             size limit. Only hosts the person allows can be reached; the first fetch from a \
             host may wait for their approval.",
            r#"{"type":"object","properties":{"url":{"type":"string","description":"The page's URL, http:// or https://"}},"required":["url"],"additionalProperties":false}"#,
        )]
    }

    fn call(&mut self, name: &str, arguments: &str) -> Result<ToolOutput, String> {
        if name != "web_fetch" {
            return Err(format!("unknown tool `{name}`"));
        }
        let args: Value =
            serde_json::from_str(arguments).map_err(|e| format!("bad arguments: {e}"))?;
        let url = args
            .get("url")
            .and_then(Value::as_str)
            .ok_or("missing string argument `url`")?;
        self.fetch(url.trim()).map(ToolOutput::text)
    }
}

warden_plugin::export_tool!(WebFetch);
