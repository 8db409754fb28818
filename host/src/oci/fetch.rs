//! The registry protocol (a manifest, a token, a blob; the requests of a push), spoken
//! directly over HTTP so that every response is held to limits: a cap on its body (the manifest cap, the
//! token cap, the error cap, the component cap for a layer), an idle timeout (no byte for
//! `idle`) and a deadline for the whole request, each failure naming the registry, what was
//! being fetched and the limit.
//!
//! Authentication follows the registry's challenge: `Basic` sends the credentials found for
//! this registry; `Bearer realm=…` fetches a pull token from the realm (sending those
//! credentials, if any, over HTTPS only, or to a realm on this machine), then retries.

use std::sync::Mutex;
use std::time::Duration;

use base64::Engine as _;
use futures_util::StreamExt as _;
use reqwest::header::{
    ACCEPT, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, LOCATION, WWW_AUTHENTICATE,
};
use reqwest::{Method, StatusCode, Url};

use super::auth::Credentials;
use super::error::OciError;
use crate::config::RegistriesConfig;

/// Cap on a manifest (or index) body.
pub const MANIFEST_MAX_BYTES: u64 = 4 << 20;
/// Cap on a token response.
pub const TOKEN_MAX_BYTES: u64 = 1 << 20;
/// How much of an error response is read (the rest is dropped).
pub const ERROR_MAX_BYTES: u64 = 64 << 10;

/// The limits on every registry request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// From start to end of one request (its body included).
    pub deadline: Duration,
    /// Without a byte.
    pub idle: Duration,
    /// A component layer (`policy.max_component_mb`).
    pub layer_max: u64,
}

impl Limits {
    /// The limits `[registries]` sets, with `layer_max` for a component.
    pub fn from_config(registries: &RegistriesConfig, layer_max: u64) -> Self {
        Self {
            deadline: Duration::from_secs(registries.deadline_s.max(1)),
            idle: Duration::from_secs(registries.idle_timeout_s.max(1)),
            layer_max,
        }
    }
}

/// One GET that answered 2xx: its (capped) body.
pub(super) struct Answer {
    pub body: Vec<u8>,
}

/// What a push request answered with a 2xx status: its `Location`, if any (its body is read
/// at most to [`ERROR_MAX_BYTES`] and dropped).
pub(super) struct Reply {
    pub location: Option<String>,
}

/// A failed status with what its (capped) body said.
pub(super) struct Refusal {
    pub status: StatusCode,
    pub codes: Vec<String>,
}

/// A puller for one registry.
pub(super) struct Puller {
    http: reqwest::Client,
    base: String,
    registry: String,
    credentials: Credentials,
    limits: Limits,
    loopback: bool,
    /// The `Authorization` value that worked (or was handed out), reused for later requests.
    auth: Mutex<Option<String>>,
}

impl Puller {
    /// A puller for `registry` (`HOST[:PORT]`) at `base` (`https://HOST[:PORT]`).
    pub(super) fn new(
        registry: &str,
        base: String,
        loopback: bool,
        credentials: Credentials,
        limits: Limits,
    ) -> Result<Self, OciError> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("warden/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(limits.idle.min(Duration::from_secs(15)))
            .read_timeout(limits.idle)
            .build()
            .map_err(|err| OciError::Unreachable {
                registry: registry.to_owned(),
                message: format!("cannot build the HTTP client: {err}"),
            })?;
        Ok(Self {
            http,
            base,
            registry: registry.to_owned(),
            credentials,
            limits,
            loopback,
            auth: Mutex::new(None),
        })
    }

    /// The limits in force.
    pub(super) fn limits(&self) -> Limits {
        self.limits
    }

    /// GET `/v2/<path>` (`what` for messages, `scope` for a token), its body at most `max`
    /// bytes, the whole within the deadline. `Ok(Err(refusal))` for a status that is not
    /// 2xx.
    pub(super) async fn get(
        &self,
        path: &str,
        accept: &str,
        what: &str,
        scope: &str,
        max: u64,
        started: &mut dyn FnMut(u64),
    ) -> Result<Result<Answer, Refusal>, OciError> {
        let deadline = self.limits.deadline;
        tokio::time::timeout(
            deadline,
            self.get_within(path, accept, what, scope, max, started),
        )
        .await
        .map_err(|_| OciError::Deadline {
            registry: self.registry.clone(),
            what: what.to_owned(),
            seconds: deadline.as_secs(),
        })?
    }

