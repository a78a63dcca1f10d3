//! Export VDB: at the end of each frame, the grid fields wired into it as one OpenVDB file
//! (Houdini, Blender, ParaView): the liquid level set as a level-set grid, the velocity as a
//! vec3 grid, pressure and the smoke's density (a fog volume) and temperature; atomically.
use super::common::{check_grid, failed, spec};
use super::frame_files::FrameFiles;
use crate::params::Params;
use flip_core::export::{cell_velocity, write_vdb, VdbClass, VdbCompression, VdbGrid, VdbValues};
use flip_graph::{
    DataKind, EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec,
};

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
        let cell_vel: Option<Vec<glam::Vec3>> = velocity.map(|v| {
            let flat = cell_velocity(g, &v.vel);
            flat.chunks_exact(3).map(glam::Vec3::from_slice).collect()
        });
        let mut grids: Vec<VdbGrid<'_>> = scalars
            .iter()
            .map(|(name, class, f)| VdbGrid {
                name,
                class: *class,
                values: VdbValues::Float(&f.data),
            })
            .collect();
        if let Some(phi) = &phi {
            grids.push(VdbGrid {
                name: "surface",
                class: VdbClass::LevelSet {
                    half_width: self.half_width,
                },
                values: VdbValues::Float(&phi.data),
            });
        }
        if let Some(v) = &cell_vel {
            grids.push(VdbGrid {
                name: "velocity",
                class: VdbClass::Unknown,
                values: VdbValues::Vec3(v),
            });
        }
        if grids.is_empty() {
            return Err(NodeError::MissingInput("any field".into()));
        }
        let file = self.files.frame(ctx)?;
        let path = file("vdb");
        write_vdb(&path, g, &grids, self.compression)
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        io.wrote(path);
        io.stat("grids_written", grids.len() as f64);
        Ok(())
    }
}

/// The export-VDB node kind.
pub fn kind() -> NodeKind {
    let mut inputs: Vec<PortSpec> = SCALARS
        .iter()
        .map(|(name, help, _)| PortSpec::optional(name, DataKind::Scalar, help))
        .collect();
    inputs.extend([
        PortSpec::optional(
            "level_set",
            DataKind::LevelSet,
            "liquid signed distance (m), written as the level-set grid `surface`",
        ),
        PortSpec::optional(
            "velocity",
            DataKind::Velocity,
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
    );
    NodeKind::new(s, Box::new(|init| Ok(Box::new(ExportVdb::new(init)?))))
}
