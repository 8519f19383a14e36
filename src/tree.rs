//! The id/parent index: roots, children in file order, leaves, the latest entry, depths and
//! root-first paths. Every walk is iterative (real files are 10^6 entries deep), and damage
//! (duplicate ids, dangling parents, self-parents, cycles) is reported and then neutralized
//! so that no walk can loop: each damaged link is cut and its entry becomes an extra root.

use std::sync::OnceLock;

use hashbrown::hash_table::{Entry as Slot, HashTable};

use crate::finding::{Code, Finding};
use crate::model::{Entry, Id, Kind, OwnedId};

/// Entry positions are indices into the session's `entries` (file order).
pub type Ix = u32;

/// A root's parent in [`Tree`]'s list. No file has this many entries: each is at least a
/// line of its own, and lines are counted in a `u32`.
const NO_PARENT: Ix = Ix::MAX;

/// A parent from [`Tree`]'s list.
fn up(p: Ix) -> Option<Ix> {
    (p != NO_PARENT).then_some(p)
}

/// Why an entry is a root of the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootReason {
    /// `parentId: null`: a real root.
    Root,
    /// Its parent names no entry in the file.
    Dangling,
    /// It names itself as parent.
    SelfParent,
    /// It closes a cycle; the link to its parent was cut here.
    Cycle,
}

pub struct Tree {
    /// The parent each entry is shown under ([`NO_PARENT`] for every kind of root): 4 bytes
    /// an entry, where an `Option` takes 8.
    parent: Vec<Ix>,
    /// Which entries have children, a bit each: the leaves without the children's lists.
    has_child: Vec<u64>,
    /// The greatest depth, worked out while building (the depths are let go).
    max_depth: u32,
    roots: Vec<(Ix, RootReason)>,
    /// The ids the entries' compactions name (their targets), each with the first entry
    /// that has it, or kept when none has: the lookups views make of a loaded file. The
    /// table is as small as the compactions are few.
    named: HashTable<Named>,
    /// Id lookup of every entry, made on first use: the build makes it to find the parents,
    /// then lets it go (4 bytes a slot, about 7 bytes an entry), as views nearly always ask
    /// only for the ids in `named`. The table holds entry positions only (so it stays in
    /// cache at a million entries), and compares through the entries' ids.
    lookup: OnceLock<HashTable<Ix>>,
    /// Findings about the tree's shape.
    pub findings: Vec<Finding>,
    /// Children, all lists packed in one array (CSR: each list's start, then the lists),
    /// each list in file order; made on first use (8 bytes an entry that views which only
    /// walk up, as `stats` and `check` mostly do, never hold).
    children: OnceLock<(Vec<u32>, Vec<Ix>)>,
    /// Each entry's depth; made on first use.
    depth: OnceLock<Vec<u32>>,
    /// Each entry's preorder number and subtree size, for ancestor tests in constant time;
    /// made on first use (most views never ask).
    intervals: OnceLock<(Vec<u32>, Vec<u32>)>,
}

/// The id lookup a tree is built with, filled in file order: every entry's position by its
/// id, the first entry of an id winning, and each later entry of an id already seen. A load
/// may fill it with the entries already placed while its last part is still decoded (a
/// worker is idle then; [`crate::format::decode_counted`]), and the build adds the rest.
#[derive(Default)]
pub struct Ids {
    lookup: HashTable<Ix>,
    /// Each entry (by position) whose id an earlier entry (the second) had.
    again: Vec<(Ix, Ix)>,
    /// How many entries of the file were added: the first ones.
    len: usize,
}

