//! What a model call cost: the bundled, dated price table (`data/prices.json`, rates copied
//! from LiteLLM's `model_prices_and_context_window.json`, the table ccusage uses), the
//! `--prices FILE` override in the same shape, and [`cost`], which every view calls once per
//! model call. A cost the file recorded is kept as recorded; a call without one is estimated
//! from the table; a call whose model the table does not know has an unknown cost, never 0.
//!
//! Model names are matched in this order, case-insensitively, first hit wins:
//! 1. the name as written (`claude-sonnet-4-5-20250929`);
//! 2. the name after its last `/` (`anthropic/claude-opus-4-6`, `openrouter/openai/gpt-5`);
//! 3. a Bedrock / Vertex id reduced to the model (`us.anthropic.claude-opus-4-1-20250805-v1:0`,
//!    `claude-opus-4-1@20250805`);
//! 4. the name without a trailing date (`-20250929`, `-2025-08-07`).
//!
//! ccusage also accepts a table key that merely contains the name (or the reverse); that can
//! price `gpt-5.2-codex-mini` as `gpt-5.2-codex`, so it is not done here: such a model is
//! `unknown` until the table (or `--prices`) names it.
//!
//! Long-context tiers: when a call's prompt (input + cache read + cache write) is above the
//! tier's `tokens`, every part of the call is priced at the tier's rates, as Anthropic and
//! OpenAI bill it. (ccusage splits each part at the threshold instead; the two agree on every
//! call below it.) A rate the table leaves out is billed at the model's input rate.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Usage;

/// The bundled table, compiled in so that pricing works offline and is the same everywhere.
pub const BUNDLED: &str = include_str!("../data/prices.json");

/// Dollars per million tokens for one model.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Price {
    #[serde(default)]
    pub provider: Option<String>,
    pub input: f64,
    pub output: f64,
    #[serde(default)]
    pub cache_read: Option<f64>,
    #[serde(default)]
    pub cache_write: Option<f64>,
    /// Writes to the 1-hour cache (Anthropic bills them at twice the input rate; the
    /// 5-minute writes are `cache_write`). Absent: billed as `cache_write`.
    #[serde(default)]
    pub cache_write_1h: Option<f64>,
    /// The long-context tier, when the model has one.
    #[serde(default)]
    pub above: Option<Tier>,
}

/// Rates that apply to a whole call once its prompt is above `tokens`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Tier {
    pub tokens: u64,
    pub input: f64,
    pub output: f64,
    #[serde(default)]
    pub cache_read: Option<f64>,
    #[serde(default)]
    pub cache_write: Option<f64>,
    #[serde(default)]
    pub cache_write_1h: Option<f64>,
}

/// A price table: where it comes from, when, and the rates by model name.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Prices {
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub retrieved: Option<String>,
    #[serde(default)]
    pub unit: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    pub models: BTreeMap<String, Price>,
}

/// Where a cost comes from. For a sum: `mixed` when both recorded and estimated costs are in
/// it, `unknown` when any call's cost is unknown (the sum is then only a lower bound).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CostSource {
    Recorded,
    Estimated,
    Mixed,
    Unknown,
}

impl CostSource {
    pub fn as_str(self) -> &'static str {
        match self {
            CostSource::Recorded => "recorded",
            CostSource::Estimated => "estimated",
            CostSource::Mixed => "mixed",
            CostSource::Unknown => "unknown",
        }
    }
}

/// One call's cost: `amount` is `None` exactly when `source` is `Unknown`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    pub amount: Option<f64>,
    pub source: CostSource,
}

