//! The statistics each node family reports ([`flip_graph::NodeStats`]), read back typed by the
//! run summary, compare, the editor and the benches.

mod correction;
mod flow;
mod outputs;
mod particles;
mod solve;

pub use correction::{CorrectionSolve, VolumeCorrectionStats};
pub use flow::{particle_volume, BoundaryFlowStats, SinkStats, VolumeBalance};
pub use outputs::{ExportStats, LiquidVolume, SurfaceStats};
pub use particles::{EmitStats, RefitStats, ReseedStats, WhitewaterStats};
pub use solve::{RegularSolve, SolveReport, SolvedGrid, TallCellSolve, ViscositySolve};
