//! Export VDB: at the end of each frame, the grid fields wired into it as one OpenVDB file
//! (Houdini, Blender, ParaView): the liquid level set as a level-set grid, the velocity as a
//! vec3 grid, pressure and the smoke's density (a fog volume) and temperature; atomically.
use super::common::{check_grid, failed, spec};
use super::frame_files::FrameFiles;
use crate::kinds::{TypedInputs, LEVEL_SET, SCALAR, VELOCITY};
use crate::params::Params;
use crate::roles::NodeRole;
use crate::stats::ExportStats;
use flip_core::export::{cell_velocity, write_vdb, VdbClass, VdbCompression, VdbGrid, VdbValues};
use flip_graph::window::gather_cells;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, WindowRefusal,
};
use std::borrow::Cow;

/// Scalar inputs: grid name, help, class.
const SCALARS: [(&str, &str, VdbClass); 3] = [
    ("pressure", "pressure (Pa)", VdbClass::Unknown),
    (
        "density",
        "smoke density (a fog volume)",
        VdbClass::FogVolume,
    ),
    ("temperature", "smoke temperature", VdbClass::Unknown),
];

struct ExportVdb {
    files: FrameFiles,
    half_width: f32,
    compression: VdbCompression,
}

impl ExportVdb {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        let compression = match p.text("compression")? {
            "none" => VdbCompression::None,
            _ => VdbCompression::Zlib,
        };
        Ok(Self {
            files: FrameFiles::new(init)?,
            half_width: p.f32("half_width")?,
            compression,
        })
    }
}

impl Node for ExportVdb {
    /// In a decomposed run rank 0 writes the grids gathered from every rank's owned layers.
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let g = &ctx.grid;
        let mut scalars = Vec::new();
        for (name, _, class) in SCALARS {
            if let Some(f) = io.scalar_opt(name)? {
                check_grid(name, &f, g)?;
                scalars.push((name, class, f));
            }
        }
        let phi = io.level_set_opt("level_set")?;
        if let Some(phi) = &phi {
            check_grid("level_set", phi, g)?;
        }
        let velocity = io.velocity_opt("velocity")?;
        if !self.files.due(ctx) {
            return Ok(());
        }
        // (name, class, values, values per cell); borrowed unless gathered or computed here
        let mut fields: Vec<(&str, VdbClass, Cow<'_, [f32]>, usize)> = scalars
            .iter()
            .map(|(name, class, f)| (*name, *class, Cow::Borrowed(&f.data[..]), 1))
            .collect();
        if let Some(phi) = &phi {
            let class = VdbClass::LevelSet {
                half_width: self.half_width,
            };
            fields.push(("surface", class, Cow::Borrowed(&phi.data[..]), 1));
        }
        if let Some(v) = &velocity {
            let flat = Cow::Owned(cell_velocity(g, &v.vel));
            fields.push(("velocity", VdbClass::Unknown, flat, 3));
        }
        if fields.is_empty() {
            return Err(NodeError::MissingInput("any field".into()));
        }
        let mut grid = *g;
        if let Some(w) = &ctx.window {
            grid = w.global;
            for (_, _, values, per_cell) in &mut fields {
                if let Some(all) = gather_cells(w, values, *per_cell) {
                    *values = Cow::Owned(all);
                }
            }
            if w.rank().0 != 0 {
                return Ok(());
            }
        }
        let vectors: Vec<Vec<glam::Vec3>> = fields
            .iter()
            .filter(|f| f.3 == 3)
            .map(|f| f.2.chunks_exact(3).map(glam::Vec3::from_slice).collect())
            .collect();
        let mut vectors = vectors.iter();
        let grids: Vec<VdbGrid<'_>> = fields
            .iter()
            .map(|(name, class, values, per_cell)| VdbGrid {
                name,
                class: *class,
                values: match per_cell {
                    1 => VdbValues::Float(values),
                    _ => VdbValues::Vec3(vectors.next().expect("one per vector field")),
                },
            })
            .collect();
        let file = self.files.frame(ctx)?;
        let path = file("vdb");
        write_vdb(&path, &grid, &grids, self.compression)
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        io.wrote(path);
        io.report(ExportStats::VdbGrids(grids.len()));
        Ok(())
    }
}

/// The export-VDB node kind.
pub fn kind() -> NodeKind {
    let mut inputs: Vec<PortSpec> = SCALARS
        .iter()
        .map(|(name, help, _)| PortSpec::optional(name, SCALAR, help))
        .collect();
    inputs.extend([
        PortSpec::optional(
            "level_set",
            LEVEL_SET,
            "liquid signed distance (m), written as the level-set grid `surface`",
        ),
        PortSpec::optional(
            "velocity",
            VELOCITY,
            "velocity (averaged to cell centres), the vec3 grid `velocity`",
        ),
    ]);
    let s = spec(
        "export_vdb",
        "Export VDB",
        "Output",
        "Writes the wired grid fields of each frame as one OpenVDB file (<prefix><frame:04>.vdb; \
         voxel (i,j,k) at the cell centre ((i,j,k)+½)·dx): `surface` (level set, narrow band of \
         `half_width` voxels), `velocity` (vec3), `pressure`, `density` (fog volume), \
         `temperature`; raw or zlib; atomically.",
        inputs,
        vec![],
        FrameFiles::params("fields", "fields_", "vdb", "write")
            .into_iter()
            .chain([
                ParamSpec::choice(
                    "compression",
                    "Compression",
                    "value buffers raw or zlib-compressed",
                    &["zlib", "none"],
                    "zlib",
                ),
                ParamSpec::float(
                    "half_width",
                    "Band half width",
                    "level-set narrow band, in voxels (OpenVDB's default: 3)",
                    3.0,
                    1.0,
                    100.0,
                ),
            ])
            .collect(),
    )
    .with(NodeRole::FieldExport);
    NodeKind::new(s, Box::new(|init| Ok(Box::new(ExportVdb::new(init)?))))
}
