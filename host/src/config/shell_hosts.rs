//! The host patterns of `[tools.shell] allowed_hosts` and of the managed ceiling
//! `policy.shell_allowed_hosts`: what they may say, what a pattern matches, and whether one
//! pattern stays within another.
//!
//! A pattern is `name`, `name:port`, `*.domain` or `*.domain:port`:
//! - `name` is a DNS name (labels of `[A-Za-z0-9-]`, compared without case
//!   and without a trailing dot), or an IPv6 address in brackets (`[::1]`);
//! - without a port every port of the host is allowed, with one only that port (as a tool
//!   plugin's `allowed_hosts`);
//! - a leading `*.` matches every name below the domain (`*.pypi.org` matches
//!   `files.pypi.org` and `a.b.pypi.org`, not `pypi.org` itself); the domain needs at least
//!   two labels (`*.org` is refused), and no other wildcard is taken.
//!
//! Nothing is resolved: `localhost` does not match `127.0.0.1`, nor the reverse.

use std::fmt;
use std::net::Ipv6Addr;

/// One parsed host pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPattern {
    /// Whether the pattern began with `*.` (then `name` is the domain below which it matches).
    wildcard: bool,
    /// The host name, lower-case, without a trailing dot; an IPv6 address in brackets.
    name: String,
    /// The one port allowed, or every port.
    port: Option<u16>,
}

impl HostPattern {
    /// Parse `text`; the error says what is wrong and how a pattern is written.
    pub fn parse(text: &str) -> Result<Self, String> {
        let how =
            "write `name`, `name:port`, `*.domain` or `*.domain:port` (no scheme, path or user)";
        let (wildcard, rest) = match text.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (name, port) = split_port(rest).map_err(|why| format!("{text:?}: {why}"))?;
        let name = if let Some(inner) = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
            let addr: Ipv6Addr = inner
                .parse()
                .map_err(|_| format!("{text:?}: `[{inner}]` is not an IPv6 address"))?;
            if wildcard {
                return Err(format!(
                    "{text:?}: a wildcard needs a domain name, not an address"
                ));
            }
            format!("[{addr}]")
        } else {
            let name = normalize(name);
            if !dns_name(&name) {
                return Err(format!("{text:?} is not a host pattern: {how}"));
            }
            if wildcard && ends_in_number(&name) {
                return Err(format!(
                    "{text:?}: a wildcard needs a domain name, not an address"
                ));
            }
            if ends_in_number(&name) && !dotted_quad(&name) {
                return Err(format!(
                    "{text:?}: an address is written as four decimal octets (`127.0.0.1`), and a host name never ends in a number"
                ));
            }
            name
        };
        if wildcard && name.split('.').count() < 2 {
            return Err(format!(
                "{text:?}: a wildcard must name a domain of at least two labels (`*.example.com`)"
            ));
        }
        Ok(Self {
            wildcard,
            name,
            port,
        })
    }

    /// Whether `host` (as a request names it: a name, an IPv4 address or a bracketed or bare
    /// IPv6 address) on `port` matches.
    pub fn matches(&self, host: &str, port: u16) -> bool {
        if self.port.is_some_and(|p| p != port) {
            return false;
        }
        let host = canonical_host(host);
        if self.wildcard {
            // A wildcard names a domain: no address, in any spelling, is below one.
            if host.starts_with('[') || ends_in_number(&host) {
                return false;
            }
            host.strip_suffix(self.name.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.'))
        } else {
            host == self.name
        }
    }

    /// Whether every host and port this pattern matches is matched by `ceiling`.
    pub fn within(&self, ceiling: &Self) -> bool {
        if let Some(max) = ceiling.port
            && self.port != Some(max)
        {
            return false;
        }
        let below = |name: &str| {
            name.strip_suffix(ceiling.name.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.'))
        };
        match (self.wildcard, ceiling.wildcard) {
            (false, false) => self.name == ceiling.name,
            (true, false) => false,
            (false, true) => below(&self.name),
            (true, true) => self.name == ceiling.name || below(&self.name),
        }
    }
}

impl fmt::Display for HostPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.wildcard {
            f.write_str("*.")?;
        }
        f.write_str(&self.name)?;
        if let Some(port) = self.port {
            write!(f, ":{port}")?;
        }
        Ok(())
    }
}

/// Every pattern of `list`, or the first that does not parse.
pub fn parse_host_patterns(list: &[String]) -> Result<Vec<HostPattern>, String> {
    list.iter().map(|p| HostPattern::parse(p)).collect()
}

/// Whether any of `patterns` matches `host` on `port`.
pub fn host_allowed(patterns: &[HostPattern], host: &str, port: u16) -> bool {
    patterns.iter().any(|p| p.matches(host, port))
}

/// `name` and its port (`None` when absent); a bracketed IPv6 address keeps its brackets.
fn split_port(text: &str) -> Result<(&str, Option<u16>), String> {
    let (name, port) = if text.starts_with('[') {
        match text.find(']') {
            Some(end) => match &text[end + 1..] {
                "" => (text, None),
                rest => match rest.strip_prefix(':') {
                    Some(port) => (&text[..=end], Some(port)),
                    None => return Err("junk after the IPv6 address".into()),
                },
            },
            None => return Err("an unclosed `[`".into()),
        }
    } else {
        match text.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (text, None),
        }
    };
    match port {
        None => Ok((name, None)),
        Some(port) => match port.parse::<u16>() {
            Ok(p) if p > 0 && !port.starts_with('0') && !port.starts_with('+') => {
                Ok((name, Some(p)))
            }
            _ => Err("the port must be a number from 1 to 65535".into()),
        },
    }
}

fn normalize(name: &str) -> String {
    name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase()
}

/// A host as a request names it, in the form patterns are compared with.
fn canonical_host(host: &str) -> String {
    let inner = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    match inner.parse::<Ipv6Addr>() {
        Ok(addr) => format!("[{addr}]"),
        Err(_) => normalize(host),
    }
}

/// Whether the last label of `name` is a number as the C resolver reads one (decimal, octal
/// or `0x` hexadecimal): no top-level domain is, so such a name is an address spelling.
fn ends_in_number(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    let hex = last
        .strip_prefix("0x")
        .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
    !last.is_empty() && (hex || last.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `name` is an IPv4 address in the one spelling patterns take: four decimal octets
/// without leading zeros.
fn dotted_quad(name: &str) -> bool {
    let octets: Vec<&str> = name.split('.').collect();
    octets.len() == 4
        && octets.iter().all(|o| {
            !o.is_empty()
                && o.len() <= 3
                && o.bytes().all(|b| b.is_ascii_digit())
                && (o.len() == 1 || !o.starts_with('0'))
                && o.parse::<u16>().is_ok_and(|v| v <= 255)
        })
}

fn dns_name(name: &str) -> bool {
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    !name.is_empty() && name.len() <= 253 && name.split('.').all(label_ok)
}

#[cfg(test)]
#[path = "shell_hosts_tests.rs"]
mod tests;
