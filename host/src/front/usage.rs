//! Tokens and cost for a person: the per-request line of `warden audit`, the chat's status
//! line after each turn, and the totals of `/cost` and `warden session show`.

use crate::config::ModelConfig;
use crate::domain::Usage;
use crate::domain::price::{ModelPrice, dollars, known_model};
use crate::domain::usage::short_count;
use crate::store::{Record, as_sent};

/// What the configured model costs and reads: `[model] price` and `[model] context_window`
/// over the built-in table.
#[derive(Debug, Clone, PartialEq)]
pub struct Costing {
    /// The model's name.
    pub model: String,
    /// Its prices, when known.
    pub price: Option<ModelPrice>,
    /// Its context window, when known.
    pub window: Option<u64>,
}

impl Costing {
    /// For the model `config` names (or its provider's default).
    pub fn of(config: &ModelConfig) -> Self {
        let model = config
            .name
            .clone()
            .unwrap_or_else(|| crate::llm::default_model(config.provider).to_owned());
        let known = known_model(&model);
        Self {
            price: config.price.or(known.map(|k| k.price)),
            window: config.context_window.or(known.map(|k| k.context_window)),
            model,
        }
    }
}

/// `12 in, 3 out, 100 cache read tokens`: the counts that are not zero besides input and
/// output.
pub fn tokens_line(u: &Usage) -> String {
    let mut line = format!("{} in, {} out", u.input_tokens, u.output_tokens);
    if u.cache_read_tokens > 0 {
        line.push_str(&format!(", {} cache read", u.cache_read_tokens));
    }
    if u.cache_write_tokens > 0 {
        line.push_str(&format!(", {} cache write", u.cache_write_tokens));
    }
    line.push_str(" tokens");
    line
}

/// The usage recorded with the answers of `records`, summed, and how many answers had one.
pub fn session_totals(records: &[Record]) -> (Usage, usize) {
    Usage::totals(records.iter().filter_map(|r| r.usage.as_ref()))
}

/// A session's figures as data: the tokens its last request sent (what fills the window), the
/// window, the session's tokens and their cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// Tokens of the last answer's request and answer, when one reported them.
    pub used: Option<u64>,
    /// The model's context window, when known.
    pub window: Option<u64>,
    /// The session's tokens, summed.
    pub total: Usage,
    /// What they cost, when the model's price is known.
    pub cost: Option<f64>,
}

impl Figures {
    /// The figures after one more answer that took `usage`.
    pub fn add(&mut self, usage: &Usage, costing: &Costing) {
        self.used = Some(usage.total());
        self.total = self.total + *usage;
        self.cost = costing.price.as_ref().map(|price| price.cost(&self.total));
    }
}

/// The figures of `records` (`None` before any answer reported its tokens).
pub fn figures(records: &[Record], costing: &Costing) -> Option<Figures> {
    let (total, answers) = session_totals(records);
    if answers == 0 {
        return None;
    }
    Some(Figures {
        used: as_sent(records)
            .iter()
            .rev()
            .find_map(|r| r.usage)
            .map(|u| u.total()),
        window: costing.window,
        total,
        cost: costing.price.as_ref().map(|price| price.cost(&total)),
    })
}

/// `context 12.3k/200.0k (6%) · session 45.6k tokens · $0.0123`: after each turn.
pub fn status_line(records: &[Record], costing: &Costing) -> Option<String> {
    let figures = figures(records, costing)?;
    let mut parts = Vec::new();
    if let Some(used) = figures.used {
        parts.push(match figures.window {
            Some(window) if window > 0 => format!(
                "context {}/{} ({}%)",
                short_count(used),
                short_count(window),
                used.saturating_mul(100) / window
            ),
            _ => format!("context {}", short_count(used)),
        });
    }
    parts.push(format!(
        "session {} tokens",
        short_count(figures.total.total())
    ));
    if let Some(cost) = figures.cost {
        parts.push(dollars(cost));
    }
    Some(parts.join(" · "))
}

/// The lines of `/cost` and `warden session show`: each kind of token, then the price or why
/// there is none.
pub fn cost_lines(records: &[Record], costing: &Costing) -> Vec<String> {
    let (total, answers) = session_totals(records);
    if answers == 0 {
        return vec!["no token counts recorded in this session".to_owned()];
    }
    let mut lines = vec![
        format!("answers      {answers} with token counts"),
        format!("input        {}", total.input_tokens),
        format!("output       {}", total.output_tokens),
        format!("cache read   {}", total.cache_read_tokens),
        format!("cache write  {}", total.cache_write_tokens),
        format!("total        {}", total.total()),
    ];
    lines.push(match &costing.price {
        Some(price) => format!(
            "cost         {} at the prices of {} (input ${}, output ${} per million tokens)",
            dollars(price.cost(&total)),
            crate::domain::escape::escape(&costing.model),
            price.input,
            price.output
        ),
        None => format!(
            "cost         unknown: no price for model {} (set [model] price)",
            crate::domain::escape::escape(&costing.model)
        ),
    });
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Item, Source};

    fn record(seq: u64, usage: Option<Usage>) -> Record {
        Record {
            seq,
            group: seq,
            source: Source::Provider,
            ts: std::time::SystemTime::UNIX_EPOCH,
            item: Item::assistant("a"),
            origin: None,
            files: Vec::new(),
            compaction: None,
            usage,
        }
    }

    fn usage(input: u64, output: u64, read: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_tokens: read,
            cache_write_tokens: 0,
        }
    }

    #[test]
    fn status_shows_the_last_context_against_the_window_and_the_session_total() {
        let costing = Costing {
            model: "m".into(),
            price: Some(ModelPrice {
                input: 1.0,
                output: 2.0,
                cache_read: None,
                cache_write: None,
            }),
            window: Some(10_000),
        };
        let records = [
            record(1, Some(usage(1_000, 500, 0))),
            record(2, None),
            record(3, Some(usage(500, 500, 1_000))),
        ];
        assert_eq!(
            status_line(&records, &costing).as_deref(),
            Some("context 2.0k/10.0k (20%) · session 3.5k tokens · $0.0045")
        );
        assert_eq!(status_line(&records[1..2], &costing), None);
        let lines = cost_lines(&records, &costing).join("\n");
        assert!(lines.contains("input        1500"), "{lines}");
        assert!(lines.contains("cache read   1000"), "{lines}");
        assert!(lines.contains("cost         $0.0045"), "{lines}");
    }

    #[test]
    fn an_unknown_model_has_no_price_and_says_how_to_set_one() {
        let config = ModelConfig {
            name: Some("local-model".into()),
            ..ModelConfig::default()
        };
        let costing = Costing::of(&config);
        assert_eq!((costing.price, costing.window), (None, None));
        let lines = cost_lines(&[record(1, Some(usage(1, 1, 0)))], &costing).join("\n");
        assert!(lines.contains("set [model] price"), "{lines}");
        let config = ModelConfig {
            name: Some("claude-sonnet-4-5".into()),
            context_window: Some(1_000_000),
            ..ModelConfig::default()
        };
        let costing = Costing::of(&config);
        assert_eq!(costing.window, Some(1_000_000));
        assert_eq!(costing.price.map(|p| p.output), Some(15.0));
    }
}
