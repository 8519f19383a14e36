//! Human text shared by several commands: finding lines.

use crate::finding::{Finding, Severity};
use crate::render::{fit, Palette};
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
