//! Distributed solves on thread ranks, for the unit tests: each rank is a thread holding its
//! slab of one global problem, offered the distributed suite over a [`ThreadComm`].

use crate::owned::OwnedProblem;
use flip_comm::threads::ThreadComm;
use flip_comm::Distribution;
use flip_host::distributed::with_suite;
use flip_sdk::Problem;
use std::sync::Arc;

/// Runs `solve` on every rank's slab of `p` (with `SOLVE_GHOST_LAYERS`, as the host cuts it);
/// returns each rank's result, in rank order, and the global pressure (every rank's owned
/// layers).
pub(crate) fn solve_on_thread_ranks<R: Send + 'static>(
    p: &OwnedProblem,
    ranks: u32,
    solve: impl Fn(&mut Problem<'_>) -> R + Send + Sync + 'static,
) -> (Vec<R>, Vec<f64>) {
    let solve = Arc::new(solve);
    let handles: Vec<_> = ThreadComm::group(ranks)
        .into_iter()
        .map(|comm| {
            let (p, solve) = (p.clone(), solve.clone());
            std::thread::spawn(move || {
                let dist = Arc::new(Distribution::for_solve(comm, p.dims).expect("slabs fit"));
                let layout = *dist.layout();
                let mut slab = p.slab(&layout);
                let result = with_suite(dist, || solve(&mut slab.view()));
                (result, slab.pressure[layout.owned_range()].to_vec())
            })
        })
        .collect();
    let mut results = Vec::new();
    let mut pressure = Vec::new();
    for h in handles {
        let (r, owned) = h.join().expect("rank finished");
        results.push(r);
        pressure.extend(owned);
    }
    (results, pressure)
}
