use crate::value::{DataKind, ParamValue};

/// How a parameter is typed and edited. Mirrors the plugin ABI's `ParamDesc` so built-in and
/// plugin parameters render through the same editor code.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// A real number in `[min, max]`.
    Float {
        /// Minimum.
        min: f64,
        /// Maximum.
        max: f64,
    },
    /// An integer in `[min, max]`.
    Int {
        /// Minimum.
        min: i64,
        /// Maximum.
        max: i64,
    },
    /// A boolean.
    Bool,
    /// A 3-vector (2D graphs ignore z).
    Vec3,
    /// One of these labels.
    Choice(Vec<String>),
    /// A file or folder path.
    Path,
    /// Free text.
    Text,
}

/// A parameter of a node kind.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    /// Name in graph files.
    pub name: String,
    /// Editor label.
    pub label: String,
    /// One-sentence help.
    pub help: String,
    /// Type and range.
    pub kind: ParamKind,
    /// Default value.
    pub default: ParamValue,
}

impl ParamSpec {
    fn new(name: &str, label: &str, help: &str, kind: ParamKind, default: ParamValue) -> Self {
        Self {
            name: name.into(),
            label: label.into(),
            help: help.into(),
            kind,
            default,
        }
    }
    /// A float parameter.
    pub fn float(name: &str, label: &str, help: &str, default: f64, min: f64, max: f64) -> Self {
        Self::new(
            name,
            label,
            help,
            ParamKind::Float { min, max },
            ParamValue::Number(default),
        )
    }
    /// An integer parameter.
    pub fn int(name: &str, label: &str, help: &str, default: i64, min: i64, max: i64) -> Self {
        Self::new(
            name,
            label,
            help,
            ParamKind::Int { min, max },
            ParamValue::Number(default as f64),
        )
    }
    /// A boolean parameter.
    pub fn bool(name: &str, label: &str, help: &str, default: bool) -> Self {
        Self::new(
            name,
            label,
            help,
            ParamKind::Bool,
            ParamValue::Bool(default),
        )
    }
    /// A vector parameter.
    pub fn vec3(name: &str, label: &str, help: &str, default: [f64; 3]) -> Self {
        Self::new(
            name,
            label,
            help,
            ParamKind::Vec3,
            ParamValue::Vector(default.to_vec()),
        )
    }
    /// A choice parameter.
    pub fn choice(name: &str, label: &str, help: &str, choices: &[&str], default: &str) -> Self {
        let choices = choices.iter().map(|c| c.to_string()).collect();
        Self::new(
            name,
            label,
            help,
            ParamKind::Choice(choices),
            ParamValue::Text(default.into()),
        )
    }
    /// A path parameter.
    pub fn path(name: &str, label: &str, help: &str, default: &str) -> Self {
        Self::new(
            name,
            label,
            help,
            ParamKind::Path,
            ParamValue::Text(default.into()),
        )
    }
    /// A free-text parameter.
    pub fn text(name: &str, label: &str, help: &str, default: &str) -> Self {
        Self::new(
            name,
            label,
            help,
            ParamKind::Text,
            ParamValue::Text(default.into()),
        )
    }

    /// Checks `value` against the kind and range.
    ///
    /// # Errors
    /// A message saying what is wrong.
    pub fn check(&self, value: &ParamValue) -> Result<(), String> {
        match (&self.kind, value) {
            (ParamKind::Float { min, max }, ParamValue::Number(x)) => {
                if !x.is_finite() || x < min || x > max {
                    return Err(format!("{x} is outside [{min}, {max}]"));
                }
            }
            (ParamKind::Int { min, max }, ParamValue::Number(x)) => {
                if x.fract() != 0.0 || *x < *min as f64 || *x > *max as f64 {
                    return Err(format!("{x} is not an integer in [{min}, {max}]"));
                }
            }
            (ParamKind::Bool, ParamValue::Bool(_)) => {}
            (ParamKind::Vec3, ParamValue::Vector(v)) if v.len() == 3 || v.len() == 2 => {
                if v.iter().any(|x| !x.is_finite()) {
                    return Err("vector has a non-finite component".into());
                }
            }
            (ParamKind::Choice(cs), ParamValue::Text(s)) => {
                if !cs.contains(s) {
                    return Err(format!("`{s}` is not one of {}", cs.join(", ")));
                }
            }
            (ParamKind::Path | ParamKind::Text, ParamValue::Text(_)) => {}
            (kind, v) => {
                return Err(format!(
                    "expected {}, found {}",
                    kind_name(kind),
                    v.display()
                ))
            }
        }
        Ok(())
    }
}

