//! One-line descriptions of entries for the tree-shaped views: a short label (kind or role)
//! and a preview of what the entry says. Plain text, unsanitized: renderers sanitize.

use serde_json::Value;

use crate::content::Content;
use crate::model::{Entry, Kind, Role};
use crate::session::Session;
use crate::tree::Ix;

/// How many characters of text a preview decodes at most.
pub const PREVIEW_CHARS: usize = 240;

/// A short label and a one-line preview.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Description {
    /// `user`, `assistant`, `tool read`, `compaction`, `state`, ...
    pub label: String,
    pub text: String,
    /// Something about the entry that deserves attention (an error, a refusal).
    pub alert: bool,
}

/// Describe entry `i`, re-reading its line for message text (the index keeps no payloads).
pub fn describe_at(s: &Session<'_>, i: Ix) -> Description {
    let e = s.entry(i);
    let content = if e.kind() == Kind::Message { s.content_preview(i, PREVIEW_CHARS).ok() } else { None };
    describe(e, content.as_ref())
}

/// Describe an entry; `content` is its message's content, needed for message text. A label
/// another entry put on this one leads the text.
pub fn describe(e: &Entry<'_>, content: Option<&Content>) -> Description {
    let mut d = describe_kind(e, content);
    if let Some(l) = e.extra.as_ref().and_then(|x| x.label.as_deref()) {
        d.text = join(&format!("[{}]", first_line(l)), &d.text);
    }
    d
}

fn describe_kind(e: &Entry<'_>, content: Option<&Content>) -> Description {
    match e.kind() {
        Kind::Message => message(e, content),
        Kind::Compaction => {
            let c = e.compaction();
            let tokens = match c.map(|c| (c.tokens_before, c.tokens_after)) {
                Some((Some(b), Some(a))) => format!("{} -> {} tokens", tokens(b), tokens(a)),
                // How much the summary weighs is not recorded: unknown, never 0.
                Some((Some(b), None)) => format!("{} -> ? tokens", tokens(b)),
                _ => "compaction".to_string(),
            };
            let summary =
                c.and_then(|c| c.summary.as_ref()).map(|s| first_line(&s.prefix(PREVIEW_CHARS).0)).unwrap_or_default();
            Description { label: "compaction".into(), text: join(&tokens, &summary), alert: false }
        }
        Kind::Label => Description {
            label: "label".into(),
            text: e.label_text().map(|l| first_line(&l.prefix(PREVIEW_CHARS).0)).unwrap_or_default(),
            alert: false,
        },
        Kind::State => {
            let mut parts = Vec::new();
            if let Some(s) = e.state() {
                if let Some(t) = s.todos {
                    let n = serde_json::from_str::<Vec<serde_json::Value>>(t.get()).map(|v| v.len()).ok();
                    parts.push(match n {
                        Some(n) => format!("todos ({n})"),
                        None => "todos".into(),
                    });
                }
                if s.plan.is_some() {
                    parts.push("plan".into());
                }
                if let Some(m) = s.model {
                    parts.push(format!("model {}", model_name(m.get())));
                }
                if let Some(t) = &s.thinking_level {
                    parts.push(format!("thinking {t}"));
                }
                if let Some(n) = &s.note {
                    parts.push(n.to_string());
                }
                if let Some(c) = &s.context_edit {
                    let mut p = format!("context edit: {} result{} elided", c.elided.len(), plural(c.elided.len()));
                    if let Some(w) = &c.withhold_thinking {
                        p.push_str(&format!(", thinking withheld ({w})"));
                    }
                    parts.push(p);
                }
            }
            Description { label: "state".into(), text: parts.join(", "), alert: false }
        }
        Kind::Unknown => Description { label: format!("{}?", e.kind_name()), text: String::new(), alert: false },
    }
}

