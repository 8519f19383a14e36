//! The cost of one model call, for the views that price calls one by one (`rows` columns,
//! `trace` spans): the file's recorded cost, else the bundled price table's estimate
//! ([`crate::price`], the same function `stats` sums), else unknown, never 0.

pub use crate::price::CostSource;
use crate::price::{self, Prices};

use crate::model::Usage;

/// A call's cost in dollars (`None`: unknown) and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    pub dollars: Option<f64>,
    pub source: CostSource,
}

/// The cost of one model call with this usage (`None`: the call recorded none), made by
/// this model of this provider, priced from the bundled table when the file recorded none.
pub fn of(usage: Option<&Usage>, provider: Option<&str>, model: Option<&str>) -> Cost {
    match usage {
        Some(u) => {
            let c = price::cost(u, provider, model, Prices::bundled());
            Cost { dollars: c.amount, source: c.source }
        }
        None => Cost { dollars: None, source: CostSource::Unknown },
    }
}

/// The usage an observed call (crab `llm_call`) is billed for: its `prompt` counts the
/// cached tokens it read (it is never below `cache_read`), so only the rest is input.
pub fn billed_observed(u: &Usage) -> Usage {
    Usage { input: u.input.saturating_sub(u.cache_read), ..*u }
}

/// [`of`] for an observed call: priced on [`billed_observed`].
pub fn of_observed(usage: Option<&Usage>, provider: Option<&str>, model: Option<&str>) -> Cost {
    of(usage.map(billed_observed).as_ref(), provider, model)
}

/// Where a sum of calls' costs comes from: `unknown` when any call's is, `mixed` when it
/// holds recorded and estimated costs, else what every call's is. `None` for no calls.
pub fn source_of_sum(sources: impl IntoIterator<Item = CostSource>) -> Option<CostSource> {
    let mut sum = None;
    for s in sources {
        sum = Some(match (sum, s) {
            (_, CostSource::Unknown) | (Some(CostSource::Unknown), _) => CostSource::Unknown,
            (None, s) => s,
            (Some(a), b) if a == b => a,
            _ => CostSource::Mixed,
        });
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_cost_is_kept_and_a_missing_one_is_unknown_not_zero() {
        let u = Usage { cost: Some(0.25), ..Usage::default() };
        assert_eq!(of(Some(&u), None, None), Cost { dollars: Some(0.25), source: CostSource::Recorded });
        let tokens = Usage { input: 10, ..Usage::default() };
        let none = Cost { dollars: None, source: CostSource::Unknown };
        assert_eq!(of(Some(&tokens), None, Some("no-such-model")), none);
        assert_eq!(of(None, None, None), none);
    }

    #[test]
    fn a_sum_is_unknown_when_any_part_is_and_mixed_when_recorded_meets_estimated() {
        use CostSource::*;
        assert_eq!(source_of_sum([]), None);
        assert_eq!(source_of_sum([Recorded, Recorded]), Some(Recorded));
        assert_eq!(source_of_sum([Recorded, Estimated]), Some(Mixed));
        assert_eq!(source_of_sum([Estimated, Unknown, Recorded]), Some(Unknown));
    }
}
