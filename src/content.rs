//! The content of one message in one vocabulary for every format: text, thinking, tool calls
//! and results, images, provider-side blocks. The format modules turn an entry's line(s) into
//! [`Content`] ([`crate::session::Session::content`]); views that show or count payloads read
//! messages only through this, and only for the entries they need. Text is kept exactly as
//! stored: making it safe is the renderers' job.

use serde_json::Value;

/// What a message says, decoded from its line(s).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Content {
    pub blocks: Vec<Block>,
    /// The error text of a model call that ended in an error, when the format records one.
    pub error: Option<String>,
}

impl Content {
    /// The first text of the message: a text block, else the first tool result's text.
    pub fn first_text(&self) -> Option<&str> {
        self.blocks
            .iter()
            .find_map(|b| match b {
                Block::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .or_else(|| {
                self.blocks.iter().find_map(|b| match b {
                    Block::ToolResult(r) => r.content.iter().find_map(|c| match c {
                        Block::Text(t) => Some(t.as_str()),
                        _ => None,
                    }),
                    _ => None,
                })
            })
    }

    /// The content with every text in it (texts, thinking, tool results' texts, the error)
    /// cut to its first `chars` characters: what a preview of it reads.
    pub fn cut(mut self, chars: usize) -> Content {
        cut_blocks(&mut self.blocks, chars);
        if let Some(e) = &mut self.error {
            cut_text(e, chars);
        }
        self
    }

    /// The tool calls of the message: (call id, name, arguments).
    pub fn tool_calls(&self) -> impl Iterator<Item = (Option<&str>, &str, &Value)> {
        self.blocks.iter().filter_map(|b| match b {
            Block::ToolCall { id, name, arguments } => Some((id.as_deref(), name.as_str(), arguments)),
            _ => None,
        })
    }
}

fn cut_blocks(blocks: &mut [Block], chars: usize) {
    for b in blocks {
        match b {
            Block::Text(text) | Block::Thinking { text, .. } => cut_text(text, chars),
            Block::ToolResult(r) => cut_blocks(&mut r.content, chars),
            _ => {}
        }
    }
}

/// Keep the first `chars` characters of `text`.
fn cut_text(text: &mut String, chars: usize) {
    let len = first_chars(text, chars).len();
    text.truncate(len);
}

/// At most the first `n` characters of `s`.
pub fn first_chars(s: &str, n: usize) -> &str {
    // A text of at most `n` bytes has at most `n` characters.
    if s.len() <= n {
        return s;
    }
    s.char_indices().nth(n).map_or(s, |(at, _)| &s[..at])
}

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

/// Length of a string as the agents count it (JavaScript `String.length`: UTF-16 code units).
pub fn js_len(s: &str) -> u64 {
    utf16_len(s.as_bytes())
}

/// [`js_len`] of the text whose UTF-8 bytes are `b` (a part of a string cut at character
/// boundaries, as the skimming parser scans it).
pub fn utf16_len(b: &[u8]) -> u64 {
    // From the bytes: every byte that starts a character counts one unit, and a 4-byte
    // sequence (a lead byte of 0xF0 or more) one more for its surrogate pair. Counted in
    // byte-wide lanes over runs of 127 bytes (at most 2 per byte: no lane overflows), which
    // the compiler turns into 16 bytes per vector step, and widened once per run.
    b.chunks(127)
        .map(|run| {
            let n = run.iter().fold(0u8, |n, &b| n.wrapping_add(u8::from((b as i8) >= -0x40) + u8::from(b >= 0xF0)));
            u64::from(n)
        })
        .sum()
}

/// A message's characters as a context estimate counts them ([`js_len`]), without its
/// blocks: what its top-level thinking blocks hold, apart, because a compaction or a context
/// edit may withhold them, and everything else. Counted straight from the line where the
/// format knows how ([`crate::format::Decoder::tally`]); equal, by test, to the characters of
/// the message's [`Content`] blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Characters of the top-level thinking blocks.
    pub thinking: u64,
    /// Whether there is a top-level thinking block (even an empty or redacted one).
    pub has_thinking: bool,
    /// Characters of every other block.
    pub other: u64,
}

impl Tally {
    /// Everything counted as `other` (the blocks inside a tool result).
    pub fn nested(self) -> u64 {
        self.thinking + self.other
    }

    /// The tally of a list holding `self`'s blocks and then `b`'s.
    pub fn and(self, b: Tally) -> Tally {
        Tally {
            thinking: self.thinking + b.thinking,
            has_thinking: self.has_thinking || b.has_thinking,
            other: self.other + b.other,
        }
    }
}

/// A [`Tally`] kept in a message, counted as the load read it
/// ([`crate::format::Detail::Tallied`]): in 32 bits a part, so that a message keeps it in
/// 12 bytes. A message of 4 Gi units or more (a line of at least 4 GiB) keeps none, and is
/// counted from its line again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted {
    thinking: u32,
    other: u32,
    has_thinking: bool,
}

impl Counted {
    /// `t` kept, if each of its parts fits.
    pub fn of(t: Tally) -> Option<Counted> {
        Some(Counted {
            thinking: u32::try_from(t.thinking).ok()?,
            other: u32::try_from(t.other).ok()?,
            has_thinking: t.has_thinking,
        })
    }

    pub fn tally(self) -> Tally {
        Tally { thinking: u64::from(self.thinking), has_thinking: self.has_thinking, other: u64::from(self.other) }
    }
}

/// What an image counts for in a character estimate: the agents' estimator charges a flat
/// 4800 characters (1200 tokens) per image.
pub const IMAGE_CHARS: u64 = 4800;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_like_javascript() {
        assert_eq!(js_len("abc"), 3);
        assert_eq!(js_len("é"), 1);
        assert_eq!(js_len("😀"), 2);
        assert_eq!(js_len(""), 0);
    }

    /// The byte count must equal the definition on every kind of character.
    #[test]
    fn counts_long_text_across_the_byte_runs() {
        // Longer than one 127-byte run, with characters cut by every run boundary.
        let unit = "a é ß € 東京 😀👍🏽 \u{10FFFF} עברית ";
        for n in [1, 5, 50, 400] {
            let text = unit.repeat(n);
            for skip in 0..4 {
                if let Some(s) = text.get(skip..) {
                    assert_eq!(js_len(s), s.encode_utf16().count() as u64);
                }
            }
        }
        let emoji = "😀".repeat(1000);
        assert_eq!(js_len(&emoji), 2000);
        assert_eq!(js_len(&"x".repeat(100_000)), 100_000);
    }

    #[test]
    fn counts_as_utf16_units_on_mixed_text() {
        let text = "a é ß € 東京 ☃️ 😀👍🏽 \u{10FFFF} \u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000} \u{202E}עברית";
        for i in 0..text.len() {
            if let Some(s) = text.get(i..) {
                assert_eq!(js_len(s), s.encode_utf16().count() as u64, "{s:?}");
            }
        }
    }
}
