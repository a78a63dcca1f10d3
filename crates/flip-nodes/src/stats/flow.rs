//! Liquid entering and leaving: what `advect` (open and inflow faces) and `sink` report, and
//! the volume balance a run summary builds from them with the emitters' and reseeding's counts.
//!
//! Volumes are particle counts times the nominal volume of one particle, `dx^d / c_p` (`c_p`
//! = 4 in 2D, 8 in 3D: the emitter's and the inflow's seeding density), the particle measure
//! the volume correction holds the liquid to; the level set's volume is reported beside it.

use super::{EmitStats, LiquidVolume, ReseedStats};
use flip_core::solids::SIDE_NAMES;
use flip_graph::{NodeStats, StepReport};
use std::collections::BTreeMap;

/// Particles that crossed the domain's faces in one step (`advect`), per face in
/// [`SIDE_NAMES`] order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoundaryFlowStats {
    /// Seeded by inflow faces.
    pub entered: [usize; 6],
    /// Removed beyond open faces.
    pub left: [usize; 6],
}

impl NodeStats for BoundaryFlowStats {
    fn values(&self) -> Vec<(&'static str, f64)> {
        vec![
            (
                "inflow_particles",
                self.entered.iter().sum::<usize>() as f64,
            ),
            ("outflow_particles", self.left.iter().sum::<usize>() as f64),
        ]
    }
}

/// Particles a sink removed in one step (`sink`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SinkStats {
    /// Particles removed.
    pub removed: usize,
}

impl NodeStats for SinkStats {
    fn values(&self) -> Vec<(&'static str, f64)> {
        vec![("sink_removed", self.removed as f64)]
    }
}

/// The liquid volume balance of some steps (m³; m² in 2D).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VolumeBalance {
    /// Entered through inflow faces, per face name (`x_min` …).
    pub inflow: BTreeMap<String, f64>,
    /// Added by emitters.
    pub emitted: f64,
    /// Added (+) or removed (−) by reseeding.
    pub reseeded: f64,
    /// Left through open faces, per face name.
    pub outflow: BTreeMap<String, f64>,
    /// Removed by sinks, per node id.
    pub sinks: BTreeMap<String, f64>,
    /// Volume inside at the end (particles × volume per particle).
    pub inside: f64,
    /// Change inside over the steps.
    pub change: f64,
    /// `in − out − change`: 0 when every particle added or removed is accounted for.
    pub imbalance: f64,
    /// The level set's volume at the end, where a `level_set` node measures it.
    pub level_set_volume: Option<f64>,
}

impl VolumeBalance {
    /// Volume in (inflow, emitters, reseeding's net addition).
    pub fn volume_in(&self) -> f64 {
        self.inflow.values().sum::<f64>() + self.emitted + self.reseeded
    }
    /// Volume out (open faces, sinks).
    pub fn volume_out(&self) -> f64 {
        self.outflow.values().sum::<f64>() + self.sinks.values().sum::<f64>()
    }

    /// The balance of `reports` (consecutive steps), starting from `before` particles, for
    /// the node ids `ids` (plan order) on a grid of cell size `dx` in `dims` dimensions.
    pub fn of_steps(
        reports: &[StepReport],
        ids: &[String],
        before: usize,
        dx: f64,
        dims: usize,
    ) -> Self {
        let per = particle_volume(dx, dims);
        let mut b = Self::default();
        let mut after = before;
        for r in reports {
            after = r.count;
            for (_, s) in r.all_stats::<BoundaryFlowStats>() {
                for (side, name) in SIDE_NAMES.iter().enumerate() {
                    if s.entered[side] > 0 {
                        *b.inflow.entry((*name).into()).or_default() +=
                            s.entered[side] as f64 * per;
                    }
                    if s.left[side] > 0 {
                        *b.outflow.entry((*name).into()).or_default() += s.left[side] as f64 * per;
                    }
                }
            }
            for (i, s) in r.all_stats::<SinkStats>() {
                *b.sinks.entry(ids[i].clone()).or_default() += s.removed as f64 * per;
            }
            for (_, s) in r.all_stats::<EmitStats>() {
                b.emitted += s.emitted as f64 * per;
            }
            for (_, s) in r.all_stats::<ReseedStats>() {
                b.reseeded += (s.added as f64 - s.removed as f64) * per;
            }
            if let Some((_, v)) = r.all_stats::<LiquidVolume>().next() {
                b.level_set_volume = Some(v.0);
            }
        }
        b.inside = after as f64 * per;
        b.change = (after as f64 - before as f64) * per;
        b.imbalance = b.volume_in() - b.volume_out() - b.change;
        b
    }
}

/// Nominal volume of one particle: `dx^d / c_p`, `c_p = 2^d`.
pub fn particle_volume(dx: f64, dims: usize) -> f64 {
    (dx / 2.0).powi(dims as i32)
}
