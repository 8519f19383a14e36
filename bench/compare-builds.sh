#!/usr/bin/env bash
# Compare the outputs of two builds of arcturn-inspect, byte for byte: stdout, stderr and exit
# status of every command below over every bundled and real session file, and of a few
# commands over whole folders. What a release that "changes no output" is checked with.
#
#   bench/compare-builds.sh OLD_BINARY NEW_BINARY [FOLDER...]
#
# FOLDERs (a generated bench folder, a folder of Claude Code copies from ccusage-folder.sh)
# are read by the folder commands too, beside testdata/ and ../shared/real/.
# Each binary is copied under one name into a directory of its own, so that messages that
# name the program (usage errors) read the same. Runs in an empty temporary directory with
# NO_COLOR set and COLUMNS fixed.
#
# Exit status: 0 when every output is the same, 1 when one differs (each is named), 2 on a
# set-up error.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY [FOLDER...]" >&2; exit 2; }
old=$1
new=$2
shift 2
for b in "$old" "$new"; do
  [ -x "$b" ] || { echo "$b: not an executable" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")/.." && pwd)
real=$here/../shared/real
[ -d "$real" ] || { echo "$real: not found" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/a" "$tmp/b" "$tmp/cwd"
cp "$old" "$tmp/a/arcturn-inspect"
cp "$new" "$tmp/b/arcturn-inspect"

# One command of each build; 1 when their outputs differ.
differs() {
  local side
  for side in a b; do
    (cd "$tmp/cwd" && NO_COLOR=1 COLUMNS=120 "$tmp/$side/arcturn-inspect" "$@" >"$tmp/$side.out" 2>"$tmp/$side.err"
      echo "exit $?" >>"$tmp/$side.err") || true
  done
  ! { cmp -s "$tmp/a.out" "$tmp/b.out" && cmp -s "$tmp/a.err" "$tmp/b.err"; }
}

per_file=(
  "check" "check --json" "tree" "tree --json" "leaves" "path --json" "stats" "stats --json"
  "stats --by model --json" "context" "context --json" "trace" "trace --json"
  "rows --table entries" "rows --table calls" "rows --table tools" "rows --table spans"
  "rows --table sessions" "export" "export --as-sent --thinking" "export --html --thinking" "audit"
)
per_folder=("check" "stats --json" "stats" "rows --table calls" "rows --table spans")

count=0
failed=0
# One comparison: command $1 (a command and its flags, split into words) over input $2.
compare() {
  count=$((count + 1))
  # shellcheck disable=SC2086
  if differs $1 "$2"; then
    failed=$((failed + 1))
    echo "differs: $1 $2"
  fi
}
while IFS= read -r f; do
  for c in "${per_file[@]}"; do compare "$c" "$f"; done
done < <(find "$here/testdata" "$real" -name '*.jsonl' -type f | sort)
for d in "$here/testdata" "$real" "$@"; do
  for c in "${per_folder[@]}"; do compare "$c" "$d"; done
done
echo "$count comparisons, $failed differing"
[ "$failed" -eq 0 ]
