//! Particles in a decomposed run (`run --mpi`): each rank owns the particles in its window's
//! owned slab. Before every substep owned particles that left the slab move to the rank that
//! owns their layer and the neighbours' particles within the ghost layers are copied in
//! ([`exchange_particles`], the particle kind's migration); ghost copies carry
//! [`GHOST_ID_BIT`] in their id and are dropped at the next exchange.

use flip_comm::CommExt;
use flip_core::Particles;
use flip_graph::window::Window;

mod exchange;
mod gather;
pub use exchange::exchange_particles;
pub use gather::gather_owned;

/// Set in the id of a ghost particle (a copy of a neighbour's particle, or one emitted in a
/// ghost layer): it takes part in the substep but is owned, moved and exported elsewhere.
pub const GHOST_ID_BIT: u64 = 1 << 63;

/// Whether `id` is a ghost's.
pub fn is_ghost(id: u64) -> bool {
    id & GHOST_ID_BIT != 0
}

/// The particles this rank owns (ghost copies left out).
pub fn owned_count(particles: &Particles) -> usize {
    particles.id.iter().filter(|&&id| !is_ghost(id)).count()
}

/// Gives `w`'s `owned` new particles at the end of `ps` (numbered from `ps.next_id − owned`
/// on this rank) the ids a single-domain run gives them: the ranks number their new
/// particles one after another in rank order, the slabs' order, which is the domain's cell
/// order. Collective; sets `ps.next_id` past every rank's new particles and returns the
/// first id given here.
pub fn number_new_particles(w: &Window, ps: &mut Particles, owned: usize) -> u64 {
    let rank = w.rank().0 as usize;
    let counts = w.comm().all_gather_one(owned as u64);
    let before: u64 = counts[..rank].iter().sum();
    let total: u64 = counts.iter().sum();
    let start = ps.next_id - owned as u64;
    let first = ps.len() - owned;
    let first_id = start + before;
    for (k, id) in ps.id[first..].iter_mut().enumerate() {
        *id = first_id + k as u64;
    }
    ps.next_id = start + total;
    first_id
}
