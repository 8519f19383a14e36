#!/usr/bin/env python3
"""Writes the export/context test sessions next to this script (and ../hostile/).
Run it again after editing; the .jsonl files are committed."""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
T0 = 1793610000000  # 2026-11-02T09:00:00Z


def iso(ms):
    import datetime
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)


def write(path, lines):
    with open(path, "w") as f:
        for l in lines:
            f.write(json.dumps(l, ensure_ascii=False, separators=(",", ":")) + "\n")


class Arc:
    def __init__(self, header):
        self.lines = [header]
        self.t = T0
        self.last = None

    def add(self, kind, id, parent="__last__", **fields):
        self.t += 7000
        parent = self.last if parent == "__last__" else parent
        e = {"kind": kind, "id": id, "parentId": parent, "timestamp": iso(self.t)}
        e.update(fields)
        self.lines.append(e)
        self.last = id
        return e

    def msg(self, id, role, content, parent="__last__", **extra):
        m = {"role": role, "content": content, "timestamp": self.t + 6990}
        m.update(extra)
        return self.add("message", id, parent, message=m)


def usage(inp, out, cr, cw, cost):
    return {"input": inp, "output": out, "cacheRead": cr, "cacheWrite": cw, "totalTokens": inp + out + cr + cw,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}}


def asst(a, id, content, u, stop="toolUse", **extra):
    return a.msg(id, "assistant", content, provider="anthropic", model="claude-sonnet-5-5", usage=u, stopReason=stop, **extra)


def tool(a, id, call, name, text, **extra):
    return a.msg(id, "toolResult", [{"type": "text", "text": text}], toolCallId=call, toolName=name, isError=False, **extra)


