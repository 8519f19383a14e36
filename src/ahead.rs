//! Batches of work made on the worker threads while the calling thread takes the one
//! before: a long job whose results must be taken in order, one batch in hand and one being
//! made, never all of them.

use rayon::prelude::*;

/// Make batches `0..count` with `make` (which may itself work in parallel) and hand each to
/// `take`, in order, on this thread. Off the worker threads, the workers make the next batch
/// while `take` has the one before; on a worker (jobs run side by side), one batch after the
/// other, since blocking a worker on the next batch could leave none to make it. The first
/// error of `take` ends the job: no more batches are made once it is known.
pub fn each<T, E, M, F>(count: usize, make: M, mut take: F) -> Result<(), E>
where
    T: Send,
    M: Fn(usize) -> T + Sync,
    F: FnMut(T) -> Result<(), E>,
{
    if count <= 1 || rayon::current_thread_index().is_some() {
        return (0..count).try_for_each(|k| take(make(k)));
    }
    // A hand-over without a queue: a made batch waits for this thread to be done with the
    // one before.
    let (tx, rx) = std::sync::mpsc::sync_channel(0);
    let make = &make;
    rayon::in_place_scope(move |scope| {
        scope.spawn(move |_| {
            for k in 0..count {
                // The receiver is gone once `take` failed: nothing more is wanted.
                if tx.send(make(k)).is_err() {
                    break;
                }
            }
        });
        // On an error the receiver is dropped as this returns, which stops the sender.
        rx.into_iter().try_for_each(take)
    })
}

/// [`each`] for batches of items made one by one: items `0..count`, `batch` to a batch,
/// each made by `item` on every worker, handed to `take` a batch at a time.
pub fn items<T, E, M, F>(count: usize, batch: usize, item: M, take: F) -> Result<(), E>
where
    T: Send,
    M: Fn(usize) -> T + Sync,
    F: FnMut(Vec<T>) -> Result<(), E>,
{
    let batch = batch.max(1);
    let make = |k: usize| (k * batch..count.min((k + 1) * batch)).into_par_iter().map(&item).collect::<Vec<T>>();
    each(count.div_ceil(batch), make, take)
}
