//! `query`: jq filters over session records. Expected numbers were summed by hand from
//! `testdata/query/*.jsonl` and, when `jq` is installed, are also checked against jq itself
//! run on the same file.

mod prereq;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const ARCTURN: &str = "testdata/query/arcturn.jsonl";
const CRAB: &str = "testdata/query/crab.jsonl";
const DAMAGED: &str = "testdata/query/damaged.jsonl";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arcturn-inspect"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    for k in ["NO_COLOR", "CLICOLOR_FORCE", "COLUMNS"] {
        c.env_remove(k);
    }
    c.stdin(Stdio::null());
    c
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = bin().args(args).output().unwrap();
    split(out)
}

fn split(out: Output) -> (i32, String, String) {
    (
        out.status.code().expect("exited"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_lines(s: &str) -> Vec<Value> {
    s.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

/// jq's answer for the same question, when jq is installed (under CI its absence fails).
fn jq(args: &[&str], file: &str) -> Option<String> {
    let Ok(out) = Command::new("jq").args(args).arg(file).current_dir(env!("CARGO_MANIFEST_DIR")).output() else {
        prereq::missing("jq not found; the comparison with jq is left out", "apt-get install jq", "ARCTURN_REQUIRE_JQ");
        return None;
    };
    assert!(out.status.success(), "jq {args:?} {file} failed: {}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn slurped_sum_of_output_tokens() {
    // 112 + 230 + 58 + 41 + 19 assistant output tokens.
    let (code, out, err) = run(&["query", "-s", "map(.message.usage.output // 0) | add", ARCTURN]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "460\n");
    if let Some(expected) = jq(&["-s", "map(.message.usage.output // 0) | add"], ARCTURN) {
        assert_eq!(out, expected);
    }
}

#[test]
fn per_record_sums_match_jq() {
    // Input tokens 3 + 40 + 12 + 900 + 7; costs 0.0209 + 0.0051 + 0.0032 + 0.0011 + 0.0042.
    let (code, out, _) = run(&["query", "-c", ".message.usage.input // empty", ARCTURN]);
    assert_eq!(code, 0);
    let sum: i64 = out.lines().map(|l| l.parse::<i64>().unwrap()).sum();
    assert_eq!(sum, 962);
    let (code, out, _) = run(&["query", "-c", ".message.usage.cost.total // empty", ARCTURN]);
    assert_eq!(code, 0);
    let cost: f64 = out.lines().map(|l| l.parse::<f64>().unwrap()).sum();
    assert!((cost - 0.0345).abs() < 1e-9, "{cost}");
    // jq sees the header too; skipping it, it must give the same record stream.
    if let Some(expected) = jq(&["-c", "select(.kind != \"session\") | .message.usage.cost.total // empty"], ARCTURN) {
        assert_eq!(out, expected);
    }
}

#[test]
fn crab_observations_are_inputs() {
    // Prompt tokens of the three llm_call records: 5120 + 10240 + 10700.
    let (code, out, _) = run(&["query", "-n", "[inputs | select(.obs == \"llm_call\") | .usage.prompt] | add", CRAB]);
    assert_eq!(code, 0);
    assert_eq!(out, "26060\n");
    if let Some(expected) = jq(&["-s", "[.[] | select(.obs == \"llm_call\") | .usage.prompt] | add"], CRAB) {
        assert_eq!(out, expected);
    }
    let (code, out, _) =
        run(&["query", "--kind", "obs", "-c", "select(.obs == \"tool_call\") | [.tool, .outcome]", CRAB]);
    assert_eq!(code, 0);
    assert_eq!(
        json_lines(&out),
        [serde_json::json!(["read", "Ok"]), serde_json::json!(["edit", {"Error": "patch does not apply"}])]
    );
}

#[test]
fn raw_output_writes_strings_without_quotes() {
    let filter =
        r#"select(.message.role == "user") | .message.content | if type == "string" then . else .[0].text end"#;
    let (code, out, _) = run(&["query", "-r", filter, ARCTURN]);
    assert_eq!(code, 0);
    assert_eq!(out, "Fix the failing test in src/lib.rs\nRun only the add tests please\n");
    let (code, out, _) = run(&["query", "-j", ".id // empty | .[0:2]", "--path=c3d4", ARCTURN]);
    assert_eq!(code, 0);
    assert_eq!(out, "a1b2c3");
    // Without -r the same string is JSON.
    let (_, out, _) = run(&["query", filter, ARCTURN]);
    assert_eq!(out, "\"Fix the failing test in src/lib.rs\"\n\"Run only the add tests please\"\n");
}

#[test]
fn raw_output_to_a_pipe_is_the_text_itself_and_json_escapes_controls() {
    // The failing bash result carries an ANSI colour sequence (line 8).
    let (code, out, _) = run(&["query", "-r", "select(.message.isError == true) | .message.content[0].text", ARCTURN]);
    assert_eq!(code, 0);
    assert!(out.contains("\u{1b}[31merror"), "{out:?}");
    let (_, out, _) = run(&["query", "-c", "select(.message.isError == true) | .message.content[0].text", ARCTURN]);
    assert!(!out.contains('\u{1b}'));
    assert!(out.contains("\\u001b[31merror"), "{out:?}");
}

#[test]
fn arg_and_argjson_bind_variables() {
    let (code, out, err) =
        run(&["query", "--arg", "tool", "bash", "-c", "select(.message.toolName == $tool) | $__line", ARCTURN]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "8\n11\n");
    let (code, out, _) =
        run(&["query", "--argjson", "min", "100", "-c", "select(.message.usage.output? > $min) | .id", ARCTURN]);
    assert_eq!(code, 0);
    assert_eq!(json_lines(&out), [Value::from("b27e9a10"), Value::from("d1e2f3a4")]);
    let (code, out, _) =
        run(&["query", "-n", "-c", "--arg", "a", "1", "--argjson", "b", "[2]", "$ARGS.named", ARCTURN]);
    assert_eq!(code, 0);
    assert_eq!(json_lines(&out), [serde_json::json!({"a": "1", "b": [2]})]);
    let (code, _, err) = run(&["query", "--argjson", "b", "{", ".", ARCTURN]);
    assert_eq!(code, 2);
    assert!(err.contains("--argjson b"), "{err}");
}

#[test]
fn slurp_makes_one_array_across_files() {
    // 15 lines minus the header; 14 lines minus the meta line.
    let (code, out, _) = run(&["query", "-s", "length", ARCTURN]);
    assert_eq!((code, out.as_str()), (0, "14\n"));
    let (code, out, _) = run(&["query", "-s", "-c", "[length, (map(.kind) | unique)]", ARCTURN, CRAB]);
    assert_eq!(code, 0);
    assert_eq!(json_lines(&out), [serde_json::json!([27, ["compaction", "label", "message", "obs", "state"]])]);
}

#[test]
fn broken_filter_exits_3_with_its_position() {
    let (code, out, err) = run(&["query", ".message |", ARCTURN]);
    assert_eq!(code, 3);
    assert!(out.is_empty());
    assert!(err.contains("<filter>:1:11:"), "{err}");
    let (code, _, err) = run(&["query", ".a |\n  lenght", ARCTURN]);
    assert_eq!(code, 3);
    assert!(err.contains("<filter>:2:3: error: undefined filter `lenght/0`"), "{err}");
    assert!(err.contains("  ^^^^^^"), "{err}");
    let (code, _, err) = run(&["query", "$nope", ARCTURN]);
    assert_eq!(code, 3);
    assert!(err.contains("undefined variable `$nope`"), "{err}");
}

#[test]
fn filter_from_file_and_its_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("ids.jq");
    std::fs::write(&good, "# the ids on the latest branch\nselect(.kind == \"label\") | .label\n").unwrap();
    // With -f, the first positional argument is an input file, as in jq.
    let (code, out, err) = run(&["query", "-r", "-f", good.to_str().unwrap(), ARCTURN]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "fixed\n");
    let bad = dir.path().join("bad.jq");
    std::fs::write(&bad, "\n.x | {").unwrap();
    let (code, _, err) = run(&["query", "-f", bad.to_str().unwrap(), ARCTURN]);
    assert_eq!(code, 3);
    assert!(err.contains("bad.jq:2:"), "{err}");
}

#[test]
fn runtime_error_exits_5_and_the_other_inputs_still_run() {
    let (code, out, err) = run(&["query", ".message.content + 1", ARCTURN]);
    assert_eq!(code, 5);
    // Compaction, state and label entries have no message: null + 1.
    assert_eq!(out, "1\n1\n1\n");
    assert!(err.contains("testdata/query/arcturn.jsonl:2: error: cannot calculate"), "{err}");
    assert_eq!(err.lines().count(), 11, "{err}");
    let (code, _, err) = run(&["query", "-n", "error(\"custom\")", ARCTURN]);
    assert_eq!(code, 5);
    assert!(err.contains("error: custom"), "{err}");
}

#[test]
fn exit_status_rules() {
    let (code, out, _) = run(&["query", "-e", "--kind", "compaction", ".tokensBefore > 100000", ARCTURN]);
    assert_eq!((code, out.as_str()), (0, "true\n"));
    let (code, out, _) = run(&["query", "-e", "--kind", "compaction", ".tokensBefore > 1000000", ARCTURN]);
    assert_eq!((code, out.as_str()), (1, "false\n"));
    let (code, out, _) = run(&["query", "-e", "--kind", "label", ".nothing", ARCTURN]);
    assert_eq!((code, out.as_str()), (1, "null\n"));
    let (code, out, _) = run(&["query", "-e", "empty", ARCTURN]);
    assert_eq!((code, out.as_str()), (4, ""));
    // Without -e, false and no output are fine.
    assert_eq!(run(&["query", "empty", ARCTURN]).0, 0);
    assert_eq!(run(&["query", "-n", "halt_error(7)", ARCTURN]).0, 7);
}

#[test]
fn path_leaves_and_kind_choose_the_inputs() {
    let lines = |args: &[&str]| {
        let mut a = vec!["query", "-c", "$__line"];
        a.extend_from_slice(args);
        a.push(ARCTURN);
        let (code, out, err) = run(&a);
        assert_eq!(code, 0, "{err}");
        out.lines().map(|l| l.parse::<u32>().unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(lines(&[]), (2..=15).collect::<Vec<_>>());
    // The latest entry (the label on line 15) is reached through the branch at line 9.
    assert_eq!(lines(&["--path"]), [2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14, 15]);
    assert_eq!(lines(&["--path=0b1c2d3e"]), [2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(lines(&["--leaves"]), [8, 15]);
    assert_eq!(lines(&["--kind", "state"]), [13]);
    assert_eq!(lines(&["--kind", "session"]), [1]);
    assert_eq!(lines(&["--path", "--kind", "compaction"]), [12]);
    let (code, _, err) = run(&["query", "--path=nope", ".", ARCTURN]);
    assert_eq!(code, 2);
    assert!(err.contains("arcturn.jsonl: no entry with id `nope`"), "{err}");
}

#[test]
fn file_and_line_builtins() {
    let (code, out, _) =
        run(&["query", "-n", "-c", "input | input | [input_filename, input_line_number, $__line]", CRAB]);
    assert_eq!(code, 0);
    assert_eq!(json_lines(&out), [serde_json::json!([CRAB, 3, null])]);
}

#[test]
fn damaged_input_prints_what_it_can_and_exits_2() {
    let (code, out, err) = run(&["query", "-c", "$__line", DAMAGED]);
    assert_eq!(code, 2);
    assert_eq!(out, "2\n3\n4\n6\n7\n8\n");
    assert!(err.contains("damaged.jsonl:5:"), "{err}");
}

#[test]
fn stdin_as_dash() {
    let mut child = bin()
        .args(["query", "-c", "select(.obs == \"turn_end\") | [$__file, $__line, .llm_calls]", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&std::fs::read(CRAB).unwrap()).unwrap();
    let (code, out, _) = split(child.wait_with_output().unwrap());
    assert_eq!(code, 0);
    assert_eq!(json_lines(&out), [serde_json::json!(["-", 14, 3])]);
}

#[test]
fn layout_flags() {
    let f = "select(.kind == \"state\") | .model";
    let (_, out, _) = run(&["query", f, ARCTURN]);
    assert_eq!(out, "{\n  \"provider\": \"anthropic\",\n  \"id\": \"claude-sonnet-5-5\"\n}\n");
    let (_, out, _) = run(&["query", "--tab", "-S", f, ARCTURN]);
    assert_eq!(out, "{\n\t\"id\": \"claude-sonnet-5-5\",\n\t\"provider\": \"anthropic\"\n}\n");
    let (_, out, _) = run(&["query", "--indent", "4", f, ARCTURN]);
    assert!(out.starts_with("{\n    \"provider\""), "{out}");
    for compact in [&["-c"][..], &["--indent", "0"], &["--json"]] {
        let mut a = vec!["query"];
        a.extend_from_slice(compact);
        a.extend([f, ARCTURN]);
        assert_eq!(run(&a).1, "{\"provider\":\"anthropic\",\"id\":\"claude-sonnet-5-5\"}\n");
    }
}

#[test]
fn coloured_only_when_forced_or_on_a_terminal() {
    let f = "select(.kind == \"label\") | {label}";
    let (_, out, _) = run(&["query", f, ARCTURN]);
    assert!(!out.contains('\u{1b}'));
    let out = bin().args(["query", f, ARCTURN]).env("CLICOLOR_FORCE", "1").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\u{1b}[34;1m\"label\"\u{1b}[0m"), "{text:?}");
    let out = bin().args(["query", "--json", f, ARCTURN]).env("CLICOLOR_FORCE", "1").output().unwrap();
    assert!(!out.stdout.contains(&0x1b));
}

#[test]
fn null_input_needs_no_session() {
    // No FILE: the default input is looked for only when the filter reads a record.
    let (code, out, err) = run(&["query", "-n", "1 + 1"]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "2\n", ""));
}

#[test]
fn query_inputs_are_only_the_records_the_loader_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.jsonl");
    let lines = [
        r#"{"kind":"session","version":1,"id":"q","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/p"}"#,
        r#"{"kind":"message","id":"a","parentId":null,"timestamp":"2026-11-02T09:00:01.000Z","message":{"role":"user","content":"hi"}}"#,
        // Not JSON (jaq's own reader would take NaN and make it null): refused, never an input.
        r#"{"kind":"message","id":"b","parentId":"a","n":NaN}"#,
        // A payload with a duplicate key: an error, but the loader keeps the entry.
        r#"{"kind":"message","id":"c","parentId":"a","timestamp":"2026-11-02T09:00:02.000Z","message":{"role":"user","content":"x"},"x":1,"x":2}"#,
    ];
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let (code, out, err) = run(&["query", "-c", ".id", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "\"a\"\n\"c\"\n");
    assert!(err.contains(":3:") && err.contains("corrupt_line"), "{err}");
    assert!(err.contains(":4:") && err.contains("duplicate_key"), "{err}");
}

#[test]
fn tojson_and_tostring_write_json_for_nan_and_infinities_as_jq_1_7_does() {
    let (code, out, err) =
        run(&["query", "-n", "-c", "[nan, infinite, -infinite] | tojson, tostring, (.[0] | tostring)"]);
    assert_eq!(code, 0, "{err}");
    let outs = json_lines(&out);
    assert_eq!(outs.len(), 3, "{out}");
    for text in &outs[..2] {
        // The string itself is JSON: null, then the largest finite double of each sign.
        let v: Value = serde_json::from_str(text.as_str().unwrap()).unwrap();
        assert_eq!(v, serde_json::json!([null, f64::MAX, -f64::MAX]), "{text}");
    }
    assert_eq!(outs[2], "null");
}

// ---------------------------------------------------------------------------------------
// Deep values: an error with a status, never a stack overflow

#[test]
fn an_output_nested_past_ten_thousand_levels_is_a_runtime_error() {
    let (code, out, err) = run(&["query", "-n", "reduce range(20000) as $i (null; [.])"]);
    assert_eq!(code, 5, "{err}");
    assert!(out.is_empty(), "nothing half-printed: {}", out.len());
    assert!(err.contains("value nested deeper than 10000 levels cannot be printed"), "{err}");
    // The run goes on with the next output.
    let (code, out, _) = run(&["query", "-n", "-c", "(reduce range(20000) as $i (null; [.])), 1"]);
    assert_eq!((code, out.as_str()), (5, ""), "an error ends that input's outputs, as in jq");
    let (code, out, err) = run(&["query", "-c", "reduce range(20000) as $i (null; [.])", ARCTURN]);
    assert_eq!(code, 5, "{err}");
    assert!(out.is_empty());
    let (_, inputs, _) = run(&["query", "-c", "1", ARCTURN]);
    assert_eq!(err.matches("nested deeper").count(), inputs.lines().count(), "one error per input: {err}");
}

#[test]
fn an_output_ten_thousand_levels_deep_is_printed() {
    let (code, out, err) = run(&["query", "-n", "-c", "reduce range(10000) as $i (null; [.])"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, format!("{}null{}\n", "[".repeat(10000), "]".repeat(10000)));
    let (code, out, _) = run(&["query", "-n", "-c", "reduce range(10000) as $i (null; {a: .})"]);
    assert_eq!(code, 0);
    assert_eq!(out, format!("{}null{}\n", r#"{"a":"#.repeat(10000), "}".repeat(10000)));
}

#[test]
fn a_value_nested_a_million_levels_inside_a_filter_does_not_overflow() {
    // Built, measured and dropped inside the filter engine, which walks values recursively.
    let (code, out, err) = run(&["query", "-n", "reduce range(1000000) as $i (null; [.]) | length"]);
    assert_eq!((code, out.as_str()), (0, "1\n"), "{err}");
    let (code, out, err) = run(&["query", "-n", "reduce range(1000000) as $i (null; [.])"]);
    assert_eq!((code, out.as_str()), (5, ""), "{err}");
}

#[test]
fn a_line_nested_thirty_thousand_levels_is_skipped_as_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.jsonl");
    let deep = format!(
        r#"{{"kind":"message","id":"d","parentId":null,"timestamp":"2026-11-02T09:00:01.500Z","message":{{"role":"user","content":"x","extra":{}{}}}}}"#,
        "[".repeat(30000),
        "]".repeat(30000)
    );
    let ok = r#"{"kind":"message","id":"e","parentId":null,"timestamp":"2026-11-02T09:00:02.500Z","message":{"role":"user","content":"y"}}"#;
    std::fs::write(&path, format!("{deep}\n{ok}\n")).unwrap();
    let p = path.to_str().unwrap();
    let (code, out, err) = run(&["query", "-c", ".id", p]);
    assert_eq!(code, 2, "damaged, not a crash: {err}");
    assert_eq!(out, "\"e\"\n", "the other records still run");
    assert!(err.contains(&format!("{p}:1:")) && err.contains("nesting too deep"), "{err}");
    for view in [&["show", p, "d"][..], &["show", "--json", p, "d"], &["export", p], &["context", p]] {
        let o = bin().args(view).output().unwrap();
        let code = o.status.code().unwrap_or_else(|| panic!("{view:?} was killed: {:?}", o.status));
        assert_eq!(code, 2, "{view:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn argjson_nested_past_ten_thousand_levels_is_refused() {
    let deep = format!("{}{}", "[".repeat(10001), "]".repeat(10001));
    let (code, _, err) = run(&["query", "-n", "--argjson", "x", &deep, "$x | length"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--argjson x: not valid JSON (nesting too deep at column 10001 (limit 10000))"), "{err}");
    let fine = format!("{}{}", "[".repeat(10000), "]".repeat(10000));
    let (code, out, err) = run(&["query", "-n", "--argjson", "x", &fine, "$x | length"]);
    assert_eq!((code, out.as_str()), (0, "1\n"), "{err}");
}
