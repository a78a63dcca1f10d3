//! Deterministic random streams: one seed per (run seed, key…), whatever the thread count or
//! the order in which the keys are visited.

/// SplitMix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of the stream of `keys` (a cell's coordinates, a particle id and a frame) in a run
/// seeded with `seed`: SplitMix64 folded over the keys.
pub(crate) fn stream_seed(seed: u64, keys: impl IntoIterator<Item = u64>) -> u64 {
    keys.into_iter().fold(mix(seed), |h, k| {
        mix(h ^ k.wrapping_add(0x9e37_79b9_7f4a_7c15))
    })
}
