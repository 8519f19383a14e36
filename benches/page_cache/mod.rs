//! Putting a bench's input files in the page cache the same way every run.
//!
//! How a file entered the cache sets the size of its pages there (large folios from `read`,
//! 4 KiB pages from a map without huge-page advice or from small appends), and that size
//! moves `wc -l` and every reader by up to 2x: without this, the figures would depend on
//! what had read the files first.

use std::path::Path;
use std::process::Command;

/// Write back, then drop every file from the page cache (GNU dd's `count=0 iflag=nocache`
/// asks the kernel to let a whole file's clean pages go). False, with a note, when a file
/// could not be dropped: the files are then timed as they were cached.
pub fn drop_files<P: AsRef<Path>>(files: &[P]) -> bool {
    // Only pages written back can be dropped (a file just generated may not be yet).
    let _ = Command::new("sync").status();
    for f in files {
        let mut arg = std::ffi::OsString::from("if=");
        arg.push(f.as_ref());
        let dropped = Command::new("dd").arg(arg).args(["iflag=nocache", "count=0", "status=none"]).status();
        if !dropped.is_ok_and(|s| s.success()) {
            eprintln!(
                "note: could not drop {} from the page cache; the files are timed as they were cached",
                f.as_ref().display()
            );
            return false;
        }
    }
    true
}
