//! Outgoing HTTP for tool plugins (the `outgoing.fetch` import of WIT 0.2.0), made by the host.
//!
//! A request reaches only the hosts of the plugin's `allowed_hosts` grant (`name` allows every
//! port of that host, `name:port` that port only); redirects are not followed (a redirect could
//! lead elsewhere) and no proxy from the environment is used. Each request is held to the time
//! left of the plugin's call deadline, its answer to [`MAX_RESPONSE_BYTES`], and a call makes
//! at most [`MAX_REQUESTS_PER_CALL`]. Bytes out and in are counted per call for the audit.
//!
//! The host makes the request (with the `reqwest` client the model providers already use)
//! rather than linking `wasi:http`: the allow-list, caps and counters sit in one small
//! function the host owns, a plugin needs no sockets, and a tool plugin's imports stay
//! `warden:plugin` interfaces that `plugin check` can list.

use std::time::{Duration, Instant};

/// Largest response body a plugin receives; a larger one is an error, not cut.
pub const MAX_RESPONSE_BYTES: usize = 4 << 20;
/// Largest request body a plugin may send.
pub const MAX_REQUEST_BYTES: usize = 4 << 20;
/// Requests one tool call may make.
pub const MAX_REQUESTS_PER_CALL: u32 = 16;

/// One request, as the plugin asked for it.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) method: String,
    pub(crate) url: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

/// One answer, read whole.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

/// What one tool call did over HTTP.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HttpFigures {
    /// Requests sent.
    pub requests: u32,
    /// Requests refused before sending (host not granted, caps, deadline).
    pub refused: u32,
    /// Bytes sent (URL, headers and body).
    pub bytes_out: u64,
    /// Bytes received (headers and body).
    pub bytes_in: u64,
}

/// A plugin's outgoing HTTP: its allow-list, and the current call's deadline and figures.
/// The default allows nothing.
#[derive(Debug, Default)]
pub(crate) struct Outgoing {
    allowed: Vec<String>,
    deadline: Option<Instant>,
    pub(crate) figures: HttpFigures,
}

impl Outgoing {
    /// A call starts: it may reach `hosts` (`name` or `name:port`, compared without case),
    /// and its requests must finish by `deadline`.
    pub(crate) fn begin_call(&mut self, hosts: &[String], deadline: Instant) {
        self.allowed = hosts
            .iter()
            .map(|h| h.trim().to_ascii_lowercase())
            .collect();
        self.deadline = Some(deadline);
        self.figures = HttpFigures::default();
    }

    /// Whether `host` on `port` is granted.
    fn allows(&self, host: &str, port: u16) -> bool {
        let host = host.to_ascii_lowercase();
        let with_port = format!("{host}:{port}");
        self.allowed.iter().any(|a| *a == host || *a == with_port)
    }

    /// Sends `request` if the grant allows it; the error says why not, for the plugin.
    pub(crate) fn fetch(&mut self, request: Request) -> Result<Response, String> {
        let checked = self.check(&request);
        let (url, timeout) = match checked {
            Ok(ok) => ok,
            Err(why) => {
                self.figures.refused += 1;
                tracing::debug!(url = %request.url, "outgoing request refused: {why}");
                return Err(why);
            }
        };
        self.figures.requests += 1;
        self.figures.bytes_out += (request.url.len()
            + request.body.len()
            + request
                .headers
                .iter()
                .map(|(k, v)| k.len() + v.len() + 4)
                .sum::<usize>()) as u64;
        tracing::debug!(method = %request.method, %url, "outgoing request");
        let answer = send(request, url, timeout);
        if let Ok(response) = &answer {
            self.figures.bytes_in += (response.body.len()
                + response
                    .headers
                    .iter()
                    .map(|(k, v)| k.len() + v.len() + 4)
                    .sum::<usize>()) as u64;
        }
        answer
    }

