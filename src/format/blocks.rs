//! Content blocks as the agents write them in JSON, turned into the neutral
//! [`Block`](crate::content::Block) vocabulary. The block shapes are shared across formats
//! (arcturn and pi `text`/`thinking`/`toolCall`/`image`; crab and Claude Code `tool_use`/
//! `tool_result`/`image{source}`), so every format module reads them through here.

use serde_json::Value;

use crate::content::{Block, Image, ToolResult};

/// A message's `content`: a string is one text block, an array a list of blocks.
pub fn list(content: &Value) -> Vec<Block> {
    match content {
        Value::String(s) => vec![Block::Text(s.clone())],
        Value::Array(items) => items.iter().map(block).collect(),
        Value::Null => Vec::new(),
        other => vec![Block::Unknown { type_name: "(not a block list)".into(), raw: other.clone() }],
    }
}

/// One content block.
pub fn block(b: &Value) -> Block {
    let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
    let text = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    match ty {
        "text" => Block::Text(text("text")),
        "thinking" => Block::Thinking {
            text: text("thinking"),
            redacted: b.get("redacted").and_then(Value::as_bool).unwrap_or(false),
        },
        "redacted_thinking" => Block::Thinking { text: String::new(), redacted: true },
        "toolCall" | "tool_use" => Block::ToolCall {
            id: str_of(b, "id"),
            name: text("name"),
            arguments: b.get(if ty == "toolCall" { "arguments" } else { "input" }).cloned().unwrap_or(Value::Null),
        },
        "tool_result" => Block::ToolResult(ToolResult {
            call_id: str_of(b, "tool_use_id"),
            tool_name: None,
            is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            content: list(b.get("content").unwrap_or(&Value::Null)),
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

/// arcturn and pi `{type:"image", data, mimeType}`; also the `source` shape
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

pub fn str_of(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_use_and_tool_result_blocks() {
        let v = json!([
            {"type":"tool_result","tool_use_id":"t1","content":"out"},
            {"type":"tool_use","id":"t2","name":"read","input":{"path":"x"}}]);
        let b = list(&v);
        assert!(matches!(&b[0], Block::ToolResult(r) if r.text() == "out" && r.call_id.as_deref() == Some("t1")));
        assert!(matches!(&b[1], Block::ToolCall { name, .. } if name == "read"));
    }

    #[test]
    fn string_content_is_one_text_block() {
        assert_eq!(list(&json!("hi")), vec![Block::Text("hi".into())]);
    }
}
