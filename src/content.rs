//! The content blocks of one message, decoded from the message's full JSON value, in one
//! vocabulary for both formats (arcturn `text`/`thinking`/`toolCall`/`image`/`compaction`/
//! `serverTool`, a whole `toolResult` message; crab `text`/`tool_use`/`tool_result`). Views
//! that show or count payloads (`context`, `export`) read messages through this, and only for
//! the entries they need. Text is kept exactly as stored: making it safe is the renderers' job.

use serde_json::Value;

use crate::model::Format;

/// One content block.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    Text(String),
    Thinking {
        text: String,
        redacted: bool,
    },
    ToolCall {
        id: Option<String>,
        name: String,
        arguments: Value,
    },
    /// A tool's answer: a whole arcturn `toolResult` message, or a crab `tool_result` block.
    ToolResult(ToolResult),
    Image(Image),
    /// The provider compacted the conversation server-side (arcturn assistant content).
    ProviderCompaction {
        summary: Option<String>,
        encrypted: Option<String>,
    },
    /// A block the provider ran itself.
    ServerTool {
        provider: String,
        block: Value,
    },
    /// A block type this tool does not know, kept as stored.
    Unknown {
        type_name: String,
        raw: Value,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    pub call_id: Option<String>,
    pub tool_name: Option<String>,
    pub is_error: bool,
    /// Text and image blocks of the result.
    pub content: Vec<Block>,
    /// The full output's path when the result was offloaded (`content` is the stub).
    pub offloaded_path: Option<String>,
}

impl ToolResult {
    /// The result's text blocks joined by newlines.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for b in &self.content {
            if let Block::Text(t) = b {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(t);
            }
        }
        out
    }
}

/// An image as stored: inline base64 data with its declared MIME type, or a URL.
#[derive(Clone, Debug, PartialEq)]
pub enum Image {
    Inline { mime: String, data: String },
    Url(String),
}

/// Decode the content of the message inside an entry's full line value.
pub fn blocks(format: Format, line: &Value) -> Vec<Block> {
    let Some(m) = line.get("message") else { return Vec::new() };
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    let content = m.get("content").unwrap_or(&Value::Null);
    if format == Format::Arcturn && role == "toolResult" {
        let details = m.get("details");
        let offloaded = details.and_then(|d| d.get("offloaded")).and_then(Value::as_bool) == Some(true);
        return vec![Block::ToolResult(ToolResult {
            call_id: str_of(m, "toolCallId"),
            tool_name: str_of(m, "toolName"),
            is_error: m.get("isError").and_then(Value::as_bool).unwrap_or(false),
            content: list(format, content),
            offloaded_path: if offloaded { details.and_then(|d| str_of(d, "path")) } else { None },
        })];
    }
    list(format, content)
}

fn list(format: Format, content: &Value) -> Vec<Block> {
    match content {
        Value::String(s) => vec![Block::Text(s.clone())],
        Value::Array(items) => items.iter().map(|b| block(format, b)).collect(),
        Value::Null => Vec::new(),
        other => vec![Block::Unknown { type_name: "(not a block list)".into(), raw: other.clone() }],
    }
}

fn block(format: Format, b: &Value) -> Block {
    let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
    let text = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    match ty {
        "text" => Block::Text(text("text")),
        "thinking" => Block::Thinking {
            text: text("thinking"),
            redacted: b.get("redacted").and_then(Value::as_bool).unwrap_or(false),
        },
        "toolCall" | "tool_use" => Block::ToolCall {
            id: str_of(b, "id"),
            name: text("name"),
            arguments: b.get(if ty == "toolCall" { "arguments" } else { "input" }).cloned().unwrap_or(Value::Null),
        },
        "tool_result" => Block::ToolResult(ToolResult {
            call_id: str_of(b, "tool_use_id"),
            tool_name: None,
            is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            content: list(format, b.get("content").unwrap_or(&Value::Null)),
            offloaded_path: None,
        }),
        "image" => image(b),
        "compaction" => {
            Block::ProviderCompaction { summary: str_of(b, "summary"), encrypted: str_of(b, "encryptedContent") }
        }
        "serverTool" => {
            Block::ServerTool { provider: text("provider"), block: b.get("block").cloned().unwrap_or(Value::Null) }
        }
        _ => Block::Unknown { type_name: ty.to_string(), raw: b.clone() },
    }
}

/// arcturn `{type:"image", data, mimeType}`; also the `source` shape
/// (`{type:"base64", media_type, data}` or `{type:"url", url}`) other agents write.
fn image(b: &Value) -> Block {
    if let Some(data) = b.get("data").and_then(Value::as_str) {
        let mime = str_of(b, "mimeType").or_else(|| str_of(b, "mime_type")).unwrap_or_default();
        return Block::Image(Image::Inline { mime, data: data.to_string() });
    }
    if let Some(src) = b.get("source") {
        if let Some(data) = src.get("data").and_then(Value::as_str) {
            let mime = str_of(src, "media_type").unwrap_or_default();
            return Block::Image(Image::Inline { mime, data: data.to_string() });
        }
        if let Some(url) = src.get("url").and_then(Value::as_str) {
            return Block::Image(Image::Url(url.to_string()));
        }
    }
    if let Some(url) = b.get("url").and_then(Value::as_str) {
        return Block::Image(Image::Url(url.to_string()));
    }
    Block::Unknown { type_name: "image".into(), raw: b.clone() }
}

fn str_of(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// Length of a string as the agents count it (JavaScript `String.length`: UTF-16 code units).
pub fn js_len(s: &str) -> u64 {
    s.chars().map(|c| c.len_utf16() as u64).sum()
}

/// What an image counts for in a character estimate: the agents' estimator charges a flat
/// 4800 characters (1200 tokens) per image.
pub const IMAGE_CHARS: u64 = 4800;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arcturn_tool_result_is_one_block() {
        let v = json!({"message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","isError":true,
            "content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],
            "details":{"offloaded":true,"path":"/tmp/o.txt"}}});
        let b = blocks(Format::Arcturn, &v);
        let [Block::ToolResult(r)] = b.as_slice() else { panic!("{b:?}") };
        assert_eq!(r.call_id.as_deref(), Some("c1"));
        assert!(r.is_error);
        assert_eq!(r.text(), "a\nb");
        assert_eq!(r.offloaded_path.as_deref(), Some("/tmp/o.txt"));
    }

    #[test]
    fn crab_blocks() {
        let v = json!({"message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t1","content":"out"},
            {"type":"tool_use","id":"t2","name":"read","input":{"path":"x"}}]}});
        let b = blocks(Format::Crab, &v);
        assert!(matches!(&b[0], Block::ToolResult(r) if r.text() == "out" && r.call_id.as_deref() == Some("t1")));
        assert!(matches!(&b[1], Block::ToolCall { name, .. } if name == "read"));
    }

    #[test]
    fn counts_like_javascript() {
        assert_eq!(js_len("abc"), 3);
        assert_eq!(js_len("é"), 1);
        assert_eq!(js_len("😀"), 2);
    }
}
