//! The binary: parse arguments, run, map the result to an exit status. A closed stdout
//! (`| head`) is a normal way to stop reading and exits 0. Everything it prints on stderr
//! goes through the terminal-safe writer: usage errors echo arguments, and errors quote
//! paths and session text.

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

/// The stack the commands run on. Filters build values of any depth, and jq's functions,
/// printing and dropping walk them recursively (about 100-300 bytes a level): 8 MiB ends
/// near 20,000 levels, this near millions. Only the pages touched are ever committed.
const STACK: usize = 1 << 30;

fn main() -> ExitCode {
    // Until a command finds it has several inputs ([`arcturn_inspect::allocator`]).
    arcturn_inspect::allocator::hand_freed_memory_back_soon();
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
    use arcturn_inspect::allocator::{self, purge_delay};

    /// The option set is the purge delay: mimalloc 3's default of a second before, 10 ms
    /// for one input, the default again for several. (Alone in this test binary: nothing
    /// else here sets the option.)
    #[test]
    fn the_purge_delay_is_the_option_set() {
        let own = std::env::var("MIMALLOC_PURGE_DELAY");
        assert!(own.is_err(), "run the tests without MIMALLOC_PURGE_DELAY (set to {own:?})");
        assert_eq!(purge_delay(), 1000, "mimalloc 3's default purge delay");
        allocator::hand_freed_memory_back_soon();
        assert_eq!(purge_delay(), 10);
        allocator::keep_freed_memory_for_reuse();
        assert_eq!(purge_delay(), 1000);
    }
}
