#!/usr/bin/env bash
# Side by side: `arcturn-inspect audit` and detect-secrets (Yelp, PyPI `detect-secrets`)
# on the same files: planted secrets of every kind in one session per format (recall),
# near misses in the same sessions (false positives), and the real corpus in
# ../shared/real (findings per MB). Not part of CI; detect-secrets is optional.
#
#   bench/audit-compare.sh            (builds the release binary; pip install detect-secrets first)
#
# The planted corpus is written by the ignored test `write_planted_corpus` (tests/audit.rs),
# so the secrets exist only at run time, under target/audit-corpus/.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=target/audit-corpus
real=../shared/real
rm -rf "$corpus" && mkdir -p "$corpus"
ARCTURN_AUDIT_CORPUS="$PWD/$corpus" cargo test -q --test audit write_planted_corpus -- --ignored >/dev/null
# AUDIT_COMPARE_BIN: a binary already built (skips the release build).
bin=${AUDIT_COMPARE_BIN:-}
if [ -z "$bin" ]; then
    cargo build -q --release
    bin=target/release/arcturn-inspect
fi

"$bin" audit --json -q "$corpus/planted" >"$corpus/ours-planted.json" || true
"$bin" audit --json -q "$corpus/near" >"$corpus/ours-near.json" || true
if [ -d "$real" ]; then "$bin" audit --json -q "$real" >"$corpus/ours-real.json" || true; fi

have_ds=0
if command -v detect-secrets >/dev/null; then
    have_ds=1
    (cd "$corpus" && detect-secrets scan --all-files planted >ds-planted.json)
    (cd "$corpus" && detect-secrets scan --all-files near >ds-near.json)
    if [ -d "$real" ]; then
        # Only the session files, as audit reads them.
        (cd "$real" && detect-secrets scan --all-files $(find . -name '*.jsonl' | sort)) >"$corpus/ds-real.json"
    fi
fi

python3 - "$corpus" "$real" "$have_ds" <<'PY'
import json, os, sys, collections
corpus, real, have_ds = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
truth = collections.Counter()
by_line = collections.Counter()
for l in open(os.path.join(corpus, "truth.tsv")):
    f, line, kind = l.rstrip("\n").split("\t")
    truth[(f, int(line), kind)] += 1
    by_line[(f, int(line))] += 1
total = sum(truth.values())

def ours(name):
    d = json.load(open(os.path.join(corpus, name)))
    out = collections.Counter()
    for x in d["findings"]:
        f = os.path.relpath(x["file"], corpus)
        out[(f, x["line"], x["kind"])] += 1
    return out

def ds(name, prefix=""):
    d = json.load(open(os.path.join(corpus, name)))
    out = collections.Counter()
    for f, items in d["results"].items():
        for x in items:
            out[(os.path.normpath(os.path.join(prefix, f)), x["line_number"])] += 1
    return out

def real_mb():
    n = 0
    for root, _, files in os.walk(real):
        n += sum(os.path.getsize(os.path.join(root, f)) for f in files if f.endswith(".jsonl"))
    return n / 1e6

rows = []
o = ours("ours-planted.json")
hit = sum(min(c, o[k]) for k, c in truth.items())
extra = sum(o.values()) - hit
near = sum(ours("ours-near.json").values())
real_n = sum(ours("ours-real.json").values()) if os.path.exists(os.path.join(corpus, "ours-real.json")) else None
rows.append(("arcturn-inspect audit", hit, extra, near, real_n))
if have_ds:
    p = ds("ds-planted.json")
    lines = collections.Counter()
    for (f, l), c in p.items():
        lines[(f, l)] += c
    hit = sum(min(c, lines[k]) for k, c in by_line.items())
    extra = sum(lines.values()) - hit
    near = sum(ds("ds-near.json").values())
    real_n = sum(ds("ds-real.json").values()) if os.path.exists(os.path.join(corpus, "ds-real.json")) else None
    rows.append(("detect-secrets " + os.popen("detect-secrets --version").read().strip(), hit, extra, near, real_n))
mb = real_mb() if os.path.isdir(real) else None
print(f"planted: {total} secrets of {len({k[2] for k in truth})} kinds in 5 formats; near misses: 24 per format (120)")
if mb:
    print(f"real corpus: {real} ({mb:.2f} MB of *.jsonl)")
print()
print("| tool | recall (planted) | other findings in planted files | findings on near misses | real: findings | real: per MB |")
print("|---|---:|---:|---:|---:|---:|")
for name, hit, extra, near, rn in rows:
    per = f"{rn / mb:.2f}" if (rn is not None and mb) else "n/a"
    print(f"| {name} | {hit}/{total} ({100 * hit / total:.0f}%) | {extra} | {near} | {rn if rn is not None else 'n/a'} | {per} |")
PY
