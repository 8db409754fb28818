//! Ordering plugin versions, so that `warden plugin update` can tell a tag moved back to an
//! older version: semantic versions (`1.4.0`, `v2`, `1.0.0-rc.1`; build metadata ignored).
//! Text that is no version (`stable`, `latest`) has no order.

use std::cmp::Ordering;

/// A parsed version: up to three numbers (missing ones are 0) and pre-release identifiers.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Version {
    core: [u64; 3],
    pre: Vec<String>,
}

fn parse(text: &str) -> Option<Version> {
    let text = text.trim();
    let text = text.strip_prefix(['v', 'V']).unwrap_or(text);
    let text = text.split_once('+').map_or(text, |(v, _)| v);
    let (core_text, pre) = match text.split_once('-') {
        Some((core, pre)) => (core, pre.split('.').map(str::to_owned).collect()),
        None => (text, Vec::new()),
    };
    let parts: Vec<&str> = core_text.split('.').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut core = [0; 3];
    for (slot, part) in core.iter_mut().zip(&parts) {
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *slot = part.parse().ok()?;
    }
    Some(Version { core, pre })
}

/// How `a` orders against `b`, when both are versions.
pub fn compare_versions(a: &str, b: &str) -> Option<Ordering> {
    let (a, b) = (parse(a)?, parse(b)?);
    Some(
        a.core
            .cmp(&b.core)
            .then_with(|| compare_pre(&a.pre, &b.pre)),
    )
}

/// Pre-release identifiers: none ranks above any; numeric ones numerically and below text.
fn compare_pre(a: &[String], b: &[String]) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        (false, false) => {}
    }
    for (x, y) in a.iter().zip(b) {
        let order = match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(x), Ok(y)) => x.cmp(&y),
            (Ok(_), Err(_)) => Ordering::Less,
            (Err(_), Ok(_)) => Ordering::Greater,
            (Err(_), Err(_)) => x.cmp(y),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_as_semantic_versions() {
        assert_eq!(compare_versions("1.4.0", "2.0.0"), Some(Ordering::Less));
        assert_eq!(compare_versions("v2", "2.0.0"), Some(Ordering::Equal));
        assert_eq!(compare_versions("1.10.0", "1.9.9"), Some(Ordering::Greater));
        assert_eq!(
            compare_versions("1.0.0-rc.1", "1.0.0"),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare_versions("1.0.0-rc.2", "1.0.0-rc.10"),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare_versions("1.0.0+build.5", "1.0.0"),
            Some(Ordering::Equal)
        );
        assert_eq!(compare_versions("stable", "1.0.0"), None);
        assert_eq!(compare_versions("1.2.3.4", "1.0.0"), None);
        assert_eq!(compare_versions("", "1.0.0"), None);
    }
}
