//! Tool calls matched with tool results by call id, over the whole file: a result may sit on
//! another branch than its call (a resumed session), so pairing is file-wide.
//!
//! The uses are fed in file order, all at once or a part of the file at a time as the parts
//! are decoded, and only those without a partner yet are kept (let go in batches): in a
//! healthy file a result follows its call within a few lines, so a load never holds the list
//! of every use.

use hashbrown::HashTable;

use crate::model::{Id, ToolSide, ToolUse};

/// How many uses may wait beyond twice those kept at the last look before the next.
const LOOK_EVERY: usize = 4096;

/// The side a call id was met on, as a bit.
fn bit(side: ToolSide) -> u8 {
    match side {
        ToolSide::Call => 1,
        ToolSide::Result => 2,
    }
}

/// The bit of the side that pairs with `side`.
fn partner(side: ToolSide) -> u8 {
    match side {
        ToolSide::Call => bit(ToolSide::Result),
        ToolSide::Result => bit(ToolSide::Call),
    }
}

/// Tool uses paired as they come, in file order. A use is unpaired when no use of the other
/// side names its call id anywhere in the file (calls with no result, results naming no
/// call), or when it is a result naming no call id at all.
#[derive(Default)]
pub struct Pairer<'a> {
    /// Every call id met so far, with the sides it was met on.
    seen: HashTable<(Id<'a>, u8)>,
    /// The uses met so far whose partner was not when they were last looked at, in file
    /// order, and those met since.
    open: Vec<ToolUse<'a>>,
    /// How many uses `open` kept when it was last looked at.
    kept: usize,
}

impl<'a> Pairer<'a> {
    /// The next uses in file order. Those that found their partner are let go whenever the
    /// waiting list has doubled since it was last looked at: each use is looked at a bounded
    /// number of times, even in a file where no call has a result.
    pub fn add(&mut self, uses: impl IntoIterator<Item = ToolUse<'a>>) {
        for u in uses {
            if let Some(k) = &u.key {
                let h = k.hash64();
                match self.seen.find_mut(h, |(s, _)| s == k) {
                    Some((_, sides)) => *sides |= bit(u.side),
                    None => {
                        self.seen.insert_unique(h, (k.clone(), bit(u.side)), |(s, _)| s.hash64());
                    }
                }
            }
            self.open.push(u);
            if self.open.len() > 2 * self.kept + LOOK_EVERY {
                self.let_go_paired();
            }
        }
    }

    /// Let go of the waiting uses whose partner has been met.
    fn let_go_paired(&mut self) {
        let seen = &self.seen;
        self.open.retain(|u| match &u.key {
            Some(k) => seen.find(k.hash64(), |(s, _)| s == k).is_none_or(|(_, sides)| sides & partner(u.side) == 0),
            None => true,
        });
        self.kept = self.open.len();
    }

    /// The uses that found no partner in the whole file, in file order.
    pub fn finish(mut self) -> Vec<ToolUse<'a>> {
        self.let_go_paired();
        self.open
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn use_(entry: u32, side: ToolSide, id: Option<&'static str>) -> ToolUse<'static> {
        ToolUse { entry, side, key: id.map(|s| Id::of_text(&Cow::Borrowed(s))), ran: true }
    }

    fn unpaired(parts: &[&[ToolUse<'static>]]) -> Vec<u32> {
        let mut p = Pairer::default();
        for part in parts {
            p.add(part.iter().cloned());
        }
        p.finish().iter().map(|u| u.entry).collect()
    }

    #[test]
    fn pairs_across_the_file_by_id_however_it_is_fed() {
        let tools = [
            use_(0, ToolSide::Call, Some("a")),
            use_(1, ToolSide::Result, Some("a")),
            use_(2, ToolSide::Call, Some("lonely-call-with-a-long-id")),
            use_(3, ToolSide::Result, Some("nobody")),
            use_(4, ToolSide::Result, None),
            use_(5, ToolSide::Result, Some("early")),
            use_(6, ToolSide::Call, Some("early")),
            // The same call id again, far apart: paired, both sides having been met.
            use_(7, ToolSide::Call, Some("a")),
            use_(8, ToolSide::Result, Some("a")),
            use_(9, ToolSide::Call, Some("twice-called")),
            use_(10, ToolSide::Call, Some("twice-called")),
            use_(11, ToolSide::Result, Some("twice-called")),
            use_(12, ToolSide::Result, Some("result-twice")),
            use_(13, ToolSide::Result, Some("result-twice")),
        ];
        let want = [2, 3, 4, 12, 13];
        assert_eq!(unpaired(&[&tools]), want);
        // Fed in parts, at every cut, and one use at a time: the same answer.
        for cut in 0..=tools.len() {
            assert_eq!(unpaired(&[&tools[..cut], &tools[cut..]]), want, "cut at {cut}");
        }
        let one_by_one: Vec<&[ToolUse]> = tools.chunks(1).collect();
        assert_eq!(unpaired(&one_by_one), want);
    }

    #[test]
    fn a_use_whose_partner_comes_parts_later_is_let_go() {
        let mut p = Pairer::default();
        p.add([use_(0, ToolSide::Call, Some("x")), use_(1, ToolSide::Call, Some("y"))]);
        p.add([use_(2, ToolSide::Result, Some("y"))]);
        p.let_go_paired();
        assert_eq!(p.open.iter().map(|u| u.entry).collect::<Vec<_>>(), [0]);
        p.add([use_(3, ToolSide::Result, Some("x"))]);
        assert!(p.finish().is_empty());
        // Many pairs: what waits stays about twice what must.
        let mut p = Pairer::default();
        let ids: Vec<&'static str> = (0..50_000).map(|k| &*Box::leak(format!("c{k}").into_boxed_str())).collect();
        for (k, id) in ids.iter().enumerate() {
            p.add([use_(2 * k as u32, ToolSide::Call, Some(id)), use_(2 * k as u32 + 1, ToolSide::Result, Some(id))]);
            assert!(p.open.len() <= 2 * p.kept + LOOK_EVERY + 2);
        }
        assert!(p.finish().is_empty());
    }
}
