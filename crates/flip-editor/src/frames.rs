//! What the UI keeps of each simulated frame: a (sub)sample of particle positions and speeds,
//! overlay slices (level set, cell kinds), the solids to draw, and per-node timings and stats.

use crate::types::NodeStatus;
use flip_core::{CellGrid, CellKind, Grid3, GridSpec, Solids};
use flip_graph::{StepReport, Value};
use std::sync::Arc;

/// Most particles stored (and drawn) per frame; larger sets are subsampled evenly.
pub const MAX_POINTS: usize = 300_000;
/// Memory the frame cache may use for particles; beyond it the oldest frames lose theirs
/// (their stats and overlays stay).
pub const CACHE_BUDGET_BYTES: usize = 1 << 31;

/// One z-slice of a cell grid (2D: the grid itself; 3D: the middle slice).
#[derive(Clone, Debug, PartialEq)]
pub struct Slice<T> {
    /// Cells along x.
    pub ni: usize,
    /// Cells along y.
    pub nj: usize,
    /// The slice's k index.
    pub k: usize,
    /// `ni * nj` values, x fastest.
    pub data: Vec<T>,
}

impl<T: Copy> Slice<T> {
    /// The middle z-slice of `grid`.
    pub fn middle(grid: &Grid3<T>) -> Self {
        let k = grid.nk / 2;
        let start = grid.ni * grid.nj * k;
        Self {
            ni: grid.ni,
            nj: grid.nj,
            k,
            data: grid.data[start..start + grid.ni * grid.nj].to_vec(),
        }
    }
    /// Value at `(i, j)`.
    pub fn at(&self, i: usize, j: usize) -> T {
        self.data[i + self.ni * j]
    }
}

/// Solid cells worth drawing: every solid cell in 2D; in 3D the solid cells next to open
/// cells, without the domain walls (drawn as a box outline instead).
#[derive(Debug)]
pub struct SolidsDraw {
    /// Grid of the cells.
    pub spec: GridSpec,
    /// Cell indices.
    pub cells: Vec<[u32; 3]>,
}

impl SolidsDraw {
    /// Extracts the cells to draw.
    pub fn new(solids: &Solids) -> Self {
        let spec = solids.spec;
        let [ni, nj, nk] = spec.dims();
        let mut cells = Vec::new();
        let solid = |i: usize, j: usize, k: usize| solids.phi[(i, j, k)] < 0.0;
        for k in 0..nk {
            for j in 0..nj {
                for i in 0..ni {
                    if !solid(i, j, k) {
                        continue;
                    }
                    if spec.is_2d() {
                        cells.push([i as u32, j as u32, 0]);
                        continue;
                    }
                    let wall =
                        i == 0 || j == 0 || k == 0 || i == ni - 1 || j == nj - 1 || k == nk - 1;
                    let open = [(1, 0, 0), (0, 1, 0), (0, 0, 1)].iter().any(|&(a, b, c)| {
                        let (i2, j2, k2) = (i + a, j + b, k + c);
                        let below = i >= a && j >= b && k >= c && !solid(i - a, j - b, k - c);
                        let above = i2 < ni && j2 < nj && k2 < nk && !solid(i2, j2, k2);
                        below || above
                    });
                    if !wall && open {
                        cells.push([i as u32, j as u32, k as u32]);
                    }
                }
            }
        }
        Self { spec, cells }
    }
}

/// Everything the UI keeps of one frame.
#[derive(Debug)]
pub struct FrameData {
    /// Frame number (1 = after the first frame).
    pub frame: u32,
    /// Simulated time at the end of the frame (s).
    pub time: f64,
    /// Substeps taken.
    pub substeps: usize,
    /// Wall time of the frame (ms).
    pub wall_ms: f64,
    /// Particle count (before subsampling).
    pub particles: usize,
    /// Largest particle speed (m/s).
    pub max_speed: f32,
    /// Particle positions (subsampled to [`MAX_POINTS`]).
    pub points: Vec<[f32; 3]>,
    /// Particle speeds, same order.
    pub speeds: Vec<f32>,
    /// Liquid level set slice, if the graph has a level-set node.
    pub level_set: Option<Slice<f32>>,
    /// Cell kind slice (0 fluid, 1 air, 2 solid), if the graph has a marker node.
    pub cells: Option<Slice<u8>>,
    /// Solids to draw.
    pub solids: Option<Arc<SolidsDraw>>,
    /// Per node (plan order): id and status.
    pub nodes: Vec<(String, NodeStatus)>,
    /// Pressure iterations summed over the frame's substeps (all solver nodes).
    pub solve_iterations: f64,
    /// Largest final residual of the frame's solves.
    pub solve_residual: f64,
}

impl FrameData {
    /// Bytes held by the particle sample.
    pub fn particle_bytes(&self) -> usize {
        self.points.len() * std::mem::size_of::<[f32; 3]>() + self.speeds.len() * 4
    }
}

/// Drops the particles of the oldest frames until the cache fits `budget` bytes (see
/// [`CACHE_BUDGET_BYTES`]); the newest frame keeps its particles.
pub fn enforce_budget(frames: &mut [Arc<FrameData>], budget: usize) {
    let mut total: usize = frames.iter().map(|f| f.particle_bytes()).sum();
    let n = frames.len();
    for f in frames.iter_mut().take(n.saturating_sub(1)) {
        if total <= budget {
            break;
        }
        if let Some(f) = Arc::get_mut(f) {
            total -= f.particle_bytes();
            f.points = Vec::new();
            f.speeds = Vec::new();
        }
    }
}

