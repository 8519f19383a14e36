//! The man page and the shell completions are generated from `cli::command()` and committed,
//! so that packagers and users get them without building. This test renders them again and
//! fails when the committed files are stale; `ARCTURN_BLESS=1 cargo test --test generated`
//! rewrites them.

mod prereq;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap_complete::Shell;

const BIN: &str = "arcturn-inspect";

/// Sections the clap definitions cannot carry: how the tool behaves as a whole.
const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success (warnings allowed). Also when stdout is closed early, as in a pipe into head(1)."),
    ("1", "The command ran and the answer is negative: check found an error-level finding; stats exceeded --max-tokens or --max-cost; query -e saw false or null as its last output; grep found no match; diff was given no ids and the session has fewer than two branches; audit found a secret not allowed by --allow."),
    ("2", "Error: usage (a grep pattern that does not compile), I/O, an undetectable format, an unknown id, or a damaged line before the last (printed after everything that could be printed; grep exits 2 then even when it found a match). audit: also an input that could not be read at all (listed under not_scanned); damaged lines and files of no known format are still scanned as raw text."),
    ("3", "query: the filter does not compile. The message gives its line and column."),
    ("4", "query -e: the filter produced no output."),
    ("5", "query: a runtime error (reported with the FILE:LINE of the input; the other inputs still run)."),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    ("NO_COLOR", "When set and not empty, no colour (--color beats it)."),
    ("CLICOLOR_FORCE", "When set and not 0, colour even when stdout is not a terminal (--color beats it). JSON output is never coloured."),
    ("COLUMNS", "Width for one-line views."),
];

const FILES: &[(&str, &str)] = &[
    (".crab/sessions/session-*.jsonl", "crab sessions of the project in the working directory; the newest is read when no FILE is given."),
    ("~/.arcturn/sessions/*/*.jsonl", "arcturn sessions; the newest whose header names the working directory is read when no FILE is given and there is no crab session."),
];

/// Query examples beyond the ones in `--help`, with what they answer.
const QUERY_EXAMPLES: &[(&str, &str)] = &[
    ("Output tokens of every assistant call, summed:", "arcturn-inspect query -s 'map(.message.usage.output // 0) | add' session.jsonl"),
    ("Failed tool results with their line numbers:", "arcturn-inspect query -r 'select(.message.isError == true) | \"\\($__line) \\(.message.toolName)\"' session.jsonl"),
    ("crab tool calls slower than a second:", "arcturn-inspect query --kind obs -c 'select(.obs == \"tool_call\" and .duration_ms > 1000)' .crab/sessions/"),
    ("Does the latest branch contain a compaction? (exit 0 or 1):", "arcturn-inspect query -e -n '[inputs | select(.kind == \"compaction\")] | length > 0' --path session.jsonl"),
];

/// Escape text for roff: backslashes, and lines that would start a request.
fn roff(text: &str) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.replace('\\', "\\e").replace('-', "\\-");
        if line.starts_with('.') || line.starts_with('\'') {
            out.push_str("\\&");
        }
        out.push_str(&line);
    }
    out
}

fn arg_label(a: &clap::Arg) -> String {
    let mut names = Vec::new();
    if let Some(s) = a.get_short() {
        names.push(format!("\\fB\\-{s}\\fR"));
    }
    if let Some(l) = a.get_long() {
        names.push(format!("\\fB\\-\\-{}\\fR", roff(l)));
    }
    let values: Vec<String> = a.get_value_names().unwrap_or_default().iter().map(|v| format!("\\fI{v}\\fR")).collect();
    let takes = a.get_num_args().is_some_and(|n| n.takes_values());
    let mut label = if names.is_empty() {
        // A positional argument.
        values.join(" ")
    } else {
        names.join(", ")
    };
    if !names.is_empty() && takes && !values.is_empty() {
        let optional = a.get_num_args().is_some_and(|n| n.min_values() == 0);
        if optional {
            label.push_str(&format!("[={}]", values.join(" ")));
        } else {
            label.push(' ');
            label.push_str(&values.join(" "));
        }
    }
    label
}

