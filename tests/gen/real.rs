//! pi, Claude Code and Codex sessions of any size, in the shapes those agents write
//! (FORMATS-REAL.md), with the traps that make other readers count twice: Claude Code
//! responses split over several lines that repeat their usage, progress lines hanging off
//! the chain, Codex `token_count` events that carry cumulative totals and are re-emitted
//! unchanged.
//!
//! One planner draws the turns (a prompt, then model calls with thinking, text, tool calls
//! and their outputs, and each call's usage); one writer per format puts them on lines.
//! The summary counts what a correct reader must find: user prompts, model calls and
//! their usage counted once, tool calls and errored results, compactions, branches.

use std::io::{self, Write};

use super::{fill, iso8601, mix32, prose, tool_output, GenSummary, Line, Out, Rng, PROMPTS, PROSE, START_MS, TOOLS};

/// Which agent's shape to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    Pi,
    Claude,
    Codex,
}

impl Agent {
    pub fn name(self) -> &'static str {
        match self {
            Agent::Pi => "pi",
            Agent::Claude => "claude",
            Agent::Codex => "codex",
        }
    }
}

/// A session of `agent`'s format, about `target_bytes` long (it stops at the first turn
/// boundary past the target).
pub fn session(agent: Agent, w: &mut impl Write, target_bytes: u64, seed: u64) -> io::Result<GenSummary> {
    let mut g = Gen::new(agent, w, seed);
    g.header()?;
    while g.out.sum.bytes < target_bytes {
        g.turn()?;
    }
    g.out.w.flush()?;
    Ok(g.out.sum)
}

/// One tool call of a model call, with its result.
struct Call {
    id: String,
    tool: &'static str,
    /// The arguments as a JSON object, already encoded.
    args: String,
    output: String,
    error: bool,
}

/// One model call: what it said and what it cost.
struct Step {
    thinking: Option<String>,
    text: String,
    calls: Vec<Call>,
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
}

const PI_MODEL: (&str, &str) = ("anthropic", "claude-sonnet-4-5");
const CLAUDE_MODEL: &str = "claude-opus-4-6";
const CODEX_MODEL: &str = "gpt-5-codex";
const SESSION_ID: &str = "5f0c2a9e-3d41-4b7a-9e2f-7a1c0d9b8e11";
const CWD: &str = "/home/dev/src/inkwell";

/// A turn on the current branch, remembered so a later prompt can resume from it.
struct Mark {
    /// The id a child names as its parent (pi id, Claude uuid).
    id: String,
}

struct Gen<'w, W: Write> {
    agent: Agent,
    out: Out<'w, W>,
    rng: Rng,
    line: Line,
    salt: u32,
    next_id: u32,
    now_ms: u64,
    /// The last line a new line hangs from (pi id / Claude uuid).
    tip: Option<String>,
    /// Ends of recent turns on the current branch, oldest first.
    turn_ends: Vec<Mark>,
    context_tokens: u64,
    turns: u64,
    /// Codex: the cumulative totals the last `token_count` carried.
    codex_total: [u64; 4],
}

impl<'w, W: Write> Gen<'w, W> {
    fn new(agent: Agent, w: &'w mut W, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let salt = rng.next_u64() as u32;
        Gen {
            agent,
            out: Out { w, sum: GenSummary::default() },
            rng,
            line: Line::new(),
            salt,
            next_id: 0,
            now_ms: START_MS,
            tip: None,
            turn_ends: Vec::new(),
            context_tokens: 0,
            turns: 0,
            codex_total: [0; 4],
        }
    }

    fn new_id(&mut self) -> String {
        self.next_id += 1;
        let a = mix32(self.next_id ^ self.salt);
        let b = mix32(self.next_id.wrapping_mul(0x9e37_79b9) ^ self.salt);
        match self.agent {
            Agent::Pi => format!("{a:08x}"),
            _ => format!("{a:08x}-{:04x}-4{:03x}-8{:03x}-{b:08x}{:04x}", b >> 16, a & 0xfff, b & 0xfff, a >> 16),
        }
    }

    fn tick(&mut self) {
        self.now_ms += self.rng.range(40, 9000);
    }

    fn ts(&mut self) {
        self.line.raw("\"");
        iso8601(self.now_ms, &mut self.line.buf);
        self.line.raw("\"");
    }

