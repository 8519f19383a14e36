#!/usr/bin/env bash
# Compare arcturn-inspect's Claude Code usage with ccusage's, session by session, and with the
# totals that the rules of FORMATS-REAL.md section 2.6 give (bench/claude_usage_rules.py).
#
#   bench/ccusage-claude.sh [SESSION.jsonl ...]
#       default: ../shared/real/agentlogs/claudecode/*.jsonl ../shared/real/spotter/*.jsonl
#
# Environment:
#   ARCTURN_BIN     the binary to measure (default target/release/arcturn-inspect, then
#                   target/debug/arcturn-inspect)
#   CCUSAGE_PREFIX  where ccusage 20.0.24 is installed with npm, once (default
#                   ${XDG_CACHE_HOME:-~/.cache}/arcturn-inspect-bench/ccusage-20.0.24)
#   KEEP_TMP=1      keep the temporary directory and print its path
#
# The session files are copied into a temporary CLAUDE_CONFIG_DIR laid out as Claude Code
# writes it (projects/<slug of cwd>/<sessionId>.jsonl, and <sessionId>/subagents/ beside it
# when the input has that folder). ccusage runs there with HOME, XDG dirs and the working
# directory also pointed at temporary folders, so that it reads nothing else, and with
# --offline so that it fetches no prices. arcturn-inspect and the rules script read the
# original files in place; nothing is written next to them.
#
# Exit status: 0 when arcturn-inspect equals ccusage on every figure of every session,
# 1 when a figure differs (or arcturn-inspect could not read a file), 2 on a set-up error.
set -euo pipefail

