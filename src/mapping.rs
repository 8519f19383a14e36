//! Memory-mapping a regular file, and surviving another process truncating it.
//!
//! A map costs no copy and no fresh pages: the decoder reads the page cache in place. The
//! price is an assumption the process cannot enforce: the file is neither truncated nor
//! rewritten in place while it is mapped (appending is harmless: only the length seen at
//! open is mapped). A file rewritten in place changes bytes under strings already
//! validated; a truncated one makes the next touch of a page past the new end a SIGBUS.
//! The first is the documented limit of mapping (README "Damaged and hostile input",
//! `--no-mmap` reads instead). The second is turned from a crash into a clear message and
//! exit code 2 by a SIGBUS handler installed before the first map.
//!
//! This module holds the crate's `unsafe` code but for one call (the AVX2 string scan's, in
//! `format::skim`), in two functions, each with the reasons it is sound.

use std::fs::File;
use std::io;

/// What the SIGBUS handler prints before it ends the process with exit code 2.
pub const TRUNCATED_MESSAGE: &str = "arcturn-inspect: an input file was truncated while it was read (use --no-mmap for files that are being rewritten)\n";

/// Map the first `len` bytes of `file` read-only (`len` > 0, at most the file's size when
/// it was opened).
#[allow(unsafe_code)]
pub fn map(file: &File, len: usize) -> io::Result<memmap2::Mmap> {
    install_sigbus_handler();
    // SAFETY: the map is private to this process and read-only, and `len` is the size
    // seen at open, so every byte of it existed then. What is assumed, and documented
    // (README, `--no-mmap`): no other process truncates or rewrites the file in place
    // while it is mapped. A rewrite would change bytes behind `&[u8]`/`&str` borrows; a
    // truncation makes a later touch raise SIGBUS, which the handler installed above turns
    // into a message and exit code 2 instead of undefined behaviour going on.
    let map = unsafe { memmap2::MmapOptions::new().len(len).map(file)? };
    // One pass front to back, by every worker at its own front: read-ahead helps, and
    // pages once read can be dropped first under memory pressure.
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    // Where the kernel caches files in large folios, a file first read through this map
    // enters the cache in 2 MiB folios, each mapped by one page-table entry instead of 512:
    // far fewer page faults, and a faster unmap at exit. Without the advice, a map's reads
    // fill the cache with 4 KiB pages, and every later read of the file pays for them, ours
    // and other programs'. Where there is no such cache, the advice changes nothing.
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    Ok(map)
}

/// Install, once, a SIGBUS handler that reports a truncated mapped input and exits 2.
#[cfg(unix)]
#[allow(unsafe_code)]
fn install_sigbus_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();

    extern "C" fn on_sigbus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
        // SAFETY: only async-signal-safe calls (write, _exit, sigaction) on data that
        // lives for the whole program; `info` is the kernel's siginfo for this signal.
        unsafe {
            // BUS_ADRERR is the code of a touch past the end of a mapped file. Any other
            // SIGBUS (an alignment fault, a `kill -BUS`) is not ours to explain: restore
            // the default action and return, so that it strikes again and kills as usual.
            if !info.is_null() && (*info).si_code == libc::BUS_ADRERR {
                let msg = TRUNCATED_MESSAGE.as_bytes();
                libc::write(2, msg.as_ptr().cast(), msg.len());
                libc::_exit(2);
            }
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(libc::SIGBUS, &dfl, std::ptr::null_mut());
        }
    }

    ONCE.call_once(|| {
        // SAFETY: a zeroed `sigaction` is a valid value (no flags, empty mask) before the
        // fields are set; the handler is an `extern "C"` fn of the SA_SIGINFO signature
        // and does only async-signal-safe work.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_sigbus as *const () as usize;
            act.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(libc::SIGBUS, &act, std::ptr::null_mut());
        }
    });
}

#[cfg(not(unix))]
fn install_sigbus_handler() {}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;
    use std::process::Command;

    /// Set in the child process of the test below: it is the one that maps, truncates and
    /// dies; the parent checks how.
    const CHILD: &str = "ARCTURN_TEST_SIGBUS_CHILD";

    #[test]
    fn truncated_mapped_file_is_a_message_and_exit_2_not_a_crash() {
        if let Some(dir) = std::env::var_os(CHILD) {
            // The child: map a file, let "another process" cut it, touch a page past the
            // new end. The kernel raises SIGBUS (BUS_ADRERR) on that touch.
            let path = std::path::Path::new(&dir).join("s.jsonl");
            std::fs::write(&path, b"{}\n".repeat(1 << 20)).unwrap();
            let file = File::open(&path).unwrap();
            let len = file.metadata().unwrap().len() as usize;
            let m = map(&file, len).unwrap();
            assert_eq!(m[len - 1], b'\n', "the page is readable before the cut");
            std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(0).unwrap();
            let b = std::hint::black_box(&m[..])[len - 1];
            // Only reached if the touch did not fault: the parent sees exit 0 and fails.
            println!("read {b} past the end");
            std::process::exit(0);
        }
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "mapping::tests::truncated_mapped_file_is_a_message_and_exit_2_not_a_crash",
                "--nocapture",
            ])
            .env(CHILD, dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "exit status {:?}, stderr: {stderr}", out.status);
        assert!(stderr.ends_with(TRUNCATED_MESSAGE), "{stderr}");
    }

    /// The flags the kernel lists for the mapping that holds `at` (`/proc/self/smaps`).
    #[cfg(target_os = "linux")]
    fn vm_flags_at(at: usize) -> Vec<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            // A mapping's first line starts with its range, `lo-hi` in hex; its fields follow.
            let range = line.split_whitespace().next().and_then(|r| r.split_once('-'));
            if let Some((Ok(lo), Ok(hi))) =
                range.map(|(lo, hi)| (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16)))
            {
                inside = (lo..hi).contains(&at);
                continue;
            }
            if let Some(flags) = line.strip_prefix("VmFlags:").filter(|_| inside) {
                return flags.split_whitespace().map(str::to_string).collect();
            }
        }
        panic!("no mapping holds {at:#x} in /proc/self/smaps");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn the_map_is_advised_sequential_and_huge_pages() {
        // Without transparent huge pages in the kernel the advice is refused, and changes
        // nothing; the machines this project is tested on have them.
        let thp = std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists();
        if !thp {
            assert!(std::env::var("CI").is_err(), "CI=true: this kernel has no transparent huge pages");
            eprintln!("skipped: no transparent huge pages in this kernel");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, b"{\"a\":1}\n".repeat(1 << 19)).unwrap();
        let file = File::open(&path).unwrap();
        let m = map(&file, file.metadata().unwrap().len() as usize).unwrap();
        let flags = vm_flags_at(m.as_ptr() as usize);
        assert!(flags.iter().any(|f| f == "sr"), "sequential read advice: {flags:?}");
        assert!(flags.iter().any(|f| f == "hg"), "huge page advice: {flags:?}");
    }

    #[test]
    fn map_holds_the_length_seen_at_open_while_the_file_grows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, b"{\"a\":1}\n").unwrap();
        let file = File::open(&path).unwrap();
        let len = file.metadata().unwrap().len() as usize;
        let m = map(&file, len).unwrap();
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"b\":2}\n").unwrap();
        assert_eq!(&m[..], b"{\"a\":1}\n", "the prefix that existed at open, whole lines");
    }
}
