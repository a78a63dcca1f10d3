//! Guards after output views: the host fills [`GUARD_BYTES`] bytes right after each output
//! array with [`CANARY`] before `eval` and checks them after it, so a node writing past the end
//! of an output view is caught (a post-condition of `flip_abi::node::NodeEvalFn`). In this
//! process the guard is the tail of the output's own allocation ([`crate::PortRef`]'s `guard`
//! fields); in an isolated node's child, the bytes after each array in the exchange segment.

/// Bytes of every guard.
pub const GUARD_BYTES: usize = 64;
/// The byte a guard is filled with.
pub const CANARY: u8 = 0xA5;

/// Fills `guard` with the canary.
pub(crate) fn fill(guard: &mut [u8]) {
    guard.fill(CANARY);
}

/// Whether `guard` still holds only the canary.
pub(crate) fn intact(guard: &[u8]) -> bool {
    guard.iter().all(|&b| b == CANARY)
}

/// Whether `guard` (empty: no guard) starts right where the `bytes` bytes at `data` end.
pub(crate) fn follows(data: *const u8, bytes: usize, guard: &[u8]) -> bool {
    guard.is_empty() || data.wrapping_add(bytes) == guard.as_ptr()
}

/// What is wrong when the guard after output `port` changed.
pub(crate) fn overrun(port: &str) -> String {
    format!("output `{port}` was written past the end of its view (the guard after it changed)")
}
