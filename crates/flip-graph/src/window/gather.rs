//! The owned particles of every rank gathered to rank 0, in domain coordinates and id order:
//! the particles a single-rank run would hold, for the export.

use super::exchange::{decode, Codec};
use super::{is_ghost, Window};
use flip_core::Particles;
use flip_plugin::host::distributed::exchange_any;

/// Rank 0 receives every rank's owned particles (positions in domain coordinates, sorted by
/// id); the other ranks send theirs and get `None`. Collective.
pub fn gather_owned(w: &Window, particles: &Particles) -> Option<Particles> {
    let (rank, ranks) = w.rank();
    let codec = Codec::new(w, particles);
    let mut msg = Vec::new();
    for i in 0..particles.len() {
        if !is_ghost(particles.id_of(i)) {
            codec.encode(particles, i, &mut msg);
        }
    }
    if rank != 0 {
        exchange_any(w.comm().as_ref(), 0, &msg);
        return None;
    }
    let mut all = Particles::default();
    // rank 0's window starts at the domain's origin: its positions are domain positions
    decode(w, &msg, &mut all, 0);
    for peer in 1..ranks {
        decode(w, &exchange_any(w.comm().as_ref(), peer, &[]), &mut all, 0);
    }
    all.next_id = particles.next_id;
    Some(sorted_by_id(all))
}

fn sorted_by_id(ps: Particles) -> Particles {
    let mut order: Vec<usize> = (0..ps.len()).collect();
    order.sort_unstable_by_key(|&i| ps.id[i]);
    let affine = ps.has_affine();
    Particles {
        pos: order.iter().map(|&i| ps.pos[i]).collect(),
        vel: order.iter().map(|&i| ps.vel[i]).collect(),
        affine: if affine {
            order.iter().map(|&i| ps.affine[i]).collect()
        } else {
            Vec::new()
        },
        id: order.iter().map(|&i| ps.id[i]).collect(),
        next_id: ps.next_id,
    }
}

/// Rank 0 receives the owned cells of every rank's window cell field `values` (`per_cell`
/// values a cell, x fastest), as one field of the domain; the others send theirs and get
/// `None`. Collective.
pub fn gather_cells(w: &Window, values: &[f32], per_cell: usize) -> Option<Vec<f32>> {
    let owned = w.dist.layout().owned_range();
    let mine: Vec<f64> = values[owned.start * per_cell..owned.end * per_cell]
        .iter()
        .map(|&v| f64::from(v))
        .collect();
    let (rank, ranks) = w.rank();
    if rank != 0 {
        exchange_any(w.comm().as_ref(), 0, &mine);
        return None;
    }
    let mut all: Vec<f32> = mine.iter().map(|&v| v as f32).collect();
    for peer in 1..ranks {
        let part = exchange_any(w.comm().as_ref(), peer, &[]);
        all.extend(part.iter().map(|&v| v as f32));
    }
    Some(all)
}
