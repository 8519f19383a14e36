//! The cost of one model call, in one place: every view that prices calls (`stats` sums,
//! `rows` columns) asks [`of`], so a sum always equals the sum of the rows it stands for.
//! Today a call costs what the file recorded; a price table plugs in here to estimate what
//! was not recorded, and every view follows.

use serde::Serialize;

use crate::model::Usage;

/// Where a call's cost comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CostSource {
    /// The dollars the agent wrote into the file at the time of the call.
    Recorded,
    /// Nothing recorded (and nothing to estimate from): the cost is null, never 0.
    Unknown,
}

impl CostSource {
    pub fn as_str(self) -> &'static str {
        match self {
            CostSource::Recorded => "recorded",
            CostSource::Unknown => "unknown",
        }
    }
}

/// A call's cost in dollars (`None`: unknown) and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    pub dollars: Option<f64>,
    pub source: CostSource,
}

/// The cost of one model call with this usage (`None`: the call recorded none), made by
/// this model of this provider (for an estimate; unused while only recorded costs count).
pub fn of(usage: Option<&Usage>, _provider: Option<&str>, _model: Option<&str>) -> Cost {
    // The decoder already read a negative or NaN cost as 0 (and said so).
    match usage.and_then(|u| u.cost) {
        Some(c) => Cost { dollars: Some(c), source: CostSource::Recorded },
        None => Cost { dollars: None, source: CostSource::Unknown },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_cost_is_the_cost_and_a_missing_one_is_unknown_not_zero() {
        let u = Usage { cost: Some(0.25), ..Usage::default() };
        assert_eq!(of(Some(&u), None, None), Cost { dollars: Some(0.25), source: CostSource::Recorded });
        let none = Cost { dollars: None, source: CostSource::Unknown };
        assert_eq!(of(Some(&Usage::default()), Some("anthropic"), Some("claude")), none);
        assert_eq!(of(None, None, None), none);
    }
}
