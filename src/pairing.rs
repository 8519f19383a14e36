//! Tool calls matched with tool results by call id, over the whole file: a result may sit on
//! another branch than its call (a resumed session), so pairing is file-wide.

use hashbrown::HashTable;

use crate::model::{Id, ToolSide, ToolUse};

/// The tool uses (positions in the session's `tools`) that found no partner: calls with no
/// result anywhere, results naming no call, results without a call id.
pub struct Pairing {
    unmatched: Vec<u32>,
}

impl Pairing {
    pub fn build(tools: &[ToolUse<'_>]) -> Pairing {
        // The ids of each side, as positions in `tools` (4 bytes a slot: the tables stay in
        // cache), compared through `tools`. Hashes are computed once.
        let hashes: Vec<u64> = tools.iter().map(|t| t.key.as_ref().map_or(0, Id::hash64)).collect();
        let key = |j: u32| tools[j as usize].key.as_ref();
        // Calls and results come in pairs in a healthy file.
        let mut results: HashTable<u32> = HashTable::with_capacity(tools.len() / 2);
        let mut called: HashTable<u32> = HashTable::with_capacity(tools.len() / 2);
        for (i, t) in tools.iter().enumerate() {
            let Some(k) = &t.key else { continue };
            let side = match t.side {
                ToolSide::Call => &mut called,
                ToolSide::Result => &mut results,
            };
            side.entry(hashes[i], |&j| key(j) == Some(k), |&j| hashes[j as usize]).or_insert(i as u32);
        }
        let has = |table: &HashTable<u32>, i: usize, k: &Id| table.find(hashes[i], |&j| key(j) == Some(k)).is_some();
        let unmatched = tools
            .iter()
            .enumerate()
            .filter(|&(i, t)| match (t.side, &t.key) {
                (ToolSide::Call, Some(k)) => !has(&results, i, k),
                (ToolSide::Result, Some(k)) => !has(&called, i, k),
                (ToolSide::Result, None) => true,
                // Calls without an id are not listed as tool uses.
                (ToolSide::Call, None) => false,
            })
            .map(|(i, _)| i as u32)
            .collect();
        Pairing { unmatched }
    }

    /// Positions in the session's `tools`, in file order.
    pub fn unmatched(&self) -> &[u32] {
        &self.unmatched
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn use_(entry: u32, side: ToolSide, id: Option<&'static str>) -> ToolUse<'static> {
        ToolUse { entry, side, key: id.map(|s| Id::of_text(&Cow::Borrowed(s))), ran: true }
    }

    #[test]
    fn pairs_across_the_file_by_id() {
        let tools = [
            use_(0, ToolSide::Call, Some("a")),
            use_(1, ToolSide::Result, Some("a")),
            use_(2, ToolSide::Call, Some("lonely-call-with-a-long-id")),
            use_(3, ToolSide::Result, Some("nobody")),
            use_(4, ToolSide::Result, None),
            use_(5, ToolSide::Result, Some("early")),
            use_(6, ToolSide::Call, Some("early")),
        ];
        assert_eq!(Pairing::build(&tools).unmatched(), &[2, 3, 4]);
    }
}
