//! What each built-in kind does in a step ([`NodeRole`]) and the memory it keeps
//! ([`MemoryModel`]) and its least memory traffic ([`Traffic`]), attached to its spec as tags, so the CLI and the editor ask "the
//! pressure solve" or "the particle stages" instead of matching kind names. [`KindFacts`]
//! reads them back.

use flip_graph::step::{STEP_INPUT, STEP_OUTPUT};
use flip_graph::NodeSpec;

/// What a node kind does in a step, declared by the kind with its spec, so the CLI and the
/// editor ask "the pressure solve", "the particle stages" or "the nodes that write particle
/// files" instead of matching kind names. Kinds that declare none (plugins' test kinds) are
/// [`NodeRole::Other`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NodeRole {
    /// Yields the previous step's state (`step_input`).
    StepInput,
    /// Collects the state for the next step (`step_output`).
    StepOutput,
    /// Fills shapes with liquid particles (`emitter`): its `shape`, `center`, `size`,
    /// `radius`, `per_cell` and `mode` parameters say how many.
    Emitter,
    /// Seeds a grid model's state: smoke, tall-cell liquid.
    GridSource,
    /// Splats particle velocities onto the grid (`p2g`).
    ParticleToGrid,
    /// Updates particle velocities from the grid (`g2p`).
    GridToParticle,
    /// Moves particles through the grid velocity (`advect`).
    ParticleAdvect,
    /// Adds and removes particles to keep the sampling even (`reseed`).
    Reseed,
    /// Removes the liquid inside a shape (`sink`).
    Sink,
    /// Changes a particle attribute other than position and velocity (`cooling`).
    ParticleAttribute,
    /// Corrects the liquid's volume drift with a plugin solve (`volume_correction`).
    VolumeCorrection,
    /// Builds the liquid's signed distance (`level_set`).
    LevelSet,
    /// Classifies cells as liquid, air or solid (`marker`).
    CellMarker,
    /// Colliders and walls (`solids`).
    Solids,
    /// Rigid bodies the liquid moves and that move it (`rigid_bodies`).
    RigidBodies,
    /// Makes the grid velocity divergence-free with a plugin solve (`pressure`).
    Pressure,
    /// The tall-cell model's pressure projection, a plugin solve (`tallcell_pressure`).
    TallCellPressure,
    /// The implicit viscosity step, a plugin solve (`viscosity`).
    Viscosity,
    /// Adds a body force or its like to the grid velocity (gravity, buoyancy, vorticity).
    Force,
    /// Any other grid operation: extrapolation, grid advection, the gas domain, tall-cell
    /// upkeep.
    Grid,
    /// Extracts the liquid's surface mesh (`surface`).
    Surface,
    /// Writes the particles (and previews) per frame (`export`).
    ParticleExport,
    /// Writes grid fields per frame (`export_fields`, `export_vdb`, `tallcell_export`).
    FieldExport,
    /// Writes the rigid bodies' transforms per frame and their meshes once (`export_bodies`).
    BodyExport,
    /// Makes and moves diffuse spray, foam and bubbles from the liquid (`whitewater`).
    Whitewater,
    /// Writes the diffuse particles per frame (`export_whitewater`).
    DiffuseExport,
    /// Writes the liquid's end of frame losslessly for re-bakes (`export_liquid_cache`).
    LiquidCacheExport,
    /// Reads a finished run's liquid back from its cache (`liquid_cache`).
    LiquidCacheSource,
    /// None of the above (kinds that declare no role).
    #[default]
    Other,
}

impl NodeRole {
    /// One of the step-state pair, which does no work of its own.
    pub fn is_step_boundary(self) -> bool {
        matches!(self, Self::StepInput | Self::StepOutput)
    }
    /// Writes particle files per frame: the liquid's (as points or as a cache) or the diffuse
    /// particles'.
    pub fn writes_particle_files(self) -> bool {
        matches!(
            self,
            Self::ParticleExport | Self::DiffuseExport | Self::LiquidCacheExport
        )
    }
    /// A particle transfer: particles to grid or grid to particles.
    pub fn is_transfer(self) -> bool {
        matches!(self, Self::ParticleToGrid | Self::GridToParticle)
    }
    /// A stage whose work grows with the particles: the transfers and particle advection.
    pub fn is_particle_stage(self) -> bool {
        self.is_transfer() || self == Self::ParticleAdvect
    }
    /// Keeps the particles' volume and sampling: volume correction and reseeding.
    pub fn is_particle_upkeep(self) -> bool {
        matches!(self, Self::VolumeCorrection | Self::Reseed)
    }
    /// Its work is done by a solver plugin (its failures are the plugin's).
    pub fn solves_with_plugin(self) -> bool {
        matches!(
            self,
            Self::Pressure | Self::VolumeCorrection | Self::TallCellPressure | Self::Viscosity
        )
    }
}

