#!/usr/bin/env python3
"""Per-session Claude Code usage computed straight from the files with the rules of
shared/FORMATS-REAL.md section 2.6, independently of arcturn-inspect and of ccusage.

    bench/claude_usage_rules.py SESSION.jsonl [...]   -> one JSON object per line
    bench/claude_usage_rules.py --self-test           -> checks each rule on synthetic lines

Each object also carries two wrong counts for comparison: `first_copy_total` (the first line of
a split response kept, as ccusage before 20 did) and `line_sum_total` (every assistant line
summed, no dedup).

Rules applied:
  * only top-level `assistant` lines carry billed usage; `progress` lines (agent_progress)
    embed copies of sub-agent messages and are never counted;
  * lines whose model is `<synthetic>` are not API calls;
  * a response is counted once: key (message.id, requestId), or message.id alone when
    requestId is absent; of its copies the one with the largest total is kept, except that
    a sidechain copy of a main-chain response loses to the main-chain copy;
  * the files in `<session>/subagents/*.jsonl` beside SESSION.jsonl are separate billed
    calls of the same session: they are added once, to that session.
  * cache_creation{ephemeral_5m, ephemeral_1h} is a split of cache_creation_input_tokens and
    is never added.
"""
import glob
import json
import os
import sys

FIELDS = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cache_read", "cache_read_input_tokens"),
    ("cache_write", "cache_creation_input_tokens"),
)


def figures(usage):
    out = {}
    for name, key in FIELDS:
        v = usage.get(key)
        out[name] = v if isinstance(v, int) and v >= 0 else 0
    out["total"] = sum(out[n] for n, _ in FIELDS)
    return out


def responses(path, counts):
    """Yield (key, is_sidechain, figures) for each billed assistant line of one file, in
    file order."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            try:
                line = json.loads(raw)
            except ValueError:
                counts["bad_lines"] += 1
                continue
            if not isinstance(line, dict) or line.get("type") != "assistant":
                continue
            msg = line.get("message")
            if not isinstance(msg, dict) or not isinstance(msg.get("usage"), dict):
                continue
            counts["assistant_lines"] += 1
            if msg.get("model") == "<synthetic>":
                counts["synthetic_lines"] += 1
                continue
            mid = msg.get("id")
            rid = line.get("requestId")
            if mid is None:
                # No id: nothing to deduplicate against; counted as its own response.
                key = ("line", path, counts["assistant_lines"])
            else:
                key = (mid, rid) if rid is not None else (mid,)
            yield key, bool(line.get("isSidechain")), figures(msg["usage"])


def session_usage(path):
    counts = {"assistant_lines": 0, "synthetic_lines": 0, "bad_lines": 0}
    files = [path] + sorted(glob.glob(os.path.join(path[: -len(".jsonl")], "subagents", "*.jsonl")))
    best = {}
    first = {}
    line_sum = 0
    for f in files:
        for key, side, fig in responses(f, counts):
            # Rank: a main-chain copy beats a sidechain copy; then the largest total wins.
            rank = (not side, fig["total"])
            if key not in best or rank > best[key][0]:
                best[key] = (rank, fig)
            first.setdefault(key, fig["total"])
            line_sum += fig["total"]
    total = {name: 0 for name, _ in FIELDS}
    total["total"] = 0
    for _, fig in best.values():
        for k in total:
            total[k] += fig[k]
    total["responses"] = len(best)
    total["first_copy_total"] = sum(first.values())
    total["line_sum_total"] = line_sum
    total["files"] = len(files)
    total.update(counts)
    return total


def self_test():
    """Each rule on a synthetic session with one sub-agent file; expected values by hand."""
    import tempfile

    def asst(mid, rid, inp, out, model="claude-x", side=False):
        usage = {"input_tokens": inp, "output_tokens": out, "cache_read_input_tokens": 0,
                 "cache_creation_input_tokens": 0,
                 "cache_creation": {"ephemeral_5m_input_tokens": 7, "ephemeral_1h_input_tokens": 7}}
        line = {"type": "assistant", "isSidechain": side, "message": {"id": mid, "model": model, "usage": usage}}
        if rid is not None:
            line["requestId"] = rid
        return json.dumps(line)

    progress_copy = json.dumps({"type": "progress", "data": {"type": "agent_progress", "message": {
        "type": "assistant", "message": {"id": "m9", "usage": {"input_tokens": 1000, "output_tokens": 1000}}}}})
    main_lines = [
        asst("m1", "r1", 10, 1),   # split response: streaming-start copy ...
        asst("m1", "r1", 10, 50),  # ... and the final one (largest total) is kept: 60
        asst("m2", None, 5, 5),    # no requestId: keyed by message.id alone: 10
        asst("m2", None, 5, 5),
        asst("m3", "r3", 100, 100, side=False),  # main-chain copy wins over ...
        asst("m3", "r3", 500, 500, side=True),   # ... a larger sidechain copy: 200
        asst("m4", "r4", 9, 9, model="<synthetic>"),  # not an API call
        progress_copy,             # agent_progress copy: never counted
        "not json",
    ]
    sub_lines = [asst("s1", "q1", 3, 4, side=True), asst("s1", "q1", 3, 4, side=True)]  # 7 once
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "sess.jsonl")
        with open(path, "w") as fh:
            fh.write("\n".join(main_lines) + "\n")
        os.makedirs(os.path.join(d, "sess", "subagents"))
        with open(os.path.join(d, "sess", "subagents", "agent-a1.jsonl"), "w") as fh:
            fh.write("\n".join(sub_lines) + "\n")
        got = session_usage(path)
    want = {"input": 10 + 5 + 100 + 3, "output": 50 + 5 + 100 + 4, "total": 60 + 10 + 200 + 7,
            "responses": 4, "files": 2, "synthetic_lines": 1, "bad_lines": 1,
            "first_copy_total": 11 + 10 + 200 + 7,
            "line_sum_total": 11 + 60 + 10 + 10 + 200 + 1000 + 7 + 7}
    bad = {k: (got[k], v) for k, v in want.items() if got[k] != v}
    if bad:
        sys.exit(f"self-test failed (got, want): {bad}")
    print("self-test: 1 passed, 0 failed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return
    for path in argv[1:]:
        print(json.dumps({"file": path, **session_usage(path)}))


if __name__ == "__main__":
    main(sys.argv)
