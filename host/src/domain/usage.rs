//! Token counts a model provider reports for one answer ([`Usage`]), and their sums over a
//! session.

use std::ops::Add;

use serde::{Deserialize, Serialize};

/// Token counts of one model answer, or a sum of several. The four counts never overlap: a
/// prompt's tokens are `input_tokens + cache_read_tokens + cache_write_tokens`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens neither read from nor written to the provider's cache.
    #[serde(default)]
    pub input_tokens: u64,
    /// Answer tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Prompt tokens read from the provider's cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the provider's cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// All prompt tokens: uncached, read from the cache and written to it.
    pub fn prompt_tokens(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_read_tokens)
            .saturating_add(self.cache_write_tokens)
    }

    /// Every token counted: the prompt's and the answer's.
    pub fn total(&self) -> u64 {
        self.prompt_tokens().saturating_add(self.output_tokens)
    }

    /// The sum of `usages`, with how many of them there were.
    pub fn totals<'a>(usages: impl IntoIterator<Item = &'a Usage>) -> (Usage, usize) {
        usages
            .into_iter()
            .fold((Usage::default(), 0), |(sum, n), u| (sum + *u, n + 1))
    }
}

impl Add for Usage {
    type Output = Usage;

    fn add(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
            cache_read_tokens: self
                .cache_read_tokens
                .saturating_add(other.cache_read_tokens),
            cache_write_tokens: self
                .cache_write_tokens
                .saturating_add(other.cache_write_tokens),
        }
    }
}

/// `12`, `1.2k`, `45.6k`, `1.05M`: a token count for a status line.
pub fn short_count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1_000.0),
        _ => format!("{:.2}M", n as f64 / 1_000_000.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(i: u64, o: u64, r: u64, w: u64) -> Usage {
        Usage {
            input_tokens: i,
            output_tokens: o,
            cache_read_tokens: r,
            cache_write_tokens: w,
        }
    }

    #[test]
    fn adds_field_by_field_and_totals() {
        let sum = u(1, 2, 3, 4) + u(10, 20, 30, 40);
        assert_eq!(sum, u(11, 22, 33, 44));
        assert_eq!(sum.prompt_tokens(), 88);
        assert_eq!(sum.total(), 110);
        let (all, n) = Usage::totals(&[u(1, 1, 0, 0), u(2, 0, 5, 0)]);
        assert_eq!((all, n), (u(3, 1, 5, 0), 2));
        assert_eq!(
            (u(u64::MAX, 0, 0, 0) + u(1, 0, 0, 0)).input_tokens,
            u64::MAX
        );
    }

    #[test]
    fn serializes_without_zero_cache_counts_and_reads_partial_objects() {
        let json = serde_json::to_value(u(5, 6, 0, 0)).unwrap_or_default();
        assert_eq!(
            json,
            serde_json::json!({"input_tokens": 5, "output_tokens": 6})
        );
        let back: Usage =
            serde_json::from_str(r#"{"input_tokens":5,"cache_read_tokens":7}"#).unwrap_or_default();
        assert_eq!(back, u(5, 0, 7, 0));
    }

    #[test]
    fn short_counts() {
        assert_eq!(short_count(999), "999");
        assert_eq!(short_count(1_240), "1.2k");
        assert_eq!(short_count(200_000), "200.0k");
        assert_eq!(short_count(1_047_576), "1.05M");
    }
}
