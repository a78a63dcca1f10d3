//! Particles between windows: owned particles that left the owned slab move to the rank that
//! owns their layer, and copies of the particles within a neighbour's ghost layers are sent to
//! it (ids with [`GHOST_ID_BIT`], dropped at the next exchange). Pairs talk in two phases
//! (even ranks with their upper neighbour, then with their lower), so no rank waits on a chain.

use super::{is_ghost, GHOST_ID_BIT};
use flip_comm::{CommExt, Communicator};
use flip_core::Particles;
use flip_graph::window::{ExchangeCounts, Window};
use glam::Vec3;

/// Values per particle in a batch: position (domain coordinates) and velocity, then the nine
/// affine components when the batch carries them.
const BASE: usize = 6;
const AFFINE: usize = 9;

/// Drops the ghosts of the last substep, migrates and refreshes ghosts. Collective.
///
/// # Panics
/// Particles without ids (a decomposed run gives every particle an id).
pub fn exchange_particles(w: &Window, particles: &mut Particles) -> ExchangeCounts {
    assert!(particles.has_ids(), "a decomposed run needs particle ids");
    let (rank, ranks) = w.rank();
    let (below, above) = (w.owned.start as isize, w.owned.end as isize);
    let codec = Codec::new(w, particles);
    let mut counts = ExchangeCounts::default();
    // migration: last substep's ghosts are dropped, leavers sent to their new owner
    let mut out = [codec.batch(), codec.batch()];
    let keep: Vec<bool> = (0..particles.len())
        .map(|i| {
            if is_ghost(particles.id[i]) {
                return false;
            }
            let l = w.layer_of(particles.pos[i]);
            let to = if l < below && rank > 0 {
                0
            } else if l >= above && rank + 1 < ranks {
                1
            } else {
                return true;
            };
            codec.encode(particles, i, &mut out[to]);
            counts.migrated_out += 1;
            false
        })
        .collect();
    particles.retain_mask(&keep);
    for batch in swap(w, &out, &mut counts) {
        counts.migrated_in += decode(w, &batch, particles, 0);
    }
    // ghost copies: the owned particles within `g` layers of a neighbour's slab
    let codec = Codec::new(w, particles);
    let (g_lo, g_hi) = w.ghost_layers();
    let mut out = [codec.batch(), codec.batch()];
    for i in 0..particles.len() {
        let l = w.layer_of(particles.pos[i]);
        if rank > 0 && l < below + g_lo as isize {
            codec.encode(particles, i, &mut out[0]);
        }
        if rank + 1 < ranks && l >= above - g_hi as isize {
            codec.encode(particles, i, &mut out[1]);
        }
    }
    for batch in swap(w, &out, &mut counts) {
        counts.ghosts_in += decode(w, &batch, particles, GHOST_ID_BIT);
    }
    counts
}

/// Sends `out[0]` to the lower neighbour and `out[1]` to the upper one; returns what they sent.
fn swap(w: &Window, out: &[Batch; 2], counts: &mut ExchangeCounts) -> Vec<Batch> {
    let (rank, ranks) = w.rank();
    let mut got = Vec::new();
    for phase in 0..2u32 {
        let upper = rank.is_multiple_of(2) == (phase == 0);
        let peer = if upper {
            (rank + 1 < ranks).then_some(rank + 1)
        } else {
            rank.checked_sub(1)
        };
        if let Some(peer) = peer {
            let send = &out[usize::from(upper)];
            counts.bytes_sent += send.bytes();
            got.push(send.swap(w.comm().as_ref(), peer));
        }
    }
    got
}

/// Particles in flight: ids as integers, positions, velocities and affine rows as f32.
#[derive(Debug, Default)]
pub(super) struct Batch {
    /// Whether affine velocities follow each particle's velocity.
    affine: bool,
    ids: Vec<u64>,
    /// [`Batch::stride`] values per particle.
    values: Vec<f32>,
}

impl Batch {
    /// Values per particle.
    fn stride(&self) -> usize {
        BASE + if self.affine { AFFINE } else { 0 }
    }

    /// Bytes of ids and values.
    fn bytes(&self) -> usize {
        size_of_val(&self.ids[..]) + size_of_val(&self.values[..])
    }

    /// Sends this batch to `peer` while receiving its: the count and whether affine velocities
    /// travel, then the ids, then the values (three paired exchanges).
    pub(super) fn swap(&self, comm: &dyn Communicator, peer: u32) -> Batch {
        let mut head = [0u64; 2];
        comm.exchange(
            peer,
            &[self.ids.len() as u64, u64::from(self.affine)],
            &mut head,
        );
        let n = usize::try_from(head[0]).expect("a batch fits in memory");
        let mut got = Batch {
            affine: head[1] != 0,
            ids: vec![0; n],
            values: Vec::new(),
        };
        got.values = vec![0.0; n * got.stride()];
        comm.exchange(peer, &self.ids, &mut got.ids);
        comm.exchange(peer, &self.values, &mut got.values);
        got
    }
}

/// Writes particles of one set into batches: the window's origin and whether affine
/// velocities travel, fixed for the set.
pub(super) struct Codec {
    origin: Vec3,
    affine: bool,
}

impl Codec {
    pub(super) fn new(w: &Window, ps: &Particles) -> Self {
        Self {
            origin: w.origin(),
            affine: ps.has_affine(),
        }
    }

    /// An empty batch for this set.
    pub(super) fn batch(&self) -> Batch {
        Batch {
            affine: self.affine,
            ..Batch::default()
        }
    }

    /// Appends particle `i` to `batch` (one of [`Codec::batch`]).
    pub(super) fn encode(&self, ps: &Particles, i: usize, batch: &mut Batch) {
        batch.ids.push(ps.id[i]);
        batch.values.extend((ps.pos[i] + self.origin).to_array());
        batch.values.extend(ps.vel[i].to_array());
        if self.affine {
            batch
                .values
                .extend(ps.affine[i].iter().flat_map(|r| r.to_array()));
        }
    }
}

/// Appends a batch's particles, ids or-ed with `tag`; returns how many.
pub(super) fn decode(w: &Window, batch: &Batch, ps: &mut Particles, tag: u64) -> usize {
    if batch.ids.is_empty() {
        return 0;
    }
    let affine = batch.affine;
    let origin = w.origin();
    let adopt = ps.is_empty() && affine;
    let keep_affine = ps.has_affine() || adopt;
    let records = batch.values.chunks_exact(batch.stride());
    for (&id, rec) in batch.ids.iter().zip(records) {
        let v = |k: usize| Vec3::new(rec[k], rec[k + 1], rec[k + 2]);
        ps.pos.push(v(0) - origin);
        ps.vel.push(v(3));
        ps.id.push(id | tag);
        if keep_affine {
            let a = |r: usize| if affine { v(6 + 3 * r) } else { Vec3::ZERO };
            ps.affine.push([a(0), a(1), a(2)]);
        }
    }
    batch.ids.len()
}