    fn emit(&mut self) -> io::Result<()> {
        self.out.emit(&mut self.line)
    }

    // -------------------------------------------------------------------------------
    // Planning

    fn plan_turn(&mut self) -> (String, Vec<Step>) {
        let mut prompt = String::from(self.rng.pick(PROMPTS));
        if self.rng.chance(0.3) {
            let mut more = String::new();
            let n = self.rng.range(1, 4);
            prose(&mut self.rng, n, &mut more);
            prompt.push_str("\n\n");
            prompt.push_str(&more);
        }
        let n = self.rng.range(1, 7);
        let mut steps = Vec::with_capacity(n as usize);
        let mut pending = prompt.len() as u64 / 4 + self.rng.range(5, 40);
        for i in 0..n {
            let last = i + 1 == n;
            let thinking = self.rng.chance(0.5).then(|| {
                let mut t = String::new();
                let n = self.rng.range(1, 5);
                prose(&mut self.rng, n, &mut t);
                t
            });
            let mut text = String::new();
            let sentences = if last { self.rng.range(2, 8) } else { self.rng.range(0, 2) };
            prose(&mut self.rng, sentences, &mut text);
            let ncalls = if last { 0 } else { self.rng.pick(&[1, 1, 1, 1, 2, 3]) };
            let calls: Vec<Call> = (0..ncalls).map(|_| self.plan_call()).collect();
            let written = thinking.as_ref().map_or(0, String::len)
                + text.len()
                + calls.iter().map(|c| c.args.len() + 40).sum::<usize>();
            let output = written as u64 / 4 + self.rng.range(5, 60);
            let mut input = self.rng.range(1, 6);
            let cache_read = self.context_tokens;
            let mut cache_write = pending + self.rng.range(0, 40);
            if self.agent == Agent::Codex {
                // Codex reports no cache writes: what is new is uncached input.
                input += cache_write;
                cache_write = 0;
            }
            self.context_tokens += cache_write + output;
            if self.context_tokens > 185_000 {
                self.context_tokens = self.rng.range(110_000, 130_000);
            }
            pending = calls.iter().map(|c| c.output.len() as u64 / 4).sum();
            steps.push(Step { thinking, text, calls, input, output, cache_read, cache_write });
        }
        (prompt, steps)
    }

    fn plan_call(&mut self) -> Call {
        let tool = self.rng.pick(TOOLS);
        self.next_id += 1;
        let id = match self.agent {
            Agent::Codex => format!("call_{:08x}", mix32(self.next_id ^ self.salt.rotate_left(7))),
            _ => format!("toolu_01{:08x}{:08x}", mix32(self.next_id ^ self.salt), self.next_id),
        };
        let mut args = Line::new();
        match tool {
            "bash" => {
                let cmd = self.rng.pick(&[
                    "cargo test --workspace 2>&1 | tail -80",
                    "npm test -- --selectProjects i18n",
                    "git diff --stat HEAD~3",
                    "rg -n \"TrailingComma\" src/",
                ]);
                args.raw("{\"command\":").str(cmd).raw(",\"timeout\":120000}");
            }
            "edit" => {
                args.raw("{\"file_path\":\"src/parse.rs\",\"old_string\":")
                    .str("            b',' => {\n                self.bump();\n            }")
                    .raw(",\"new_string\":")
                    .str("            b',' => {\n                self.bump();\n                if self.peek() == Some(b'}') {\n                    return Err(self.error(ErrorKind::TrailingComma));\n                }\n            }")
                    .raw("}");
            }
            "write" => {
                args.raw("{\"file_path\":\"locales/fr.json\",\"content\":")
                    .str("{\n  \"settings.title\": \"Paramètres\",\n  \"settings.logout\": \"Déconnexion\"\n}\n")
                    .raw("}");
            }
            _ => {
                let path = self.rng.pick(&["src/parse.rs", "internal/store/notes.go", "src/i18n/plural.ts"]);
                args.raw("{\"file_path\":").str(path).raw("}");
            }
        }
        let size = if self.rng.chance(0.000_5) {
            self.rng.range(50_000, 300_000) as usize
        } else {
            self.rng.log_normal(1000.0, 2.0).clamp(40.0, 120_000.0) as usize
        };
        let mut output = String::new();
        tool_output(&mut self.rng, tool, size, &mut output);
        if self.rng.chance(0.02) {
            // Some outputs carry a bit of everything: CJK, RTL, emoji and escapes.
            fill(&mut self.rng, PROSE, output.len() + 200, &mut output);
            output.push_str("\n設定 — إعدادات 🧩 \"quoted\"\t\\path\\to");
        }
        let error = self.rng.chance(0.05);
        Call { id, tool, args: String::from_utf8(args.buf).unwrap_or_default(), output, error }
    }

