//! The host's side of the distributed suite ([`flip_abi::DistributedSuite`]): the C table a
//! solve's `fetch_suite` hands out, over a [`flip_comm::Distribution`].

use flip_comm::Distribution;
use std::sync::Arc;

/// Runs `f` as a solver call on this rank of `dist` would run: `sdk::distributed` then offers
/// the suite (for in-process solvers and their tests).
pub fn with_suite<R>(dist: Arc<Distribution>, f: impl FnOnce() -> R) -> R {
    let ctx = super::services::CallContext::new(None, None).with_distribution(Some(dist));
    let table = ctx.services();
    // SAFETY: `table` and the context it points to live until the end of this function.
    unsafe { flip_sdk::services::with_services(table.table(), f) }
}

mod suite;
pub(crate) use suite::suite_of;

#[cfg(test)]
mod tests;
