//! What the UI keeps of each simulated frame: a (sub)sample of particle positions and speeds,
//! overlay slices (level set, cell kinds, see [`overlays`]), the solids to draw, and per-node
//! timings and stats.

/// The grid values behind colouring by vorticity or pressure.
pub mod grid_samples;
/// Level-set / cell-kind slices and solids to draw.
pub mod overlays;

use crate::frames::grid_samples::GridAttributes;
use crate::frames::overlays::{Slice, SolidsDraw};
use crate::types::NodeStatus;
use flip_graph::StepReport;
use flip_nodes::stats::SolveReport;
use rayon::prelude::*;
use std::sync::Arc;

/// Most particles stored (and drawn) per frame; larger sets are subsampled evenly.
pub const MAX_POINTS: usize = 300_000;
/// Memory the frame cache may use for particles; beyond it the oldest frames lose theirs
/// (their stats and overlays stay).
pub const CACHE_BUDGET_BYTES: usize = 1 << 31;

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
    /// Time the worker spent saving the state after the frame (ms; "simulate from here").
    pub snapshot_ms: f64,
    /// Time the worker spent capturing this frame for the UI (ms).
    pub capture_ms: f64,
    /// Particle count (before subsampling).
    pub particles: usize,
    /// Largest particle speed (m/s).
    pub max_speed: f32,
    /// The particles, subsampled to [`MAX_POINTS`].
    pub sample: ParticleSample,
    /// Vorticity and pressure at the same particles (liquid graphs).
    pub grid: GridAttributes,
    /// Diffuse (whitewater) particle positions, subsampled to [`MAX_POINTS`]; drawn white.
    pub diffuse: Vec<[f32; 3]>,
    /// Liquid level set slice, if the graph has a level-set node.
    pub level_set: Option<Slice<f32>>,
    /// Cell kind slice (0 fluid, 1 air, 2 solid), if the graph has a marker node.
    pub cells: Option<Slice<u8>>,
    /// Smoke density slice, if the graph carries a density between steps.
    pub density: Option<Slice<f32>>,
    /// Solids to draw.
    pub solids: Option<Arc<SolidsDraw>>,
    /// The liquid mesh (3D graphs with a `surface` node).
    pub surface: Option<Arc<flip_core::surface::TriMesh>>,
    /// The graph's still imported solids as meshes (3D).
    pub solid_meshes: Arc<Vec<flip_core::surface::TriMesh>>,
    /// Per node (plan order): id and status.
    pub nodes: Vec<(String, NodeStatus)>,
    /// Pressure iterations summed over the frame's substeps (all solver nodes).
    pub solve_iterations: f64,
    /// Largest final residual of the frame's solves.
    pub solve_residual: f64,
    /// The run mode's number for the graph that simulated it (set on arrival; an undo keeps
    /// the frames of the graph it returns to).
    pub graph: u64,
}

impl FrameData {
    /// Bytes held by the particle sample and its grid attributes.
    pub fn cached_bytes(&self) -> usize {
        let s = &self.sample;
        (s.points.len() + self.diffuse.len()) * std::mem::size_of::<[f32; 3]>()
            + s.speeds.len() * 4
            + s.ids.len() * 8
            + self.grid.bytes()
    }
}

/// Drops the particles of the oldest frames until the cache fits `budget` bytes (see
/// [`CACHE_BUDGET_BYTES`]); the newest frame keeps its particles.
pub fn enforce_budget(frames: &mut [Arc<FrameData>], budget: usize) {
    let mut total: usize = frames.iter().map(|f| f.cached_bytes()).sum();
    let n = frames.len();
    for f in frames.iter_mut().take(n.saturating_sub(1)) {
        if total <= budget {
            break;
        }
        if let Some(f) = Arc::get_mut(f) {
            total -= f.cached_bytes();
            f.sample = ParticleSample {
                id_end: f.sample.id_end,
                ..ParticleSample::default()
            };
            f.grid = Default::default();
            f.diffuse = Vec::new();
        }
    }
}