impl Ids {
    /// Add the entries of `entries` after the first [`Ids::len`], with room for `room`
    /// entries in all (the file's expected count: the table is not grown again as the last
    /// ones are added). `entries` are the first entries of the file the tree is built from.
    pub fn extend(&mut self, entries: &[Entry<'_>], room: usize) {
        let Some(new) = entries.get(self.len..) else { return };
        let hash = |&j: &Ix| entries[j as usize].id.hash64();
        self.lookup.reserve(room.max(entries.len()).saturating_sub(self.lookup.len()), hash);
        for (k, e) in new.iter().enumerate() {
            let i = (self.len + k) as Ix;
            match self.lookup.entry(e.id.hash64(), |&j| entries[j as usize].id == e.id, hash) {
                Slot::Vacant(v) => {
                    v.insert(i);
                }
                Slot::Occupied(o) => self.again.push((i, *o.get())),
            }
        }
        self.len = entries.len();
    }

    /// How many entries were added.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Tree {
    /// Index entries by their ids (packed while decoding, so that no probe reads the file).
    pub fn build(entries: &[Entry<'_>]) -> Tree {
        Tree::build_with(entries, Ids::default())
    }

    /// [`Tree::build`], with the lookup of the first entries already made (`ids`: of a
    /// prefix of `entries`; one that is longer is made again).
    pub fn build_with(entries: &[Entry<'_>], mut ids: Ids) -> Tree {
        let n = entries.len();
        let mut findings = Vec::new();
        if ids.len > n {
            ids = Ids::default();
        }
        ids.extend(entries, n);
        let Ids { lookup, again, .. } = ids;
        let mut first_of_its_id = vec![true; n];
        for (i, first) in again {
            let e = &entries[i as usize];
            first_of_its_id[i as usize] = false;
            findings.push(
                Finding::new(
                    Code::DuplicateId,
                    Some(e.line),
                    format!(
                        "id {} is used again (first at line {}); the first entry wins for children and lookups",
                        quoted(&e.id),
                        entries[first as usize].line
                    ),
                )
                .with_id(e.id.to_owned_id()),
            );
        }

        let mut named = HashTable::new();
        let mut parent: Vec<Ix> = Vec::with_capacity(n);
        let mut reason: Vec<Option<RootReason>> = vec![None; n];
        let mut real_roots = 0usize;
        for (i, e) in entries.iter().enumerate() {
            if e.kind() == Kind::Compaction {
                if let Some(c) = e.compaction() {
                    for t in [&c.up_to, &c.first_kept].into_iter().flatten() {
                        name(&mut named, &lookup, entries, t);
                    }
                }
            }
            let p = match crate::model::parent_id(entries, i) {
                None => {
                    real_roots += 1;
                    reason[i] = Some(RootReason::Root);
                    None
                }
                Some(p) if *p == e.id => {
                    findings.push(
                        Finding::new(
                            Code::SelfParent,
                            Some(e.line),
                            format!("entry {} names itself as its parent", quoted(&e.id)),
                        )
                        .with_id(e.id.to_owned_id()),
                    );
                    reason[i] = Some(RootReason::SelfParent);
                    None
                }
                // Appends usually continue from the entry just before: no probe needed.
                Some(p) if i > 0 && first_of_its_id[i - 1] && *p == entries[i - 1].id => Some(i as Ix - 1),
                Some(p) => match find(&lookup, entries, p) {
                    Some(j) => Some(j),
                    None => {
                        findings.push(
                            Finding::new(
                                Code::DanglingParent,
                                Some(e.line),
                                format!("entry {} names parent {}, which is not in the file", quoted(&e.id), quoted(p)),
                            )
                            .with_id(e.id.to_owned_id()),
                        );
                        reason[i] = Some(RootReason::Dangling);
                        None
                    }
                },
            };
            parent.push(p.unwrap_or(NO_PARENT));
        }

        // Each list of the build is let go as soon as it is done with, so that the lists of
        // one step are not held beside those of the next (a load's peak is the tree's).
        drop((first_of_its_id, lookup));

        // Cycles: walk up from every entry, colouring the path; meeting the current path
        // again closes a cycle, which is cut at its first member in file order.
        const NEW: u8 = 0;
        const ON_PATH: u8 = 1;
        const DONE: u8 = 2;
        let mut colour = vec![NEW; n];
        let mut path: Vec<Ix> = Vec::new();
        for start in 0..n {
            if colour[start] != NEW {
                continue;
            }
            path.clear();
            let mut at = Some(start as Ix);
            while let Some(i) = at {
                match colour[i as usize] {
                    NEW => {
                        colour[i as usize] = ON_PATH;
                        path.push(i);
                        at = up(parent[i as usize]);
                    }
                    ON_PATH => {
                        let from = path.iter().position(|&x| x == i).unwrap_or(0);
                        let members = &path[from..];
                        let cut = *members.iter().min().unwrap_or(&i);
                        // A cycle can hold every entry of the file: name the first few
                        // members, count the rest, and close the loop.
                        let mut desc: Vec<String> = members
                            .iter()
                            .rev()
                            .take(MAX_CYCLE_MEMBERS)
                            .map(|&m| {
                                format!("{} (line {})", quoted(&entries[m as usize].id), entries[m as usize].line)
                            })
                            .collect();
                        if members.len() > MAX_CYCLE_MEMBERS {
                            desc.push(format!("... and {} more", members.len() - MAX_CYCLE_MEMBERS));
                        }
                        desc.push(quoted(&entries[members[members.len() - 1] as usize].id));
                        let e = &entries[cut as usize];
                        let size = if members.len() > MAX_CYCLE_MEMBERS {
                            format!(" of {} entries", members.len())
                        } else {
                            String::new()
                        };
                        findings.push(
                            Finding::new(
                                Code::Cycle,
                                Some(e.line),
                                format!("parent links form a cycle{size}: {}", desc.join(" -> ")),
                            )
                            .with_id(e.id.to_owned_id()),
                        );
                        parent[cut as usize] = NO_PARENT;
                        reason[cut as usize] = Some(RootReason::Cycle);
                        break;
                    }
                    _ => break,
                }
            }
            for &i in &path {
                colour[i as usize] = DONE;
            }
        }
        drop((colour, path));
        let roots: Vec<(Ix, RootReason)> =
            (0..n).filter_map(|i| reason[i].filter(|_| up(parent[i]).is_none()).map(|r| (i as Ix, r))).collect();
        drop(reason);

        let mut has_child = vec![0u64; n.div_ceil(64)];
        for p in parent.iter().filter_map(|&p| up(p)) {
            has_child[p as usize / 64] |= 1 << (p % 64);
        }
        if real_roots > 1 {
            let first = roots.iter().find(|r| r.1 == RootReason::Root).map(|r| entries[r.0 as usize].line);
            let second = roots.iter().filter(|r| r.1 == RootReason::Root).nth(1).map(|r| entries[r.0 as usize].line);
            findings.push(Finding::new(
                Code::MultipleRoots,
                second,
                format!(
                    "{real_roots} entries have no parent (first at line {}); each starts its own tree",
                    first.unwrap_or(0)
                ),
            ));
        }
        let max_depth = depths(&parent).into_iter().max().unwrap_or(0);

        findings.sort_by_key(|f| (f.line, f.code));
        Tree {
            parent,
            has_child,
            max_depth,
            roots,
            named,
            lookup: OnceLock::new(),
            findings,
            children: OnceLock::new(),
            depth: OnceLock::new(),
            intervals: OnceLock::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The parent an entry is shown under; `None` for roots, including cut links.
    pub fn parent(&self, i: Ix) -> Option<Ix> {
        up(self.parent[i as usize])
    }

    pub fn children(&self, i: Ix) -> &[Ix] {
        let (start, children) = self.children.get_or_init(|| packed_children(&self.parent));
        let (s, e) = (start[i as usize] as usize, start[i as usize + 1] as usize);
        &children[s..e]
    }

    pub fn depth(&self, i: Ix) -> u32 {
        self.depth.get_or_init(|| depths(&self.parent))[i as usize]
    }

    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// Every root in file order, with why it is one.
    pub fn roots(&self) -> &[(Ix, RootReason)] {
        &self.roots
    }

    /// Why `i` is a root, if it is one. Views ask this for every row, so it is a binary
    /// search (`roots` is in file order): a scan would make a file of many roots quadratic.
    pub fn root_reason(&self, i: Ix) -> Option<RootReason> {
        self.roots.binary_search_by_key(&i, |r| r.0).ok().map(|k| self.roots[k].1)
    }

    /// The last entry in file order: the default tip, where a resume continues.
    pub fn latest(&self) -> Option<Ix> {
        self.len().checked_sub(1).map(|i| i as Ix)
    }

    /// Entries without children, in file order: the branch tips.
    pub fn leaves(&self) -> impl Iterator<Item = Ix> + '_ {
        (0..self.len() as Ix).filter(|&i| self.has_child[i as usize / 64] & (1 << (i % 64)) == 0)
    }

    /// Root-first path to `i`, inclusive (its length counted first: no depths needed).
    pub fn path(&self, i: Ix) -> Vec<Ix> {
        let mut len = 0;
        let mut at = Some(i);
        while let Some(x) = at {
            len += 1;
            at = self.parent(x);
        }
        let mut out = vec![0; len];
        let mut at = Some(i);
        for slot in out.iter_mut().rev() {
            let Some(x) = at else { break };
            *slot = x;
            at = self.parent(x);
        }
        out
    }

    /// Exact id lookup (typed: `1` never finds `"1"`).
    /// (`entries` are those the tree was built from.)
    pub fn get(&self, entries: &[Entry<'_>], id: &Id<'_>) -> Option<Ix> {
        match self.named.find(id.hash64(), |n| n.is(entries, id)) {
            Some(Named::At(j)) => Some(*j),
            Some(Named::Missing(_)) => None,
            None => find(self.lookup.get_or_init(|| index(entries)), entries, id),
        }
    }

    /// True when `anc` is `i` or on the path from a root to `i`. Constant time: `check`
    /// asks it for every compaction, and a walk up would make a chain of compactions
    /// quadratic. The walk up is tried first, for [`NEAR_ANCESTOR`] steps: a compaction's
    /// target is nearly always a few entries above it, and the preorder numbers that answer
    /// in constant time take a walk of the whole tree to make (7 ms over the 1 GiB bench
    /// file, a quarter of what `check` does once the decode is done).
    pub fn is_ancestor(&self, anc: Ix, i: Ix) -> bool {
        let mut at = Some(i);
        for _ in 0..=NEAR_ANCESTOR {
            match at {
                Some(x) if x == anc => return true,
                Some(x) => at = self.parent(x),
                // The root is reached: `anc` is not on the path.
                None => return false,
            }
        }
        let (pre, size) = self.intervals.get_or_init(|| self.preorder());
        let (a, x) = (pre[anc as usize], pre[i as usize]);
        a <= x && x < a + size[anc as usize]
    }

    /// Preorder numbers and subtree sizes: a subtree is one run of preorder numbers. Every
    /// entry is reached, since every link that could loop was cut.
    fn preorder(&self) -> (Vec<u32>, Vec<u32>) {
        let n = self.len();
        let mut pre = vec![0u32; n];
        let mut seen: Vec<Ix> = Vec::with_capacity(n);
        let mut stack: Vec<Ix> = self.roots.iter().map(|r| r.0).collect();
        while let Some(i) = stack.pop() {
            pre[i as usize] = seen.len() as u32;
            seen.push(i);
            stack.extend_from_slice(self.children(i));
        }
        let mut size = vec![1u32; n];
        for &i in seen.iter().rev() {
            if let Some(p) = self.parent(i) {
                size[p as usize] += size[i as usize];
            }
        }
        (pre, size)
    }
}

/// The children lists of every entry, packed in file order: each list's start (one more
/// than there are entries), then the lists. The starts serve as the cursors that fill the
/// lists, then move back one place: no second array.
fn packed_children(parent: &[Ix]) -> (Vec<u32>, Vec<Ix>) {
    let n = parent.len();
    let mut start = vec![0u32; n + 1];
    for p in parent.iter().filter_map(|&p| up(p)) {
        start[p as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut children = vec![0 as Ix; start[n] as usize];
    for (i, &p) in parent.iter().enumerate() {
        if let Some(p) = up(p) {
            children[start[p as usize] as usize] = i as Ix;
            start[p as usize] += 1;
        }
    }
    // Each start is now the end of its list: the start of the next.
    start.copy_within(0..n, 1);
    start[0] = 0;
    (start, children)
}

/// Each entry's depth (a root's is 0), from the parents alone: a walk up from each entry
/// whose depth is not known yet, to one whose is, then back down. Every link that could loop
/// was cut, so each walk ends, and each entry is walked through once.
fn depths(parent: &[Ix]) -> Vec<u32> {
    const UNKNOWN: u32 = u32::MAX;
    let mut depth = vec![UNKNOWN; parent.len()];
    let mut walked: Vec<Ix> = Vec::new();
    for i in 0..parent.len() as Ix {
        let mut at = i;
        while depth[at as usize] == UNKNOWN {
            match up(parent[at as usize]) {
                Some(p) => {
                    walked.push(at);
                    at = p;
                }
                None => depth[at as usize] = 0,
            }
        }
        while let Some(x) = walked.pop() {
            depth[x as usize] = depth[parent[x as usize] as usize] + 1;
        }
    }
    depth
}

/// An id the entries name, found: the first entry with it, or none (the id kept).
enum Named {
    At(Ix),
    Missing(OwnedId),
}

impl Named {
    fn id<'e>(&'e self, entries: &'e [Entry<'_>]) -> &'e Id<'e> {
        match self {
            Named::At(j) => &entries[*j as usize].id,
            Named::Missing(id) => id,
        }
    }

    fn is(&self, entries: &[Entry<'_>], k: &Id<'_>) -> bool {
        *self.id(entries) == *k
    }
}

/// Note in `named` the id `k`, with what `lookup` finds of it.
fn name(named: &mut HashTable<Named>, lookup: &HashTable<Ix>, entries: &[Entry<'_>], k: &Id<'_>) {
    let hash = k.hash64();
    if let Slot::Vacant(v) = named.entry(hash, |n| n.is(entries, k), |n| n.id(entries).hash64()) {
        v.insert(find(lookup, entries, k).map_or_else(|| Named::Missing(k.to_owned_id()), Named::At));
    }
}

/// Every entry's position by its id, the first entry of an id winning.
fn index(entries: &[Entry<'_>]) -> HashTable<Ix> {
    let mut ids = Ids::default();
    ids.extend(entries, entries.len());
    ids.lookup
}

/// The first entry whose id is `k`.
fn find(lookup: &HashTable<Ix>, entries: &[Entry<'_>], k: &Id<'_>) -> Option<Ix> {
    lookup.find(k.hash64(), |&j| entries[j as usize].id == *k).copied()
}

/// An id as it appears in JSON, for messages: `"a1f0"` or `3`. A string id longer than
/// [`MAX_QUOTED_ID`] characters is cut with `…` (the finding's `id` field keeps it whole):
/// a hostile file's megabyte id must not become a megabyte message line. It is not made
/// terminal-safe here: messages are data, cleaned where they are shown.
pub fn quoted(id: &Id<'_>) -> String {
    match id.as_text() {
        None => id.to_string(),
        Some(s) => format!("\"{}\"", crate::render::fit::truncate(&s, MAX_QUOTED_ID)),
    }
}

/// How many steps up [`Tree::is_ancestor`] walks before it asks the preorder numbers.
const NEAR_ANCESTOR: usize = 256;

/// Characters of an id quoted in a message.
pub const MAX_QUOTED_ID: usize = 80;

/// Cycle members named in a finding; the rest are counted.
pub const MAX_CYCLE_MEMBERS: usize = 10;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Kind;

    fn e(id: &'static str, parent: Option<&'static str>, line: u32) -> Entry<'static> {
        let mut e = Entry::new(line, 0..0, Kind::Label, Id::copied(id));
        e.set_parent(parent.map(Id::copied));
        e.named(std::borrow::Cow::Borrowed("label"))
    }

    /// A compaction entry naming `up_to` and `first_kept`.
    fn compaction(
        id: &'static str,
        parent: &'static str,
        line: u32,
        up_to: &'static str,
        first_kept: &'static str,
    ) -> Entry<'static> {
        let mut c = e(id, Some(parent), line);
        c.set_kind(Kind::Compaction);
        c.extra.get_or_insert_with(Default::default).compaction = Some(Box::new(crate::model::Compaction {
            up_to: Some(Id::copied(up_to)),
            first_kept: Some(Id::copied(first_kept)),
            ..Default::default()
        }));
        c
    }

    #[test]
    fn lookups_of_named_ids_and_of_any_other() {
        // "b" twice (the first wins), a compaction naming "b" and an id no entry has, and
        // ids no compaction names: "a", "c", the second "b"'s line, and a missing one.
        let es = vec![
            e("a", None, 1),
            e("b", Some("a"), 2),
            e("b", Some("a"), 3),
            compaction("k", "b", 4, "b", "gone"),
            e("c", Some("k"), 5),
        ];
        let t = Tree::build(&es);
        assert_eq!(t.named.len(), 2);
        assert_eq!(t.get(&es, &Id::copied("b")), Some(1));
        assert_eq!(t.get(&es, &Id::copied("gone")), None);
        assert!(t.lookup.get().is_none(), "named ids need no lookup of every id");
        assert_eq!(t.get(&es, &Id::copied("c")), Some(4));
        assert!(t.lookup.get().is_some());
        assert_eq!(t.get(&es, &Id::copied("a")), Some(0));
        assert_eq!(t.get(&es, &Id::copied("k")), Some(3));
        assert_eq!(t.get(&es, &Id::copied("nowhere")), None);
        // Typed: the integer 1 is not the text "1".
        let es = vec![e("1", None, 1), compaction("k", "1", 2, "1", "1")];
        let t = Tree::build(&es);
        assert_eq!(t.get(&es, &Id::copied("1")), Some(0));
        assert_eq!(t.get(&es, &Id::Int(1)), None);
        assert_eq!(t.parent(1), Some(0));
    }

    #[test]
    fn branches_leaves_paths() {
        let es = vec![e("a", None, 1), e("b", Some("a"), 2), e("c", Some("b"), 3), e("d", Some("a"), 4)];
        let t = Tree::build(&es);
        assert_eq!(t.children(0), &[1, 3]);
        assert_eq!(t.leaves().collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(t.path(2), vec![0, 1, 2]);
        assert_eq!(t.latest(), Some(3));
        assert_eq!(t.depth(2), 2);
        assert!(t.findings.is_empty());
        assert!(t.is_ancestor(0, 2) && !t.is_ancestor(3, 2));
    }

    /// Ancestors near (found walking up) and far (past [`NEAR_ANCESTOR`] steps: found by
    /// the preorder numbers), and entries that are not ancestors near or far, against the
    /// path of each entry. Two chains of 700 entries hang from one root, the second written
    /// interleaved with the first; a third root stands alone.
    #[test]
    fn ancestors_near_and_far_are_the_entries_on_the_path() {
        let ids: Vec<&'static str> = (0..1402).map(|k| &*Box::leak(format!("e{k}").into_boxed_str())).collect();
        let mut es = vec![e(ids[0], None, 1)];
        for k in 1..1400 {
            // Odd entries chain on the odd ones before them, even ones on the even ones; both
            // chains start at the root.
            let parent = if k < 3 { ids[0] } else { ids[k - 2] };
            es.push(e(ids[k], Some(parent), k as u32 + 1));
        }
        es.push(e(ids[1400], None, 1401));
        es.push(e(ids[1401], Some(ids[1400]), 1402));
        let t = Tree::build(&es);
        assert_eq!(t.roots().len(), 2);
        let n = es.len() as Ix;
        let mut far = 0;
        for i in (0..n).step_by(7) {
            let path = t.path(i);
            for anc in (0..n).step_by(5).chain([0, i, n - 1]) {
                let want = path.contains(&anc);
                assert_eq!(t.is_ancestor(anc, i), want, "is {anc} an ancestor of {i}?");
                far += usize::from(want && t.depth(i) - t.depth(anc) > NEAR_ANCESTOR as u32);
            }
        }
        assert!(far > 1000, "{far} ancestors past the walk up");
    }

    /// Children written before their parents: the depths are found walking up, not in file
    /// order, and each list of children is in file order.
    #[test]
    fn parents_written_after_their_children() {
        // c -> b -> a (root), d -> a, e -> c: file positions c 0, b 1, a 2, d 3, e 4.
        let es = vec![
            e("c", Some("b"), 1),
            e("b", Some("a"), 2),
            e("a", None, 3),
            e("d", Some("a"), 4),
            e("e", Some("c"), 5),
        ];
        let t = Tree::build(&es);
        assert!(t.findings.is_empty());
        assert_eq!((0..5).map(|i| t.depth(i)).collect::<Vec<_>>(), vec![2, 1, 0, 1, 3]);
        assert_eq!(t.max_depth(), 3);
        assert_eq!(t.children(2), &[1, 3]);
        assert_eq!(t.children(1), &[0]);
        assert_eq!(t.children(0), &[4]);
        assert!(t.children(3).is_empty() && t.children(4).is_empty());
        assert_eq!(t.leaves().collect::<Vec<_>>(), vec![3, 4]);
        assert_eq!(t.path(4), vec![2, 1, 0, 4]);
    }

    /// A lookup begun on the first entries (as a load begins it while its last parts are
    /// decoded, [`Ids`]) builds the tree the whole build does, wherever it was cut: the same
    /// parents, roots, depth and findings, with ids used again on both sides of the cut,
    /// parents written after their children, dangling parents and a cycle. A lookup of more
    /// entries than the tree is built from is made again.
    #[test]
    fn a_tree_built_on_a_begun_lookup_is_the_whole_build() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut es = Vec::new();
        for i in 0..3_000u32 {
            // One id in 40 is an earlier one again; parents mostly the entry before, some
            // further back, some ahead (written after their child), some missing.
            let id = if i > 0 && next(40) == 0 { format!("n{}", next(u64::from(i))) } else { format!("n{i}") };
            let parent = match next(20) {
                0 if i > 0 => None,
                1 => Some(format!("n{}", u64::from(i) + 1 + next(50))),
                2 => Some(format!("missing{i}")),
                3 => Some(format!("n{}", next(u64::from(i) + 1))),
                _ => i.checked_sub(1).map(|p| format!("n{p}")),
            };
            let mut e = Entry::new(i + 1, 0..0, Kind::Label, Id::copied(&id));
            e.set_parent(parent.as_deref().map(Id::copied));
            es.push(e);
        }
        // A cycle of three.
        for (i, p) in [(100, "n102"), (101, "n100"), (102, "n101")] {
            es[i].id = Id::copied(&format!("n{i}"));
            es[i].set_parent(Some(Id::copied(p)));
        }
        let shape = |t: &Tree| {
            let parents: Vec<Option<Ix>> = (0..t.len() as Ix).map(|i| t.parent(i)).collect();
            let findings: Vec<(Code, Option<u32>, String)> =
                t.findings.iter().map(|f| (f.code, f.line, f.message.clone())).collect();
            (parents, t.roots().to_vec(), t.max_depth(), findings)
        };
        let whole = shape(&Tree::build(&es));
        let codes: Vec<Code> = whole.3.iter().map(|f| f.0).collect();
        for code in [Code::DuplicateId, Code::DanglingParent, Code::Cycle, Code::MultipleRoots] {
            assert!(codes.contains(&code), "{code:?} in {codes:?}");
        }
        for cut in [0, 1, 99, 101, 1_500, 2_999, 3_000] {
            let mut ids = Ids::default();
            ids.extend(&es[..cut], es.len());
            assert_eq!(ids.len(), cut);
            assert_eq!(shape(&Tree::build_with(&es, ids)), whole, "lookup begun on {cut} entries");
        }
        let mut ids = Ids::default();
        ids.extend(&es, es.len());
        assert_eq!(shape(&Tree::build_with(&es[..2_000], ids)), shape(&Tree::build(&es[..2_000])));
    }

    #[test]
    fn damage_is_reported_and_cut() {
        let es = vec![
            e("a", None, 1),
            e("x", Some("y"), 2),
            e("y", Some("x"), 3),
            e("s", Some("s"), 4),
            e("d", Some("nope"), 5),
            e("a", Some("a"), 6),
            e("z", None, 7),
        ];
        let t = Tree::build(&es);
        let codes: Vec<Code> = t.findings.iter().map(|f| f.code).collect();
        assert!(codes.contains(&Code::Cycle));
        assert!(codes.contains(&Code::SelfParent));
        assert!(codes.contains(&Code::DanglingParent));
        assert!(codes.contains(&Code::DuplicateId));
        assert!(codes.contains(&Code::MultipleRoots));
        assert_eq!(t.root_reason(1), Some(RootReason::Cycle));
        assert_eq!(t.path(2), vec![1, 2]);
        for i in 0..es.len() as Ix {
            assert!(t.path(i).len() <= es.len());
        }
    }

    #[test]
    fn deep_chain_without_recursion() {
        let n = 200_000usize;
        let ids: Vec<&'static str> = (0..n).map(|i| &*Box::leak(format!("{i:08x}").into_boxed_str())).collect();
        let es: Vec<Entry> =
            (0..n).map(|i| e(ids[i], if i == 0 { None } else { Some(ids[i - 1]) }, i as u32 + 1)).collect();
        let t = Tree::build(&es);
        assert_eq!(t.max_depth(), n as u32 - 1);
        assert_eq!(t.path(n as Ix - 1).len(), n);
        assert_eq!(t.leaves().count(), 1);
    }
}
