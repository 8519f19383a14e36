#!/usr/bin/env bash
# Count the instructions two builds of arcturn-inspect execute for the same views of one
# session (valgrind's callgrind): a measure of a change that a shared machine's noise does not
# move. Wall times there can vary by a third from one hour to the next; these counts vary by a
# few hundredths of a percent between runs. They are not times: a change that saves
# instructions but misses the cache more (or the reverse) shows here as it is not felt, so a
# gain found here is confirmed with the throughput bench's rounds (README, "Performance").
#
#   bench/instructions.sh OLD_BINARY NEW_BINARY SESSION [VIEW...]
#
# Each VIEW is a command line of arcturn-inspect, quoted, run on SESSION (by default `check`,
# `leaves`, `stats --json` and `tree --json`). callgrind runs a program about fifty times
# slower: a session of tens of MB is enough, for example the first 32 MiB of the throughput
# bench's file, cut at a line:
#
#   head -c 33554432 target/bench-data/session-1g.jsonl | head -n -1 > /tmp/s32.jsonl
#
# Prints a Markdown table: the instructions of each build and the change. Exit status 2 on a
# set-up error (valgrind is the Debian package `valgrind`).
set -euo pipefail

[ $# -ge 3 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY SESSION [VIEW...]" >&2; exit 2; }
old=$1
new=$2
session=$3
shift 3
for b in "$old" "$new"; do
  [ -x "$b" ] || { echo "$b: not an executable" >&2; exit 2; }
done
[ -r "$session" ] || { echo "$session: cannot read it" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind not found (Debian package valgrind)" >&2; exit 2; }
views=("$@")
[ ${#views[@]} -gt 0 ] || views=(check leaves "stats --json" "tree --json")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The instructions `binary view...` executes on the session (its exit status is not ours).
count() {
  local bin=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$bin" "$@" "$session" >/dev/null 2>"$tmp/err" || true
  sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$tmp/err"
}

echo "| view | old build | new build | change |"
echo "|---|---:|---:|---:|"
for v in "${views[@]}"; do
  read -ra words <<<"$v"
  a=$(count "$old" "${words[@]}")
  b=$(count "$new" "${words[@]}")
  if [ -z "$a" ] || [ -z "$b" ]; then
    echo "\`$v\`: callgrind gave no count" >&2
    cat "$tmp/err" >&2
    exit 2
  fi
  awk -v v="$v" -v a="$a" -v b="$b" 'BEGIN { printf "| `%s` | %d | %d | %+.2f%% |\n", v, a, b, (b - a) * 100 / a }'
done
