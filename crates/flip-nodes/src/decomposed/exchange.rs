//! Particles between windows: owned particles that left the owned slab move to the rank that
//! owns their layer, and copies of the particles within a neighbour's ghost layers are sent to
//! it (ids with [`GHOST_ID_BIT`], dropped at the next exchange). Pairs talk in two phases
//! (even ranks with their upper neighbour, then with their lower), so no rank waits on a chain.

use super::{is_ghost, GHOST_ID_BIT};
use flip_comm::exchange_any;
use flip_core::Particles;
use flip_graph::window::{ExchangeCounts, Window};
use glam::Vec3;

/// Values per particle in a message: position (domain coordinates), velocity, id, then the
/// nine affine components when the message carries them.
const BASE: usize = 7;
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
    let mut out = [Vec::new(), Vec::new()];
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
    for msg in swap(w, &out, &mut counts) {
        counts.migrated_in += decode(w, &msg, particles, 0);
    }
    // ghost copies: the owned particles within `g` layers of a neighbour's slab
    let codec = Codec::new(w, particles);
    let (g_lo, g_hi) = w.ghost_layers();
    let mut out = [Vec::new(), Vec::new()];
    for i in 0..particles.len() {
        let l = w.layer_of(particles.pos[i]);
        if rank > 0 && l < below + g_lo as isize {
            codec.encode(particles, i, &mut out[0]);
        }
        if rank + 1 < ranks && l >= above - g_hi as isize {
            codec.encode(particles, i, &mut out[1]);
        }
    }
    for msg in swap(w, &out, &mut counts) {
        counts.ghosts_in += decode(w, &msg, particles, GHOST_ID_BIT);
    }
    counts
}

/// Sends `out[0]` to the lower neighbour and `out[1]` to the upper one; returns what they sent.
fn swap(w: &Window, out: &[Vec<f64>; 2], counts: &mut ExchangeCounts) -> Vec<Vec<f64>> {
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
            counts.values_sent += send.len();
            got.push(exchange_any(w.comm().as_ref(), peer, send));
        }
    }
    got
}

/// Writes particles of one set into messages: the window's origin and whether affine
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

    /// Appends particle `i` to a message (header: whether affine velocities follow).
    pub(super) fn encode(&self, ps: &Particles, i: usize, msg: &mut Vec<f64>) {
        if msg.is_empty() {
            msg.push(f64::from(u8::from(self.affine)));
        }
        let p = ps.pos[i] + self.origin;
        let v = ps.vel[i];
        msg.extend([p.x, p.y, p.z, v.x, v.y, v.z].map(f64::from));
        msg.push(ps.id[i] as f64);
        if self.affine {
            msg.extend(
                ps.affine[i]
                    .iter()
                    .flat_map(|r| r.to_array())
                    .map(f64::from),
            );
        }
    }
}

/// Appends a message's particles, ids or-ed with `tag`; returns how many.
pub(super) fn decode(w: &Window, msg: &[f64], ps: &mut Particles, tag: u64) -> usize {
    let Some((&head, body)) = msg.split_first() else {
        return 0;
    };
    let affine = head != 0.0;
    let stride = BASE + if affine { AFFINE } else { 0 };
    let origin = w.origin();
    let adopt = ps.is_empty() && affine;
    let keep_affine = ps.has_affine() || adopt;
    for rec in body.chunks_exact(stride) {
        let f = |k: usize| rec[k] as f32;
        ps.pos.push(Vec3::new(f(0), f(1), f(2)) - origin);
        ps.vel.push(Vec3::new(f(3), f(4), f(5)));
        ps.id.push(rec[6] as u64 | tag);
        if keep_affine {
            let a = |r: usize| {
                if affine {
                    Vec3::new(f(7 + 3 * r), f(8 + 3 * r), f(9 + 3 * r))
                } else {
                    Vec3::ZERO
                }
            };
            ps.affine.push([a(0), a(1), a(2)]);
        }
    }
    body.len() / stride
}
