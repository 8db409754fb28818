//! Loading several plugins at once: each load (read, sha256, compile or load compiled code,
//! link, instantiate, `init`) runs on one of a few threads, so a cold start compiles distinct
//! components side by side. The engine compiles each distinct component once (see
//! `PluginEngine::compile`), whichever thread asks first.

use std::sync::Mutex;
use std::sync::PoisonError;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One load job.
pub type LoadJob<'a, T> = Box<dyn FnOnce() -> T + Send + 'a>;

/// Run `jobs` on up to as many threads as the machine has cores (at most one per job) and
/// return their results in the order of `jobs`. One job, or one core, runs on the calling
/// thread.
pub fn load_parallel<'a, T: Send>(jobs: Vec<LoadJob<'a, T>>) -> Vec<T> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let threads = cores.min(jobs.len());
    if threads <= 1 {
        return jobs.into_iter().map(|job| job()).collect();
    }
    let queue: Vec<Mutex<Option<LoadJob<'a, T>>>> =
        jobs.into_iter().map(|job| Mutex::new(Some(job))).collect();
    let results: Vec<Mutex<Option<T>>> = queue.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = queue.get(index) else { break };
            let job = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(job) = job {
                let value = job();
                *results[index]
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = Some(value);
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            // A thread that cannot be started leaves its share to the others.
            let _ = std::thread::Builder::new()
                .name("warden-plugin-load".into())
                .spawn_scoped(scope, work);
        }
        work();
    });
    results
        .into_iter()
        .filter_map(|slot| slot.into_inner().unwrap_or_else(PoisonError::into_inner))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_job_order() {
        let jobs: Vec<LoadJob<'_, usize>> = (0..17)
            .map(|i| -> LoadJob<'_, usize> {
                Box::new(move || {
                    // Uneven work so that jobs finish out of order.
                    (0..(17 - i) * 1000).fold(i, |acc, _| std::hint::black_box(acc))
                })
            })
            .collect();
        assert_eq!(load_parallel(jobs), (0..17).collect::<Vec<_>>());
    }

    #[test]
    fn no_jobs_no_results() {
        assert!(load_parallel::<u8>(Vec::new()).is_empty());
    }
}
