//! The binary: parse arguments, run, map the result to an exit status. A closed stdout
//! (`| head`) is a normal way to stop reading and exits 0. Everything it prints on stderr
//! goes through the terminal-safe writer: usage errors echo arguments, and errors quote
//! paths and session text.

// Only the allocator's option needs `unsafe` here ([`hand_freed_memory_back_soon`]).
#![deny(unsafe_code)]

use std::io::{self, Write};
use std::process::ExitCode;

use arcturn_inspect::cli::Cli;
use arcturn_inspect::cmd::{self, Outcome};
use arcturn_inspect::error::Error;
use arcturn_inspect::sanitize;
use clap::error::ErrorKind;
use clap::Parser;

// Loading a session makes about a million small allocations on all threads (entries,
// messages, findings); mimalloc serves them with less locking and fewer page faults than
// the system allocator. It is built without transparent huge pages (`no_thp`): on virtual
// machines that hand idle memory back to the host, faulting in 2 MiB pages again cost a
// 1 GiB `check` about 0.3 s of kernel time, and small pages cost nothing measurable when
// memory is warm.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`: its place in `mi_option_e` (`mimalloc.h`), the same in
/// mimalloc 2 and 3. The bindings name the options around it, not this one.
const MI_OPTION_PURGE_DELAY: i32 = 15;

/// Have mimalloc hand freed memory back to the system 10 ms after it is freed, as mimalloc 2
/// did, where mimalloc 3 waits a second. A load builds one table after another (the tool
/// uses' pairing, then the tree index) and lets each go: kept for a second, a freed table is
/// still resident when the next is built, and a command's peak holds both (`check` on the
/// 1 GiB bench file: 190 against 143 bytes an entry, in the same time). An explicit
/// `MIMALLOC_PURGE_DELAY` is left as it is.
fn hand_freed_memory_back_soon() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one integer option, which mimalloc reads atomically; no memory is
        // touched, and any value is valid.
        #[allow(unsafe_code)]
        unsafe {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10)
        };
    }
}

/// The stack the commands run on. Filters build values of any depth, and jq's functions,
/// printing and dropping walk them recursively (about 100-300 bytes a level): 8 MiB ends
/// near 20,000 levels, this near millions. Only the pages touched are ever committed.
const STACK: usize = 1 << 30;

fn main() -> ExitCode {
    hand_freed_memory_back_soon();
    let big = std::thread::Builder::new().name("main".into()).stack_size(STACK).spawn(run);
    match big {
        Ok(worker) => worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        // No room for such a stack (a tight `ulimit -v`): run on this one.
        Err(_) => run(),
    }
}

fn run() -> ExitCode {
    if std::env::args_os().len() <= 1 {
        let _ = sanitize::stderr(false).write_all(cmd::overview().as_bytes());
        return ExitCode::from(2);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(64 << 10, stdout.lock());
    let result = cmd::run(cli, &mut out);
    let result = result.and_then(|o| out.flush().map(|_| o).map_err(cmd::io_err));
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Negative) => ExitCode::from(1),
        Ok(Outcome::Code(c)) => ExitCode::from(c),
        Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = out.flush();
            let mut err = sanitize::stderr(false);
            // Errors can quote session text: secrets in it are masked.
            let text = e.to_string();
            let _ = writeln!(err, "arcturn-inspect: {}", sanitize::inline(&arcturn_inspect::secrets::mask_text(&text)));
            ExitCode::from(2)
        }
    }
}

/// `--help` and `--version` print as clap lays them out and exit 0. Any other parse error
/// quotes the offending argument as typed, which can hold escape sequences or bidi
/// overrides (even through a pipe, where clap adds no colour): it is rendered without
/// colour, shown like untrusted text and exits 2.
fn usage_error(e: clap::Error) -> ExitCode {
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let text = e.render().to_string();
    let _ = sanitize::stderr(false).write_all(sanitize::block(&text).as_bytes());
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option set is the purge delay: mimalloc 3's default of a second before, 10 ms
    /// after.
    #[test]
    #[allow(unsafe_code)]
    fn the_purge_delay_is_the_option_set() {
        let own = std::env::var("MIMALLOC_PURGE_DELAY");
        assert!(own.is_err(), "run the tests without MIMALLOC_PURGE_DELAY (set to {own:?})");
        // SAFETY: reads one integer option.
        let get = || unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(get(), 1000, "mimalloc 3's default purge delay");
        hand_freed_memory_back_soon();
        assert_eq!(get(), 10);
    }
}
