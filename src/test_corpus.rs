//! What unit tests share: the session files they read in place (every `.jsonl` file of
//! `testdata/` and of the real agents' corpus beside the project, `../shared/real/`, which
//! must be there under `CI=true`), and the generator of their random inputs.

use std::path::{Path, PathBuf};

/// Every `.jsonl` file of the testdata and of the real corpus.
pub fn session_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let real = root.join("../shared/real");
    if !real.exists() && std::env::var("CI").as_deref() == Ok("true") {
        panic!("{} is missing (CI=true)", real.display());
    }
    let mut files = Vec::new();
    jsonl_under(&root.join("testdata"), &mut files);
    jsonl_under(&real, &mut files);
    files
}

fn jsonl_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(list) = std::fs::read_dir(dir) else { return };
    for e in list.flatten() {
        let p = e.path();
        if p.is_dir() {
            jsonl_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

/// A xorshift generator from `seed` (not 0): the same numbers every run, so a failing
/// random case fails again.
pub fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