/// Per-node status of a frame: time summed over substeps, stats of the last substep that
/// reported any, `converged` = all substeps converged.
pub fn node_statuses(ids: &[String], reports: &[StepReport]) -> Vec<(String, NodeStatus)> {
    ids.iter()
        .enumerate()
        .map(|(i, id)| {
            let mut s = NodeStatus::default();
            let mut ms = 0.0;
            for r in reports {
                ms += r.node_times.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e3);
                let stats = r.node_stats.get(i).filter(|s| !s.is_empty());
                if let Some(stats) = stats {
                    s.stats.clone_from(stats);
                    if let Some(c) = stats.iter().find(|(n, _)| n == "converged") {
                        s.converged = Some(s.converged.unwrap_or(true) && c.1 != 0.0);
                    }
                }
            }
            s.time_ms = Some(ms);
            (id.clone(), s)
        })
        .collect()
}

/// Iterations summed and the largest residual over all solves of a frame.
pub fn solve_summary(reports: &[StepReport]) -> (f64, f64) {
    let (mut iters, mut res) = (0.0, 0.0f64);
    for stats in reports.iter().flat_map(|r| &r.node_stats) {
        for (n, v) in stats {
            match n.as_str() {
                "iterations" => iters += v,
                "residual" => res = res.max(*v),
                _ => {}
            }
        }
    }
    (iters, res)
}

/// Evenly subsampled positions and speeds.
pub fn sample_particles(p: &flip_core::Particles) -> (Vec<[f32; 3]>, Vec<f32>) {
    let stride = p.len().div_ceil(MAX_POINTS).max(1);
    let pos = p.pos.iter().step_by(stride).map(|v| v.to_array()).collect();
    let speed = p.vel.iter().step_by(stride).map(|v| v.length()).collect();
    (pos, speed)
}

/// Cell kinds as bytes.
pub fn cell_slice(cells: &CellGrid) -> Slice<u8> {
    let s = Slice::middle(cells);
    Slice {
        ni: s.ni,
        nj: s.nj,
        k: s.k,
        data: s
            .data
            .iter()
            .map(|c| match c {
                CellKind::Fluid => 0,
                CellKind::Air => 1,
                CellKind::Solid => 2,
            })
            .collect(),
    }
}

/// Overlay slices and solids of one frame.
#[derive(Default)]
pub struct Overlays {
    /// Liquid level set slice.
    pub level_set: Option<Slice<f32>>,
    /// Cell kind slice.
    pub cells: Option<Slice<u8>>,
    /// Solids to draw.
    pub solids: Option<Arc<SolidsDraw>>,
}

/// Overlay slices and the solids out of probed values; `last_solids` is reused when the solids
/// did not change (same `Arc`).
pub fn overlays(
    probed: &[Option<Value>],
    last_solids: &mut Option<(Arc<Solids>, Arc<SolidsDraw>)>,
) -> Overlays {
    let mut o = Overlays::default();
    for v in probed.iter().flatten() {
        match v {
            Value::LevelSet(g) => o.level_set = Some(Slice::middle(g)),
            Value::Cells(c) => o.cells = Some(cell_slice(c)),
            Value::Solids(s) => {
                let same = last_solids.as_ref().is_some_and(|(a, _)| Arc::ptr_eq(a, s));
                if !same {
                    *last_solids = Some((s.clone(), Arc::new(SolidsDraw::new(s))));
                }
                o.solids = last_solids.as_ref().map(|(_, d)| d.clone());
            }
            _ => {}
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(points: usize) -> Arc<FrameData> {
        Arc::new(FrameData {
            frame: 1,
            time: 0.0,
            substeps: 1,
            wall_ms: 0.0,
            particles: points,
            max_speed: 0.0,
            points: vec![[0.0; 3]; points],
            speeds: vec![0.0; points],
            level_set: None,
            cells: None,
            solids: None,
            nodes: vec![],
            solve_iterations: 0.0,
            solve_residual: 0.0,
        })
    }

    #[test]
    fn the_cache_drops_the_oldest_particles_first() {
        let mut frames: Vec<_> = (0..4).map(|_| frame(10)).collect();
        enforce_budget(&mut frames, 2 * 160);
        let kept: Vec<usize> = frames.iter().map(|f| f.points.len()).collect();
        assert_eq!(kept, [0, 0, 10, 10]);
        enforce_budget(&mut frames, 0);
        assert_eq!(
            frames[3].points.len(),
            10,
            "the newest frame keeps its particles"
        );
    }

    #[test]
    fn solids_2d_draws_the_walls() {
        let spec = GridSpec::new(8, 6, 1, 0.1);
        let d = SolidsDraw::new(&Solids::walls(spec));
        assert_eq!(d.cells.len(), 2 * 8 + 2 * 4);
    }

    #[test]
    fn solids_3d_skips_the_walls() {
        let spec = GridSpec::new(6, 6, 6, 0.1);
        assert!(SolidsDraw::new(&Solids::walls(spec)).cells.is_empty());
    }

    #[test]
    fn middle_slice_of_3d_grid() {
        let mut g = Grid3::new(2, 2, 3, 0.0f32);
        g[(1, 1, 1)] = 5.0;
        let s = Slice::middle(&g);
        assert_eq!((s.k, s.at(1, 1)), (1, 5.0));
    }
}