fn message(e: &Entry<'_>, c: Option<&Content>) -> Description {
    let Some(m) = &e.message else {
        return Description { label: "message".into(), text: "(no message)".into(), alert: true };
    };
    let text = c
        .and_then(Content::first_text)
        .map(|t| first_line(crate::content::first_chars(t, PREVIEW_CHARS)))
        .unwrap_or_default();
    match m.role {
        Role::User => Description { label: "user".into(), text, alert: false },
        Role::System => Description { label: "operator".into(), text, alert: false },
        Role::Assistant => {
            let refused = m.stop_reason() == Some("refusal");
            let mut parts = Vec::new();
            if refused {
                parts.push("[refused]".to_string());
            }
            if m.stop_reason() == Some("error") {
                parts.push("[error]".to_string());
            }
            if !text.is_empty() {
                parts.push(text);
            } else if m.blocks.thinking > 0 && m.tool_calls.is_empty() {
                parts.push("(thinking)".into());
            }
            for c in c.map(tool_calls).unwrap_or_default() {
                parts.push(format!("→ {c}"));
            }
            if m.blocks.server_compaction > 0 {
                parts.push("(provider compacted the conversation)".into());
            }
            if m.blocks.server_tool > 0 {
                parts.push("(server tool)".into());
            }
            Description {
                label: "assistant".into(),
                text: parts.join(" "),
                alert: refused || m.stop_reason() == Some("error"),
            }
        }
        Role::ToolResult => {
            let r = m.tool_results.first();
            let name = r.and_then(|r| r.tool_name.as_deref()).unwrap_or("result");
            let error = m.tool_results.iter().any(|r| r.is_error);
            let mut text = text;
            if let Some(p) = r.and_then(|r| r.offloaded_path.as_deref()) {
                text = format!("[offloaded → {p}] {text}");
            }
            if error {
                text = format!("[error] {text}");
            }
            let label = if m.tool_results.len() > 1 {
                format!("tool ×{}", m.tool_results.len())
            } else if r.and_then(|r| r.tool_name.as_deref()).is_some() {
                format!("tool {name}")
            } else {
                "tool result".into()
            };
            Description { label, text, alert: error }
        }
        Role::Other => Description { label: m.role_name().to_string(), text, alert: false },
    }
}

/// `read src/lib.rs`, `bash cargo test`: each tool call of a message by name and main argument.
pub fn tool_calls(c: &Content) -> Vec<String> {
    c.tool_calls().map(|(_, name, args)| join(name, &main_argument(args))).collect()
}

/// The argument a person would want to see first.
pub fn main_argument(args: &Value) -> String {
    const KEYS: &[&str] = &["path", "file_path", "command", "cmd", "pattern", "query", "url", "file", "glob", "name"];
    let Some(map) = args.as_object() else { return String::new() };
    let pick = KEYS
        .iter()
        .find_map(|k| map.get(*k).and_then(|v| v.as_str()))
        .or_else(|| map.values().find_map(|v| v.as_str()));
    pick.map(|s| first_line(crate::content::first_chars(s, PREVIEW_CHARS))).unwrap_or_default()
}

fn model_name(raw: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(raw) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(v) => v.get("id").or_else(|| v.get("model")).and_then(|m| m.as_str()).unwrap_or("?").to_string(),
        Err(_) => "?".into(),
    }
}

/// `182k`, `12.0k`, `950`, `1.2M`.
pub fn tokens(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 10_000 {
        format!("{}k", (n + 500) / 1000)
    } else if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// The first non-empty line, trimmed, with a `…` if more lines follow.
pub fn first_line(s: &str) -> String {
    let t = s.trim_start();
    match t.find('\n') {
        Some(i) => format!("{} …", t[..i].trim_end()),
        None => t.trim_end().to_string(),
    }
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (_, true) => a.to_string(),
        (true, false) => b.to_string(),
        _ => format!("{a} {b}"),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_tokens_and_arguments() {
        assert_eq!(tokens(182_340), "182k");
        assert_eq!(tokens(12_011), "12k");
        assert_eq!(tokens(5_235), "5.2k");
        assert_eq!(tokens(950), "950");
        assert_eq!(main_argument(&serde_json::json!({"path":"src/lib.rs","limit":3})), "src/lib.rs");
        assert_eq!(main_argument(&serde_json::json!({"command":"cargo test\nmore"})), "cargo test …");
    }
}