fn kind_name(kind: &ParamKind) -> &'static str {
    match kind {
        ParamKind::Float { .. } => "a number",
        ParamKind::Int { .. } => "an integer",
        ParamKind::Bool => "true or false",
        ParamKind::Vec3 => "a vector [x, y, z]",
        ParamKind::Choice(_) => "a choice (text)",
        ParamKind::Path => "a path (text)",
        ParamKind::Text => "text",
    }
}

/// A port of a node kind.
#[derive(Clone, Debug, PartialEq)]
pub struct PortSpec {
    /// Name, unique per node and direction.
    pub name: String,
    /// Data kind.
    pub kind: DataKind,
    /// For inputs: must be connected.
    pub required: bool,
    /// Help text.
    pub help: String,
}

impl PortSpec {
    /// A required input or an output.
    pub fn new(name: &str, kind: DataKind, help: &str) -> Self {
        Self {
            name: name.into(),
            kind,
            required: true,
            help: help.into(),
        }
    }
    /// An optional input.
    pub fn optional(name: &str, kind: DataKind, help: &str) -> Self {
        Self {
            required: false,
            ..Self::new(name, kind, help)
        }
    }
}

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
    /// Corrects the liquid's volume drift with a plugin solve (`volume_correction`).
    VolumeCorrection,
    /// Builds the liquid's signed distance (`level_set`).
    LevelSet,
    /// Classifies cells as liquid, air or solid (`marker`).
    CellMarker,
    /// Colliders and walls (`solids`).
    Solids,
    /// Makes the grid velocity divergence-free with a plugin solve (`pressure`).
    Pressure,
    /// The tall-cell model's pressure projection, a plugin solve (`tallcell_pressure`).
    TallCellPressure,
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
    /// None of the above (kinds that declare no role).
    #[default]
    Other,
}

impl NodeRole {
    /// One of the step-state pair, which does no work of its own.
    pub fn is_step_boundary(self) -> bool {
        matches!(self, Self::StepInput | Self::StepOutput)
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
            Self::Pressure | Self::VolumeCorrection | Self::TallCellPressure
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

/// Everything the CLI, the editor and validation know about a node kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeSpec {
    /// Stable id used in graph files (`"p2g"`).
    pub kind: String,
    /// Editor label.
    pub label: String,
    /// Palette category.
    pub category: String,
    /// What it does, citing the method.
    pub help: String,
    /// Inputs.
    pub inputs: Vec<PortSpec>,
    /// Outputs.
    pub outputs: Vec<PortSpec>,
    /// Parameters (for nodes with parameters that depend on another parameter, the fixed part).
    pub params: Vec<ParamSpec>,
    /// What it does in a step.
    pub role: NodeRole,
    /// Memory it keeps and disk it writes beyond its outputs.
    pub memory: MemoryModel,
    /// Parameters safe to change in a running simulation (they change no state's shape and
    /// no saved state): the editor applies their edits without rerunning. May name dynamic
    /// parameters (a solver plugin's).
    pub live_params: Vec<String>,
}

impl NodeSpec {
    /// A spec of role [`NodeRole::Other`] that keeps nothing inside and has no live
    /// parameters; see [`NodeSpec::with_role`], [`NodeSpec::with_memory`] and
    /// [`NodeSpec::with_live_params`].
    pub fn new(
        kind: &str,
        label: &str,
        category: &str,
        help: &str,
        inputs: Vec<PortSpec>,
        outputs: Vec<PortSpec>,
        params: Vec<ParamSpec>,
    ) -> Self {
        Self {
            kind: kind.into(),
            label: label.into(),
            category: category.into(),
            help: help.into(),
            inputs,
            outputs,
            params,
            ..Self::default()
        }
    }
    /// The spec with role `role`.
    #[must_use]
    pub fn with_role(self, role: NodeRole) -> Self {
        Self { role, ..self }
    }
    /// The spec with memory model `memory`.
    #[must_use]
    pub fn with_memory(self, memory: MemoryModel) -> Self {
        Self { memory, ..self }
    }
    /// The spec with live parameters `names`.
    #[must_use]
    pub fn with_live_params(self, names: &[&str]) -> Self {
        Self {
            live_params: names.iter().map(|n| n.to_string()).collect(),
            ..self
        }
    }
    /// Whether parameter `name` is safe to change in a running simulation.
    pub fn is_live_param(&self, name: &str) -> bool {
        self.live_params.iter().any(|p| p == name)
    }
    /// Input port index by name.
    pub fn input(&self, name: &str) -> Option<usize> {
        self.inputs.iter().position(|p| p.name == name)
    }
    /// Output port index by name.
    pub fn output(&self, name: &str) -> Option<usize> {
        self.outputs.iter().position(|p| p.name == name)
    }
}
