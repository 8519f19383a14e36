//! Shared helpers for the integration tests: run the real binary with a clean environment,
//! parse its JSON, compare with goldens (`ARCTURN_BLESS=1` rewrites them).
#![allow(dead_code)]

#[path = "../prereq/mod.rs"]
pub mod prereq;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{}", self.stdout))
    }

    pub fn ndjson(&self) -> Vec<serde_json::Value> {
        self.stdout.lines().map(|l| serde_json::from_str(l).expect("NDJSON line")).collect()
    }
}

/// The binary with every environment variable that changes output cleared.
pub fn cmd() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arcturn-inspect"));
    for k in ["NO_COLOR", "CLICOLOR_FORCE", "COLUMNS", "HOME"] {
        c.env_remove(k);
    }
    c.env("COLUMNS", "100");
    c.current_dir(root());
    c
}

pub fn run(args: &[&str]) -> Out {
    let o = cmd().args(args).stdin(Stdio::null()).output().expect("run binary");
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

pub fn run_stdin(args: &[&str], input: &[u8]) -> Out {
    use std::io::Write;
    let mut child =
        cmd().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let o = child.wait_with_output().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn testdata(rel: &str) -> String {
    format!("testdata/{rel}")
}

/// Every session file under ../shared/real/ (paths relative to the crate), sorted; none,
/// after saying so (a failure under `CI=true`), when the folder is missing.
pub fn real_files() -> Vec<String> {
    let dir = root().join("../shared/real");
    if !dir.is_dir() {
        prereq::missing(
            "../shared/real (real session files)",
            "check them out beside the project",
            "ARCTURN_REQUIRE_REAL",
        );
        return Vec::new();
    }
    let mut out: Vec<String> = jsonl_under(&dir)
        .iter()
        .map(|p| format!("../shared/real/{}", p.strip_prefix(&dir).unwrap().display()))
        .collect();
    out.sort();
    out
}

/// Every session file under testdata/, sorted.
pub fn all_testdata() -> Vec<String> {
    let mut out: Vec<String> = jsonl_under(&root().join("testdata"))
        .iter()
        .map(|p| p.strip_prefix(root()).unwrap().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// The `*.jsonl` files below `dir`, at any depth.
fn jsonl_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out
}

/// Compare `actual` with `tests/golden/<name>`; `ARCTURN_BLESS=1` writes it instead.
pub fn golden(name: &str, actual: &str) {
    let path = root().join("tests/golden").join(name);
    if prereq::bless() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing golden {}: run `ARCTURN_BLESS=1 cargo test` to create it", path.display()));
    if name.ends_with(".json") {
        let a: serde_json::Value = serde_json::from_str(actual).expect("actual JSON");
        let e: serde_json::Value = serde_json::from_str(&expected).expect("golden JSON");
        assert_eq!(a, e, "JSON differs from golden {name} (ARCTURN_BLESS=1 to accept)");
    } else {
        assert_eq!(actual, expected, "output differs from golden {name} (ARCTURN_BLESS=1 to accept)");
    }
}

pub fn temp_file(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

/// Builds arcturn session files line by line for tests whose expected answers follow from
/// how the session was built (FORMATS.md section 1).
pub struct ArcturnBuilder {
    lines: Vec<String>,
    clock: u64,
}

/// Token usage of one assistant message: input, output, cache read, cache write, cost.
#[derive(Clone, Copy, Default)]
pub struct Use(pub u64, pub u64, pub u64, pub u64, pub f64);

impl ArcturnBuilder {
    pub fn new() -> Self {
        let header =
            r#"{"kind":"session","version":1,"id":"s-test","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/tmp/p"}"#;
        ArcturnBuilder { lines: vec![header.to_string()], clock: 0 }
    }

    fn entry(&mut self, id: &str, parent: Option<&str>, message: serde_json::Value) -> &mut Self {
        self.clock += 1;
        let line = serde_json::json!({
            "kind": "message",
            "id": id,
            "parentId": parent,
            "timestamp": format!("2026-11-02T09:{:02}:{:02}.000Z", self.clock / 60, self.clock % 60),
            "message": message,
        });
        self.lines.push(line.to_string());
        self
    }

    /// A user prompt (content as a plain string).
    pub fn user(&mut self, id: &str, parent: Option<&str>, text: &str) -> &mut Self {
        self.entry(id, parent, serde_json::json!({"role": "user", "content": text}))
    }

    /// An assistant message: text, then tool calls `(call id, tool, arguments)`.
    pub fn assistant(
        &mut self,
        id: &str,
        parent: &str,
        text: &str,
        calls: &[(&str, &str, serde_json::Value)],
        u: Use,
    ) -> &mut Self {
        let mut content = vec![serde_json::json!({"type": "text", "text": text})];
        for (cid, name, args) in calls {
            content.push(serde_json::json!({"type": "toolCall", "id": cid, "name": name, "arguments": args}));
        }
        let m = serde_json::json!({
            "role": "assistant",
            "content": content,
            "provider": "anthropic",
            "model": "claude-test",
            "usage": {"input": u.0, "output": u.1, "cacheRead": u.2, "cacheWrite": u.3,
                      "totalTokens": u.0 + u.1 + u.2 + u.3, "cost": {"total": u.4}},
            "stopReason": if calls.is_empty() { "stop" } else { "toolUse" },
        });
        self.entry(id, Some(parent), m)
    }

    /// A tool result; `tool` None leaves `toolName` out (the call id still names the call).
    pub fn result(
        &mut self,
        id: &str,
        parent: &str,
        call: &str,
        tool: Option<&str>,
        text: &str,
        error: bool,
    ) -> &mut Self {
        let mut m = serde_json::json!({
            "role": "toolResult",
            "toolCallId": call,
            "content": [{"type": "text", "text": text}],
            "isError": error,
        });
        if let Some(t) = tool {
            m["toolName"] = serde_json::json!(t);
        }
        self.entry(id, Some(parent), m)
    }

    /// A raw line, as is.
    pub fn raw(&mut self, line: &str) -> &mut Self {
        self.lines.push(line.to_string());
        self
    }

    pub fn text(&self) -> String {
        let mut s = self.lines.join("\n");
        s.push('\n');
        s
    }

    /// Write the session into `dir` and return its path.
    pub fn write(&self, dir: &Path, name: &str) -> String {
        temp_file(dir, name, self.text().as_bytes())
    }
}
