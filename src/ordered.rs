//! Numbered chunks of work done on worker threads, their results handed to the calling
//! thread piece by piece in chunk order, with bounded memory.
//!
//! A worker takes the next chunk number and registers the channel of that chunk's pieces in
//! the same step, so the caller finds the channels in chunk order. Each channel holds a few
//! pieces, and only so many chunks ([`Workers::ahead`]) may be registered ahead of the one
//! the caller is reading: a worker that gets that far ahead waits. A chunk is streamed while
//! it is being worked on, so a chunk whose work produces without end (a filter that never
//! stops printing) costs no more memory than any other.
//!
//! The workers are threads of their own rather than rayon's: their stack size is the
//! caller's choice (rayon's workers have 2 MiB, and the work here may recurse deeply).

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Mutex, PoisonError};

/// Pieces a chunk may have waiting for the caller before its worker waits.
const PIECES_AHEAD: usize = 16;

/// Where a chunk's work sends its pieces.
pub struct Sink<'a, T> {
    to: To<'a, T>,
}

enum To<'a, T> {
    /// The chunk's channel to the caller.
    Channel(&'a SyncSender<T>),
    /// The caller itself ([`run_here`]).
    Here(&'a dyn Fn(T) -> bool),
}

impl<T> Sink<'_, T> {
    /// Hand a piece on; waits while the caller is busy with earlier chunks. `false`: the
    /// caller stopped reading, and the work should end.
    pub fn send(&self, piece: T) -> bool {
        match self.to {
            To::Channel(tx) => tx.send(piece).is_ok(),
            To::Here(f) => f(piece),
        }
    }
}

/// The threads of a run.
#[derive(Clone, Copy, Debug)]
pub struct Workers {
    /// At most this many threads.
    pub threads: usize,
    /// Bytes of stack of each.
    pub stack: usize,
    /// How many chunks may be under way or waiting, their pieces held, past the one the
    /// caller is reading: what is held is bounded by this many chunks' pieces
    /// (`PIECES_AHEAD` each). Many small chunks behind a slow one want a long reach; big
    /// ones, a short one.
    pub ahead: usize,
}

/// No worker thread could be started (no room for its stack); nothing was done.
#[derive(Debug, PartialEq, Eq)]
pub struct NoThreads;

/// Do `chunks` chunks on the threads `workers` describes. Each thread
/// makes its state once with `init`, then runs `work` on the chunks it takes. Every piece
/// goes to `consume`, on this thread, in chunk order and in the order `work` sent them;
/// `consume` breaking stops the run (work under way ends at its next send) and its value
/// is returned.
pub fn run<S, T, B>(
    chunks: usize,
    workers: Workers,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize, &Sink<'_, T>) + Sync,
    mut consume: impl FnMut(T) -> ControlFlow<B>,
) -> Result<Option<B>, NoThreads>
where
    T: Send,
{
    if chunks == 0 {
        return Ok(None);
    }
    let Workers { threads, stack, ahead } = workers;
    let next = Mutex::new(0usize);
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // The chunks registered and not yet read by the caller, in chunk order.
        let (reg_tx, reg_rx) = sync_channel::<Receiver<T>>(ahead.max(1));
        let mut started = 0;
        for i in 0..threads.min(chunks) {
            let reg_tx = reg_tx.clone();
            let (next, stop, init, work) = (&next, &stop, &init, &work);
            let worker = move || {
                let mut state = init();
                while !stop.load(Ordering::Relaxed) {
                    let (index, tx) = {
                        let mut n = next.lock().unwrap_or_else(PoisonError::into_inner);
                        if *n >= chunks {
                            return;
                        }
                        let (tx, rx) = sync_channel(PIECES_AHEAD);
                        // Taking the number and registering under one lock keeps the
                        // registrations in chunk order.
                        if reg_tx.send(rx).is_err() {
                            return;
                        }
                        *n += 1;
                        (*n - 1, tx)
                    };
                    work(&mut state, index, &Sink { to: To::Channel(&tx) });
                }
            };
            let spawned = std::thread::Builder::new()
                .name(format!("chunk-worker-{i}"))
                .stack_size(stack)
                .spawn_scoped(scope, worker);
            if spawned.is_ok() {
                started += 1;
            }
        }
        // The workers hold the only senders now: when the last one ends, reading ends.
        drop(reg_tx);
        if started == 0 {
            return Err(NoThreads);
        }
        for chunk in reg_rx.iter() {
            for piece in chunk.iter() {
                if let ControlFlow::Break(b) = consume(piece) {
                    stop.store(true, Ordering::Relaxed);
                    // Dropping the receivers (on return, before the threads are joined)
                    // makes every waiting or later send fail.
                    return Ok(Some(b));
                }
            }
        }
        Ok(None)
    })
}

