//! Throughput of `arcturn-inspect` on a generated 1 GiB arcturn session, next to `wc -l`
//! (the floor), `jq -c .id` (the usual tool) and `jaq -c .id` (a faster jq, when installed),
//! all measured in the same run.
//!
//! `cargo bench --bench throughput` builds the release binary, generates
//! `target/bench-data/session-1g.jsonl` once (reused afterwards), runs `BENCH_RUNS` rounds
//! (default 5) in which each command runs once, and prints a Markdown table of median and
//! best times, their ratios to `wc -l`, the median CPU time (user + system) and peak RSS;
//! the table is also written to
//! `target/bench-data/results.md`.
//!
//! `BENCH_FORMATS=pi,claude,codex` (or `all`) adds a generated file of the same size in each
//! of those agents' formats (`tests/gen/real.rs`), timed in the same rounds with `check`,
//! `stats --json` and `tree --json` next to `wc -l` over that same file, and `check` of a
//! zstd-compressed copy of the Codex file (its peak RSS shows what the stream costs).
//!
//! Environment: `BENCH_SIZE_MB` (default 1024), `BENCH_RUNS` (default 5),
//! `BENCH_SKIP_JQ=1` (jq takes ~10 s per run on 1 GiB), `BENCH_BASELINE=PATH` (another
//! build of the binary, e.g. one of `main`, timed in the same rounds as this one, so a
//! change is compared before and after on one stretch of the machine), `BENCH_ONLY=query,check`
//! (only those of our commands, by their first word; the `wc`, jq and jaq rows stay).
//!
//! jaq is timed when `BENCH_JAQ` names its binary, or when one is at
//! `~/.cache/arcturn-inspect-bench/jaq/bin/jaq` (`cargo install jaq --locked --root
//! ~/.cache/arcturn-inspect-bench/jaq`) or on PATH; otherwise its row is left out with a note.
//!
//! Before the rounds, each input is dropped from the page cache and read once with `read`
//! (see `settle_page_cache`), so that every run starts from the same cache state.
//!
//! Absolute times vary between runs on shared machines; compare the ratios (PERF.md).
//! Peak RSS comes from GNU time (`/usr/bin/time`, Debian package `time`): a child's
//! peak is only visible to its parent through wait4, which std does not expose. It counts
//! the touched pages of a memory-mapped input, so a reader that maps the file shows about
//! the file's size plus its heap.

#[path = "../tests/gen/mod.rs"]
mod gen;
mod page_cache;

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const GNU_TIME: &str = "/usr/bin/time";
const SEED: u64 = 1;

fn main() -> ExitCode {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this binary without it,
    // and must not spend minutes generating and timing a gigabyte.
    if !env::args().any(|a| a == "--bench") {
        eprintln!("throughput: skipped (run it with `cargo bench --bench throughput`)");
        return ExitCode::SUCCESS;
    }
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("throughput: {e}");
            ExitCode::FAILURE
        }
    }
}

/// One command to time. `n/a` rows (a subcommand not written yet) keep the table whole.
struct Bench {
    label: String,
    program: PathBuf,
    args: Vec<String>,
    /// The `wc -l` row over the same bytes: the floor this row's ratios are taken against.
    floor: usize,
}

struct Outcome {
    median: Duration,
    /// The fastest run: noise on a shared machine only ever adds time.
    best: Duration,
    median_cpu: Option<f64>,
    peak_rss_kib: Option<u64>,
    stdout: Vec<u8>,
}

