//! The statistics each node family reports ([`flip_graph::NodeStats`]), read back typed by the
//! run summary, compare, the editor and the benches.

mod correction;
mod outputs;
mod particles;
mod solve;

pub use correction::{CorrectionSolve, VolumeCorrectionStats};
pub use outputs::{ExportStats, LiquidVolume, SurfaceStats};
pub use particles::{EmitStats, RefitStats, ReseedStats};
pub use solve::{RegularSolve, SolveReport, SolvedGrid, TallCellSolve, ViscositySolve};