/// What a file a node writes each frame takes on disk, as `flipgraph estimate` counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrameWrites {
    /// Nothing counted.
    #[default]
    None,
    /// Binary PLY of the particles (bool parameter `ply`: a 512 B header and 24 B a particle)
    /// and an uncompressed RGBA preview (bool `png`, `png_width` pixels wide, the grid's
    /// aspect).
    ParticlesAndPreview,
    /// `fields` cell fields of 4 B a cell, base64-grown and doubled as the upper bound
    /// (`cells·4·8/3·fields` bytes), and `header` bytes.
    CellFields {
        /// Fields written.
        fields: usize,
        /// Bytes besides the fields.
        header: usize,
    },
}

/// Memory a node keeps and disk it writes, beyond its outputs (which the estimate counts from
/// their data kinds), declared by the kind with its spec.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MemoryModel {
    /// Bytes per grid cell the node keeps inside: assembled systems, solver vectors,
    /// transfer weights, scratch.
    pub cell_bytes: f64,
    /// What it writes per frame.
    pub frame_writes: FrameWrites,
}

impl MemoryModel {
    /// `bytes` per grid cell kept inside, nothing written.
    pub fn per_cell(bytes: f64) -> Self {
        Self {
            cell_bytes: bytes,
            ..Self::default()
        }
    }
    /// Nothing kept inside, `files` written per frame.
    pub fn writes(files: FrameWrites) -> Self {
        Self {
            frame_writes: files,
            ..Self::default()
        }
    }
}

/// The least memory traffic of one evaluation, declared by the kind: every input read once and
/// every output written once, f32 grids and particle attributes (scratch, repeated sweeps and
/// solver iterations come on top). `flipgraph bench step` divides it by the node's time and
/// by the machine's measured bandwidth, so a stage far below 100 % is far from its floor.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Traffic {
    /// Bytes per particle.
    pub particle_bytes: f64,
    /// Bytes per grid cell.
    pub cell_bytes: f64,
}

impl Traffic {
    /// `particle_bytes` per particle and `cell_bytes` per cell.
    pub fn new(particle_bytes: f64, cell_bytes: f64) -> Self {
        Self {
            particle_bytes,
            cell_bytes,
        }
    }
    /// Bytes for `particles` particles on `cells` cells.
    pub fn bytes(self, particles: usize, cells: usize) -> f64 {
        self.particle_bytes * particles as f64 + self.cell_bytes * cells as f64
    }
}

/// The role, memory model and traffic of a spec.
pub trait KindFacts {
    /// What the kind does in a step: its [`NodeRole`] tag, the step pair's by kind id,
    /// [`NodeRole::Other`] for a kind without one.
    fn role(&self) -> NodeRole;
    /// Memory it keeps and disk it writes beyond its outputs (none without a tag).
    fn memory(&self) -> MemoryModel;
    /// Its least memory traffic per evaluation (`None` without a tag).
    fn traffic(&self) -> Option<Traffic>;
}

impl KindFacts for NodeSpec {
    fn role(&self) -> NodeRole {
        match (self.get::<NodeRole>(), self.kind.as_str()) {
            (Some(role), _) => *role,
            (None, STEP_INPUT) => NodeRole::StepInput,
            (None, STEP_OUTPUT) => NodeRole::StepOutput,
            (None, _) => NodeRole::Other,
        }
    }
    fn memory(&self) -> MemoryModel {
        self.get().copied().unwrap_or_default()
    }
    fn traffic(&self) -> Option<Traffic> {
        self.get().copied()
    }
}