    async fn get_within(
        &self,
        path: &str,
        accept: &str,
        what: &str,
        scope: &str,
        max: u64,
        started: &mut dyn FnMut(u64),
    ) -> Result<Result<Answer, Refusal>, OciError> {
        let url = format!("{}/v2/{path}", self.base);
        let mut challenged = false;
        loop {
            let mut request = self.http.get(&url).header(ACCEPT, accept);
            if let Some(value) = self.current_auth() {
                request = request.header(AUTHORIZATION, value);
            }
            let response = request
                .send()
                .await
                .map_err(|err| self.failed(what, &err))?;
            let status = response.status();
            if status == StatusCode::UNAUTHORIZED && !challenged {
                challenged = true;
                if self.challenge_answered(response, scope).await? {
                    continue;
                }
                return Ok(Err(Refusal {
                    status,
                    codes: Vec::new(),
                }));
            }
            if !status.is_success() {
                let body = self.body(response, ERROR_MAX_BYTES, what, false).await?;
                return Ok(Err(Refusal {
                    status,
                    codes: error_codes(&body),
                }));
            }
            if let Some(length) = response.content_length() {
                if length > max {
                    return Err(self.too_large(what, max));
                }
                started(length);
            }
            let body = self.body(response, max, what, true).await?;
            return Ok(Ok(Answer { body }));
        }
    }

    /// The registry's base URL (`https://HOST[:PORT]`).
    pub(super) fn base(&self) -> &str {
        &self.base
    }

    /// `method` to `url` (on this registry) with `body` (bytes, content type), authenticated
    /// as a challenge asks for `scope`; the answer's body read at most to [`ERROR_MAX_BYTES`]
    /// (the rest never read). `Ok(Err(refusal))` for a status that is not 2xx. The caller
    /// holds the whole to the deadline.
    pub(super) async fn send(
        &self,
        method: Method,
        url: &Url,
        body: Option<(&[u8], &str)>,
        what: &str,
        scope: &str,
    ) -> Result<Result<Reply, Refusal>, OciError> {
        let mut challenged = false;
        loop {
            let mut request = self.http.request(method.clone(), url.clone());
            if let Some(value) = self.current_auth() {
                request = request.header(AUTHORIZATION, value);
            }
            request = match body {
                Some((bytes, content_type)) => request
                    .header(CONTENT_TYPE, content_type)
                    .body(bytes.to_vec()),
                None => request.header(CONTENT_LENGTH, 0),
            };
            let response = request
                .send()
                .await
                .map_err(|err| self.failed(what, &err))?;
            let status = response.status();
            if status == StatusCode::UNAUTHORIZED && !challenged {
                challenged = true;
                if self.challenge_answered(response, scope).await? {
                    continue;
                }
                return Ok(Err(Refusal {
                    status,
                    codes: Vec::new(),
                }));
            }
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let answer = self.body(response, ERROR_MAX_BYTES, what, false).await?;
            if !status.is_success() {
                return Ok(Err(Refusal {
                    status,
                    codes: error_codes(&answer),
                }));
            }
            return Ok(Ok(Reply { location }));
        }
    }

    fn current_auth(&self) -> Option<String> {
        self.auth.lock().ok().and_then(|guard| guard.clone())
    }

    fn set_auth(&self, value: String) {
        if let Ok(mut guard) = self.auth.lock() {
            *guard = Some(value);
        }
    }

    /// A 401's `WWW-Authenticate` challenge (if any) answered: true when credentials were
    /// obtained and the request may be sent again.
    async fn challenge_answered(
        &self,
        response: reqwest::Response,
        scope: &str,
    ) -> Result<bool, OciError> {
        let challenge = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        drop(response);
        match challenge {
            Some(challenge) => self.answer_challenge(&challenge, scope).await,
            None => Ok(false),
        }
    }

