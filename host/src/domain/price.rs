//! What a model costs and how much it reads: a built-in table for the default models and a few
//! of their neighbours ([`known_model`]), which `[model] price` and `[model] context_window`
//! override. Prices are in US dollars per million tokens, as the providers publish them.

use serde::{Deserialize, Serialize};

use super::usage::Usage;

/// Prices of one model, in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// Uncached prompt tokens.
    pub input: f64,
    /// Answer tokens.
    pub output: f64,
    /// Prompt tokens read from the cache (the input price when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// Prompt tokens written to the cache (the input price when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
}

impl ModelPrice {
    /// What `usage` costs, in US dollars.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let per = |tokens: u64, price: f64| tokens as f64 * price / 1_000_000.0;
        per(usage.input_tokens, self.input)
            + per(usage.output_tokens, self.output)
            + per(
                usage.cache_read_tokens,
                self.cache_read.unwrap_or(self.input),
            )
            + per(
                usage.cache_write_tokens,
                self.cache_write.unwrap_or(self.input),
            )
    }
}

/// What the built-in table knows of a model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnownModel {
    /// Its prices.
    pub price: ModelPrice,
    /// Its context window, in tokens.
    pub context_window: u64,
}

const fn known(input: f64, output: f64, read: f64, write: f64, window: u64) -> KnownModel {
    KnownModel {
        price: ModelPrice {
            input,
            output,
            cache_read: Some(read),
            cache_write: Some(write),
        },
        context_window: window,
    }
}

/// The built-in table: model name (a dated snapshot `NAME-YYYYMMDD` matches too), prices and
/// window. OpenAI charges no cache writes: their price is the input price.
const TABLE: &[(&str, KnownModel)] = &[
    ("claude-sonnet-4-5", known(3.0, 15.0, 0.30, 3.75, 200_000)),
    ("claude-sonnet-4", known(3.0, 15.0, 0.30, 3.75, 200_000)),
    ("claude-opus-4-1", known(15.0, 75.0, 1.50, 18.75, 200_000)),
    ("claude-haiku-4-5", known(1.0, 5.0, 0.10, 1.25, 200_000)),
    ("gpt-4.1", known(2.0, 8.0, 0.50, 2.0, 1_047_576)),
    ("gpt-4.1-mini", known(0.40, 1.60, 0.10, 0.40, 1_047_576)),
    ("gpt-4o", known(2.50, 10.0, 1.25, 2.50, 128_000)),
];

/// The built-in entry for `model`: its exact name, or that name with a date suffix
/// (`claude-sonnet-4-5-20250929`, `gpt-4.1-2025-04-14`).
pub fn known_model(model: &str) -> Option<KnownModel> {
    TABLE
        .iter()
        .find(|(name, _)| *name == model)
        .or_else(|| {
            TABLE.iter().find(|(name, _)| {
                model
                    .strip_prefix(name)
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(is_date)
            })
        })
        .map(|(_, known)| *known)
}

/// A snapshot's date suffix: `20250929` or `2025-04-14` (never `6`, as in `claude-sonnet-4-6`).
fn is_date(text: &str) -> bool {
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    match text.len() {
        8 => digits(text),
        10 => {
            let b = text.as_bytes();
            b[4] == b'-'
                && b[7] == b'-'
                && digits(&text[..4])
                && digits(&text[5..7])
                && digits(&text[8..])
        }
        _ => false,
    }
}

/// `$0.0123`, `$1.23`: a cost for a person.
pub fn dollars(cost: f64) -> String {
    if cost < 1.0 {
        format!("${cost:.4}")
    } else {
        format!("${cost:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_each_kind_of_token_at_its_price() {
        let price = ModelPrice {
            input: 3.0,
            output: 15.0,
            cache_read: Some(0.3),
            cache_write: None,
        };
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cache_read_tokens: 2_000_000,
            cache_write_tokens: 1_000_000,
        };
        // 3 + 1.5 + 0.6 + 3 (cache writes at the input price)
        assert!((price.cost(&usage) - 8.1).abs() < 1e-9);
        assert_eq!(dollars(8.1), "$8.10");
        assert_eq!(dollars(0.01234), "$0.0123");
    }

    #[test]
    fn knows_the_default_models_and_their_snapshots_only() {
        let sonnet = known_model("claude-sonnet-4-5").map(|k| k.context_window);
        assert_eq!(sonnet, Some(200_000));
        assert_eq!(
            known_model("claude-sonnet-4-5-20250929").map(|k| k.price.output),
            Some(15.0)
        );
        assert_eq!(
            known_model("gpt-4.1-2025-04-14").map(|k| k.price.input),
            Some(2.0)
        );
        assert_eq!(
            known_model("gpt-4.1-mini").map(|k| k.price.input),
            Some(0.40)
        );
        assert_eq!(known_model("gpt-4.1-nano"), None);
        assert_eq!(known_model("claude-sonnet-4-6"), None);
        assert_eq!(known_model("gpt-4o-1"), None);
        assert_eq!(known_model("mock"), None);
    }
}
