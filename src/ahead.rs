//! Batches of work made on the worker threads while the calling thread takes the one
//! before: a long job whose results must be taken in order, one batch in hand and one being
//! made, never all of them.

use std::sync::Mutex;

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
/// each made by `item` on every worker, handed to `take` a batch at a time. `take` may
/// leave the batch's list empty (`drain`): the list is then made into again ([`Spare`]).
pub fn items<T, E, M, F>(count: usize, batch: usize, item: M, mut take: F) -> Result<(), E>
where
    T: Send,
    M: Fn(usize) -> T + Sync,
    F: FnMut(&mut Vec<T>) -> Result<(), E>,
{
    let batch = batch.max(1);
    let spare = Spare::default();
    let make = |k: usize| {
        let mut list = spare.take();
        list.par_extend((k * batch..count.min((k + 1) * batch)).into_par_iter().map(&item));
        list
    };
    each(count.div_ceil(batch), make, |mut list| {
        take(&mut list)?;
        spare.give(list);
        Ok(())
    })
}

/// Lists handed back once what they held was taken, to be filled again: a long job reuses
/// the memory of the lists in flight instead of asking for fresh memory for each, which the
/// allocator, handing freed memory back after 10 ms ([`crate::allocator`]), has the system
/// fault in and zero again.
pub struct Spare<T>(Mutex<Vec<Vec<T>>>);

impl<T> Default for Spare<T> {
    fn default() -> Self {
        Spare(Mutex::new(Vec::new()))
    }
}

impl<T> Spare<T> {
    /// An empty list: one handed back, when there is one.
    pub fn take(&self) -> Vec<T> {
        self.0.lock().ok().and_then(|mut s| s.pop()).unwrap_or_default()
    }

    /// Hand `list` back, emptied (one whose memory was taken away is let go).
    pub fn give(&self, mut list: Vec<T>) {
        if list.capacity() > 0 {
            list.clear();
            if let Ok(mut s) = self.0.lock() {
                s.push(list);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every item is handed on once, in order, a batch at a time: off the workers and on
    /// one, at counts around the batch size, whether `take` drains a batch's list (to be
    /// made into again) or takes the list away. A failing `take` ends the job with its error,
    /// and no batch is handed on after it.
    #[test]
    fn items_are_handed_on_once_in_order_whether_their_lists_are_drained_or_kept() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let batch = 7;
        for count in [0, 1, 6, 7, 8, 20, 21, 50] {
            let run = || {
                let (mut got, mut batches) = (Vec::new(), 0);
                let done = super::items(
                    count,
                    batch,
                    |i| format!("item {i}"),
                    |list: &mut Vec<String>| {
                        batches += 1;
                        assert!(list.len() <= batch, "a batch of {} items", list.len());
                        match batches % 2 {
                            0 => got.extend(std::mem::take(list)),
                            _ => got.append(list),
                        }
                        Ok::<(), ()>(())
                    },
                );
                (done, got, batches)
            };
            let want: Vec<String> = (0..count).map(|i| format!("item {i}")).collect();
            for (done, got, batches) in [run(), pool.install(run)] {
                assert_eq!(done, Ok(()));
                assert_eq!(got, want, "{count} items");
                assert_eq!(batches, count.div_ceil(batch));
            }
        }
        let mut handed = 0;
        let failed = super::items(
            50,
            batch,
            |i| i,
            |_: &mut Vec<usize>| {
                handed += 1;
                Err("closed")
            },
        );
        assert_eq!((failed, handed), (Err("closed"), 1));
    }
}
