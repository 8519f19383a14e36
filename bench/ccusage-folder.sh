#!/usr/bin/env bash
# Speed beside ccusage on a folder of real Claude Code sessions: `stats --json` against
# `ccusage claude session --json`, side by side in the same rounds, with their totals.
#
#   bench/ccusage-folder.sh
#
# The folder is built once under target/ccusage-folder/ (kept for later runs; delete it to
# rebuild): COPIES copies of the Claude Code files of ../shared/real/spotter/ (the four
# sessions, and the sub-agent folder of 258c7280-…), laid out as Claude Code writes them
# (projects/<project>/<sessionId>.jsonl, <sessionId>/subagents/ beside it), one project
# folder per copy. In each copy every `msg_` and `req_` id is made unique (`msg_c17_…`):
# both tools count a response once across files by these ids, so plain copies would be
# counted once.
#
# Environment:
#   ARCTURN_BIN     the binary to time (default target/release/arcturn-inspect)
#   COPIES          copies of the spotter files (default 109: about 349 MB; one copy is 3.2 MB)
#   ROUNDS          rounds, each command once per round (default 3)
#   CCUSAGE_PREFIX  where ccusage 20.0.24 is installed with npm, once (see ccusage-claude.sh)
#
# Exit status: 0 when both totals agree, 1 when they differ, 2 on a set-up error.
set -euo pipefail

CCUSAGE_VERSION=20.0.24
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${ARCTURN_BIN:-$here/target/release/arcturn-inspect}
[ -x "$bin" ] || { echo "arcturn-inspect not found at $bin: build it (cargo build --release) or set ARCTURN_BIN" >&2; exit 2; }
copies=${COPIES:-109}
rounds=${ROUNDS:-3}
[ -x /usr/bin/time ] || { echo "/usr/bin/time (Debian package time) is needed for CPU time and peak RSS" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is needed" >&2; exit 2; }

prefix=${CCUSAGE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/arcturn-inspect-bench/ccusage-$CCUSAGE_VERSION}
ccusage=$prefix/node_modules/.bin/ccusage
if [ ! -x "$ccusage" ]; then
  command -v npm >/dev/null || { echo "cannot compare: npm is needed to install ccusage@$CCUSAGE_VERSION" >&2; exit 2; }
  echo "installing ccusage@$CCUSAGE_VERSION into $prefix" >&2
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "ccusage@$CCUSAGE_VERSION" >&2 \
    || { echo "cannot compare: npm could not install ccusage@$CCUSAGE_VERSION" >&2; exit 2; }
fi

src=$here/../shared/real/spotter
[ -d "$src" ] || { echo "$src: not found" >&2; exit 2; }
work=$here/target/ccusage-folder
cfg=$work/claude-$copies
if [ ! -d "$cfg/projects" ]; then
  echo "building $copies copies under $cfg" >&2
  rm -rf "$cfg.tmp"
  python3 - "$src" "$cfg.tmp/projects" "$copies" <<'PY'
import json, os, re, sys
src, projects, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = []  # (relative destination, bytes) of one copy
for name in sorted(os.listdir(src)):
    path = os.path.join(src, name)
    if not (name.endswith(".jsonl") and os.path.isfile(path)):
        continue
    data = open(path, "rb").read()
    sid = name[:-len(".jsonl")]
    for raw in data.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict) and isinstance(line.get("sessionId"), str):
            sid = line["sessionId"]
            break
    files.append((f"{sid}.jsonl", data))
    sub = os.path.join(src, name[:-len(".jsonl")], "subagents")
    if os.path.isdir(sub):
        for s in sorted(os.listdir(sub)):
            files.append((f"{sid}/subagents/{s}", open(os.path.join(sub, s), "rb").read()))
