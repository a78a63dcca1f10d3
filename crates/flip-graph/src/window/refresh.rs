//! Ghost layers of the grid fields a graph carries from one substep to the next: before every
//! substep each rank copies its owned layers nearest a neighbour into that neighbour's ghost
//! layers, so the substep starts from the single-domain values on the whole window (the data
//! kinds' [`crate::kind::KindOps::refresh_ghosts`] call it for their grids).

use super::Window;
use bytemuck::Pod;
use flip_comm::CommExt;
use flip_core::Grid3;
use std::ops::Range;

/// One field on the window's cells or on its faces: layer `L` along the slab axis belongs to
/// cell layer `L` (a face layer is the face below its cell), so a face field's extra top layer,
/// the window's outer face, is left as it is, like the window's other outer values.
/// A grid that is not a field of this window (too few layers, or layers beyond the slab axis)
/// is left alone.
pub fn refresh_grid<T: Pod>(w: &Window, g: &mut Grid3<T>) {
    let dims = g.dims();
    let layers = w.local.dims()[w.axis];
    if dims[w.axis] < layers || dims[w.axis + 1..].iter().any(|&d| d > 1) {
        return;
    }
    let layer_len: usize = dims[..w.axis].iter().product();
    let l = w.dist.layout();
    let ghost = l.ghost_lo.max(l.ghost_hi) as usize;
    exchange_layers(w, &mut g.data, layer_len, w.owned.clone(), ghost);
}

/// Sends the `ghost` owned layers nearest each neighbour and receives its into the ghost
/// layers beside them; pairs (even, odd) first, then (odd, even), as the solver's halo
/// exchange does, so no rank waits on a chain.
fn exchange_layers<T: Pod>(
    w: &Window,
    data: &mut [T],
    layer_len: usize,
    owned: Range<usize>,
    ghost: usize,
) {
    let (rank, ranks) = w.rank();
    let n = ghost * layer_len;
    if n == 0 {
        return;
    }
    for phase in 0..2u32 {
        let upper = rank.is_multiple_of(2) == (phase == 0);
        let (peer, sent, into) = if upper {
            if rank + 1 >= ranks {
                continue;
            }
            (
                rank + 1,
                owned.end - ghost..owned.end,
                owned.end..owned.end + ghost,
            )
        } else {
            if rank == 0 {
                continue;
            }
            (
                rank - 1,
                owned.start..owned.start + ghost,
                owned.start - ghost..owned.start,
            )
        };
        let span = |r: Range<usize>| r.start * layer_len..r.end * layer_len;
        let send = data[span(sent)].to_vec();
        w.comm().exchange(peer, &send, &mut data[span(into)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flip_comm::threads::ThreadComm;
    use flip_core::GridSpec;

    /// Each rank fills its window with `rank + 1` and its owned cells with their global layer;
    /// after the refresh every cell and face layer holds its global layer except the window's
    /// outer face of a face field.
    #[test]
    fn ghost_layers_take_the_neighbours_owned_layers() {
        let global = GridSpec::new(4, 24, 1, 0.25);
        let comms = ThreadComm::group(3);
        std::thread::scope(|s| {
            for comm in comms {
                s.spawn(move || {
                    let w = Window::new(comm, global, 3).unwrap();
                    let rank = w.rank().0;
                    let mut cells = Grid3::new(4, w.local.nj, 1, rank as f32 + 1.0);
                    let mut faces = Grid3::new(4, w.local.nj + 1, 1, rank as f32 + 1.0);
                    for g in [&mut cells, &mut faces] {
                        for j in w.owned.clone() {
                            g.data[j * 4..(j + 1) * 4].fill((w.offset + j) as f32);
                        }
                        refresh_grid(&w, g);
                    }
                    for j in 0..w.local.nj {
                        assert_eq!(cells.data[j * 4], (w.offset + j) as f32, "rank {rank}");
                        assert_eq!(faces.data[j * 4], (w.offset + j) as f32, "rank {rank}");
                    }
                });
            }
        });
    }
}