    fn check(&self, request: &Request) -> Result<(reqwest::Url, Duration), String> {
        let url = reqwest::Url::parse(&request.url)
            .map_err(|err| format!("`{}` is not a URL: {err}", request.url))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "scheme `{}` refused: only http and https",
                url.scheme()
            ));
        }
        let host = url.host_str().unwrap_or_default();
        let port = url.port_or_known_default().unwrap_or(0);
        if !self.allows(host, port) {
            return Err(format!(
                "host `{host}:{port}` is not granted to this plugin (its `allowed_hosts`: {})",
                if self.allowed.is_empty() {
                    "none".to_owned()
                } else {
                    self.allowed.join(", ")
                }
            ));
        }
        if self.figures.requests >= MAX_REQUESTS_PER_CALL {
            return Err(format!(
                "more than {MAX_REQUESTS_PER_CALL} requests in one call"
            ));
        }
        if request.body.len() > MAX_REQUEST_BYTES {
            return Err(format!(
                "request body of {} bytes, over the cap of {MAX_REQUEST_BYTES}",
                request.body.len()
            ));
        }
        let left = self
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
            .unwrap_or_default();
        if left.is_zero() {
            return Err("no time left before the call's deadline".to_owned());
        }
        Ok((url, left))
    }
}

/// Sends one request on a runtime of its own (on a scoped thread, so it never nests in a
/// runtime the caller may be running).
fn send(request: Request, url: reqwest::Url, timeout: Duration) -> Result<Response, String> {
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|err| format!("cannot start the HTTP runtime: {err}"))?;
                rt.block_on(send_async(request, url, timeout))
            })
            .join()
            .unwrap_or_else(|_| Err("the HTTP request failed".to_owned()))
    })
}

async fn send_async(
    request: Request,
    url: reqwest::Url,
    timeout: Duration,
) -> Result<Response, String> {
    let client = reqwest::Client::builder()
        .user_agent(concat!("warden/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(timeout)
        .build()
        .map_err(|err| format!("cannot build the HTTP client: {err}"))?;
    let method = reqwest::Method::from_bytes(request.method.as_bytes())
        .map_err(|_| format!("`{}` is not an HTTP method", request.method))?;
    let mut builder = client.request(method, url);
    for (name, value) in &request.headers {
        // The URL names the host; a plugin cannot aim at another virtual host.
        if name.eq_ignore_ascii_case("host") {
            continue;
        }
        builder = builder.header(name, value);
    }
    let mut response = builder
        .body(request.body)
        .send()
        .await
        .map_err(|err| format!("request failed: {}", error_chain(&err)))?;
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|err| format!("reading the response failed: {}", error_chain(&err)))?
    {
        if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(format!(
                "response over the cap of {MAX_RESPONSE_BYTES} bytes"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Response {
        status,
        headers,
        body,
    })
}

fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(url: &str) -> Request {
        Request {
            method: "GET".into(),
            url: url.into(),
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    #[test]
    fn only_granted_hosts_pass_the_check() {
        let mut out = Outgoing::default();
        out.begin_call(
            &["Example.com".into(), "127.0.0.1:8080".into()],
            Instant::now() + Duration::from_secs(5),
        );
        assert!(out.check(&request("https://example.com/x")).is_ok());
        assert!(out.check(&request("http://example.com:81/x")).is_ok());
        assert!(out.check(&request("http://127.0.0.1:8080/")).is_ok());
        let err = out.check(&request("http://127.0.0.1:8081/")).err();
        assert!(err.is_some_and(|e| e.contains("not granted")));
        assert!(out.check(&request("http://evil.example.com/")).is_err());
        assert!(out.check(&request("file:///etc/passwd")).is_err());
        assert!(out.check(&request("not a url")).is_err());
    }

    #[test]
    fn nothing_is_granted_by_default_and_refusals_are_counted() {
        let mut out = Outgoing::default();
        out.begin_call(&[], Instant::now() + Duration::from_secs(5));
        let err = out.fetch(request("http://127.0.0.1:1/")).err();
        assert!(err.is_some_and(|e| e.contains("allowed_hosts`: none")));
        assert_eq!(out.figures.refused, 1);
        assert_eq!(out.figures.requests, 0);
    }

    #[test]
    fn no_request_after_the_deadline() {
        let mut out = Outgoing::default();
        out.begin_call(&["127.0.0.1".into()], Instant::now());
        let err = out.check(&request("http://127.0.0.1:1/")).err();
        assert!(err.is_some_and(|e| e.contains("deadline")));
    }
}
