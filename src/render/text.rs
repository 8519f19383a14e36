//! Human text shared by several commands: finding lines and short entry rows.

use crate::finding::{Finding, Severity};
use crate::render::Palette;
use crate::sanitize;

/// `FILE:LINE:COLUMN: severity: message [code]`, sanitized, on one line (stderr).
pub fn finding_line(file: &str, f: &Finding, p: &Palette) -> String {
    finding_lines(file, f, p, crate::render::UNLIMITED).join("\n")
}

/// [`finding_line`] wrapped at spaces to `width` columns, later lines indented: the
/// location, a number or the code is never split.
pub fn finding_lines(file: &str, f: &Finding, p: &Palette, width: usize) -> Vec<String> {
    let mut at = sanitize::inline(file).into_owned();
    if let Some(l) = f.line {
        at.push_str(&format!(":{l}"));
        if let Some(c) = f.column {
            at.push_str(&format!(":{c}"));
        }
    }
    at.push(':');
    let sev = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let code = format!("[{}]", f.code.as_str());
    // Messages can quote session text (keys, a line's start): secrets in it are masked.
    let message = sanitize::inline(&crate::secrets::mask_text(&f.message)).into_owned();
    let mut words = vec![at.clone(), format!("{sev}:")];
    words.extend(message.split(' ').filter(|w| !w.is_empty()).map(str::to_string));
    words.push(code.clone());
    let mut lines = fit::wrap_parts(&words, " ", width, 4);
    // Colour goes on after the layout.
    if p.is_on() {
        let sev_styled = match f.severity {
            Severity::Error => p.error(sev),
            Severity::Warning => p.warning(sev),
        };
        if let Some(first) = lines.first_mut() {
            if let Some(rest) = first.strip_prefix(at.as_str()) {
                let rest = rest.replacen(&format!(" {sev}:"), &format!(" {sev_styled}:"), 1);
                *first = format!("{}{rest}", p.bold(&at));
            }
        }
        if let Some(last) = lines.last_mut() {
            if let Some(before) = last.strip_suffix(code.as_str()) {
                *last = format!("{before}{}", p.dim(&code));
            }
        }
    }
    lines
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
    // Hostile ids and labels grow when their escapes are made visible: bounded too.
    let id = fit::truncate(&sanitize::inline(&e.id.short()), 16).into_owned();
    let label = fit::truncate(&sanitize::inline(&d.label), 2 * LABEL_WIDTH).into_owned();
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
    // A badge says what is wrong with the entry: it takes room before the preview text,
    // which keeps at least 12 columns.
    let badge_room = width.saturating_sub(used + fit::width(&id) + fit::width(&label_cell) + 3 + 12);
    let badge_text = fit::truncate(&badge_text, badge_room).into_owned();
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
    let mut row = format!("{} {styled_label}", p.id(&id));
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
