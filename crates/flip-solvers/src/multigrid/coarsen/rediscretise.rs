//! Rediscretised coarse levels: each coarse cell's stencil from its children's kinds, averaged
//! face fractions and ghost-fluid distances (Chentanez & Müller 2011).

use super::*;

/// One coarse cell's `(kind, diag, excess, off, dweight)` computed by [`rediscretise`].
type CellOut = (u8, f32, f32, [f32; 3], f32);

/// The face of coarse cell `cc` on side `up` of axis `a`, whose neighbour is air, as a Dirichlet
/// term: the mean over its fine faces of `open / t`, `t` the coarse distance to the fine
/// Dirichlet point behind each (as in [`galerkin`]); an air child counts as a Dirichlet point
/// three quarters of a coarse cell away, as the surface on the coarse face would be.
fn face_dirichlet(fine: &Level, coarse: &Level, cc: [usize; 3], a: usize, up: bool) -> f32 {
    let mut r = [0, 1, 2].map(|b| children(coarse, fine.dims, cc[b], b));
    r[a] = if up {
        [r[a][1] - 1, r[a][1]]
    } else {
        [r[a][0], r[a][0] + 1]
    };
    let step = if up {
        fine.stride[a] as isize
    } else {
        -(fine.stride[a] as isize)
    };
    let (mut sum, mut faces) = (0.0f64, 0u32);
    for k in r[2][0]..r[2][1] {
        for j in r[1][0]..r[1][1] {
            for i in r[0][0]..r[0][1] {
                faces += 1;
                let f = fine.at(i, j, k);
                let n = f.wrapping_add_signed(step);
                let open = f64::from(fine.open[a][if up { f } else { n }]);
                if open == 0.0 {
                    continue;
                }
                let t = if fine.unk[f] == 0 {
                    0.75
                } else if fine.kind[n] == CELL_AIR {
                    coarse_distance(dirichlet_distance(fine, f))
                } else if fine.unk[n] != 0 {
                    coarse_distance(1.0 + distance_beyond(fine, n, step))
                } else {
                    continue;
                };
                sum += open / t;
            }
        }
    }
    (sum / f64::from(faces.max(1))) as f32
}

/// Writes per-row results into the level's natural arrays.
fn scatter_rows(level: &mut Level, rows: Vec<Vec<CellOut>>) {
    let pi = level.pdims[0];
    level
        .kind
        .par_chunks_mut(pi)
        .zip(level.diag.par_chunks_mut(pi))
        .zip(level.excess.par_chunks_mut(pi))
        .zip(level.off.par_chunks_mut(pi))
        .zip(level.dweight.par_chunks_mut(pi))
        .zip(rows.par_iter())
        .for_each(|(((((kind, diag), excess), coef), dweight), row)| {
            for (i, &(k, d, e, cf, dw)) in row.iter().enumerate() {
                kind[i] = k;
                diag[i] = d;
                excess[i] = e;
                coef[i] = cf;
                dweight[i] = dw;
            }
        });
    level.compute_unk();
}

/// Rediscretisation (Chentanez & Müller): coarse kinds by the bubble-preserving rule, face
/// openness as the mean over the fine faces, and the unit stencil on open faces scaled by
/// `(h/H)² = 1/4` per level; a face to air is a Dirichlet term at the distance of the fine
/// Dirichlet points behind it ([`face_dirichlet`]). `depth` is the coarse level's index (1 =
/// first coarse level).
pub(crate) fn rediscretise(fine: &Level, coarse: &mut Level, depth: usize, bubble_levels: usize) {
    let (cdims, fdims) = (coarse.dims, fine.dims);
    let pi = coarse.pdims[0];
    let sigma = 0.25f32.powi(depth as i32);
    // Pass 1: kinds (air if any child is air on the finest levels, "preserve air bubbles";
    // majority below) and face openness.
    let c_ref = &*coarse;
    let rows: Vec<(Vec<u8>, [Vec<f32>; 3])> = (0..coarse.rows())
        .into_par_iter()
        .map(|pr| {
            let mut kinds = vec![CELL_SOLID; pi];
            let mut open = [vec![0.0f32; pi], vec![0.0f32; pi], vec![0.0f32; pi]];
            let Some((cj, ck)) = c_ref.row_jk(pr) else {
                return (kinds, open);
            };
            for ci in 0..cdims[0] {
                let cc = [ci, cj, ck];
                let r = [0, 1, 2].map(|a| children(c_ref, fdims, cc[a], a));
                let (mut nf, mut na) = (0, 0);
                let mut face = [(0.0f32, 0u32); 3];
                for k in r[2][0]..r[2][1] {
                    for j in r[1][0]..r[1][1] {
                        for i in r[0][0]..r[0][1] {
                            let f = fine.at(i, j, k);
                            match fine.kind[f] {
                                CELL_FLUID => nf += 1,
                                CELL_AIR => na += 1,
                                _ => {}
                            }
                            let pos = [i, j, k];
                            for a in 0..3 {
                                let last = pos[a] + 1 == r[a][1];
                                if last && c_ref.active[a] && cc[a] + 1 < cdims[a] {
                                    face[a].0 += fine.open[a][f];
                                    face[a].1 += 1;
                                }
                            }
                        }
                    }
                }
                kinds[ci + 1] = coarse_kind(nf, na, depth <= bubble_levels, true);
                for a in 0..3 {
                    if face[a].1 > 0 {
                        open[a][ci + 1] = face[a].0 / face[a].1 as f32;
                    }
                }
            }
            (kinds, open)
        })
        .collect();
    for (pr, (kinds, open)) in rows.into_iter().enumerate() {
        let span = pr * pi..(pr + 1) * pi;
        coarse.kind[span.clone()].copy_from_slice(&kinds);
        for (dst, src) in coarse.open.iter_mut().zip(&open) {
            dst[span.clone()].copy_from_slice(src);
        }
    }
    // Pass 2: unit stencil on open faces; air neighbours are Dirichlet.
    let c_ref = &*coarse;
    let rows: Vec<_> = (0..coarse.rows())
        .into_par_iter()
        .map(|pr| {
            let mut out = vec![(CELL_SOLID, 0.0f32, 0.0f32, [0.0f32; 3], 0.0f32); pi];
            let Some((cj, ck)) = c_ref.row_jk(pr) else {
                return out;
            };
            for ci in 0..cdims[0] {
                let pc = pr * pi + ci + 1;
                let cell = &mut out[ci + 1];
                cell.0 = c_ref.kind[pc];
                if cell.0 != CELL_FLUID {
                    continue;
                }
                let cc = [ci, cj, ck];
                for a in 0..3 {
                    for up in [false, true] {
                        let nb = if up {
                            (cc[a] + 1 < cdims[a]).then(|| pc + c_ref.stride[a])
                        } else {
                            (cc[a] > 0).then(|| pc - c_ref.stride[a])
                        };
                        let Some(nb) = nb else { continue };
                        let w = sigma * c_ref.open[a][if up { pc } else { nb }];
                        if w == 0.0 {
                            continue;
                        }
                        match c_ref.kind[nb] {
                            CELL_FLUID => {
                                cell.1 += w;
                                if up {
                                    cell.3[a] = -w;
                                }
                            }
                            CELL_AIR => {
                                let d = sigma * face_dirichlet(fine, c_ref, cc, a, up);
                                cell.1 += d;
                                cell.2 += d;
                                cell.4 += w;
                            }
                            _ => {}
                        }
                    }
                }
            }
            out
        })
        .collect();
    scatter_rows(coarse, rows);
}