def review():
    a = Arc({"kind": "session", "version": 1, "id": "s-20261102-rv", "timestamp": iso(T0), "cwd": "/home/dev/calc",
             "title": "Fix the failing add test"})
    a.msg("e01", "user", "Fix the failing test in `src/lib.rs`. Run `cargo test` after.", parent=None)
    asst(a, "e02", [{"type": "thinking", "thinking": "Read the test first."},
                    {"type": "toolCall", "id": "c01", "name": "read", "arguments": {"path": "src/lib.rs"}}],
         usage(3, 112, 0, 5120, 0.0209))
    lib = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n"
    tool(a, "e03", "c01", "read", lib)
    asst(a, "e04", [{"type": "thinking", "thinking": "`add` subtracts. Fix it, then run the tests."},
                    {"type": "text", "text": "The bug: `add` subtracts. Fixing it."},
                    {"type": "toolCall", "id": "c02", "name": "edit",
                     "arguments": {"path": "src/lib.rs", "old": "a - b", "new": "a + b"}}],
         usage(5, 140, 5120, 320, 0.0051))
    tool(a, "e05", "c02", "edit", "Edited src/lib.rs (1 replacement)")
    asst(a, "e06", [{"type": "toolCall", "id": "c03", "name": "bash", "arguments": {"command": "cargo test"}}],
         usage(4, 60, 5440, 90, 0.0024))
    out = "   Compiling calc v0.1.0 (/home/dev/calc)\n" + "".join(
        "test tests::case_%03d ... ok\n" % i for i in range(1, 313)) + "\ntest result: ok. 312 passed; 0 failed\n"
    tool(a, "e07", "c03", "bash", out)
    a.msg("e08", "system", [{"type": "text", "text": "Turn budget: 4 of 40 turns used."}])
    asst(a, "e09", [{"type": "thinking", "thinking": "All green. Report back."},
                    {"type": "text", "text": "All 312 tests pass. The fix:\n\n```rust\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n```"}],
         usage(6, 80, 5530, 2600, 0.0112), stop="stop")
    a.msg("e10", "user", [{"type": "text", "text": "Now add a `mul` function, and here is the coverage badge:"},
                          {"type": "image", "data": PNG, "mimeType": "image/png"}])
    asst(a, "e11", [{"type": "thinking", "thinking": "Check coverage first."},
                    {"type": "toolCall", "id": "c04", "name": "bash", "arguments": {"command": "cargo llvm-cov"}}],
         usage(8, 70, 8130, 1600, 0.0081))
    stub = ("Filename  Regions  Missed  Cover\nsrc/lib.rs  12  1  91.67%\n...\n[output offloaded: 48213 bytes, 1203 lines; "
            "full output at /home/dev/.arcturn/offload/s-20261102-rv/c04.txt: read or grep it instead of re-running]")
    tool(a, "e12", "c04", "bash", stub,
         details={"offloaded": True, "path": "/home/dev/.arcturn/offload/s-20261102-rv/c04.txt", "bytes": 48213, "lines": 1203})
    asst(a, "e13", [{"type": "serverTool", "provider": "anthropic",
                     "block": {"type": "server_tool_use", "name": "web_search", "input": {"query": "llvm-cov region coverage"}}},
                    {"type": "text", "text": "Coverage is 91.67%; one region in `add` is missed."}],
         usage(9, 95, 9730, 700, 0.0066), stop="stop")
    a.add("compaction", "e14", summary="## Goal\nFix the failing add test, then add `mul`.\n\n## Progress\n- `add` fixed (`a + b`), 312 tests pass.\n\n## Next steps\n- Add `mul`.",
          upToId="e09", tokensBefore=182340, tokensAfter=12011, stripTailThinking=True)
    a.add("state", "e15", todos=[{"text": "fix add", "done": True}, {"text": "add mul", "done": False}],
          plan="1. add mul\n2. test it", model={"provider": "anthropic", "id": "claude-sonnet-5-5"})
    a.msg("e16", "user", "Before that, delete ~/old-projects to free some space.")
    asst(a, "e17", [{"type": "text", "text": "I can't delete directories outside the project."},
                    {"type": "toolCall", "id": "c99", "name": "bash", "arguments": {"command": "rm -rf ~/old-projects"}}],
         usage(10, 30, 10430, 120, 0.0039), stop="refusal", stopDetails={"type": "refusal", "explanation": "outside the workspace"})
    a.msg("b01", "assistant", [{"type": "text", "text": "That directory is outside the project; I will leave it alone."}],
          parent="e16", provider="anthropic", model="claude-sonnet-5-5", usage=usage(10, 25, 10430, 120, 0.0038), stopReason="stop")
    a.last = "e17"
    a.msg("e18", "user", "OK, just add `mul` then.")
    asst(a, "e19", [{"type": "thinking", "thinking": "Read the file again."},
                    {"type": "toolCall", "id": "c05", "name": "read", "arguments": {"path": "src/lib.rs"}}],
         usage(11, 50, 10550, 300, 0.0041))
    big = "".join("// line %04d of the generated table: %s\n" % (i, "x" * 40) for i in range(1, 81))
    tool(a, "e20", "c05", "read", big)
    asst(a, "e21", [{"type": "thinking", "thinking": "Append mul after add."},
                    {"type": "toolCall", "id": "c06", "name": "edit",
                     "arguments": {"path": "src/lib.rs", "old": "}\n\n#[test]", "new": "}\n\npub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n\n#[test]"}}],
         usage(12, 90, 10850, 6400, 0.0270))
    tool(a, "e22", "c06", "edit", "Edited src/lib.rs (1 replacement)")
    a.add("state", "e23", contextEdit={"elided": ["c05"], "withholdThinking": "afterFirstElided"})
    asst(a, "e24", [{"type": "compaction", "summary": "Earlier turns summarized by the provider.", "encryptedContent": "ZW5jcnlwdGVk"},
                    {"type": "text", "text": "Done: `mul` added. Ask me to run the tests."}],
         usage(13, 40, 4000, 900, 0.0052), stop="stop")
    a.add("label", "e25", label="mul-done")
    write(os.path.join(HERE, "arcturn-review.jsonl"), a.lines)


def offpath():
    a = Arc({"kind": "session", "version": 1, "id": "s-offpath", "timestamp": iso(T0), "cwd": "/home/dev/x"})
    a.msg("a1", "user", "first question", parent=None)
    asst(a, "a2", [{"type": "text", "text": "first answer"}], usage(1, 2, 0, 0, 0.001), stop="stop")
    a.msg("a3", "user", "a second try from the first question", parent="a1")
    a.add("compaction", "k1", summary="summary one", upToId="a2", tokensBefore=100, tokensAfter=10)
    a.msg("a4", "user", "after the first compaction")
    asst(a, "a5", [{"type": "text", "text": "answer after it"}], usage(1, 2, 0, 0, 0.001), stop="stop")
    a.add("compaction", "k2", summary="summary two", upToId="a4", tokensBefore=50, tokensAfter=8)
    a.msg("a6", "user", "after the second compaction")
    write(os.path.join(HERE, "arcturn-offpath.jsonl"), a.lines)