/// [`run`] without threads, for when none can start: the chunks one after the other on
/// this thread, each piece handed to `consume` as it is sent.
pub fn run_here<S, T, B>(
    chunks: usize,
    init: impl Fn() -> S,
    work: impl Fn(&mut S, usize, &Sink<'_, T>),
    consume: impl FnMut(T) -> ControlFlow<B>,
) -> Option<B> {
    let consume = RefCell::new(consume);
    let stopped = RefCell::new(None);
    let here = |piece: T| {
        if stopped.borrow().is_some() {
            return false;
        }
        match (consume.borrow_mut())(piece) {
            ControlFlow::Continue(()) => true,
            ControlFlow::Break(b) => {
                *stopped.borrow_mut() = Some(b);
                false
            }
        }
    };
    let sink = Sink { to: To::Here(&here) };
    let mut state = init();
    for index in 0..chunks {
        if stopped.borrow().is_some() {
            break;
        }
        work(&mut state, index, &sink);
    }
    stopped.into_inner()
}

/// Split `sizes` (in order) into contiguous ranges of about `target` in total each.
pub fn split(sizes: impl Iterator<Item = usize>, target: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut acc, mut len) = (0, 0, 0);
    for (i, size) in sizes.enumerate() {
        acc += size;
        len = i + 1;
        if acc >= target {
            out.push(start..len);
            start = len;
            acc = 0;
        }
    }
    if start < len {
        out.push(start..len);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(chunks: usize, threads: usize, per_chunk: usize) -> Vec<(usize, usize)> {
        let mut got = Vec::new();
        let r = run(
            chunks,
            Workers { threads, stack: 1 << 20, ahead: threads * 2 },
            || (),
            |_, c, sink| {
                // Later chunks finish first, so order can only come from the registration.
                std::thread::sleep(std::time::Duration::from_micros(((chunks - c) * 50) as u64));
                for p in 0..per_chunk {
                    if !sink.send((c, p)) {
                        return;
                    }
                }
            },
            |piece| {
                got.push(piece);
                ControlFlow::<()>::Continue(())
            },
        );
        assert_eq!(r, Ok(None));
        got
    }

    #[test]
    fn pieces_arrive_in_chunk_order_then_send_order() {
        for threads in [1, 2, 4] {
            let got = collect(40, threads, 50);
            let want: Vec<(usize, usize)> = (0..40).flat_map(|c| (0..50).map(move |p| (c, p))).collect();
            assert_eq!(got, want, "{threads} threads");
        }
    }

    #[test]
    fn breaking_stops_workers_that_would_send_forever() {
        let mut seen = 0;
        let r = run(
            8,
            Workers { threads: 2, stack: 1 << 20, ahead: 4 },
            || (),
            |_, c, sink| {
                let mut p = 0u64;
                while sink.send((c, p)) {
                    p += 1;
                }
            },
            |(c, _)| {
                seen += 1;
                if seen == 1000 {
                    ControlFlow::Break(c)
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        // Chunk 0 never ends, so the break comes while reading it.
        assert_eq!(r, Ok(Some(0)));
    }

    #[test]
    fn run_here_gives_the_same_pieces_and_stops_where_the_caller_breaks() {
        let work = |_: &mut (), c: usize, sink: &Sink<'_, (usize, usize)>| {
            for p in 0..3 {
                if !sink.send((c, p)) {
                    return;
                }
            }
        };
        let mut got = Vec::new();
        let r = run_here(
            4,
            || (),
            work,
            |piece| {
                got.push(piece);
                ControlFlow::<()>::Continue(())
            },
        );
        assert_eq!(r, None);
        assert_eq!(got, (0..4).flat_map(|c| (0..3).map(move |p| (c, p))).collect::<Vec<_>>());
        let mut seen = 0;
        let r = run_here(
            4,
            || (),
            work,
            |(c, p)| {
                seen += 1;
                if (c, p) == (1, 1) {
                    ControlFlow::Break(seen)
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert_eq!(r, Some(5), "nothing is handed on after the break");
    }

    #[test]
    fn split_cuts_at_the_target_and_keeps_the_tail() {
        assert_eq!(split([3, 3, 3, 3, 1].into_iter(), 6), vec![0..2, 2..4, 4..5]);
        assert_eq!(split([10, 1].into_iter(), 4), vec![0..1, 1..2]);
        assert!(split(std::iter::empty(), 4).is_empty());
    }
}
