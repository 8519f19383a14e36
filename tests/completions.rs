//! The committed shell completions complete as a user would see them: after a subcommand
//! its flags, and a subcommand from its first letters. bash is always there and always
//! driven; fish is driven with `complete -C`; zsh is loaded with compinit and its function
//! must be defined (zsh completes only inside its line editor). A shell that is missing
//! skips, and fails under CI (README "Tests").

mod common;

use std::process::Command;

use common::{prereq, root};

fn have(shell: &str) -> bool {
    Command::new(shell).arg("-c").arg("true").output().is_ok_and(|o| o.status.success())
}

fn shell(shell: &str, script: &str) -> String {
    let o = Command::new(shell).current_dir(root()).args(["-c", script]).output().expect("run the shell");
    assert!(
        o.status.success(),
        "{shell} failed: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// What bash offers for the words of `line` (the last word being completed).
fn bash_complete(line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split(' ').collect();
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let prev = if cword > 0 { words[cword - 1] } else { "" };
    let script = format!(
        "source completions/arcturn-inspect.bash\n\
         COMP_WORDS=({})\nCOMP_CWORD={cword}\nCOMP_LINE='{line}'\nCOMP_POINT=${{#COMP_LINE}}\n\
         _arcturn__inspect arcturn-inspect '{}' '{prev}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"",
        quoted.join(" "),
        words[cword]
    );
    shell("bash", &script).lines().map(str::to_string).collect()
}

#[test]
fn bash_completes_flags_after_a_subcommand() {
    let got = bash_complete("arcturn-inspect stats --");
    for want in ["--json", "--max-tokens", "--max-cost", "--by", "--wide", "--quiet"] {
        assert!(got.iter().any(|g| g == want), "stats -- offers {want}: {got:?}");
    }
    assert!(got.iter().all(|g| g.starts_with("--")), "only flags: {got:?}");
    assert!(!got.iter().any(|g| g == "--html"), "export's flags are not stats': {got:?}");
}

#[test]
fn bash_completes_a_subcommand_from_its_first_letters() {
    let mut got = bash_complete("arcturn-inspect tr");
    got.sort();
    assert_eq!(got, ["trace", "tree"]);
}

#[test]
fn fish_completes_flags_and_subcommands() {
    if !have("fish") {
        return prereq::missing("fish", "apt-get install fish", "ARCTURN_REQUIRE_SHELLS");
    }
    let flags = shell("fish", "source completions/arcturn-inspect.fish; complete -C 'arcturn-inspect stats --'");
    for want in ["--json", "--max-tokens", "--wide"] {
        assert!(flags.lines().any(|l| l.split('\t').next() == Some(want)), "stats -- offers {want}:\n{flags}");
    }
    let subs = shell("fish", "source completions/arcturn-inspect.fish; complete -C 'arcturn-inspect tr'");
    let mut names: Vec<&str> = subs.lines().filter_map(|l| l.split('\t').next()).collect();
    names.sort();
    assert_eq!(names, ["trace", "tree"], "{subs}");
}

#[test]
fn zsh_loads_the_completion_function() {
    if !have("zsh") {
        return prereq::missing("zsh", "apt-get install zsh", "ARCTURN_REQUIRE_SHELLS");
    }
    shell("zsh", "zsh -n completions/_arcturn-inspect");
    let out = shell(
        "zsh",
        "fpath=(completions $fpath); autoload -U compinit; compinit -u -D; autoload -U +X _arcturn-inspect; \
         print -r -- ${_comps[arcturn-inspect]}; whence -w _arcturn-inspect",
    );
    assert!(out.contains("_arcturn-inspect: function"), "{out}");
    assert!(out.lines().next() == Some("_arcturn-inspect"), "compinit binds the command: {out}");
}