def crab():
    t = 1792661000900
    L = [{"kind": "meta", "format_version": 2, "created": "1792661000878ms"}]

    def obs(run, tag, **f):
        nonlocal t
        t += 500
        o = {"kind": "obs", "run_id": run, "ts": t, "obs": tag}
        o.update(f)
        L.append(o)

    def m(id, parent, role, content):
        L.append({"kind": "message", "id": id, "parent_id": parent, "message": {"role": role, "content": content}})

    def llm(run, p, c, cr):
        obs(run, "llm_call", provider="deepseek", model="deepseek-chat", duration_ms=1500,
            usage={"prompt": p, "completion": c, "cache_read": cr, "cache_write": 0}, outcome="Ok")

    obs("r1", "turn_start")
    m(1, None, "user", [{"type": "text", "text": "add a --json flag to crab metrics"}])
    llm("r1", 5120, 96, 4096)
    m(3, 1, "assistant", [{"type": "text", "text": "Let me read the renderer."},
                          {"type": "tool_use", "id": "call_00_a1b2", "name": "read", "input": {"path": "crates/crab-cli/src/metrics.rs"}}])
    obs("r1", "tool_call", tool="read", call_seq=0, args_digest="9f2c1a", result_digest="77ab03", bytes_in=41, bytes_out=2400, duration_ms=3, outcome="Ok")
    src = "".join("    row(out, \"metric_%02d\", m.v%02d)?;\n" % (i, i) for i in range(60))
    m(4, 3, "user", [{"type": "tool_result", "tool_use_id": "call_00_a1b2", "content": "pub fn render(m: &Metrics, out: &mut dyn Write) -> io::Result<()> {\n" + src + "}\n"}])
    llm("r1", 7400, 210, 5120)
    m(5, 4, "assistant", [{"type": "text", "text": "I'll add the flag."},
                          {"type": "tool_use", "id": "call_01_c3d4", "name": "edit", "input": {"path": "crates/crab-cli/src/metrics.rs", "patch": "+ if json { ... }"}}])
    obs("r1", "tool_call", tool="edit", call_seq=1, args_digest="1b2c3d", result_digest="4e5f60", bytes_in=80, bytes_out=2, duration_ms=2, outcome="Ok")
    m(6, 5, "user", [{"type": "tool_result", "tool_use_id": "call_01_c3d4", "content": [{"type": "text", "text": "ok"}]}])
    llm("r1", 7700, 40, 7400)
    m(7, 6, "assistant", [{"type": "text", "text": "Added `--json` to `crab metrics`."}])
    obs("r1", "turn_end", stop_reason="end_turn", interrupted=False, llm_calls=3, tool_calls=2)
    obs("r2", "turn_start")
    m(8, 7, "user", [{"type": "text", "text": "run the tests"}])
    obs("r2", "compaction", strategy="shed", tokens_before=90000, tokens_after=60000, shed=["call_00_a1b2"])
    llm("r2", 6000, 30, 5000)
    m(9, 8, "assistant", [{"type": "tool_use", "id": "call_02_e5f6", "name": "bash", "input": {"command": "cargo test -p crab-cli"}}])
    obs("r2", "tool_call", tool="bash", call_seq=0, args_digest="aa11bb", result_digest="cc22dd", bytes_in=30, bytes_out=9000, duration_ms=8200, outcome="Ok")
    tests = "".join("test metrics::t%03d ... ok\n" % i for i in range(250)) + "test result: ok. 250 passed"
    m(10, 9, "user", [{"type": "tool_result", "tool_use_id": "call_02_e5f6", "content": tests}])
    llm("r2", 9000, 20, 6000)
    m(11, 10, "assistant", [{"type": "text", "text": "All 250 tests pass."}])
    obs("r2", "turn_end", stop_reason="end_turn", interrupted=False, llm_calls=2, tool_calls=1)
    obs("r3", "turn_start")
    m(12, 11, "user", [{"type": "text", "text": "summarize what we did"}])
    obs("r3", "compaction", strategy="summarize", tokens_before=120000, tokens_after=8000, up_to_id=7,
        summary="## Goal\nAdd `--json` to crab metrics.\n\n## Progress\n- flag added in metrics.rs")
    llm("r3", 3000, 120, 0)
    m(13, 12, "assistant", [{"type": "text", "text": "We added `--json` to `crab metrics` and all 250 tests pass."}])
    obs("r3", "turn_end", stop_reason="end_turn", interrupted=False, llm_calls=1, tool_calls=0)
    write(os.path.join(HERE, "crab-review.jsonl"), L)


