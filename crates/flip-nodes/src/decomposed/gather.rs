//! Every rank's owned particles gathered to rank 0 as a single-rank run would hold them, for
//! the exports (domain coordinates, id order).

use super::exchange::{decode, Batch, Codec};
use super::is_ghost;
use flip_core::Particles;
use flip_graph::window::Window;

/// Rank 0 receives every rank's owned particles (positions in domain coordinates, sorted by
/// id); the other ranks send theirs and get `None`. Collective.
pub fn gather_owned(w: &Window, particles: &Particles) -> Option<Particles> {
    let (rank, ranks) = w.rank();
    let codec = Codec::new(w, particles);
    let mut mine = codec.batch();
    for i in 0..particles.len() {
        if !is_ghost(particles.id_of(i)) {
            codec.encode(particles, i, &mut mine);
        }
    }
    let comm = w.comm().as_ref();
    if rank != 0 {
        mine.swap(comm, 0);
        return None;
    }
    let mut all = Particles::default();
    // rank 0's window starts at the domain's origin: its positions are domain positions
    decode(w, &mine, &mut all, 0);
    for peer in 1..ranks {
        decode(w, &Batch::default().swap(comm, peer), &mut all, 0);
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
        // a decomposed run carries none: an emitter giving one refuses windows
        viscosity: Vec::new(),
    }
}