    /// Answer a 401's challenge; true when there is something new to retry with.
    async fn answer_challenge(&self, challenge: &str, scope: &str) -> Result<bool, OciError> {
        let (scheme, params) = challenge.split_once(' ').unwrap_or((challenge, ""));
        let basic = match &self.credentials {
            Credentials::Basic { user, password, .. } => Some(format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
            )),
            Credentials::Anonymous => None,
        };
        if scheme.eq_ignore_ascii_case("basic") {
            return Ok(match basic {
                Some(value) if self.current_auth().as_ref() != Some(&value) => {
                    self.set_auth(value);
                    true
                }
                _ => false,
            });
        }
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Ok(false);
        }
        let params = challenge_params(params);
        let Some(realm) = params.get("realm") else {
            return Ok(false);
        };
        let what = "the access token";
        let mut url = Url::parse(realm).map_err(|err| OciError::Registry {
            reference: self.registry.clone(),
            message: format!("its token realm {realm:?} is not a URL: {err}"),
        })?;
        let realm_loopback = url.host_str().is_some_and(|h| {
            h.eq_ignore_ascii_case("localhost")
                || h.trim_matches(['[', ']'])
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        });
        if url.scheme() != "https" && !(url.scheme() == "http" && realm_loopback && self.loopback) {
            return Err(OciError::Registry {
                reference: self.registry.clone(),
                message: format!(
                    "its token realm {realm:?} is not HTTPS; no credentials are sent over plain HTTP"
                ),
            });
        }
        {
            let mut query = url.query_pairs_mut();
            if let Some(service) = params.get("service") {
                query.append_pair("service", service);
            }
            query.append_pair("scope", scope);
        }
        let mut request = self.http.get(url);
        if let Some(value) = &basic {
            request = request.header(AUTHORIZATION, value.as_str());
        }
        let response = request
            .send()
            .await
            .map_err(|err| self.failed(what, &err))?;
        if !response.status().is_success() {
            return Ok(false);
        }
        let body = self.body(response, TOKEN_MAX_BYTES, what, true).await?;
        let token = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| {
                v.get("token")
                    .or_else(|| v.get("access_token"))
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned)
            })
            .filter(|t| !t.is_empty())
            .ok_or_else(|| OciError::Registry {
                reference: self.registry.clone(),
                message: "its token service answered without a token".into(),
            })?;
        self.set_auth(format!("Bearer {token}"));
        Ok(true)
    }

    /// The body of `response`, at most `max` bytes: past it, an error when `strict`, else
    /// what came before.
    async fn body(
        &self,
        response: reqwest::Response,
        max: u64,
        what: &str,
        strict: bool,
    ) -> Result<Vec<u8>, OciError> {
        let cap = usize::try_from(max).unwrap_or(usize::MAX);
        let mut body = Vec::with_capacity(
            usize::try_from(response.content_length().unwrap_or(0).min(max)).unwrap_or(0),
        );
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|err| self.failed(what, &err))?;
            if body.len().saturating_add(chunk.len()) > cap {
                if strict {
                    return Err(self.too_large(what, max));
                }
                body.extend_from_slice(&chunk[..cap - body.len()]);
                break;
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    fn too_large(&self, what: &str, max: u64) -> OciError {
        OciError::ResponseTooLarge {
            registry: self.registry.clone(),
            what: what.to_owned(),
            max,
        }
    }

    /// A transport failure while fetching `what`.
    fn failed(&self, what: &str, err: &reqwest::Error) -> OciError {
        if err.is_timeout() {
            OciError::Idle {
                registry: self.registry.clone(),
                what: what.to_owned(),
                seconds: self.limits.idle.as_secs(),
            }
        } else {
            OciError::Unreachable {
                registry: self.registry.clone(),
                message: format!("{what}: {}", super::registry::chain(err)),
            }
        }
    }
}

/// `key="value"` pairs of a challenge (`realm="https://…",service="…"`).
fn challenge_params(text: &str) -> std::collections::BTreeMap<String, String> {
    let mut params = std::collections::BTreeMap::new();
    let mut rest = text.trim();
    while let Some((key, after)) = rest.split_once('=') {
        let key = key
            .trim()
            .trim_start_matches(',')
            .trim()
            .to_ascii_lowercase();
        let after = after.trim_start();
        let (value, next) = if let Some(quoted) = after.strip_prefix('"') {
            match quoted.split_once('"') {
                Some((value, next)) => (value, next),
                None => (quoted, ""),
            }
        } else {
            match after.split_once(',') {
                Some((value, next)) => (value.trim(), next),
                None => (after.trim(), ""),
            }
        };
        params.insert(key, value.to_owned());
        rest = next.trim_start().trim_start_matches(',');
    }
    params
}

/// The `code`s of an OCI error envelope (`{"errors":[{"code":"MANIFEST_UNKNOWN"}]}`).
fn error_codes(body: &[u8]) -> Vec<String> {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("errors").and_then(|e| e.as_array().cloned()))
        .unwrap_or_default()
        .iter()
        .filter_map(|e| e.get("code").and_then(|c| c.as_str()).map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn challenge_parameters_are_read_quoted_or_not() {
        let params = challenge_params(
            r#"realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull""#,
        );
        assert_eq!(params["realm"], "https://auth.example/token");
        assert_eq!(params["service"], "registry.example");
        assert_eq!(params["scope"], "repository:a/b:pull");
        let params = challenge_params("realm=https://x/t, service=s");
        assert_eq!(params["realm"], "https://x/t");
        assert_eq!(params["service"], "s");
    }

    #[test]
    fn error_codes_come_from_the_envelope() {
        assert_eq!(
            error_codes(br#"{"errors":[{"code":"DENIED"},{"code":"NAME_UNKNOWN"}]}"#),
            vec!["DENIED".to_owned(), "NAME_UNKNOWN".to_owned()]
        );
        assert!(error_codes(b"not json").is_empty());
    }
}
