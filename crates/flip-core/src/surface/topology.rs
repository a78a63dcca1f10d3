//! Mesh checks: closed (watertight), edge- and vertex-manifold, consistently oriented; and the
//! enclosed volume by the divergence theorem.

use super::TriMesh;
use rayon::prelude::*;

/// The first defect found in a mesh that should bound a solid.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TopologyError {
    /// The mesh has no triangle.
    #[error("the mesh has no triangles")]
    Empty,
    /// A triangle repeats a vertex or names one that does not exist.
    #[error("triangle {0} repeats a vertex or names a missing one")]
    BadTriangle(usize),
    /// An edge is used by one triangle only (a hole), or its two triangles disagree in
    /// orientation.
    #[error("edge {0}-{1} is open (a hole) or its triangles are inconsistently oriented")]
    OpenEdge(u32, u32),
    /// An edge is shared by more than two triangles (or two with the same orientation).
    #[error("edge {0}-{1} is shared by more than two triangles (non-manifold)")]
    NonManifoldEdge(u32, u32),
    /// The triangles around a vertex form more than one fan (a pinch).
    #[error("vertex {0} joins separate fans of triangles (non-manifold)")]
    NonManifoldVertex(u32),
}

/// Checks that `mesh` is a closed, oriented 2-manifold: every directed edge is used exactly
/// once and its reverse exactly once, and the triangles around each vertex form one cycle.
pub fn check_closed_manifold(mesh: &TriMesh) -> Result<(), TopologyError> {
    if mesh.triangles.is_empty() {
        return Err(TopologyError::Empty);
    }
    let n = mesh.positions.len() as u32;
    if let Some(t) = mesh
        .triangles
        .iter()
        .position(|&[a, b, c]| a == b || b == c || c == a || a.max(b).max(c) >= n)
    {
        return Err(TopologyError::BadTriangle(t));
    }
    check_edges(&mesh.triangles)?;
    check_vertex_fans(&mesh.triangles)
}

/// Every directed edge once, and its reverse once.
fn check_edges(triangles: &[[u32; 3]]) -> Result<(), TopologyError> {
    let mut directed: Vec<(u32, u32)> = triangles
        .par_iter()
        .flat_map_iter(|&[a, b, c]| [(a, b), (b, c), (c, a)])
        .collect();
    directed.par_sort_unstable();
    for run in directed.chunk_by(|x, y| x == y) {
        if run.len() > 1 {
            let (a, b) = run[0];
            return Err(TopologyError::NonManifoldEdge(a, b));
        }
    }
    for &(a, b) in &directed {
        if directed.binary_search(&(b, a)).is_err() {
            return Err(TopologyError::OpenEdge(a, b));
        }
    }
    Ok(())
}

/// With edges already manifold, each triangle `(v, a, b)` maps `a → b` in the link of `v`;
/// the link must be a single cycle.
fn check_vertex_fans(triangles: &[[u32; 3]]) -> Result<(), TopologyError> {
    let mut link: Vec<(u32, u32, u32)> = triangles
        .par_iter()
        .flat_map_iter(|&[a, b, c]| [(a, b, c), (b, c, a), (c, a, b)])
        .collect();
    link.par_sort_unstable();
    let runs: Vec<&[(u32, u32, u32)]> = link.chunk_by(|x, y| x.0 == y.0).collect();
    runs.par_iter().try_for_each(|run| {
        // follow a → b from the first spoke; a single cycle visits every spoke
        let next = |a: u32| run.binary_search_by_key(&a, |s| s.1).map(|i| run[i].2);
        let (first, mut at, mut steps) = (run[0].1, run[0].2, 1usize);
        while at != first {
            at = next(at).map_err(|_| TopologyError::OpenEdge(run[0].0, at))?;
            steps += 1;
            if steps > run.len() {
                break;
            }
        }
        if steps == run.len() {
            Ok(())
        } else {
            Err(TopologyError::NonManifoldVertex(run[0].0))
        }
    })
}

/// Volume enclosed by a closed, outward-oriented mesh: `Σ p₀·(p₁ × p₂) / 6` (divergence
/// theorem), in f64. Negative when the triangles face inwards. Summed in fixed chunks, so the
/// result does not depend on the thread count.
pub fn enclosed_volume(mesh: &TriMesh) -> f64 {
    let partial: Vec<f64> = mesh
        .triangles
        .par_chunks(4096)
        .map(|chunk| {
            let signed = |t: &[u32; 3]| {
                let [a, b, c] = t.map(|v| mesh.positions[v as usize].as_dvec3());
                a.dot(b.cross(c)) / 6.0
            };
            chunk.iter().map(signed).sum::<f64>()
        })
        .collect();
    partial.iter().sum()
}
