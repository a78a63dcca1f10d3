//! Taubin λ|μ smoothing (Taubin 1995, "A signal processing approach to fair surface design"):
//! a shrinking Laplacian step (λ > 0) then an inflating one (μ < −λ), which smooths without
//! the volume loss of plain Laplacian smoothing. Vertex normals by area-weighted face normals.

use super::TriMesh;
use glam::Vec3;
use rayon::prelude::*;

/// Taubin's shrink factor.
const LAMBDA: f32 = 0.5;
/// Taubin's inflate factor (pass-band frequency `1/λ + 1/μ ≈ 0.1`).
const MU: f32 = -0.53;

/// Each vertex's neighbours along mesh edges, as a compressed row list.
struct Adjacency {
    start: Vec<usize>,
    neighbours: Vec<u32>,
}

impl Adjacency {
    fn new(vertex_count: usize, triangles: &[[u32; 3]]) -> Self {
        let mut pairs: Vec<(u32, u32)> = triangles
            .par_iter()
            .flat_map_iter(|&[a, b, c]| [(a, b), (b, a), (b, c), (c, b), (c, a), (a, c)])
            .collect();
        pairs.par_sort_unstable();
        pairs.dedup();
        let mut start = vec![0usize; vertex_count + 1];
        for &(v, _) in &pairs {
            start[v as usize + 1] += 1;
        }
        for v in 0..vertex_count {
            start[v + 1] += start[v];
        }
        let neighbours = pairs.into_iter().map(|(_, n)| n).collect();
        Self { start, neighbours }
    }

    fn of(&self, v: usize) -> &[u32] {
        &self.neighbours[self.start[v]..self.start[v + 1]]
    }
}

/// Runs `iterations` Taubin λ|μ pairs of umbrella (uniform Laplacian) steps on the positions.
pub fn taubin_smooth(mesh: &mut TriMesh, iterations: usize) {
    let adjacency = Adjacency::new(mesh.positions.len(), &mesh.triangles);
    let mut next = vec![Vec3::ZERO; mesh.positions.len()];
    for _ in 0..iterations {
        for factor in [LAMBDA, MU] {
            laplacian_step(&adjacency, &mesh.positions, factor, &mut next);
            std::mem::swap(&mut mesh.positions, &mut next);
        }
    }
}

/// `out[v] = p[v] + factor · (mean of neighbours − p[v])`.
fn laplacian_step(adjacency: &Adjacency, p: &[Vec3], factor: f32, out: &mut [Vec3]) {
    out.par_iter_mut().enumerate().for_each(|(v, o)| {
        let n = adjacency.of(v);
        *o = if n.is_empty() {
            p[v]
        } else {
            let mean = n.iter().map(|&u| p[u as usize]).sum::<Vec3>() / n.len() as f32;
            p[v] + factor * (mean - p[v])
        };
    });
}

/// Unit vertex normals: the sum of the incident triangles' area-weighted normals.
pub fn area_weighted_normals(mesh: &TriMesh) -> Vec<Vec3> {
    let p = &mesh.positions;
    let mut incident: Vec<(u32, u32)> = mesh
        .triangles
        .par_iter()
        .enumerate()
        .flat_map_iter(|(t, tri)| tri.map(|v| (v, t as u32)))
        .collect();
    incident.par_sort_unstable();
    let mut normals = vec![Vec3::ZERO; p.len()];
    let face = |t: u32| {
        let [a, b, c] = mesh.triangles[t as usize].map(|v| p[v as usize]);
        (b - a).cross(c - a)
    };
    // each vertex's run of (vertex, triangle) pairs, summed in triangle order
    let runs: Vec<&[(u32, u32)]> = incident.chunk_by(|x, y| x.0 == y.0).collect();
    let sums: Vec<(u32, Vec3)> = runs
        .par_iter()
        .map(|run| (run[0].0, run.iter().map(|&(_, t)| face(t)).sum::<Vec3>()))
        .collect();
    for (v, n) in sums {
        normals[v as usize] = n.normalize_or_zero();
    }
    normals
}