/// Per-node status of a frame: time summed over substeps, stats of the last substep that
/// reported any, `converged` = all substeps converged, the events of every substep as warnings.
pub fn node_statuses(ids: &[String], reports: &[StepReport]) -> Vec<(String, NodeStatus)> {
    ids.iter()
        .enumerate()
        .map(|(i, id)| {
            let mut s = NodeStatus::default();
            let mut ms = 0.0;
            for r in reports {
                ms += r.node_times.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e3);
                let events = r.events.iter().filter(|(node, _)| node == id);
                s.warnings.extend(events.map(|(_, e)| e.to_string()));
                if let Some(stats) = r.node_stats.get(i).and_then(Option::as_ref) {
                    s.stats = Some(stats.clone());
                }
                if let Some(solve) = r.stats::<SolveReport>(i) {
                    s.converged = Some(s.converged.unwrap_or(true) && solve.converged);
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
    for (_, solve) in reports
        .iter()
        .flat_map(StepReport::all_stats::<SolveReport>)
    {
        iters += f64::from(solve.iterations);
        res = res.max(solve.residual);
    }
    (iters, res)
}

/// An even subsample of the particles.
#[derive(Clone, Debug, Default)]
pub struct ParticleSample {
    /// Positions.
    pub points: Vec<[f32; 3]>,
    /// Speeds, same order.
    pub speeds: Vec<f32>,
    /// Ids, same order (indices where the particles carry none).
    pub ids: Vec<u64>,
    /// One more than the largest id the run has given (colour-by-id maps `0..id_end`, so a
    /// particle keeps its colour from frame to frame).
    pub id_end: u64,
}

/// Evenly subsampled positions, speeds and ids.
pub fn sample_particles(p: &flip_core::Particles) -> ParticleSample {
    let stride = p.len().div_ceil(MAX_POINTS).max(1);
    let (ids, id_end) = if p.has_ids() {
        (strided(&p.id, stride, |&i| i), p.next_id)
    } else {
        let index = (0..p.len()).step_by(stride).map(|i| i as u64).collect();
        (index, p.len() as u64)
    };
    ParticleSample {
        points: strided(&p.pos, stride, |v| v.to_array()),
        speeds: strided(&p.vel, stride, |v| v.length()),
        ids,
        id_end,
    }
}

/// `f` of every `stride`-th item, on every core (the simulation thread waits for the capture).
fn strided<T: Sync, U: Send>(
    items: &[T],
    stride: usize,
    f: impl Fn(&T) -> U + Sync + Send,
) -> Vec<U> {
    items.par_iter().step_by(stride).map(f).collect()
}

/// A frame of `points` particles at the origin and nothing else (for tests).
#[cfg(test)]
pub(crate) fn test_frame(points: usize) -> FrameData {
    FrameData {
        frame: 1,
        time: 0.0,
        substeps: 1,
        wall_ms: 0.0,
        snapshot_ms: 0.0,
        capture_ms: 0.0,
        particles: points,
        max_speed: 0.0,
        sample: ParticleSample {
            points: vec![[0.0; 3]; points],
            speeds: vec![0.0; points],
            ids: (0..points as u64).collect(),
            id_end: points as u64,
        },
        grid: Default::default(),
        diffuse: Vec::new(),
        level_set: None,
        cells: None,
        density: None,
        solids: None,
        surface: None,
        solid_meshes: Default::default(),
        nodes: vec![],
        solve_iterations: 0.0,
        solve_residual: 0.0,
        graph: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(points: usize) -> Arc<FrameData> {
        Arc::new(test_frame(points))
    }

    #[test]
    fn the_cache_drops_the_oldest_particles_first() {
        let mut frames: Vec<_> = (0..4).map(|_| frame(10)).collect();
        // positions, speeds and ids of 10 particles
        assert_eq!(frames[0].cached_bytes(), 10 * (12 + 4 + 8));
        enforce_budget(&mut frames, 2 * 240);
        let kept: Vec<usize> = frames.iter().map(|f| f.sample.points.len()).collect();
        assert_eq!(kept, [0, 0, 10, 10]);
        enforce_budget(&mut frames, 0);
        assert_eq!(
            frames[3].sample.points.len(),
            10,
            "the newest frame keeps its particles"
        );
    }

    #[test]
    fn a_fallback_taken_in_a_substep_is_the_nodes_warning() {
        let fallback = flip_graph::NodeEvent::SolverFallback {
            plugin: "faulty".into(),
            algorithm: "crash".into(),
            fallback: "pcg/cg".into(),
            reason: "the plugin process was killed by SIGSEGV".into(),
        };
        let quiet = StepReport {
            node_times: vec![Default::default(); 2],
            node_stats: vec![None; 2],
            ..Default::default()
        };
        let warned = StepReport {
            events: vec![("pressure".into(), fallback.clone())],
            ..quiet.clone()
        };
        let ids = ["advect".to_string(), "pressure".to_string()];
        let status = node_statuses(&ids, &[quiet, warned]);
        assert!(status[0].1.warnings.is_empty());
        assert_eq!(status[1].1.warnings, [fallback.to_string()]);
    }
}
