//! Human text shared by several commands: finding lines and short entry rows.

use crate::finding::{Finding, Severity};
use crate::render::Palette;
use crate::sanitize;

/// `FILE:LINE:COLUMN: severity: message [code]`, sanitized.
pub fn finding_line(file: &str, f: &Finding, p: &Palette) -> String {
    let mut at = sanitize::inline(file).into_owned();
    if let Some(l) = f.line {
        at.push_str(&format!(":{l}"));
        if let Some(c) = f.column {
            at.push_str(&format!(":{c}"));
        }
    }
    let sev = match f.severity {
        Severity::Error => p.error("error"),
        Severity::Warning => p.warning("warning"),
    };
    format!("{}: {sev}: {} {}", p.bold(at), sanitize::inline(&f.message), p.dim(format!("[{}]", f.code.as_str())))
}

use crate::preview;
use crate::render::fit;
use crate::session::Session;
use crate::tree::{Ix, RootReason};

/// Width of the label column in entry rows.
const LABEL_WIDTH: usize = 12;

/// One entry as a row: `id  label  preview  badges`, fitted to `width` columns (the
/// caller's indentation already took `used` of them).
pub fn entry_row(
    s: &Session<'_>,
    i: Ix,
    d: &preview::Description,
    p: &Palette,
    width: usize,
    used: usize,
    dim: bool,
) -> String {
    let e = s.entry(i);
    let id = e.id.short();
    let label = sanitize::inline(&d.label);
    let label_cell = fit::pad(&label, LABEL_WIDTH);
    let mut badges = Vec::new();
    if let Some(u) = e.message.as_ref().and_then(|m| m.usage) {
        badges.push(format!("{} tok", preview::tokens(u.total())));
    }
    match s.tree.root_reason(i) {
        Some(RootReason::Dangling) => {
            let parent = e.parent.as_ref().map(crate::tree::quoted).unwrap_or_default();
            badges.push(format!("(parent {} not in file)", sanitize::inline(&parent)))
        }
        Some(RootReason::SelfParent) => badges.push("(names itself as parent)".into()),
        Some(RootReason::Cycle) => badges.push("(cycle cut here)".into()),
        _ => {}
    }
    let badge_text = badges.join(" ");
    // Columns, not characters: ids, labels and badges can hold wide characters too.
    let label_w = fit::width(&label_cell);
    let fixed =
        used + fit::width(&id) + 1 + label_w + 1 + if badge_text.is_empty() { 0 } else { fit::width(&badge_text) + 1 };
    let room = width.saturating_sub(fixed);
    let text = sanitize::inline(&d.text);
    let text = fit::truncate(&text, room);
    let styled_label = match (e.kind, e.message.as_ref().map(|m| m.role)) {
        (crate::model::Kind::Compaction, _) => p.compaction(&label_cell),
        (crate::model::Kind::Label, _) => p.label(&label_cell),
        (crate::model::Kind::State, _) => p.state(&label_cell),
        (_, Some(crate::model::Role::User)) => p.user(&label_cell),
        (_, Some(crate::model::Role::Assistant)) => p.assistant(&label_cell),
        (_, Some(crate::model::Role::ToolResult)) => p.tool(&label_cell),
        (_, Some(crate::model::Role::System)) => p.operator(&label_cell),
        _ => label_cell.clone(),
    };
    let text = if d.alert {
        p.error(&text)
    } else if dim {
        p.dim(&text)
    } else {
        text.into_owned()
    };
    let mut row = format!("{} {styled_label}", p.id(sanitize::inline(&id)));
    if !text.is_empty() {
        row.push(' ');
        row.push_str(&text);
    }
    if !badge_text.is_empty() {
        row.push(' ');
        row.push_str(&p.dim(&badge_text));
    }
    row
}