    // -------------------------------------------------------------------------------
    // Turns

    fn turn(&mut self) -> io::Result<()> {
        self.turns += 1;
        // Now and then a compaction, and now and then a resume from an older turn.
        if self.turns.is_multiple_of(100) {
            self.compaction()?;
        } else if self.agent != Agent::Codex && self.turn_ends.len() > 3 && self.rng.chance(0.01) {
            let back = self.rng.range(2, self.turn_ends.len().min(12) as u64) as usize;
            let at = self.turn_ends.len() - back;
            self.turn_ends.truncate(at + 1);
            self.tip = Some(self.turn_ends[at].id.clone());
            self.out.sum.branches += 1;
            self.out.sum.leaves += 1;
        }
        let (prompt, steps) = self.plan_turn();
        self.out.sum.user_messages += 1;
        match self.agent {
            Agent::Pi => self.pi_turn(&prompt, &steps)?,
            Agent::Claude => self.claude_turn(&prompt, &steps)?,
            Agent::Codex => self.codex_turn(&prompt, &steps)?,
        }
        for s in &steps {
            let sum = &mut self.out.sum;
            sum.assistant_messages += 1;
            sum.llm_calls += 1;
            sum.input_tokens_total += s.input;
            sum.output_tokens_total += s.output;
            sum.cache_read_tokens_total += s.cache_read;
            sum.cache_write_tokens_total += s.cache_write;
            sum.tool_calls += s.calls.len() as u64;
            sum.tool_results += s.calls.len() as u64;
            sum.tool_errors += s.calls.iter().filter(|c| c.error).count() as u64;
        }
        if let Some(tip) = &self.tip {
            self.turn_ends.push(Mark { id: tip.clone() });
            if self.turn_ends.len() > 64 {
                self.turn_ends.drain(..32);
            }
        }
        Ok(())
    }

    fn header(&mut self) -> io::Result<()> {
        match self.agent {
            Agent::Pi => {
                self.line.raw("{\"type\":\"session\",\"version\":3,\"id\":\"").raw(SESSION_ID).raw("\",\"timestamp\":");
                self.ts();
                self.line.raw(",\"cwd\":").str(CWD).raw("}");
                self.emit()?;
                // The model in use, as pi records it before the first message.
                let id = self.new_id();
                self.line
                    .raw("{\"type\":\"model_change\",\"id\":\"")
                    .raw(&id)
                    .raw("\",\"parentId\":null,\"timestamp\":");
                self.ts();
                self.line.raw(",\"provider\":\"").raw(PI_MODEL.0).raw("\",\"modelId\":\"").raw(PI_MODEL.1).raw("\"}");
                self.out.sum.roots += 1;
                self.out.sum.leaves += 1;
                self.out.sum.states += 1;
                self.tip = Some(id);
                self.emit()
            }
            Agent::Claude => {
                self.line.raw("{\"type\":\"file-history-snapshot\",\"messageId\":\"m0\",\"snapshot\":{\"messageId\":\"m0\",\"trackedFileBackups\":{},\"timestamp\":");
                self.ts();
                self.line.raw("},\"isSnapshotUpdate\":false}");
                self.out.sum.roots += 1;
                self.out.sum.leaves += 1;
                self.emit()
            }
            Agent::Codex => {
                self.line.raw("{\"timestamp\":");
                self.ts();
                self.line
                    .raw(",\"type\":\"session_meta\",\"payload\":{\"id\":\"")
                    .raw(SESSION_ID)
                    .raw("\",\"timestamp\":");
                self.ts();
                self.line.raw(",\"cwd\":").str(CWD);
                self.line.raw(",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.63.0\",\"source\":\"cli\",\"model_provider\":\"openai\"}}");
                self.out.sum.roots += 1;
                self.out.sum.leaves += 1;
                self.emit()
            }
        }
    }

