//! What the output nodes report: files written, meshes, liquid volume.

use flip_graph::NodeStats;

/// Files an export node wrote in one evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportStats {
    /// A particle frame (`export`).
    Frame,
    /// Grid fields (`export_fields`).
    Fields(usize),
    /// OpenVDB grids (`export_vdb`).
    VdbGrids(usize),
}

impl NodeStats for ExportStats {
    fn values(&self) -> Vec<(&'static str, f64)> {
        vec![match *self {
            Self::Frame => ("frames_written", 1.0),
            Self::Fields(n) => ("fields_written", n as f64),
            Self::VdbGrids(n) => ("grids_written", n as f64),
        }]
    }
}

/// The liquid's volume (`level_set`, `tallcell_export`), in m³ (m² in 2-D).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LiquidVolume(pub f64);

impl NodeStats for LiquidVolume {
    fn values(&self) -> Vec<(&'static str, f64)> {
        vec![("liquid_volume", self.0)]
    }
}

/// The surface mesh (`surface`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SurfaceStats {
    /// Vertices.
    pub vertices: usize,
    /// Triangles.
    pub triangles: usize,
    /// Enclosed volume.
    pub volume: f64,
}

impl NodeStats for SurfaceStats {
    fn values(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("mesh_vertices", self.vertices as f64),
            ("mesh_triangles", self.triangles as f64),
            ("mesh_volume", self.volume),
        ]
    }
}
