#!/usr/bin/env python3
"""Write small synthetic Claude Code sessions, one per counting rule of FORMATS-REAL.md 2.6,
into DIR, to be compared with bench/ccusage-claude.sh DIR/*.jsonl.

    bench/claude_edge_sessions.py DIR

The real samples do not tell every rule apart (their last copy of a split response is always
the largest, and none has a `<synthetic>` line), so each file here isolates one case:

  split_larger_last   copies 1/1 then 1/50: the largest (last) copy counts       -> 51
  split_larger_first  copies 1/50 then 1/1: the largest (first) copy counts      -> 51
  sidechain_copy      main 1/10, then a sidechain copy 1/90: the main copy counts -> 11
  synthetic_model     one `<synthetic>` line 7/7: no API call                    -> 0
  progress_copy       a call 2/2 and an agent_progress copy of another 500/500   -> 4

Lines are written compactly (no spaces), as Claude Code writes them.
"""
import json
import os
import sys

CWD = "/home/user/edge"


def line(kind, uuid, parent, session, ts, **extra):
    out = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": CWD,
           "sessionId": session, "version": "2.1.38", "gitBranch": "main", "type": kind,
           "uuid": uuid, "timestamp": f"2026-02-10T21:00:{ts:02d}.000Z"}
    out.update(extra)
    return out


def user(session, ts):
    return line("user", f"{session}-u0", None, session, ts,
                message={"role": "user", "content": "count the tokens"})


def assistant(session, n, parent, mid, rid, inp, out, model="claude-opus-4-6", side=False):
    usage = {"input_tokens": inp, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
             "output_tokens": out, "service_tier": "standard"}
    msg = {"model": model, "id": mid, "type": "message", "role": "assistant",
           "content": [{"type": "text", "text": f"part {n}"}], "stop_reason": None,
           "stop_sequence": None, "usage": usage}
    entry = line("assistant", f"{session}-a{n}", parent, session, n, requestId=rid, message=msg)
    entry["isSidechain"] = side
    return entry


def progress_copy(session, n, parent, mid, inp, out):
    inner = assistant(session, 90 + n, None, mid, "req_sub", inp, out, side=True)
    return line("progress", f"{session}-p{n}", parent, session, n,
                data={"type": "agent_progress", "agentId": "a0", "message": {
                    "type": "assistant", "message": inner["message"], "requestId": "req_sub"}},
                parentToolUseID="toolu_0")


def sessions():
    s = "11111111-0000-4000-8000-000000000001"
    yield "split_larger_last", [user(s, 0),
                                assistant(s, 1, f"{s}-u0", "msg_a", "req_a", 1, 1),
                                assistant(s, 2, f"{s}-a1", "msg_a", "req_a", 1, 50)]
    s = "11111111-0000-4000-8000-000000000002"
    yield "split_larger_first", [user(s, 0),
                                 assistant(s, 1, f"{s}-u0", "msg_b", "req_b", 1, 50),
                                 assistant(s, 2, f"{s}-a1", "msg_b", "req_b", 1, 1)]
    s = "11111111-0000-4000-8000-000000000003"
    yield "sidechain_copy", [user(s, 0),
                             assistant(s, 1, f"{s}-u0", "msg_c", "req_c", 1, 10),
                             assistant(s, 2, None, "msg_c", "req_c", 1, 90, side=True)]
    s = "11111111-0000-4000-8000-000000000004"
    yield "synthetic_model", [user(s, 0),
                              assistant(s, 1, f"{s}-u0", "msg_d", "req_d", 7, 7, model="<synthetic>")]
    s = "11111111-0000-4000-8000-000000000005"
    yield "progress_copy", [user(s, 0),
                            assistant(s, 1, f"{s}-u0", "msg_e", "req_e", 2, 2),
                            progress_copy(s, 2, f"{s}-a1", "msg_sub", 500, 500)]


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: claude_edge_sessions.py DIR")
    os.makedirs(argv[1], exist_ok=True)
    for name, lines in sessions():
        with open(os.path.join(argv[1], name + ".jsonl"), "w") as fh:
            for entry in lines:
                fh.write(json.dumps(entry, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(sys.argv)
