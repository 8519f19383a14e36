//! `diff`'s view: two branches of one tree compared. Their common ancestor, each side's
//! entries after it (root-first), the rows that line the two sides up (user prompts with the
//! same text on both sides, a retried prompt, share a row), and per-side totals. Plain data;
//! the renderer lays it out.

use std::collections::HashMap;

use crate::content::{Block, Content};
use crate::model::Role;
use crate::price::Prices;
use crate::session::Session;
use crate::stats::{Call, Tokens};
use crate::tree::Ix;

/// How the two tips relate in the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// A and B are the same entry.
    Same,
    /// A is on the path to B: A's side is empty.
    AAncestorOfB,
    /// B is on the path to A: B's side is empty.
    BAncestorOfA,
    /// The branches part at a common ancestor.
    Forked,
    /// No common ancestor: A and B are in different roots' trees.
    Unrelated,
}

/// One side of the diff.
#[derive(Clone, Debug)]
pub struct Side {
    pub leaf: Ix,
    /// From the entry after the ancestor to the leaf, root-first.
    pub entries: Vec<Ix>,
    /// Model usage of the side's entries; `None` when the format records usage per run
    /// rather than per entry (crab), so a branch's share is unknown.
    pub usage: Option<Tokens>,
    /// Tool calls that ran on this side (its tool results), as `stats` counts them.
    pub tool_calls: u64,
    /// Of those, the ones whose result is an error.
    pub tool_errors: u64,
}

/// A row of the side-by-side layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    pub a: Option<Ix>,
    pub b: Option<Ix>,
    /// A user prompt with the same text on both sides.
    pub same_prompt: bool,
}

#[derive(Clone, Debug)]
pub struct Diff {
    pub ancestor: Option<Ix>,
    /// Entries from the root to the ancestor, inclusive (0 when there is none).
    pub shared: usize,
    pub relation: Relation,
    pub a: Side,
    pub b: Side,
    pub rows: Vec<Row>,
}

/// Beyond this many prompt pairs the alignment is greedy instead of a longest common
/// subsequence (whose table would be too big).
const LCS_LIMIT: usize = 4_000_000;

/// Compare the branches ending at `a` and `b`.
pub fn diff(s: &Session<'_>, a: Ix, b: Ix) -> Diff {
    let pa = s.tree.path(a);
    let pb = s.tree.path(b);
    let shared = pa.iter().zip(&pb).take_while(|(x, y)| x == y).count();
    let ancestor = shared.checked_sub(1).map(|k| pa[k]);
    let relation = match (ancestor, shared == pa.len(), shared == pb.len()) {
        (None, _, _) => Relation::Unrelated,
        (Some(_), true, true) => Relation::Same,
        (Some(_), true, false) => Relation::AAncestorOfB,
        (Some(_), false, true) => Relation::BAncestorOfA,
        (Some(_), false, false) => Relation::Forked,
    };
    let a = side(s, a, pa[shared..].to_vec());
    let b = side(s, b, pb[shared..].to_vec());
    let rows = align(s, &a.entries, &b.entries);
    Diff { ancestor, shared, relation, a, b, rows }
}

fn side(s: &Session<'_>, leaf: Ix, entries: Vec<Ix>) -> Side {
    let mut usage = Tokens::default();
    let (mut tool_calls, mut tool_errors) = (0, 0);
    for &i in &entries {
        let Some(m) = &s.entry(i).message else { continue };
        if m.role == Role::Assistant {
            let call = m.usage().map(|u| Call::priced(u, m.provider(), m.model(), Prices::bundled()));
            usage.call(call.as_ref());
        }
        tool_calls += m.tool_results.len() as u64;
        tool_errors += m.tool_results.iter().filter(|r| r.is_error).count() as u64;
    }
    Side { leaf, entries, usage: (!s.observed).then_some(usage), tool_calls, tool_errors }
}