fn run() -> Result<(), String> {
    let size_mb = env_u64("BENCH_SIZE_MB", 1024)?;
    let runs = env_u64("BENCH_RUNS", 5)?.max(1) as usize;
    let skip_jq = env::var("BENCH_SKIP_JQ").is_ok_and(|v| v == "1");

    // The bench runs from target/<profile>/deps/, and `cargo bench` shares the release
    // profile's directory, so the binary under test sits next to `deps`.
    let exe = env::current_exe().map_err(|e| format!("cannot locate the bench executable: {e}"))?;
    let profile_dir = exe.parent().and_then(Path::parent).ok_or("unexpected bench executable location")?;
    let target_dir = profile_dir.parent().ok_or("unexpected bench executable location")?;
    let data_dir = target_dir.join("bench-data");
    fs::create_dir_all(&data_dir).map_err(|e| format!("{}: {e}", data_dir.display()))?;

    let binary = build_binary(profile_dir)?;
    let file = ensure_session(&data_dir, size_mb, "session", |w, t| gen::arcturn_session(w, t, SEED))?;
    let file_arg = file.to_string_lossy().into_owned();
    let file_size = fs::metadata(&file).map_err(|e| format!("{}: {e}", file.display()))?.len();
    let formats = bench_formats()?;

    let gnu_time = Path::new(GNU_TIME).is_file();
    if !gnu_time {
        eprintln!("note: {GNU_TIME} not found, peak RSS will read n/a (install the Debian package `time`)");
    }

    let wc = |file: &str, floor: usize| Bench {
        label: "`wc -l`".into(),
        program: "wc".into(),
        args: vec!["-l".into(), file.to_string()],
        floor,
    };
    let mut benches = vec![wc(&file_arg, 0)];
    if skip_jq {
        eprintln!("note: BENCH_SKIP_JQ=1, skipping jq");
    } else if which("jq").is_some() {
        benches.push(Bench {
            label: "`jq -c .id`".into(),
            program: "jq".into(),
            args: vec!["-c".into(), ".id".into(), file_arg.clone()],
            floor: 0,
        });
    } else {
        eprintln!("note: jq not found on PATH, skipping it");
    }
    match find_jaq() {
        Some(jaq) => benches.push(Bench {
            label: "`jaq -c .id`".into(),
            program: jaq,
            args: vec!["-c".into(), ".id".into(), file_arg.clone()],
            floor: 0,
        }),
        None => {
            eprintln!("note: jaq not found (BENCH_JAQ, ~/.cache/arcturn-inspect-bench/jaq/bin/jaq, PATH), skipping it")
        }
    }
    let only: Option<Vec<String>> =
        env::var("BENCH_ONLY").ok().map(|v| v.split(',').map(|w| w.trim().to_string()).collect());
    let wanted = |args: &[&str]| only.as_ref().is_none_or(|o| o.iter().any(|w| w == args[0]));
    let baseline = env::var_os("BENCH_BASELINE").map(PathBuf::from);
    let ours = |benches: &mut Vec<Bench>, args: &[&str], file: &str, note: &str, floor: usize| {
        let mut argv: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        argv.push(file.to_string());
        let label = format!("`arcturn-inspect {}`{note}", args.join(" "));
        if let Some(base) = &baseline {
            benches.push(Bench {
                label: format!("{label} (baseline)"),
                program: base.clone(),
                args: argv.clone(),
                floor,
            });
        }
        benches.push(Bench { label, program: binary.clone(), args: argv, floor });
    };
    let commands: [&[&str]; 13] = [
        &["check"],
        &["tree", "--json"],
        &["tree"],
        &["path"],
        &["leaves"],
        &["stats", "--json"],
        &["trace", "--json"],
        &["rows", "--table", "entries"],
        &["rows", "--table", "calls"],
        &["rows", "--table", "tools"],
        &["rows", "--table", "spans"],
        &["audit"],
        &["query", "-c", ".id"],
    ];
    for args in commands.into_iter().filter(|a| wanted(a)) {
        ours(&mut benches, args, &file_arg, "", 0);
    }
    for agent in formats {
        let path = ensure_session(&data_dir, size_mb, agent.name(), |w, t| gen::real::session(agent, w, t, SEED))?;
        let arg = path.to_string_lossy().into_owned();
        let floor = benches.len();
        benches.push(Bench { label: format!("`wc -l` ({})", agent.name()), ..wc(&arg, floor) });
        let note = format!(" ({})", agent.name());
        for args in [&["check"][..], &["stats", "--json"], &["tree", "--json"]].into_iter().filter(|a| wanted(a)) {
            ours(&mut benches, args, &arg, &note, floor);
        }
        if agent == gen::real::Agent::Codex && wanted(&["check"]) {
            let z = ensure_zst(&path)?;
            ours(&mut benches, &["check"], &z.to_string_lossy(), " (codex, `.jsonl.zst`)", floor);
        }
    }

    // Time against a warm page cache, as PERF.md does, in the same state every run: each
    // file is dropped from the cache and read once, then one untimed pass.
    settle_page_cache(&benches)?;
    time_once(&benches[0], false)?;

    // Rounds, not blocks of runs: every command takes one turn per round, so a noisy
    // stretch on a shared machine hits all of them alike and the ratios stay comparable.
    let mut samples: Vec<Result<Samples, String>> = benches.iter().map(|_| Ok(Samples::default())).collect();
    for round in 1..=runs {
        eprintln!("round {round} of {runs}");
        for (b, slot) in benches.iter().zip(&mut samples) {
            let Ok(s) = slot else { continue };
            match time_once(b, gnu_time) {
                Ok(Timed { elapsed, cpu, rss, stdout: out }) => {
                    s.times.push(elapsed);
                    s.cpu.extend(cpu);
                    s.peak = s.peak.max(rss);
                    s.stdout = out;
                }
                Err(why) => {
                    eprintln!("  {}: n/a: {why}", b.label);
                    *slot = Err(why);
                }
            }
        }
    }
    let mut rows = Vec::new();
    let mut lines = None;
    for (b, s) in benches.iter().zip(samples) {
        let outcome = s.map(Samples::outcome);
        if let (None, Ok(o)) = (&lines, &outcome) {
            if b.program == Path::new("wc") {
                lines = String::from_utf8_lossy(&o.stdout).split_whitespace().next().map(String::from);
            }
        }
        rows.push((b.label.clone(), b.floor, outcome));
    }

    let table = render(&file, file_size, lines.as_deref(), runs, &rows);
    let results = data_dir.join("results.md");
    fs::write(&results, &table).map_err(|e| format!("{}: {e}", results.display()))?;
    eprintln!("wrote {}", results.display());
    print!("{table}");
    Ok(())
}

