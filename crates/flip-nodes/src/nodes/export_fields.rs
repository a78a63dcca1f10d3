//! Export Fields: at the end of each frame, the grid fields wired into it as one VTK image-data
//! file (`.vti`, opens in ParaView), written atomically.
use super::common::{check_grid, failed, spec};
use super::frame_files::FrameFiles;
use flip_core::export::{cell_velocity, write_fields_vti, CellField};
use flip_graph::{DataKind, EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, PortSpec};

/// Scalar inputs and the array names they are written under.
const SCALARS: [(&str, &str); 4] = [
    ("pressure", "pressure (Pa)"),
    ("divergence", "divergence after projection (1/s)"),
    ("density", "smoke density"),
    ("temperature", "smoke temperature"),
];

struct ExportFields {
    files: FrameFiles,
}

impl ExportFields {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        Ok(Self {
            files: FrameFiles::new(init)?,
        })
    }
}

impl Node for ExportFields {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let g = &ctx.grid;
        let mut scalars = Vec::new();
        for (name, _) in SCALARS {
            if let Some(f) = io.scalar_opt(name)? {
                check_grid(name, &f, g)?;
                scalars.push((name, f));
            }
        }
        let phi = io.level_set_opt("level_set")?;
        let cells = io.cells_opt("cells")?;
        let velocity = io.velocity_opt("velocity")?;
        if !self.files.due(ctx) {
            return Ok(());
        }
        let kinds: Option<Vec<f32>> =
            cells.map(|c| c.data.iter().map(|&k| f32::from(k as u8)).collect());
        let mut fields: Vec<CellField<'_>> = scalars
            .iter()
            .map(|(name, f)| CellField::Scalar(name, &f.data))
            .collect();
        if let Some(phi) = &phi {
            check_grid("level_set", phi, g)?;
            fields.push(CellField::Scalar("level_set", &phi.data));
        }
        if let Some(k) = &kinds {
            fields.push(CellField::Scalar("cell_kind", k));
        }
        if let Some(v) = &velocity {
            fields.push(CellField::Vector("velocity", cell_velocity(g, &v.vel)));
        }
        if fields.is_empty() {
            return Err(NodeError::MissingInput("any field".into()));
        }
        let file = self.files.frame(ctx)?;
        let path = file("vti");
        write_fields_vti(&path, g, &fields)
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        io.stat("fields_written", fields.len() as f64);
        io.wrote(path);
        Ok(())
    }
}

/// The export-fields node kind.
pub fn kind() -> NodeKind {
    let mut inputs: Vec<PortSpec> = SCALARS
        .iter()
        .map(|(name, help)| PortSpec::optional(name, DataKind::Scalar, help))
        .collect();
    inputs.extend([
        PortSpec::optional(
            "level_set",
            DataKind::LevelSet,
            "liquid signed distance (m)",
        ),
        PortSpec::optional(
            "velocity",
            DataKind::Velocity,
            "velocity (averaged to cell centres)",
        ),
        PortSpec::optional(
            "cells",
            DataKind::Cells,
            "cell kinds: 0 fluid, 1 air, 2 solid",
        ),
    ]);
    let s = spec(
        "export_fields",
        "Export Fields",
        "Output",
        "Writes the wired grid fields of each frame as VTK XML image data (<prefix><frame>.vti, \
         cell data on the simulation grid, origin 0, spacing dx) for ParaView; atomically.",
        inputs,
        vec![],
        FrameFiles::params("fields", "fields_", "vti", "write").to_vec(),
    );
    NodeKind::new(s, Box::new(|init| Ok(Box::new(ExportFields::new(init)?))))
}
