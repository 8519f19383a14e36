//! Tool calls matched with tool results by call id, over the whole file: a result may sit on
//! another branch than its call (a resumed session), so pairing is file-wide.

use rustc_hash::FxHashSet as HashSet;

use crate::model::{Key, ToolSide, ToolUse};

/// The tool uses (positions in the session's `tools`) that found no partner: calls with no
/// result anywhere, results naming no call, results without a call id.
pub struct Pairing {
    unmatched: Vec<u32>,
}

impl Pairing {
    pub fn build(tools: &[ToolUse<'_>]) -> Pairing {
        let mut results: HashSet<&Key> = HashSet::default();
        let mut called: HashSet<&Key> = HashSet::default();
        for t in tools {
            if let Some(k) = &t.key {
                match t.side {
                    ToolSide::Call => called.insert(k),
                    ToolSide::Result => results.insert(k),
                };
            }
        }
        let unmatched = tools
            .iter()
            .enumerate()
            .filter(|(_, t)| match (t.side, &t.key) {
                (ToolSide::Call, Some(k)) => !results.contains(k),
                (ToolSide::Result, Some(k)) => !called.contains(k),
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
        ToolUse { entry, side, key: id.map(|s| Key::text(&Cow::Borrowed(s))), ran: true }
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