fn env_u64(name: &str, default: u64) -> Result<u64, String> {
    match env::var(name) {
        Ok(v) => v.trim().parse().map_err(|_| format!("{name}={v:?} is not a whole number")),
        Err(_) => Ok(default),
    }
}

/// jaq's binary: `BENCH_JAQ`, else the bench's own install, else PATH.
fn find_jaq() -> Option<PathBuf> {
    if let Some(p) = env::var_os("BENCH_JAQ") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let cached = env::var_os("HOME").map(|h| Path::new(&h).join(".cache/arcturn-inspect-bench/jaq/bin/jaq"));
    cached.filter(|p| p.is_file()).or_else(|| which("jaq"))
}

fn which(program: &str) -> Option<PathBuf> {
    env::split_paths(&env::var_os("PATH")?).map(|dir| dir.join(program)).find(|p| p.is_file())
}

/// Always rebuilds: cargo makes it a no-op when nothing changed, and timing a stale
/// binary would silently measure old code.
fn build_binary(profile_dir: &Path) -> Result<PathBuf, String> {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("building the release binary");
    let status = Command::new(&cargo)
        .args(["build", "--release", "--bin", "arcturn-inspect"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .map_err(|e| format!("cannot run {}: {e}", cargo.to_string_lossy()))?;
    let binary = profile_dir.join(format!("arcturn-inspect{}", env::consts::EXE_SUFFIX));
    if !status.success() {
        return Err(format!("`cargo build --release --bin arcturn-inspect` failed ({status})"));
    }
    if !binary.is_file() {
        return Err(format!("the build succeeded but {} does not exist", binary.display()));
    }
    Ok(binary)
}

/// The other formats to time, from `BENCH_FORMATS`.
fn bench_formats() -> Result<Vec<gen::real::Agent>, String> {
    use gen::real::Agent;
    let all = [Agent::Pi, Agent::Claude, Agent::Codex];
    let Ok(v) = env::var("BENCH_FORMATS") else { return Ok(Vec::new()) };
    if v.trim() == "all" {
        return Ok(all.to_vec());
    }
    v.split(',')
        .filter(|n| !n.trim().is_empty())
        .map(|n| {
            all.into_iter()
                .find(|a| a.name() == n.trim())
                .ok_or_else(|| format!("BENCH_FORMATS: {n:?} is not one of pi, claude, codex, all"))
        })
        .collect()
}

/// Generates a session once; later runs reuse it. Written under a temporary name and
/// renamed, so an interrupted generation is never mistaken for a finished file.
fn ensure_session(
    data_dir: &Path,
    size_mb: u64,
    stem: &str,
    generate: impl FnOnce(&mut BufWriter<fs::File>, u64) -> io::Result<gen::GenSummary>,
) -> Result<PathBuf, String> {
    let name = if size_mb.is_multiple_of(1024) {
        format!("{stem}-{}g.jsonl", size_mb / 1024)
    } else {
        format!("{stem}-{size_mb}m.jsonl")
    };
    let path = data_dir.join(name);
    let target = size_mb << 20;
    // The generator stops at the first turn boundary past the target, never before it.
    if fs::metadata(&path).is_ok_and(|m| m.len() >= target) {
        eprintln!("reusing {}", path.display());
        return Ok(path);
    }
    let tmp = path.with_extension("jsonl.tmp");
    eprintln!("generating {} ({size_mb} MiB)", path.display());
    let start = Instant::now();
    let summary = (|| {
        let mut w = BufWriter::with_capacity(1 << 20, fs::File::create(&tmp)?);
        let summary = generate(&mut w, target)?;
        w.flush()?;
        Ok::<_, io::Error>(summary)
    })()
    .map_err(|e| format!("{}: {e}", tmp.display()))?;
    fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!(
        "generated in {:.1} s: {} lines, {} entries, {} leaves, max depth {}, longest line {} bytes, {:.1}% escape bytes",
        start.elapsed().as_secs_f64(),
        summary.lines,
        summary.entries,
        summary.leaves,
        summary.max_depth,
        summary.max_line_bytes,
        100.0 * summary.escape_bytes as f64 / summary.bytes as f64,
    );
    Ok(path)
}

/// A zstd copy of `plain` beside it (level 3, as Codex writes), made once.
fn ensure_zst(plain: &Path) -> Result<PathBuf, String> {
    let z = plain.with_extension("jsonl.zst");
    if z.is_file() {
        return Ok(z);
    }
    let tmp = plain.with_extension("zst.tmp");
    let fail = |e: io::Error| format!("{}: {e}", tmp.display());
    let mut from = fs::File::open(plain).map_err(|e| format!("{}: {e}", plain.display()))?;
    let to = BufWriter::new(fs::File::create(&tmp).map_err(fail)?);
    let mut enc = zstd::stream::write::Encoder::new(to, 3).map_err(fail)?;
    io::copy(&mut from, &mut enc).map_err(fail)?;
    enc.finish().map_err(fail)?.flush().map_err(fail)?;
    fs::rename(&tmp, &z).map_err(|e| format!("{}: {e}", z.display()))?;
    Ok(z)
}

#[derive(Default)]
struct Samples {
    times: Vec<Duration>,
    /// CPU seconds (user + system), when GNU time is there.
    cpu: Vec<f64>,
    peak: Option<u64>,
    stdout: Vec<u8>,
}

impl Samples {
    fn outcome(mut self) -> Outcome {
        self.times.sort();
        self.cpu.sort_by(f64::total_cmp);
        Outcome {
            median_cpu: self.cpu.get(self.cpu.len() / 2).copied(),
            median: self.times[self.times.len() / 2],
            best: self.times[0],
            peak_rss_kib: self.peak,
            stdout: self.stdout,
        }
    }
}

/// One run of a command.
struct Timed {
    elapsed: Duration,
    /// CPU seconds, user + system.
    cpu: Option<f64>,
    /// Peak RSS in KiB.
    rss: Option<u64>,
    stdout: Vec<u8>,
}

/// Put every input file in the page cache the same way ([`page_cache`]): dropped, then read
/// front to back with `read`, as `wc -l` reads it.
fn settle_page_cache(benches: &[Bench]) -> Result<(), String> {
    let mut files: Vec<&str> =
        benches.iter().flat_map(|b| &b.args).map(String::as_str).filter(|a| Path::new(a).is_file()).collect();
    files.sort_unstable();
    files.dedup();
    page_cache::drop_files(&files);
    let mut buf = vec![0u8; 1 << 20];
    for f in files {
        let mut file = fs::File::open(f).map_err(|e| format!("{f}: {e}"))?;
        while io::Read::read(&mut file, &mut buf).map_err(|e| format!("{f}: {e}"))? > 0 {}
    }
    Ok(())
}

/// Runs the command once: wall time, CPU seconds and peak RSS in KiB when GNU time is there,
/// and stdout for `wc` (the line count); other commands' output goes to /dev/null, as
/// `> /dev/null`.
fn time_once(b: &Bench, gnu_time: bool) -> Result<Timed, String> {
    let rss_file = env::temp_dir().join(format!("throughput-rss-{}", std::process::id()));
    let mut cmd = if gnu_time {
        // -o keeps time's report apart from the command's own stderr.
        let mut c = Command::new(GNU_TIME);
        c.arg("-f").arg("%U %S %M").arg("-o").arg(&rss_file).arg(&b.program);
        c
    } else {
        Command::new(&b.program)
    };
    let keep_stdout = b.program == Path::new("wc");
    cmd.args(&b.args)
        .stdin(Stdio::null())
        .stdout(if keep_stdout { Stdio::piped() } else { Stdio::null() })
        .stderr(Stdio::piped());

    let start = Instant::now();
    let out = cmd.output().map_err(|e| format!("cannot run {}: {e}", b.program.display()))?;
    let elapsed = start.elapsed();

    // check exits 1 when it has findings: a normal answer. 2 or more is an error, which
    // includes "unrecognized subcommand" while a command is not written yet.
    let code = out.status.code();
    if !matches!(code, Some(0 | 1)) {
        let first = String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("").to_string();
        let code = code.map_or("a signal".to_string(), |c| format!("status {c}"));
        return Err(format!("exited with {code}: {first}"));
    }
    let (cpu, rss) = if gnu_time {
        let report = fs::read_to_string(&rss_file).unwrap_or_default();
        let _ = fs::remove_file(&rss_file);
        // time puts "Command exited with non-zero status N" before the figures.
        let figures: Vec<&str> = report.lines().last().unwrap_or("").split_whitespace().collect();
        match figures[..] {
            [user, sys, rss] => {
                let cpu = user.parse::<f64>().ok().zip(sys.parse::<f64>().ok()).map(|(u, s)| u + s);
                (cpu, rss.parse().ok())
            }
            _ => (None, None),
        }
    } else {
        (None, None)
    };
    Ok(Timed { elapsed, cpu, rss, stdout: out.stdout })
}

fn render(
    file: &Path,
    size: u64,
    lines: Option<&str>,
    runs: usize,
    rows: &[(String, usize, Result<Outcome, String>)],
) -> String {
    let floor = |i: usize| rows.get(i).and_then(|(_, _, r)| r.as_ref().ok()).map(|o| (o.median, o.best));
    let mut t = String::new();
    let _ = writeln!(t, "File: `{}`", file.display());
    let _ = writeln!(
        t,
        "Size: {:.2} GiB ({size} bytes), {} lines; {runs} rounds (each command once per round), warm page cache (each file dropped from it, then read once), {} CPUs",
        size as f64 / (1u64 << 30) as f64,
        lines.unwrap_or("?"),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
    );
    let _ = writeln!(t, "Ratios are to `wc -l` over the same file (the row above each group).");
    let _ = writeln!(t);
    let _ = writeln!(
        t,
        "| command | median s | median vs `wc -l` | best s | best vs `wc -l` | median CPU s | peak RSS MiB |"
    );
    let _ = writeln!(t, "|---|---:|---:|---:|---:|---:|---:|");
    for (label, f, r) in rows {
        match r {
            Ok(o) => {
                let (median, best) = (o.median.as_secs_f64(), o.best.as_secs_f64());
                let ratio = |x: f64, f: Duration| format!("{:.1}x", x / f.as_secs_f64());
                let (rm, rb) =
                    floor(*f).map_or(("?".into(), "?".into()), |(fm, fb)| (ratio(median, fm), ratio(best, fb)));
                let rss = o.peak_rss_kib.map_or("n/a".to_string(), |k| format!("{:.1}", k as f64 / 1024.0));
                let cpu = o.median_cpu.map_or("n/a".to_string(), |c| format!("{c:.2}"));
                let _ = writeln!(t, "| {label} | {median:.3} | {rm} | {best:.3} | {rb} | {cpu} | {rss} |");
            }
            Err(_) => {
                let _ = writeln!(t, "| {label} | n/a | n/a | n/a | n/a | n/a | n/a |");
            }
        }
    }
    t
}