fn options(out: &mut String, args: &[&clap::Arg]) {
    for a in args {
        out.push_str(".TP\n");
        out.push_str(&arg_label(a));
        out.push('\n');
        let mut help = a.get_long_help().or(a.get_help()).map(|h| h.to_string()).unwrap_or_default();
        if !help.is_empty() && !help.ends_with('.') {
            help.push('.');
        }
        let possible: Vec<String> =
            a.get_possible_values().iter().filter(|p| !p.is_hide_set()).map(|p| p.get_name().to_string()).collect();
        if !possible.is_empty() && a.get_action().takes_values() {
            let _ = write!(help, " One of: {}.", possible.join(", "));
        }
        let defaults: Vec<String> = a.get_default_values().iter().map(|d| d.to_string_lossy().into_owned()).collect();
        if !defaults.is_empty() && a.get_action().takes_values() {
            let _ = write!(help, " Default: {}.", defaults.join(", "));
        }
        out.push_str(&roff(&help));
        out.push('\n');
    }
}

fn preformatted(out: &mut String, text: &str) {
    out.push_str(".PP\n.nf\n.RS 4\n");
    out.push_str(&roff(text));
    out.push_str("\n.RE\n.fi\n");
}

fn man_page() -> String {
    let mut cmd = arcturn_inspect::cli::command();
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut head = Vec::new();
    man.render_title(&mut head).unwrap();
    man.render_name_section(&mut head).unwrap();
    man.render_synopsis_section(&mut head).unwrap();
    let mut out = String::from_utf8(head).unwrap();

    out.push_str(".SH DESCRIPTION\n");
    out.push_str(&roff(
        "arcturn-inspect reads coding-agent session files (JSONL) written by arcturn, crab, pi, Claude Code and \
         Codex, and never writes to them. Each command takes a session file, - for standard input, or (for \
         commands that take several) directories walked for *.jsonl and *.jsonl.zst files. With no FILE and a \
         terminal on standard input, the newest session of the current project is read, across the agents' \
         folders, and its name is said on standard error.",
    ));
    out.push_str("\n.PP\n");
    out.push_str(&roff(
        "Data goes to standard output; warnings and errors go to standard error, as FILE:LINE:COLUMN: message. \
         --json output is never coloured. A damaged line before the last is reported and skipped, and the command \
         exits 2 after printing everything else; a torn last line is dropped with a warning.",
    ));
    out.push('\n');

    let globals: Vec<&clap::Arg> = cmd.get_arguments().filter(|a| !a.is_hide_set()).collect();
    out.push_str(".SH OPTIONS\n");
    out.push_str("These options are accepted by every command, before or after its name.\n");
    options(&mut out, &globals);

    out.push_str(".SH COMMANDS\n");
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let _ = writeln!(out, ".SS \"{} {}\"", BIN, sub.get_name());
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            out.push_str(&roff(&about.to_string()));
            out.push('\n');
        }
        let usage = sub.clone().render_usage().to_string();
        let usage = usage.trim_start_matches("Usage: ");
        out.push_str(".PP\n");
        let _ = writeln!(out, "\\fB{}\\fR", roff(usage));
        let local: Vec<&clap::Arg> = sub.get_arguments().filter(|a| !a.is_hide_set() && !a.is_global_set()).collect();
        // Globals are propagated into subcommands by `build`; they are listed once, above.
        let local: Vec<&clap::Arg> =
            local.into_iter().filter(|a| !globals.iter().any(|g| g.get_id() == a.get_id())).collect();
        if !local.is_empty() {
            out.push_str(".PP\n");
            options(&mut out, &local);
        }
        if let Some(after) = sub.get_after_long_help().or(sub.get_after_help()) {
            preformatted(&mut out, &after.to_string());
        }
    }

    out.push_str(".SH EXAMPLES\n");
    if let Some(after) = cmd.get_after_help() {
        let text = after.to_string();
        preformatted(&mut out, text.trim_start_matches("Examples:\n"));
    }
    for (what, example) in QUERY_EXAMPLES {
        let _ = writeln!(out, ".PP\n{}", roff(what));
        preformatted(&mut out, example);
    }

    out.push_str(".SH \"EXIT STATUS\"\n");
    for (code, meaning) in EXIT_STATUS {
        let _ = writeln!(out, ".TP\n\\fB{code}\\fR\n{}", roff(meaning));
    }
    out.push_str(".SH ENVIRONMENT\n");
    for (name, meaning) in ENVIRONMENT {
        let _ = writeln!(out, ".TP\n\\fB{name}\\fR\n{}", roff(meaning));
    }
    out.push_str(".SH FILES\n");
    for (name, meaning) in FILES {
        let _ = writeln!(out, ".TP\n\\fI{}\\fR\n{}", roff(name), roff(meaning));
    }
    out.push_str(".SH \"SEE ALSO\"\n\\fBjq\\fR(1), \\fBjaq\\fR(1)\n");
    let mut version = Vec::new();
    man.render_version_section(&mut version).unwrap();
    out.push_str(&String::from_utf8(version).unwrap());
    out
}

