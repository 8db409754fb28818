//! Retry timing: exponential backoff with jitter, and the waits providers ask for in headers.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

/// Longest wait a provider may ask for and still be honoured; a longer one falls back to the
/// policy's own backoff.
pub const MAX_HONOURED_WAIT: Duration = Duration::from_secs(60);

/// How often and how patiently to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Wait before the first retry; doubled for each further one.
    pub base: Duration,
    /// Cap on one computed wait.
    pub max: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            base: Duration::from_millis(500),
            max: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `retry` (from 1).
    ///
    /// A wait the provider asked for (`hint`, from `retry-after` and friends) is used as is
    /// when it is at most [`MAX_HONOURED_WAIT`]. Otherwise the wait is `base · 2^(retry-1)`,
    /// capped at `max`, of which a random part up to a quarter is taken off so that clients
    /// failing together do not retry together.
    pub fn delay(&self, retry: u32, hint: Option<Duration>) -> Duration {
        if let Some(hint) = hint.filter(|h| *h <= MAX_HONOURED_WAIT) {
            return hint;
        }
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        let full = self.base.saturating_mul(factor).min(self.max);
        let jitter = full.mul_f64(fastrand::f64() * 0.25);
        full.saturating_sub(jitter)
    }
}

/// The wait a provider asked for, from (in order) `retry-after-ms`, `retry-after` (seconds or
/// an HTTP date) and, for a 429 without either, the rate-limit reset headers
/// (`anthropic-ratelimit-*-reset` as RFC 3339 times, `x-ratelimit-reset-*` as `1m30s`).
pub fn wait_from_headers(headers: &HeaderMap, status: u16) -> Option<Duration> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return duration_from_secs(ms / 1000.0);
    }
    if let Some(v) = get("retry-after") {
        return parse_retry_after(v, SystemTime::now());
    }
    if status != 429 {
        return None;
    }
    let anthropic = [
        "anthropic-ratelimit-requests-reset",
        "anthropic-ratelimit-tokens-reset",
        "anthropic-ratelimit-input-tokens-reset",
        "anthropic-ratelimit-output-tokens-reset",
    ]
    .into_iter()
    .filter_map(&get)
    .filter_map(|v| humantime::parse_rfc3339_weak(v).ok())
    .filter_map(|at| at.duration_since(SystemTime::now()).ok());
    let openai = ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]
        .into_iter()
        .filter_map(get)
        .filter_map(parse_go_duration);
    anthropic.chain(openai).max()
}

/// `retry-after`: delay in seconds, or an HTTP date (a date in the past means now).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    if let Ok(secs) = value.parse::<f64>() {
        return duration_from_secs(secs);
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Durations such as `1s`, `6m0s`, `250ms`, `1h2m3.5s` (OpenAI's reset headers).
pub fn parse_go_duration(value: &str) -> Option<Duration> {
    let mut total = 0.0f64;
    let mut rest = value;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            "us" | "µs" => 0.000_001,
            "ns" => 0.000_000_001,
            _ => return None,
        };
        total += number * scale;
        rest = &rest[unit_len..];
    }
    duration_from_secs(total)
}

fn duration_from_secs(secs: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(secs).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn backoff_doubles_with_jitter_and_caps() {
        let p = RetryPolicy {
            max_retries: 9,
            base: Duration::from_millis(100),
            max: Duration::from_millis(1000),
        };
        for (retry, full) in [(1, 100), (2, 200), (3, 400), (4, 800), (5, 1000), (9, 1000)] {
            let d = p.delay(retry, None);
            let full = Duration::from_millis(full);
            assert!(d <= full && d >= full.mul_f64(0.75), "{retry}: {d:?}");
        }
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(7))),
            Duration::from_secs(7)
        );
        assert!(p.delay(1, Some(Duration::from_secs(3600))) <= Duration::from_millis(100));
    }

    #[test]
    fn retry_after_forms() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT")
            .unwrap_or(SystemTime::UNIX_EPOCH);
        assert_eq!(parse_retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn go_durations() {
        assert_eq!(parse_go_duration("1s"), Some(Duration::from_secs(1)));
        assert_eq!(parse_go_duration("6m0s"), Some(Duration::from_secs(360)));
        assert_eq!(parse_go_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_go_duration("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_go_duration("5x"), None);
        assert_eq!(parse_go_duration(""), None);
    }

    #[test]
    fn header_precedence() {
        let mut h = HeaderMap::new();
        h.insert("x-ratelimit-reset-requests", HeaderValue::from_static("3s"));
        assert_eq!(wait_from_headers(&h, 429), Some(Duration::from_secs(3)));
        assert_eq!(wait_from_headers(&h, 503), None);
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(wait_from_headers(&h, 429), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("15"));
        assert_eq!(wait_from_headers(&h, 503), Some(Duration::from_millis(15)));
    }
}
