//! What every rank owns gathered to rank 0 as a single-rank run would hold it, for the
//! exports: particles (domain coordinates, id order), cell fields, the MAC velocity.

use super::exchange::{decode, Codec};
use super::{is_ghost, Window};
use flip_comm::exchange_any;
use flip_core::{Grid3, MacGrid, Particles};
use std::ops::Range;

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
    let layer = w.dist.layout().layer_len() * per_cell;
    gather_layers(w, values, layer, w.owned.clone())
}

/// Rank 0 receives the window MAC velocity `vel` of every rank as the domain's: each rank sends
/// its owned layers of each component, the faces below its owned cells along the slab axis, and
/// the last rank also the domain's top faces (in 2D the unused `w` is not sent). Collective.
pub fn gather_mac(w: &Window, vel: &MacGrid) -> Option<MacGrid> {
    let (rank, ranks) = w.rank();
    let top = usize::from(rank + 1 == ranks);
    let g = w.global;
    let three_d = g.nk > 1;
    // every collective runs on every rank before rank 0's `?`s
    let parts: Vec<Option<Vec<f32>>> = vel
        .axes()
        .into_iter()
        .enumerate()
        .map(|(c, grid)| {
            if c == 2 && !three_d {
                // 2D: z faces are two planes of zeros, not contiguous along the slab axis y
                return (rank == 0).then(|| vec![0.0; g.ni * g.nj * 2]);
            }
            let layer: usize = grid.dims()[..w.axis].iter().product();
            let end = w.owned.end + if c == w.axis { top } else { 0 };
            gather_layers(w, &grid.data, layer, w.owned.start..end)
        })
        .collect();
    let [u, v, wz]: [Option<Vec<f32>>; 3] = parts.try_into().ok()?;
    let grid = |data: Vec<f32>, [ni, nj, nk]: [usize; 3]| {
        let mut out = Grid3::new(ni, nj, nk, 0.0);
        out.data = data;
        out
    };
    Some(MacGrid {
        u: grid(u?, [g.ni + 1, g.nj, g.nk]),
        v: grid(v?, [g.ni, g.nj + 1, g.nk]),
        w: grid(wz?, [g.ni, g.nj, g.nk + 1]),
    })
}

/// Rank 0 receives window layers `layers` (of `layer` values each, along the slab axis) of
/// every rank's `values`, concatenated in rank order. Collective.
fn gather_layers(
    w: &Window,
    values: &[f32],
    layer: usize,
    layers: Range<usize>,
) -> Option<Vec<f32>> {
    let mine: Vec<f64> = values[layers.start * layer..layers.end * layer]
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