fn completions() -> Vec<(PathBuf, String)> {
    [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::PowerShell, Shell::Elvish]
        .into_iter()
        .map(|shell| {
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut arcturn_inspect::cli::command(), BIN, &mut buf);
            let name = clap_complete::Generator::file_name(&shell, BIN);
            let mut text = String::from_utf8(buf).unwrap();
            if shell == Shell::Bash {
                text = fix_bash_names(&text);
            }
            (Path::new("completions").join(name), text)
        })
        .collect()
}

/// clap_complete's bash script names a subcommand's state two ways when the binary's name
/// has a `-`: the word loop sets `arcturn__inspect__subcmd__stats`, while the case that
/// lists the flags is labelled `arcturn__subcmd__inspect__subcmd__stats`, so nothing is
/// completed after a subcommand (tests/completions.rs drives it). One spelling for both.
fn fix_bash_names(text: &str) -> String {
    let wrong = format!("{}__subcmd__{}", BIN.split('-').next().unwrap(), BIN.split('-').nth(1).unwrap());
    text.replace(&wrong, &BIN.replace('-', "__"))
}

fn generated() -> Vec<(PathBuf, String)> {
    let mut all = vec![(Path::new("man").join(format!("{BIN}.1")), man_page())];
    all.extend(completions());
    all
}

#[test]
fn man_page_and_completions_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = prereq::bless();
    let mut stale = Vec::new();
    for (rel, text) in generated() {
        let path = root.join(&rel);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(committed) if committed == text => {}
            Ok(_) => stale.push(format!("{} is stale", rel.display())),
            Err(_) => stale.push(format!("{} is missing", rel.display())),
        }
    }
    assert!(stale.is_empty(), "{}\nrun `ARCTURN_BLESS=1 cargo test --test generated` to regenerate", stale.join("\n"));
}

#[test]
fn man_page_covers_every_command_and_section() {
    let page = man_page();
    for sub in arcturn_inspect::cli::command().get_subcommands() {
        if sub.get_name() != "help" {
            assert!(page.contains(&format!(".SS \"{BIN} {}\"", sub.get_name())), "no section for {}", sub.get_name());
        }
    }
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH COMMANDS", ".SH EXAMPLES", ".SH \"EXIT STATUS\""] {
        assert!(page.contains(section), "no {section}");
    }
    // Every flag of every command is documented.
    for sub in arcturn_inspect::cli::command().get_subcommands() {
        for a in sub.get_arguments() {
            if let Some(long) = a.get_long() {
                assert!(page.contains(&format!("\\-\\-{}", long.replace('-', "\\-"))), "--{long} missing");
            }
        }
    }
}

#[test]
fn every_flag_and_command_has_help_and_examples() {
    let cmd = arcturn_inspect::cli::command();
    let mut missing = Vec::new();
    for a in cmd.get_arguments() {
        if a.get_help().is_none() {
            missing.push(format!("--{}", a.get_id()));
        }
    }
    for sub in cmd.get_subcommands() {
        if sub.get_about().is_none() {
            missing.push(format!("{} (about)", sub.get_name()));
        }
        if !sub.get_after_help().is_some_and(|h| h.to_string().contains("Examples:")) {
            missing.push(format!("{} (examples in after_help)", sub.get_name()));
        }
        for a in sub.get_arguments() {
            if a.get_help().is_none() {
                missing.push(format!("{} {}", sub.get_name(), a.get_id()));
            }
        }
    }
    assert!(missing.is_empty(), "without help text: {missing:?}");
}