/// The text of a user prompt (its text blocks), or `None` for any other entry.
fn prompt(s: &Session<'_>, i: Ix) -> Option<String> {
    let m = s.entry(i).message.as_ref()?;
    if m.role != Role::User {
        return None;
    }
    let c: Content = s.content(i).ok()?;
    let texts: Vec<&str> = c
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// Rows for two runs of entries: equal prompts paired in order (longest common
/// subsequence), the entries between them side by side.
pub fn align(s: &Session<'_>, a: &[Ix], b: &[Ix]) -> Vec<Row> {
    let pa: Vec<(usize, String)> = a.iter().enumerate().filter_map(|(k, &i)| prompt(s, i).map(|t| (k, t))).collect();
    let pb: Vec<(usize, String)> = b.iter().enumerate().filter_map(|(k, &i)| prompt(s, i).map(|t| (k, t))).collect();
    let ta: Vec<&str> = pa.iter().map(|p| p.1.as_str()).collect();
    let tb: Vec<&str> = pb.iter().map(|p| p.1.as_str()).collect();
    let anchors: Vec<(usize, usize)> = pairs(&ta, &tb).into_iter().map(|(x, y)| (pa[x].0, pb[y].0)).collect();
    let mut rows = Vec::new();
    let (mut ka, mut kb) = (0, 0);
    for (x, y) in anchors.into_iter().chain(std::iter::once((a.len(), b.len()))) {
        let (ra, rb) = (&a[ka..x], &b[kb..y]);
        for k in 0..ra.len().max(rb.len()) {
            rows.push(Row { a: ra.get(k).copied(), b: rb.get(k).copied(), same_prompt: false });
        }
        if x < a.len() {
            rows.push(Row { a: Some(a[x]), b: Some(b[y]), same_prompt: true });
        }
        (ka, kb) = (x + 1, y + 1);
    }
    rows
}

/// Positions of equal strings in `a` and `b`, in order on both sides: a longest common
/// subsequence, or a greedy in-order match when the table would be too large.
pub fn pairs(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    if a.len().saturating_mul(b.len()) > LCS_LIMIT {
        // Each text's positions in `b`, ascending, and a cursor past those already behind
        // `next`. `next` only grows, so a cursor never moves back: each position is passed
        // over once in all, however many equal texts `a` holds (searching each list from
        // its start for every text of `a` was quadratic in the number of equal prompts).
        let mut at: HashMap<&str, (Vec<usize>, usize)> = HashMap::new();
        for (k, t) in b.iter().enumerate() {
            at.entry(t).or_default().0.push(k);
        }
        let mut out = Vec::new();
        let mut next = 0;
        for (x, t) in a.iter().enumerate() {
            let Some((v, cursor)) = at.get_mut(t) else { continue };
            while v.get(*cursor).is_some_and(|&y| y < next) {
                *cursor += 1;
            }
            if let Some(&y) = v.get(*cursor) {
                out.push((x, y));
                next = y + 1;
                *cursor += 1;
            }
        }
        return out;
    }
    // len[x][y]: the LCS of a[x..] and b[y..].
    let w = b.len() + 1;
    let mut len = vec![0u32; (a.len() + 1) * w];
    for x in (0..a.len()).rev() {
        for y in (0..b.len()).rev() {
            len[x * w + y] =
                if a[x] == b[y] { len[(x + 1) * w + y + 1] + 1 } else { len[(x + 1) * w + y].max(len[x * w + y + 1]) };
        }
    }
    let (mut x, mut y, mut out) = (0, 0, Vec::new());
    while x < a.len() && y < b.len() {
        if a[x] == b[y] {
            out.push((x, y));
            x += 1;
            y += 1;
        } else if len[(x + 1) * w + y] >= len[x * w + y + 1] {
            x += 1;
        } else {
            y += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_prompts_pair_in_order() {
        assert_eq!(pairs(&["x", "fix", "y", "go"], &["fix", "go", "z"]), [(1, 0), (3, 1)]);
        assert_eq!(pairs(&["a", "b"], &["b", "a"]).len(), 1);
        assert!(pairs(&[], &["a"]).is_empty());
    }

    /// The greedy match (above `LCS_LIMIT`) pairs each text of `a` with the first equal one
    /// of `b` after the last pair, as a search from the start of each list would.
    #[test]
    fn the_greedy_match_pairs_the_first_equal_text_after_the_last_pair() {
        let a: Vec<&str> = (0..3000).map(|k| ["x", "y", "x", "z"][k % 4]).collect();
        let b: Vec<&str> = (0..3000).map(|k| ["y", "x", "x", "w"][k % 4]).collect();
        assert!(a.len() * b.len() > LCS_LIMIT);
        let mut at: HashMap<&str, Vec<usize>> = HashMap::new();
        for (k, t) in b.iter().enumerate() {
            at.entry(t).or_default().push(k);
        }
        let (mut want, mut next) = (Vec::new(), 0);
        for (x, t) in a.iter().enumerate() {
            if let Some(y) = at.get(t).and_then(|v| v.iter().copied().find(|&y| y >= next)) {
                want.push((x, y));
                next = y + 1;
            }
        }
        assert_eq!(pairs(&a, &b), want);
        let same = vec!["again"; 2500];
        assert_eq!(pairs(&same, &same[..2000]), (0..2000).map(|k| (k, k)).collect::<Vec<_>>());
    }
}