def hostile():
    a = Arc({"kind": "session", "version": 1, "id": "s-hostile", "timestamp": iso(T0), "cwd": "/tmp/x",
             "title": "<script>document.title='pwned-title'</script> \u202eevil"})
    esc = "\u001b[31mred\u001b[0m \u001b]52;c;ZXZpbA==\u0007 \u001b]8;;http://evil.example\u0007osc8\u001b]8;;\u0007 \u009b31m c1 \u202etxt.exe a\u200bb"
    md = "\n\n".join([
        "<script>document.title='pwned-md'</script>",
        "inline <img src=x onerror=\"document.body.insertAdjacentHTML('beforeend','<p id=pwned>')\"> and <b onmouseover=alert(1)>bold</b>",
        "[js](javascript:document.title='pwned-js') [vb](vbscript:msgbox(1)) [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) <javascript:alert(1)> [ok](https://example.org/ok) [mail](mailto:dev@example.org)",
        "![remote](https://evil.example/track.png) ![svg](data:image/svg+xml;base64,PHN2Zy8+) ![png](data:image/png;base64," + PNG + ")",
        "[title](https://example.org/t \"x\\\" onmouseover=\\\"alert(1)\")",
        "<iframe src=\"https://evil.example/frame\"></iframe>\n<style>body{display:none}</style>",
        "<meta http-equiv=\"refresh\" content=\"0;url=https://evil.example\">\n<base href=\"https://evil.example/\">",
        "</details></article></main><script>document.title='pwned-close'</script>",
        "```\"><script>document.title='pwned-info'</script>\ncode\n```",
        "<svg onload=\"document.title='pwned-svg'\"><circle r=5></svg>",
        esc,
    ])
    a.msg("x\"><script>document.title='pwned-id'</script>", "user", md, parent=None)
    a.msg("h02", "assistant",
          [{"type": "thinking", "thinking": "<script>document.title='pwned-thinking'</script>" + esc},
           {"type": "text", "text": "Answer with ```` fences ```` and </script> inside."},
           {"type": "toolCall", "id": "t1\"onclick=\"x", "name": "<b>bold</b>\"onmouseover=\"alert(1)",
            "arguments": {"command": "echo '</script><script>document.title=1</script>'", "path": "\u001b[2J"}},
           {"type": "<script>unknown</script>", "x": 1}],
          provider="\"><script>p</script>", model="<img src=x onerror=alert(1)>",
          usage=usage(1, 2, 3, 4, 0.01), stopReason="toolUse")
    a.msg("h03", "toolResult",
          [{"type": "text", "text": "<html><script>document.title='pwned-result'</script></html>\n" + esc},
           {"type": "image", "data": PNG, "mimeType": "image/png\" onload=\"document.title='pwned-mime'"},
           {"type": "image", "data": "\"><script>alert(1)</script>", "mimeType": "image/png"},
           {"type": "image", "data": "PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+", "mimeType": "image/svg+xml"},
           {"type": "image", "data": PNG, "mimeType": "image/png"}],
          toolCallId="t1\"onclick=\"x", toolName="<img src=x onerror=alert(1)>", isError=True,
          details={"offloaded": True, "path": "/tmp/<script>alert(1)</script>.txt"})
    a.msg("h04", "system", [{"type": "text", "text": "<script>document.title='pwned-operator'</script> operator " + esc}])
    a.add("compaction", "h05", summary="<script>document.title='pwned-summary'</script>\n\n[x](javascript:alert(1))",
          upToId="h03", tokensBefore=10, tokensAfter=5)
    a.add("label", "h06", label="<img src=x onerror=alert(1)>" + esc)
    a.add("state", "h07", todos=[{"text": "<script>alert(1)</script>", "done": False}], model={"provider": "<b>", "id": "\"><script>"})
    a.msg("h08", "assistant",
          [{"type": "serverTool", "provider": "<script>x</script>", "block": {"type": "<b>web</b>", "input": {"query": "\"><script>"}}},
           {"type": "compaction", "summary": "<script>document.title='pwned-provider'</script>", "encryptedContent": None},
           {"type": "text", "text": "done"}],
          provider="anthropic", model="claude-sonnet-5-5", usage=usage(1, 1, 1, 1, 0.0), stopReason="stop")
    write(os.path.join(HERE, "..", "hostile", "hostile.jsonl"), a.lines)


review()
offpath()
crab()
hostile()
