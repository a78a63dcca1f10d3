//! Export Fields: at the end of each frame, the grid fields wired into it as one VTK image-data
//! file (`.vti`, opens in ParaView), written atomically.
use super::common::{check_grid, failed, spec};
use super::frame_files::FrameFiles;
use crate::kinds::{TypedInputs, CELLS, LEVEL_SET, SCALAR, VELOCITY};
use crate::roles::{FrameWrites, MemoryModel, NodeRole};
use crate::stats::ExportStats;
use flip_core::export::{cell_velocity, write_fields_vti, CellField};
use flip_graph::window::gather_cells;
use flip_graph::{EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, PortSpec, WindowRefusal};
use std::borrow::Cow;

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
    /// In a decomposed run rank 0 writes the fields gathered from every rank.
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

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
        // (name, values, values per cell); borrowed unless gathered or computed here
        let mut arrays: Vec<(&str, Cow<'_, [f32]>, usize)> = scalars
            .iter()
            .map(|(name, f)| (*name, Cow::Borrowed(&f.data[..]), 1))
            .collect();
        if let Some(phi) = &phi {
            check_grid("level_set", phi, g)?;
            arrays.push(("level_set", Cow::Borrowed(&phi.data[..]), 1));
        }
        if let Some(c) = &cells {
            arrays.push((
                "cell_kind",
                Cow::Owned(c.data.iter().map(|&k| f32::from(k as u8)).collect()),
                1,
            ));
        }
        if let Some(v) = &velocity {
            arrays.push(("velocity", Cow::Owned(cell_velocity(g, &v.vel)), 3));
        }
        if arrays.is_empty() {
            return Err(NodeError::MissingInput("any field".into()));
        }
        let mut grid = *g;
        if let Some(w) = &ctx.window {
            // rank 0 writes the domain's fields, gathered from the owned layers
            grid = w.global;
            for (_, values, per_cell) in &mut arrays {
                if let Some(all) = gather_cells(w, values, *per_cell) {
                    *values = Cow::Owned(all);
                }
            }
            if w.rank().0 != 0 {
                return Ok(());
            }
        }
        let fields: Vec<CellField<'_>> = arrays
            .iter_mut()
            .map(|(name, values, per_cell)| match per_cell {
                1 => {
                    let values: &Cow<'_, [f32]> = values;
                    CellField::Scalar(name, values)
                }
                _ => CellField::Vector(name, std::mem::take(values).into_owned()),
            })
            .collect();
        let file = self.files.frame(ctx)?;
        let path = file("vti");
        write_fields_vti(&path, &grid, &fields)
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        io.report(ExportStats::Fields(fields.len()));
        io.wrote(path);
        Ok(())
    }
}

/// The export-fields node kind.
pub fn kind() -> NodeKind {
    let mut inputs: Vec<PortSpec> = SCALARS
        .iter()
        .map(|(name, help)| PortSpec::optional(name, SCALAR, help))
        .collect();
    inputs.extend([
        PortSpec::optional("level_set", LEVEL_SET, "liquid signed distance (m)"),
        PortSpec::optional("velocity", VELOCITY, "velocity (averaged to cell centres)"),
        PortSpec::optional("cells", CELLS, "cell kinds: 0 fluid, 1 air, 2 solid"),
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
    )
    .with(NodeRole::FieldExport)
    .with(MemoryModel::writes(FrameWrites::CellFields {
        fields: 6,
        header: 4096,
    }));
    NodeKind::new(s, Box::new(|init| Ok(Box::new(ExportFields::new(init)?))))
}