for k in range(copies):
    for rel, data in files:
        data = data.replace(b'"msg_', b'"msg_c%d_' % k).replace(b'"req_', b'"req_c%d_' % k)
        dest = os.path.join(projects, f"-copy-{k:04d}", rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as out:
            out.write(data)
PY
  mv "$cfg.tmp" "$cfg"
fi
bytes=$(find "$cfg/projects" -type f -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {print s}')
nfiles=$(find "$cfg/projects" -type f -name '*.jsonl' | wc -l)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home" "$tmp/xdg-config" "$tmp/xdg-cache" "$tmp/xdg-data" "$tmp/cwd"
ccusage_env=(HOME="$tmp/home" CLAUDE_CONFIG_DIR="$cfg" XDG_CONFIG_HOME="$tmp/xdg-config"
  XDG_CACHE_HOME="$tmp/xdg-cache" XDG_DATA_HOME="$tmp/xdg-data" TZ=UTC NO_COLOR=1)

# One timed run: "elapsed user sys maxrss_kib" appended to $tmp/$1.times, stdout kept.
timed() {
  local name=$1; shift
  (cd "$tmp/cwd" && /usr/bin/time -o "$tmp/t" -f "%e %U %S %M" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err") \
    || { echo "$name failed:" >&2; tail -5 "$tmp/$name.err" >&2; exit 2; }
  cat "$tmp/t" >>"$tmp/$name.times"
}

cat "$cfg"/projects/*/*.jsonl >/dev/null  # warm page cache
for r in $(seq "$rounds"); do
  echo "round $r of $rounds" >&2
  timed wc find "$cfg/projects" -name '*.jsonl' -exec wc -l {} +
  timed ours "$bin" stats --json "$cfg/projects"
  timed ccusage env "${ccusage_env[@]}" "$ccusage" claude session --json --offline --timezone UTC
done

python3 - "$tmp" "$bytes" "$nfiles" "$copies" "$rounds" "$CCUSAGE_VERSION" <<'PY'
import json, os, statistics, sys
tmp, nbytes, nfiles, copies, rounds, version = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:]

def runs(name):
    rows = [list(map(float, l.split())) for l in open(os.path.join(tmp, name + ".times"))]
    wall = [r[0] for r in rows]
    cpu = [r[1] + r[2] for r in rows]
    return statistics.median(wall), min(wall), statistics.median(cpu), max(r[3] for r in rows) / 1024

FIG = [("input", "input", "inputTokens"), ("output", "output", "outputTokens"),
       ("cache_read", "cache_read", "cacheReadTokens"), ("cache_write", "cache_write", "cacheCreationTokens"),
       ("total", "total", "totalTokens")]
doc = json.load(open(os.path.join(tmp, "ours.out")))
t = doc["total"]
ours = {k: t["usage"][k] + (t.get("subagent_usage") or {}).get(k, 0) for _, k, _ in FIG}
cc = json.load(open(os.path.join(tmp, "ccusage.out")))
theirs = {k: sum(s[ck] for s in cc["sessions"]) for _, k, ck in FIG}

print(f"{copies} copies of the spotter Claude Code files: {nfiles} files, {nbytes / 1e6:.0f} MB; {rounds} rounds")
print()
print("| command | median s | best s | median CPU s (user+sys) | median vs ccusage | CPU vs ccusage | peak RSS MiB |")
print("|---|---:|---:|---:|---:|---:|---:|")
base = runs("ccusage")
for label, name in [("`wc -l` (every file)", "wc"), ("`arcturn-inspect stats --json DIR`", "ours"),
                    (f"`ccusage claude session --json --offline` ({version})", "ccusage")]:
    m, b, c, rss = runs(name)
    print(f"| {label} | {m:.2f} | {b:.2f} | {c:.2f} | {base[0] / m:.1f}x faster | {base[2] / c:.1f}x less | {rss:.0f} |"
          if name != "ccusage" else f"| {label} | {m:.2f} | {b:.2f} | {c:.2f} | 1.0x | 1.0x | {rss:.0f} |")
print()
print("| total | arcturn-inspect | ccusage | difference |")
print("|---|---:|---:|---:|")
same = True
for label, k, _ in FIG:
    same = same and ours[k] == theirs[k]
    print(f"| {label} | {ours[k]:,} | {theirs[k]:,} | {ours[k] - theirs[k]:+,} |")
print()
print("the totals agree" if same else "THE TOTALS DIFFER")
sys.exit(0 if same else 1)
PY
