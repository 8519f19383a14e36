#!/usr/bin/env bash
# Build every fuzz target and run each for a bounded time: `fuzz/run-ci.sh [SECONDS]`
# (per target, default 30). Needs the nightly toolchain (cargo-fuzz builds with sanitizers);
# installs cargo-fuzz when it is missing. Fails loudly when either cannot be had: a fuzz
# run that silently did not happen would look like a clean one.
#
# Seeds come from the bundled sessions (and the JSONTestSuite corpus beside the checkout
# when present); the corpus a run grows is thrown away, a crash goes to
# fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-30}"
[[ "$secs" =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS per target]" >&2; exit 2; }

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz: the nightly toolchain is missing; trying: rustup toolchain install nightly --profile minimal" >&2
  rustup toolchain install nightly --profile minimal ||
    { echo "fuzz: FAILED: no nightly toolchain and it could not be installed" >&2; exit 1; }
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz" >&2
  cargo install --locked cargo-fuzz ||
    { echo "fuzz: FAILED: cargo-fuzz is missing and could not be installed" >&2; exit 1; }
fi

cargo +nightly fuzz build -O

shared=../../shared/testdata/jsontestsuite
seeds() {
  case "$1" in
    skim) echo seeds/skim ../testdata/arcturn ../testdata/crab ../testdata/pi ../testdata/hostile; [ -d "$shared" ] && echo "$shared" ;;
    tree | export) echo ../testdata/arcturn ../testdata/crab ../testdata/pi ../testdata/export ../testdata/hostile ../testdata/stats ;;
    query) echo seeds/query ;;
  esac
  [ -d "regressions/$1" ] && echo "regressions/$1"
  return 0
}

# No leak checks (per input, and LeakSanitizer at exit): the loader deliberately leaks the
# repaired copy of a line with a lone surrogate escape (entries borrow from it for the life
# of the process; src/format/mod.rs).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
for t in skim tree export query; do
  # A fresh corpus each run: replaying a grown one is not bounded by -max_total_time.
  corpus="$(mktemp -d)"
  mkdir -p "artifacts/$t"
  echo "fuzz: $t for ${secs}s" >&2
  # shellcheck disable=SC2046
  cargo +nightly fuzz run -O "$t" "$corpus" $(seeds "$t") -- \
    -max_total_time="$secs" -timeout=20 -detect_leaks=0 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 2>"artifacts/$t.log" ||
    { tail -40 "artifacts/$t.log" >&2; echo "fuzz: FAILED: $t found a crash (artifacts/$t/)" >&2; exit 1; }
  grep -E '^stat::number_of_executed_units|^Done' "artifacts/$t.log" >&2 || true
done
echo "fuzz: all targets ran ${secs}s without a finding" >&2
