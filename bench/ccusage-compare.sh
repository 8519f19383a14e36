#!/usr/bin/env bash
# Compare arcturn-inspect's Codex usage with ccusage's on the same rollout files.
#
#   bench/ccusage-compare.sh [ROLLOUT.jsonl ...]   (default: ../shared/real/agentlogs/codex/crud.jsonl)
#
# Each file is copied into a temporary CODEX_HOME (sessions/YYYY/MM/DD/rollout-*.jsonl,
# where ccusage looks), then `ccusage codex session --json --offline` (ccusage 20.0.24, run
# with npx) and `arcturn-inspect stats --json` are run and printed side by side. The
# temporary directory is removed on exit; the inputs are only read.
set -euo pipefail

CCUSAGE_VERSION=20.0.24
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${ARCTURN_BIN:-$here/target/release/arcturn-inspect}
[ -x "$bin" ] || bin=$here/target/debug/arcturn-inspect
[ -x "$bin" ] || { echo "build arcturn-inspect first (cargo build)" >&2; exit 2; }
[ $# -gt 0 ] || set -- "$here/../shared/real/agentlogs/codex/crud.jsonl"

home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
day=$home/sessions/2026/01/01
mkdir -p "$day"
n=0
for f in "$@"; do
  n=$((n + 1))
  cp "$f" "$day/rollout-2026-01-01T00-00-0$n-$(basename "$f" .jsonl).jsonl"
done

# The copy bench/ccusage-claude.sh installs, when it is there; npx otherwise.
prefix=${CCUSAGE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/arcturn-inspect-bench/ccusage-$CCUSAGE_VERSION}
if [ -x "$prefix/node_modules/.bin/ccusage" ]; then
  ccusage=("$prefix/node_modules/.bin/ccusage")
else
  ccusage=(npx --yes "ccusage@$CCUSAGE_VERSION")
fi
CODEX_HOME=$home TZ=UTC "${ccusage[@]}" codex session --json --offline >"$home/ccusage.json"
"$bin" stats --json -q "$day" >"$home/ours.json"

python3 - "$home/ccusage.json" "$home/ours.json" <<'PY'
import json, sys
cc = json.load(open(sys.argv[1]))["totals"]
ours = json.load(open(sys.argv[2]))
u = ours["total"]["usage"] if "total" in ours else ours["sessions"][0]["usage"]
rows = [
    ("input (uncached)", cc.get("inputTokens"), u["input"]),
    ("cache read", cc.get("cacheReadTokens"), u["cache_read"]),
    ("cache write", cc.get("cacheCreationTokens"), u["cache_write"]),
    ("output", cc.get("outputTokens"), u["output"]),
    ("total", cc.get("totalTokens"), u["total"]),
    ("model calls", None, u["calls"]),
    ("cost USD", cc.get("costUSD", cc.get("totalCost")), u["cost"]),
]
print(f"{'figure':<18} {'ccusage ' + '20.0.24':>16} {'arcturn-inspect':>16}  same")
for name, a, b in rows:
    if name == "cost USD":
        same = "NO" if a is None or b is None else ("yes (within 1%: {:+.3f}%)".format((b - a) / a * 100) if abs(b - a) <= 0.01 * abs(a) else "NO ({:+.3f}%)".format((b - a) / a * 100))
    else:
        same = "" if a is None else ("yes" if a == b else "NO")
    fa = "-" if a is None else (f"{a:,.6f}" if isinstance(a, float) else f"{a:,}")
    fb = "-" if b is None else (f"{b:,.6f}" if isinstance(b, float) else f"{b:,}")
    print(f"{name:<18} {fa:>16} {fb:>16}  {same}")
print(f"(Codex files record no cost: both price the tokens from LiteLLM's table; arcturn-inspect's cost_source is {u.get('cost_source')!r})")
PY