CCUSAGE_VERSION=20.0.24
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${ARCTURN_BIN:-$here/target/release/arcturn-inspect}
[ -x "$bin" ] || [ -n "${ARCTURN_BIN:-}" ] || bin=$here/target/debug/arcturn-inspect
[ -x "$bin" ] || { echo "arcturn-inspect not found at $bin: build it (cargo build --release) or set ARCTURN_BIN" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
command -v python3 >/dev/null || { echo "python3 is needed" >&2; exit 2; }
python3 "$here/bench/claude_usage_rules.py" --self-test >&2 || { echo "the rules script fails its self-test" >&2; exit 2; }

if [ $# -eq 0 ]; then
  set -- "$here"/../shared/real/agentlogs/claudecode/*.jsonl "$here"/../shared/real/spotter/*.jsonl
fi
for f in "$@"; do
  [ -f "$f" ] || { echo "$f: no such file" >&2; exit 2; }
done

# ccusage, installed once into a cache prefix (never into the project). Later versions fetch
# a native package that may be out of reach; older ones count split responses differently.
prefix=${CCUSAGE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/arcturn-inspect-bench/ccusage-$CCUSAGE_VERSION}
ccusage=$prefix/node_modules/.bin/ccusage
if [ ! -x "$ccusage" ]; then
  if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
    echo "cannot compare: node and npm are needed to install ccusage@$CCUSAGE_VERSION" >&2
    exit 2
  fi
  echo "installing ccusage@$CCUSAGE_VERSION into $prefix" >&2
  mkdir -p "$prefix"
  if ! npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "ccusage@$CCUSAGE_VERSION" >&2; then
    echo "cannot compare: npm could not install ccusage@$CCUSAGE_VERSION (registry out of reach?)" >&2
    exit 2
  fi
fi

tmp=$(mktemp -d)
if [ "${KEEP_TMP:-}" = 1 ]; then
  echo "temporary directory kept: $tmp" >&2
else
  trap 'rm -rf "$tmp"' EXIT
fi
cfg=$tmp/claude
mkdir -p "$cfg/projects" "$tmp/home" "$tmp/xdg-config" "$tmp/xdg-cache" "$tmp/xdg-data" "$tmp/cwd"

# Lay the files out; write the manifest "input<TAB>sessionId<TAB>slug" for the report.
python3 - "$cfg/projects" "$tmp/manifest.tsv" "$@" <<'PY'
import json, os, re, shutil, sys
projects, manifest, files = sys.argv[1], sys.argv[2], sys.argv[3:]
seen = {}

def refuse(why):
    print(why, file=sys.stderr)
    sys.exit(2)

with open(manifest, "w") as out:
    for path in files:
        sid = cwd = None
        with open(path, encoding="utf-8", errors="replace") as fh:
            for raw in fh:
                try:
                    line = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(line, dict) and isinstance(line.get("sessionId"), str) and isinstance(line.get("cwd"), str):
                    sid, cwd = line["sessionId"], line["cwd"]
                    break
        stem = os.path.basename(path)[: -len(".jsonl")] if path.endswith(".jsonl") else os.path.basename(path)
        sid = sid or stem
        if not re.fullmatch(r"[A-Za-z0-9._-]+", sid):
            refuse(f"{path}: session id {sid!r} cannot be a file name")
        if sid in seen:
            refuse(f"{path}: same session id {sid} as {seen[sid]}; compare them in separate runs")
        seen[sid] = path
        slug = re.sub(r"[^A-Za-z0-9]", "-", cwd) if cwd else "unknown-project"
        os.makedirs(os.path.join(projects, slug), exist_ok=True)
        shutil.copyfile(path, os.path.join(projects, slug, sid + ".jsonl"))
        sub = os.path.join(path[: -len(".jsonl")], "subagents")
        if path.endswith(".jsonl") and os.path.isdir(sub):
            dest = os.path.join(projects, slug, sid, "subagents")
            os.makedirs(dest)
            for name in sorted(os.listdir(sub)):
                if os.path.isfile(os.path.join(sub, name)):
                    shutil.copyfile(os.path.join(sub, name), os.path.join(dest, name))
        out.write(f"{path}\t{sid}\t{slug}\n")
PY

# ccusage sees only the temporary tree: no real HOME, no ~/.config/claude, no project config.
ccusage_env=(HOME="$tmp/home" CLAUDE_CONFIG_DIR="$cfg" XDG_CONFIG_HOME="$tmp/xdg-config"
  XDG_CACHE_HOME="$tmp/xdg-cache" XDG_DATA_HOME="$tmp/xdg-data" TZ=UTC NO_COLOR=1)
version=$(cd "$tmp/cwd" && env "${ccusage_env[@]}" "$ccusage" --version 2>/dev/null | tr -d '[:space:]v' || true)
case "$version" in
  *"$CCUSAGE_VERSION"*) ;;
  *) echo "cannot compare: $ccusage is not ccusage $CCUSAGE_VERSION (it says '$version')" >&2; exit 2 ;;
esac
if ! (cd "$tmp/cwd" && env "${ccusage_env[@]}" "$ccusage" claude session --json --offline --timezone UTC \
  >"$tmp/ccusage.json" 2>"$tmp/ccusage.err"); then
  echo "cannot compare: ccusage failed:" >&2
  cat "$tmp/ccusage.err" >&2
  exit 2
fi

# arcturn-inspect and the rules, one file at a time, on the originals.
n=0
while IFS=$'\t' read -r path sid slug; do
  n=$((n + 1))
  rc=0
  "$bin" stats --json "$path" >"$tmp/ours.$n.json" 2>"$tmp/ours.$n.err" || rc=$?
  echo "$rc" >"$tmp/ours.$n.rc"
  python3 "$here/bench/claude_usage_rules.py" "$path" >"$tmp/rules.$n.json"
done <"$tmp/manifest.tsv"

python3 - "$tmp" "$CCUSAGE_VERSION" <<'PY'
import json, os, sys

tmp, version = sys.argv[1], sys.argv[2]
FIG = [("input", "input", "inputTokens"), ("output", "output", "outputTokens"),
       ("cache read", "cache_read", "cacheReadTokens"), ("cache write", "cache_write", "cacheCreationTokens"),
       ("total", "total", "totalTokens")]

cc = {s["sessionId"]: s for s in json.load(open(os.path.join(tmp, "ccusage.json")))["sessions"]}
manifest = [l.rstrip("\n").split("\t") for l in open(os.path.join(tmp, "manifest.tsv"))]

def ours_usage(n):
    """Session scope: the main file plus its sub-agent files, each response once."""
    rc = int(open(os.path.join(tmp, f"ours.{n}.rc")).read())
    try:
        doc = json.load(open(os.path.join(tmp, f"ours.{n}.json")))
        s = doc["sessions"][0]
    except (ValueError, KeyError, IndexError):
        err = open(os.path.join(tmp, f"ours.{n}.err")).read().strip().splitlines()
        first = err[0] if err else "no JSON on stdout"
        return None, f"exit {rc}: " + (first[:110] + "..." if len(first) > 110 else first)
    sub = s.get("subagents")
    return (sub["session_usage"] if sub else s["usage"]), None

def num(v):
    return "-" if v is None else f"{v:,}"

def diff(a, b):
    return "-" if a is None or b is None else ("0" if a == b else f"{a - b:+,}")

def pct(a, b):
    return "-" if a is None or b is None or b == 0 else f"{(a - b) / b * 100:+.3f}%"

differ = 0
cost_rows = []
print(f"arcturn-inspect vs ccusage {version} (claude session --json --offline) vs FORMATS-REAL 2.6 rules")
print(f"{'session / figure':<24} {'arcturn':>13} {'ccusage':>13} {'rules':>13} {'arcturn-cc':>11} {'rules-cc':>11}")
for n, (path, sid, slug) in enumerate(manifest, 1):
    ours, err = ours_usage(n)
    c = cc.pop(sid, None)
    rules = json.loads(open(os.path.join(tmp, f"rules.{n}.json")).readline())
    calls = "-" if ours is None else ours.get("calls")
    print(f"{os.path.relpath(path)}  [{sid}; calls {calls}, rules responses {rules['responses']}, files {rules['files']}]")
    bad = err is not None
    if err:
        print(f"  arcturn-inspect could not report usage ({err})")
    if c is None:
        print("  ccusage reported no session of this id")
    for label, ok, ck in FIG:
        a = None if ours is None else ours[ok]
        b = None if c is None else c[ck]
        r = rules[ok]
        bad = bad or (a is not None and a != b)
        print(f"  {label:<22} {num(a):>13} {num(b):>13} {num(r):>13} {diff(a, b):>11} {diff(r, b):>11}")
    # Cost: ours is estimated from data/prices.json, ccusage's from its offline LiteLLM copy;
    # they must agree within 1% per session.
    oc = None if ours is None else ours.get("cost")
    src = None if ours is None else ours.get("cost_source")
    ccost = None if c is None else c.get("totalCost", c.get("costUSD"))
    cost_bad = oc is None or ccost is None or (abs(oc - ccost) > 0.01 * abs(ccost) if ccost else oc != 0)
    print(f"  {'cost USD (' + str(src) + ')':<22} {'-' if oc is None else f'{oc:.6f}':>13} {'-' if ccost is None else f'{ccost:.6f}':>13} {'':>13} {pct(oc, ccost):>11}")
    cost_rows.append((os.path.relpath(path), oc, ccost, src, c.get("modelsUsed") if c else None))
    bad = bad or cost_bad
    differ += bad
for sid, c in cc.items():
    differ += 1
    print(f"ccusage session {sid} ({c['projectPath']}) matches no input file: total {c['totalTokens']:,}")
print()
print("| session file | models | arcturn-inspect (estimated) | ccusage | difference |")
print("|---|---|---|---|---|")
for path, oc, ccost, src, models in cost_rows:
    m = ", ".join(models) if models else "-"
    print(f"| `{path}` | {m} | {'-' if oc is None else f'${oc:.6f}'} | {'-' if ccost is None else f'${ccost:.6f}'} | {pct(oc, ccost)} |")
print()
print("arcturn-inspect equals ccusage on every token figure, and its cost within 1%, on every session" if differ == 0
      else f"{differ} session(s) differ from ccusage or were not read")
sys.exit(1 if differ else 0)
PY