impl Prices {
    /// The bundled table (parsed once).
    pub fn bundled() -> &'static Prices {
        static P: OnceLock<Prices> = OnceLock::new();
        P.get_or_init(|| Prices::parse(BUNDLED, "data/prices.json").expect("the bundled price table is valid"))
    }

    /// Read a table in the bundled shape; a bad file is `file:line:column: what is wrong`.
    pub fn load(path: &Path) -> Result<Prices> {
        let name = path.to_string_lossy();
        let text = std::fs::read_to_string(path).map_err(|e| Error::Usage(format!("{name}: cannot read: {e}")))?;
        Prices::parse(&text, &name)
    }

    pub fn parse(text: &str, name: &str) -> Result<Prices> {
        let mut p: Prices = serde_json::from_str(text).map_err(|e| {
            Error::Usage(format!("{name}:{}:{}: not a price table: {}", e.line(), e.column(), strip_position(&e)))
        })?;
        for (model, price) in &p.models {
            let rates =
                [Some(price.input), Some(price.output), price.cache_read, price.cache_write, price.cache_write_1h];
            let tier = price
                .above
                .iter()
                .flat_map(|t| [Some(t.input), Some(t.output), t.cache_read, t.cache_write, t.cache_write_1h]);
            if rates.into_iter().chain(tier).flatten().any(|r| !(r.is_finite() && r >= 0.0)) {
                let (line, col) = position_of(text, model);
                return Err(Error::Usage(format!(
                    "{name}:{line}:{col}: model {model:?}: a rate must be a non-negative number of dollars per million tokens"
                )));
            }
        }
        // Names are matched case-insensitively.
        p.models = std::mem::take(&mut p.models).into_iter().map(|(k, v)| (k.to_ascii_lowercase(), v)).collect();
        Ok(p)
    }

    /// The table's entry for a model name as a session file writes it (see the module doc).
    pub fn lookup(&self, model: &str) -> Option<&Price> {
        let get = |k: &str| self.models.get(k);
        // Most names come trimmed and in lower case already: no copy is made of them.
        let as_keyed = model.len() == model.trim().len() && !model.bytes().any(|b| b.is_ascii_uppercase());
        let lower: std::borrow::Cow<str> =
            if as_keyed { model.into() } else { model.trim().to_ascii_lowercase().into() };
        if let Some(p) = get(&lower) {
            return Some(p);
        }
        let base = lower.rsplit('/').next().unwrap_or(&lower);
        if let Some(p) = get(base) {
            return Some(p);
        }
        // Bedrock `us.anthropic.claude-…-v1:0`, Vertex `claude-…@20250805`.
        let mut cloud = base;
        if let Some(i) = cloud.find("anthropic.") {
            cloud = &cloud[i + "anthropic.".len()..];
        }
        if let Some(i) = cloud.rfind("-v") {
            if cloud[i + 2..].bytes().all(|b| b.is_ascii_digit() || b == b':') && cloud.len() > i + 2 {
                cloud = &cloud[..i];
            }
        }
        let cloud: std::borrow::Cow<str> =
            if cloud.contains('@') { cloud.replace('@', "-").into() } else { cloud.into() };
        if let Some(p) = get(&cloud) {
            return Some(p);
        }
        get(strip_date(&cloud))
    }
}

/// `name-20250929` or `name-2025-08-07` -> `name`.
fn strip_date(name: &str) -> &str {
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if let Some((head, tail)) = name.rsplit_once('-') {
        if tail.len() == 8 && digits(tail) {
            return head;
        }
    }
    // `-YYYY-MM-DD`: the last 11 bytes.
    if name.len() > 11 && name.is_char_boundary(name.len() - 11) {
        let (head, tail) = name.split_at(name.len() - 11);
        let b = tail.as_bytes();
        if b[0] == b'-'
            && b[5] == b'-'
            && b[8] == b'-'
            && digits(&tail[1..5])
            && digits(&tail[6..8])
            && digits(&tail[9..])
        {
            return head;
        }
    }
    name
}

fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Line and column (1-based) of the first `"key"` in a text, for messages about a key.
fn position_of(text: &str, key: &str) -> (usize, usize) {
    let needle = format!("\"{key}\"");
    let at = text.find(&needle).unwrap_or(0);
    let line = text[..at].matches('\n').count() + 1;
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

/// What one model call cost: its recorded cost when the file has one, else the table's
/// estimate for its model, else unknown. `provider` is accepted for callers that have it; the
/// table is keyed by model name alone, as LiteLLM's is.
pub fn cost(u: &Usage, provider: Option<&str>, model: Option<&str>, prices: &Prices) -> Cost {
    let _ = provider;
    if let Some(c) = u.cost {
        return Cost { amount: Some(c), source: CostSource::Recorded };
    }
    // No tokens cost nothing, whatever the model (Claude Code's `<synthetic>` lines).
    if u.input == 0 && u.output == 0 && u.cache_read == 0 && u.cache_write == 0 {
        return Cost { amount: Some(0.0), source: CostSource::Estimated };
    }
    match model.and_then(|m| prices.lookup(m)) {
        Some(p) => Cost { amount: Some(estimate(u, p)), source: CostSource::Estimated },
        None => Cost { amount: None, source: CostSource::Unknown },
    }
}

/// The table's price of a call's tokens, in dollars.
pub fn estimate(u: &Usage, p: &Price) -> f64 {
    let prompt = u.input.saturating_add(u.cache_read).saturating_add(u.cache_write);
    let (input, output, read, write, write_1h) = match &p.above {
        Some(t) if prompt > t.tokens => (t.input, t.output, t.cache_read, t.cache_write, t.cache_write_1h),
        _ => (p.input, p.output, p.cache_read, p.cache_write, p.cache_write_1h),
    };
    let read = read.unwrap_or(input);
    let write = write.unwrap_or(input);
    let write_1h = write_1h.unwrap_or(write);
    let long = u.cache_write_1h.min(u.cache_write);
    let short = u.cache_write - long;
    (u.input as f64 * input
        + u.output as f64 * output
        + u.cache_read as f64 * read
        + short as f64 * write
        + long as f64 * write_1h)
        / 1_000_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Usage {
        Usage { input, output, cache_read, cache_write, ..Usage::default() }
    }

    #[test]
    fn bundled_table_parses_and_names_its_source() {
        let p = Prices::bundled();
        assert!(p.source.as_deref().unwrap().contains("BerriAI/litellm"));
        assert!(p.retrieved.is_some());
        assert!(p.models.len() > 20);
    }

    #[test]
    fn lookup_matches_prefixed_dated_and_cloud_names() {
        let p = Prices::bundled();
        let opus = p.lookup("claude-opus-4-6").unwrap();
        assert_eq!(p.lookup("anthropic/claude-opus-4-6"), Some(opus));
        assert_eq!(p.lookup("Claude-Opus-4-6"), Some(opus));
        assert_eq!(p.lookup("claude-opus-4-6-20991231"), Some(opus));
        assert!(p.lookup("us.anthropic.claude-opus-4-1-20250805-v1:0").is_some());
        assert!(p.lookup("claude-opus-4-1@20250805").is_some());
        assert!(p.lookup("gpt-5-2025-08-07").is_some());
        assert_eq!(p.lookup("gpt-5.2-codex-mini"), None, "no substring matching");
        assert_eq!(p.lookup("m1"), None);
    }

    #[test]
    fn estimate_uses_each_rate_and_the_long_context_tier() {
        let p = Price {
            provider: None,
            input: 3.0,
            output: 15.0,
            cache_read: Some(0.3),
            cache_write: Some(3.75),
            cache_write_1h: None,
            above: Some(Tier {
                tokens: 200_000,
                input: 6.0,
                output: 22.5,
                cache_read: Some(0.6),
                cache_write: Some(7.5),
                cache_write_1h: None,
            }),
        };
        let c = estimate(&usage(1_000_000, 0, 0, 0), &p);
        assert!((c - 6.0).abs() < 1e-9, "1M input is over the tier: {c}");
        let c = estimate(&usage(100_000, 10_000, 50_000, 50_000), &p);
        let want = (100_000.0 * 3.0 + 10_000.0 * 15.0 + 50_000.0 * 0.3 + 50_000.0 * 3.75) / 1e6;
        assert!((c - want).abs() < 1e-12);
        // No cache rates: billed as input.
        let plain = Price { cache_read: None, cache_write: None, above: None, ..p.clone() };
        assert!((estimate(&usage(0, 0, 1_000_000, 1_000_000), &plain) - 6.0).abs() < 1e-9);
        // 1-hour cache writes at their own rate; without one, at the 5-minute rate.
        let mut u = usage(0, 0, 0, 1_000_000);
        u.cache_write_1h = 400_000;
        let hour = Price { cache_write_1h: Some(6.0), above: None, ..p.clone() };
        assert!((estimate(&u, &hour) - (0.6 * 3.75 + 0.4 * 6.0)).abs() < 1e-9);
        assert!((estimate(&u, &Price { above: None, ..p }) - 3.75).abs() < 1e-9);
    }

    #[test]
    fn recorded_cost_wins_and_unknown_model_has_no_amount() {
        let p = Prices::bundled();
        let mut u = usage(10, 10, 0, 0);
        assert_eq!(cost(&u, None, Some("nope"), p), Cost { amount: None, source: CostSource::Unknown });
        assert_eq!(cost(&u, None, None, p).source, CostSource::Unknown);
        u.cost = Some(0.5);
        assert_eq!(cost(&u, None, Some("nope"), p), Cost { amount: Some(0.5), source: CostSource::Recorded });
        assert_eq!(cost(&usage(0, 0, 0, 0), None, Some("<synthetic>"), p).amount, Some(0.0));
    }

    #[test]
    fn bad_table_names_line_and_column() {
        let e = Prices::parse("{\n  \"models\": {\n    \"x\": {\"input\": \"free\"}\n  }\n}", "p.json").unwrap_err();
        assert!(e.to_string().starts_with("p.json:3:"), "{e}");
        let e = Prices::parse("{\"models\": {\"x\": {\"input\": -1, \"output\": 1}}}", "p.json").unwrap_err();
        assert!(e.to_string().starts_with("p.json:1:13:"), "{e}");
    }
}
