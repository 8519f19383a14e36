//! Helpers shared by the integration tests: run the real binary with a clean environment.
#![allow(dead_code)]

use std::process::{Command, Output};

pub const D: &str = "testdata/stats";

/// The binary with every variable that changes output cleared.
pub fn cmd() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arcturn-inspect"));
    c.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE").env_remove("COLUMNS").env("COLUMNS", "120");
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

pub fn run(args: &[&str]) -> Output {
    cmd().args(args).output().expect("the binary runs")
}

pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 stderr")
}

/// Parse stdout as one JSON document, asserting the exit code first.
pub fn json(args: &[&str], want: i32) -> serde_json::Value {
    let o = run(args);
    assert_eq!(code(&o), want, "exit code; stderr: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("stdout is one JSON document")
}
