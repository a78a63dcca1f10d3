//! Capturing a simulated frame for the UI ([`FrameData`]): the particle sample, the overlay
//! slices, the grid values behind the colouring, the liquid and solid meshes, the node stats.

use crate::frames::grid_samples::GridAttributes;
use crate::frames::overlays::{overlays, SolidsCache};
use crate::frames::{node_statuses, sample_particles, solve_summary, FrameData, ParticleSample};
use crate::viewport::liquid_mesh::Mesher;
use flip_graph::{Simulation, StepReport};
use flip_nodes::kinds::CarriedParticles;

impl FrameData {
    /// What the UI keeps of the frame `sim` just simulated: `steps` are its step reports,
    /// `ids` the plan's node ids, `wall_ms` how long it took.
    pub fn capture(
        sim: &Simulation,
        steps: &[StepReport],
        ids: &[String],
        wall_ms: f64,
        last_solids: &mut SolidsCache,
        mesher: &mut Mesher,
    ) -> Self {
        let (sample, particles, max_speed) = match sim.particles() {
            Some(p) => (sample_particles(&p), p.len(), p.max_speed()),
            None => (ParticleSample::default(), 0, 0.0),
        };
        let mut o = overlays(sim.probed(), last_solids);
        let spec = sim.settings().grid_spec();
        let grid = GridAttributes::new(&spec, sim.probed());
        let (solve_iterations, solve_residual) = solve_summary(steps);
        Self {
            frame: sim.frame(),
            time: sim.time(),
            substeps: steps.len(),
            wall_ms,
            snapshot_ms: 0.0,
            capture_ms: 0.0,
            particles,
            max_speed,
            sample,
            grid,
            diffuse: std::mem::take(&mut o.diffuse),
            level_set: o.level_set,
            cells: o.cells,
            density: o.density,
            solids: o.solids,
            surface: mesher.mesh(sim),
            solid_meshes: mesher.solids(),
            nodes: node_statuses(ids, steps),
            solve_iterations,
            solve_residual,
            graph: 0,
        }
    }
}
