//! What every rank owns gathered to rank 0 as a single-rank run would hold it, for the
//! exports: cell fields, the MAC velocity.

use super::Window;
use flip_comm::CommExt;
use flip_core::{Grid3, MacGrid};
use std::ops::Range;

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
    let mine = &values[layers.start * layer..layers.end * layer];
    let (rank, ranks) = w.rank();
    if rank != 0 {
        w.comm().exchange_any(0, mine);
        return None;
    }
    let mut all = mine.to_vec();
    for peer in 1..ranks {
        all.extend(w.comm().exchange_any::<f32>(peer, &[]));
    }
    Some(all)
}