    fn compaction(&mut self) -> io::Result<()> {
        let mut summary = String::from("## Goal\n");
        prose(&mut self.rng, 6, &mut summary);
        let before = self.context_tokens;
        self.context_tokens = self.rng.range(8_000, 20_000);
        self.out.sum.compactions += 1;
        self.tick();
        match self.agent {
            Agent::Pi => {
                // Keeps the last turn: the tail from that turn's end on.
                let kept = self.turn_ends.last().map(|m| m.id.clone());
                let id = self.new_id();
                self.line.raw("{\"type\":\"compaction\",\"id\":\"").raw(&id).raw("\",\"parentId\":");
                self.parent_field();
                self.line.raw(",\"timestamp\":");
                self.ts();
                self.line.raw(",\"summary\":").str(&summary);
                if let Some(k) = kept {
                    self.line.raw(",\"firstKeptEntryId\":\"").raw(&k).raw("\"");
                }
                self.line.raw(",\"tokensBefore\":").num(before).raw("}");
                self.tip = Some(id);
                self.emit()
            }
            Agent::Claude => {
                let boundary = self.new_id();
                self.claude_open("system", None, &boundary);
                self.line.raw(",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"isMeta\":false,\"level\":\"info\"");
                if let Some(t) = self.tip.clone() {
                    self.line.raw(",\"logicalParentUuid\":\"").raw(&t).raw("\"");
                }
                self.line.raw(",\"compactMetadata\":{\"trigger\":\"auto\",\"preTokens\":").num(before).raw("}}");
                self.emit()?;
                let id = self.new_id();
                self.claude_open("user", Some(boundary), &id);
                let text = format!("This session is being continued from a previous conversation. Summary:\n{summary}");
                self.line.raw(",\"message\":{\"role\":\"user\",\"content\":").str(&text);
                self.line.raw("},\"isCompactSummary\":true,\"isVisibleInTranscriptOnly\":true}");
                self.tip = Some(id);
                self.emit()
            }
            Agent::Codex => {
                self.line.raw("{\"timestamp\":");
                self.ts();
                self.line.raw(",\"type\":\"compacted\",\"payload\":{\"message\":").str(&summary);
                self.line.raw(",\"replacement_history\":[{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":");
                self.line.str(&summary).raw("}]}]}}");
                self.emit()?;
                let mut e = Line::new();
                e.raw("{\"type\":\"context_compacted\"}");
                self.codex_event(&mut e)
            }
        }
    }

    fn parent_field(&mut self) {
        match self.tip.clone() {
            Some(p) => {
                self.line.raw("\"").raw(&p).raw("\"");
            }
            None => {
                self.line.raw("null");
            }
        }
    }

    // -------------------------------------------------------------------------------
    // pi

    fn pi_open(&mut self) -> String {
        self.tick();
        let id = self.new_id();
        self.line.raw("{\"type\":\"message\",\"id\":\"").raw(&id).raw("\",\"parentId\":");
        self.parent_field();
        self.line.raw(",\"timestamp\":");
        self.ts();
        id
    }

    fn pi_close(&mut self, id: String) -> io::Result<()> {
        self.line.raw(",\"timestamp\":").num(self.now_ms).raw("}}");
        self.tip = Some(id);
        self.emit()
    }

    fn pi_turn(&mut self, prompt: &str, steps: &[Step]) -> io::Result<()> {
        let id = self.pi_open();
        self.line
            .raw(",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":")
            .str(prompt)
            .raw("}]");
        self.pi_close(id)?;
        for s in steps {
            let id = self.pi_open();
            self.line.raw(",\"message\":{\"role\":\"assistant\",\"content\":[");
            let mut first = true;
            let mut sep = |l: &mut Line| {
                if !std::mem::take(&mut first) {
                    l.raw(",");
                }
            };
            if let Some(t) = &s.thinking {
                sep(&mut self.line);
                self.line.raw("{\"type\":\"thinking\",\"thinking\":").str(t).raw(",\"thinkingSignature\":\"sig\"}");
            }
            if !s.text.is_empty() {
                sep(&mut self.line);
                self.line.raw("{\"type\":\"text\",\"text\":").str(&s.text).raw("}");
            }
            for c in &s.calls {
                sep(&mut self.line);
                self.line.raw("{\"type\":\"toolCall\",\"id\":\"").raw(&c.id).raw("\",\"name\":\"").raw(c.tool);
                self.line.raw("\",\"arguments\":").raw(&c.args).raw("}");
            }
            let rates = [3.0, 15.0, 0.30, 3.75];
            let costs = [
                s.input as f64 * rates[0] / 1e6,
                s.output as f64 * rates[1] / 1e6,
                s.cache_read as f64 * rates[2] / 1e6,
                s.cache_write as f64 * rates[3] / 1e6,
            ];
            let total: f64 = costs.iter().sum();
            self.out.sum.cost_total += total;
            let l = &mut self.line;
            l.raw("],\"api\":\"anthropic-messages\",\"provider\":\"").raw(PI_MODEL.0);
            l.raw("\",\"model\":\"").raw(PI_MODEL.1).raw("\",\"usage\":{\"input\":").num(s.input);
            l.raw(",\"output\":").num(s.output).raw(",\"cacheRead\":").num(s.cache_read);
            l.raw(",\"cacheWrite\":").num(s.cache_write);
            l.raw(",\"totalTokens\":").num(s.input + s.output + s.cache_read + s.cache_write);
            l.raw(",\"cost\":{\"input\":").float(costs[0]).raw(",\"output\":").float(costs[1]);
            l.raw(",\"cacheRead\":").float(costs[2]).raw(",\"cacheWrite\":").float(costs[3]);
            l.raw(",\"total\":").float(total).raw("}},\"stopReason\":");
            l.raw(if s.calls.is_empty() { "\"stop\"" } else { "\"toolUse\"" });
            self.pi_close(id)?;
            for c in &s.calls {
                let id = self.pi_open();
                self.line.raw(",\"message\":{\"role\":\"toolResult\",\"toolCallId\":\"").raw(&c.id);
                self.line.raw("\",\"toolName\":\"").raw(c.tool).raw("\",\"content\":[{\"type\":\"text\",\"text\":");
                self.line.str(&c.output).raw("}],\"isError\":").raw(if c.error { "true" } else { "false" });
                self.pi_close(id)?;
            }
        }
        Ok(())
    }

    // -------------------------------------------------------------------------------
    // Claude Code

    /// The envelope every conversational line carries, left open.
    fn claude_open(&mut self, kind: &str, parent: Option<String>, uuid: &str) {
        self.tick();
        self.line.raw("{\"parentUuid\":");
        match parent {
            Some(p) => {
                self.line.raw("\"").raw(&p).raw("\"");
            }
            None => {
                self.line.raw("null");
            }
        }
        self.line.raw(",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":").str(CWD);
        self.line.raw(",\"sessionId\":\"").raw(SESSION_ID).raw("\",\"version\":\"2.1.39\",\"gitBranch\":\"main\"");
        self.line.raw(",\"type\":\"").raw(kind).raw("\",\"uuid\":\"").raw(uuid).raw("\",\"timestamp\":");
        self.ts();
    }

    fn claude_turn(&mut self, prompt: &str, steps: &[Step]) -> io::Result<()> {
        let id = self.new_id();
        let parent = self.tip.clone();
        self.claude_open("user", parent, &id);
        self.line.raw(",\"message\":{\"role\":\"user\",\"content\":").str(prompt).raw("}}");
        self.tip = Some(id);
        self.emit()?;
        for s in steps {
            self.next_id += 1;
            let msg = format!("msg_01{:08x}{:08x}", mix32(self.next_id ^ self.salt), self.next_id);
            let req = format!("req_011{:08x}{:08x}", mix32(self.next_id.rotate_left(5) ^ self.salt), self.next_id);
            // One line per content block, each repeating the usage; the last one carries
            // the final output count (the largest copy).
            let mut blocks: Vec<Line> = Vec::new();
            if let Some(t) = &s.thinking {
                let mut b = Line::new();
                b.raw("{\"type\":\"thinking\",\"thinking\":").str(t).raw(",\"signature\":\"sig\"}");
                blocks.push(b);
            }
            if !s.text.is_empty() || s.calls.is_empty() {
                let mut b = Line::new();
                b.raw("{\"type\":\"text\",\"text\":").str(&s.text).raw("}");
                blocks.push(b);
            }
            for c in &s.calls {
                let mut b = Line::new();
                b.raw("{\"type\":\"tool_use\",\"id\":\"").raw(&c.id).raw("\",\"name\":\"");
                b.raw(claude_tool(c.tool)).raw("\",\"input\":").raw(&c.args).raw("}");
                blocks.push(b);
            }
            let n = blocks.len();
            for (i, b) in blocks.into_iter().enumerate() {
                let last = i + 1 == n;
                let id = self.new_id();
                let parent = self.tip.clone();
                self.claude_open("assistant", parent, &id);
                self.line.raw(",\"requestId\":\"").raw(&req).raw("\",\"message\":{\"model\":\"").raw(CLAUDE_MODEL);
                self.line
                    .raw("\",\"id\":\"")
                    .raw(&msg)
                    .raw("\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[");
                self.line.buf.extend_from_slice(&b.buf);
                self.line.escapes += b.escapes;
                let stop = match (last, s.calls.is_empty()) {
                    (false, _) => "null",
                    (true, true) => "\"end_turn\"",
                    (true, false) => "\"tool_use\"",
                };
                self.line
                    .raw("],\"stop_reason\":")
                    .raw(stop)
                    .raw(",\"stop_sequence\":null,\"usage\":{\"input_tokens\":");
                self.line.num(s.input).raw(",\"cache_creation_input_tokens\":").num(s.cache_write);
                self.line.raw(",\"cache_read_input_tokens\":").num(s.cache_read);
                self.line.raw(",\"cache_creation\":{\"ephemeral_5m_input_tokens\":").num(s.cache_write);
                self.line.raw(",\"ephemeral_1h_input_tokens\":0},\"output_tokens\":").num(if last {
                    s.output
                } else {
                    1
                });
                self.line.raw(",\"service_tier\":\"standard\"}}}");
                self.tip = Some(id);
                self.emit()?;
            }
            for c in &s.calls {
                if c.tool == "bash" && self.rng.chance(0.3) {
                    // A progress line hangs off the chain; the next line does not follow it.
                    let id = self.new_id();
                    let parent = self.tip.clone();
                    self.claude_open("progress", parent, &id);
                    self.line.raw(",\"data\":{\"type\":\"bash_progress\",\"output\":").str("Compiling inkwell v0.4.1");
                    self.line
                        .raw("},\"toolUseID\":\"")
                        .raw(&c.id)
                        .raw("\",\"parentToolUseID\":\"")
                        .raw(&c.id)
                        .raw("\"}");
                    self.emit()?;
                }
                let id = self.new_id();
                let parent = self.tip.clone();
                self.claude_open("user", parent, &id);
                self.line.raw(",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"").raw(&c.id);
                self.line.raw("\",\"type\":\"tool_result\",\"content\":").str(&c.output);
                self.line.raw(",\"is_error\":").raw(if c.error { "true" } else { "false" }).raw("}]}");
                let mut head = c.output.len().min(200);
                while !c.output.is_char_boundary(head) {
                    head -= 1;
                }
                self.line.raw(",\"toolUseResult\":{\"stdout\":").str(&c.output[..head]);
                self.line.raw(",\"stderr\":\"\",\"interrupted\":false}}");
                self.tip = Some(id);
                self.emit()?;
            }
        }
        Ok(())
    }

    // -------------------------------------------------------------------------------
    // Codex

    /// A `{timestamp,type,payload}` line around a payload built apart (its escapes counted).
    fn codex_line(&mut self, kind: &str, payload: &Line) -> io::Result<()> {
        self.line.raw("{\"timestamp\":");
        self.ts();
        self.line.raw(",\"type\":\"").raw(kind).raw("\",\"payload\":");
        self.line.buf.extend_from_slice(&payload.buf);
        self.line.escapes += payload.escapes;
        self.line.raw("}");
        self.emit()
    }

    fn codex_item(&mut self, payload: &mut Line) -> io::Result<()> {
        self.codex_line("response_item", payload)?;
        payload.clear();
        Ok(())
    }

    fn codex_event(&mut self, payload: &mut Line) -> io::Result<()> {
        self.codex_line("event_msg", payload)?;
        payload.clear();
        Ok(())
    }

    fn codex_turn(&mut self, prompt: &str, steps: &[Step]) -> io::Result<()> {
        self.tick();
        self.line.raw("{\"timestamp\":");
        self.ts();
        self.line.raw(",\"type\":\"turn_context\",\"payload\":{\"cwd\":").str(CWD);
        self.line.raw(",\"approval_policy\":\"on-request\",\"model\":\"").raw(CODEX_MODEL).raw("\"}}");
        self.emit()?;
        let mut p = Line::new();
        p.raw("{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":")
            .str(prompt)
            .raw("}]}");
        self.codex_item(&mut p)?;
        let mut e = Line::new();
        e.raw("{\"type\":\"user_message\",\"message\":").str(prompt).raw(",\"images\":[]}");
        self.codex_event(&mut e)?;
        for s in steps {
            self.tick();
            let mut b = Line::new();
            if let Some(t) = &s.thinking {
                b.raw("{\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\",\"text\":").str(t);
                b.raw("}],\"content\":null,\"encrypted_content\":\"gAAAAABo\"}");
                self.codex_item(&mut b)?;
            }
            if !s.text.is_empty() || s.calls.is_empty() {
                b.raw("{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":");
                b.str(&s.text).raw("}]}");
                self.codex_item(&mut b)?;
            }
            for c in &s.calls {
                b.raw("{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":").str(&c.args);
                b.raw(",\"call_id\":\"").raw(&c.id).raw("\"}");
                self.codex_item(&mut b)?;
            }
            // Cumulative totals, then this call's own figures; input includes the cached part.
            let input_all = s.input + s.cache_read;
            let last = [input_all, s.cache_read, s.output, 0];
            for (t, l) in self.codex_total.iter_mut().zip(last) {
                *t += l;
            }
            let mut tc = self.token_count(last);
            if self.rng.chance(0.3) {
                // Re-emitted unchanged: the same cumulative totals, not another call.
                self.codex_line("event_msg", &tc)?;
            }
            self.codex_event(&mut tc)?;
            for c in &s.calls {
                self.tick();
                let exit = if c.error { 1 } else { 0 };
                let out = if self.rng.chance(0.7) {
                    // Today's shell output: a plain-text header, then the output.
                    format!(
                        "Chunk ID: {:06x}\nWall time: 0.{:04} seconds\nProcess exited with code {exit}\nOriginal token count: {}\nOutput:\n{}",
                        self.rng.next_u64() & 0xff_ffff,
                        self.rng.range(0, 9999),
                        c.output.len() / 4,
                        c.output
                    )
                } else {
                    // The older shape: the output and its metadata as JSON, in a string.
                    let mut o = Line::new();
                    o.raw("{\"output\":").str(&c.output).raw(",\"metadata\":{\"exit_code\":").num(exit);
                    o.raw(",\"duration_seconds\":0.4}}");
                    String::from_utf8(o.buf).unwrap_or_default()
                };
                b.raw("{\"type\":\"function_call_output\",\"call_id\":\"")
                    .raw(&c.id)
                    .raw("\",\"output\":")
                    .str(&out)
                    .raw("}");
                self.codex_item(&mut b)?;
            }
        }
        Ok(())
    }

    fn token_count(&self, last: [u64; 4]) -> Line {
        let usage = |l: &mut Line, u: [u64; 4]| {
            l.raw("{\"input_tokens\":").num(u[0]).raw(",\"cached_input_tokens\":").num(u[1]);
            l.raw(",\"output_tokens\":").num(u[2]).raw(",\"reasoning_output_tokens\":").num(u[3]);
            l.raw(",\"total_tokens\":").num(u[0] + u[2]).raw("}");
        };
        let mut l = Line::new();
        l.raw("{\"type\":\"token_count\",\"info\":{\"total_token_usage\":");
        usage(&mut l, self.codex_total);
        l.raw(",\"last_token_usage\":");
        usage(&mut l, last);
        l.raw(",\"model_context_window\":272000}}");
        l
    }
}

/// Claude Code's names for the tools.
fn claude_tool(tool: &str) -> &'static str {
    match tool {
        "bash" => "Bash",
        "read" => "Read",
        "grep" => "Grep",
        "edit" => "Edit",
        _ => "Write",
    }
}
