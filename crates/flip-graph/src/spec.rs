use crate::kind::DataKind;
use crate::value::ParamValue;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

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

/// The precision a node reads a number parameter in. Values are checked after conversion to
/// it: a number finite as f64 but not as f32 (`1e39`) is refused for an f32 parameter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// `f32` (the built-in nodes: [`ParamValue::as_vec3`] and their typed reads).
    #[default]
    F32,
    /// `f64` (a solver plugin's parameters, passed on as they are).
    F64,
}

impl Precision {
    /// `x` as read in this precision, if it stays finite.
    fn fits(self, x: f64) -> bool {
        match self {
            Self::F32 => (x as f32).is_finite(),
            Self::F64 => x.is_finite(),
        }
    }
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
    /// The precision the node reads numbers in (vectors are always f32).
    pub precision: Precision,
}

impl ParamSpec {
    fn new(name: &str, label: &str, help: &str, kind: ParamKind, default: ParamValue) -> Self {
        Self {
            name: name.into(),
            label: label.into(),
            help: help.into(),
            kind,
            default,
            precision: Precision::default(),
        }
    }
    /// The spec with numbers read in `precision`.
    #[must_use]
    pub fn with_precision(self, precision: Precision) -> Self {
        Self { precision, ..self }
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

    /// Checks `value` against the kind and range, and every number of it after conversion to
    /// the precision the node reads it in.
    ///
    /// # Errors
    /// What is wrong with the value.
    pub fn check(&self, value: &ParamValue) -> Result<(), ParamValueError> {
        use ParamValueError as E;
        match (&self.kind, value) {
            (&ParamKind::Float { min, max }, &ParamValue::Number(x)) => {
                if !x.is_finite() || x < min || x > max {
                    return Err(E::OutOfRange { value: x, min, max });
                }
                if !self.precision.fits(x) {
                    return Err(E::Overflows {
                        value: x,
                        precision: self.precision,
                    });
                }
            }
            (&ParamKind::Int { min, max }, &ParamValue::Number(x)) => {
                if x.fract() != 0.0 || x < min as f64 || x > max as f64 {
                    return Err(E::NotAnInteger { value: x, min, max });
                }
            }
            (ParamKind::Bool, ParamValue::Bool(_)) => {}
            (ParamKind::Vec3, ParamValue::Vector(v)) if v.len() == 3 || v.len() == 2 => {
                if v.iter().any(|x| !x.is_finite()) {
                    return Err(E::NonFinite);
                }
                if let Some(&x) = v.iter().find(|&&x| !Precision::F32.fits(x)) {
                    return Err(E::Overflows {
                        value: x,
                        precision: Precision::F32,
                    });
                }
            }
            (ParamKind::Choice(cs), ParamValue::Text(s)) => {
                if !cs.contains(s) {
                    return Err(E::NotAChoice {
                        value: s.clone(),
                        choices: cs.clone(),
                    });
                }
            }
            (ParamKind::Path | ParamKind::Text, ParamValue::Text(_)) => {}
            (kind, v) => {
                return Err(E::WrongType {
                    expected: kind_name(kind),
                    found: v.display(),
                })
            }
        }
        Ok(())
    }
}

/// Why a parameter value does not fit its [`ParamSpec`].
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParamValueError {
    /// A number outside the range (or not finite).
    #[error("{value} is outside [{min}, {max}]")]
    OutOfRange {
        /// The value given.
        value: f64,
        /// The smallest allowed.
        min: f64,
        /// The largest allowed.
        max: f64,
    },
    /// A fraction, or a whole number outside the range.
    #[error("{value} is not an integer in [{min}, {max}]")]
    NotAnInteger {
        /// The value given.
        value: f64,
        /// The smallest allowed.
        min: i64,
        /// The largest allowed.
        max: i64,
    },
    /// A vector with a NaN or infinite component.
    #[error("vector has a non-finite component")]
    NonFinite,
    /// A number (or a vector's component) that is not finite in the precision the node reads
    /// it in.
    #[error("{value:e} does not fit the node's {} (largest magnitude {})", precision_name(*.precision), precision_max(*.precision))]
    Overflows {
        /// The number given.
        value: f64,
        /// The precision it overflows.
        precision: Precision,
    },
    /// Text that is none of the choices.
    #[error("`{value}` is not one of {}", one_of(value, choices))]
    NotAChoice {
        /// The text given.
        value: String,
        /// The choices.
        choices: Vec<String>,
    },
    /// A value of another type.
    #[error("expected {expected}, found {found}")]
    WrongType {
        /// What the parameter takes.
        expected: &'static str,
        /// The value given, as written.
        found: String,
    },
}

/// The choices, or why there are none.
/// The choices, all of them when few, else their number and the nearest to `value`.
fn one_of(value: &str, choices: &[String]) -> String {
    const LISTED: usize = 6;
    if choices.is_empty() {
        "the choices: none are available (for a solver: no plugin is loaded; `flipgraph plugins` lists what was refused)".into()
    } else if choices.len() <= LISTED {
        choices.join(", ")
    } else {
        let near = crate::suggest::did_you_mean(value, choices.iter().map(String::as_str));
        format!(
            "the {} choices{near} (`flipgraph nodes` lists them)",
            choices.len()
        )
    }
}

fn precision_name(p: Precision) -> &'static str {
    match p {
        Precision::F32 => "f32",
        Precision::F64 => "f64",
    }
}

fn precision_max(p: Precision) -> String {
    match p {
        Precision::F32 => format!("{:e}", f32::MAX),
        Precision::F64 => format!("{:e}", f64::MAX),
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

/// A typed fact a node crate attaches to the specs of its kinds (what a kind does in a step,
/// the memory it keeps), read back by type ([`NodeSpec::get`]); the scheduler reads none.
pub trait SpecTag: Any + fmt::Debug + Send + Sync {
    /// Equality with another tag of any type.
    fn same_as(&self, other: &dyn Any) -> bool;
    /// As `Any`, to read it back by type.
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any + fmt::Debug + PartialEq + Send + Sync> SpecTag for T {
    fn same_as(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<T>() == Some(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The tags of a spec, at most one of each type.
#[derive(Clone, Debug, Default)]
pub struct SpecTags(Vec<Arc<dyn SpecTag>>);

impl PartialEq for SpecTags {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().all(|t| {
                let theirs = other
                    .0
                    .iter()
                    .find(|o| o.as_any().type_id() == t.as_any().type_id());
                theirs.is_some_and(|o| t.same_as(o.as_any()))
            })
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
    /// What the node crate says of the kind beyond ports and parameters ([`NodeSpec::get`]).
    pub tags: SpecTags,
    /// Parameters safe to change in a running simulation (they change no state's shape and
    /// no saved state): the editor applies their edits without rerunning. May name dynamic
    /// parameters (a solver plugin's).
    pub live_params: Vec<String>,
}

impl NodeSpec {
    /// A spec without tags or live parameters; see [`NodeSpec::with`] and
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
    /// The spec with tag `tag` (replacing one of the same type).
    #[must_use]
    pub fn with<T: SpecTag>(mut self, tag: T) -> Self {
        self.tags.0.retain(|t| !t.as_any().is::<T>());
        self.tags.0.push(Arc::new(tag));
        self
    }
    /// The tag of type `T`, if the kind has one.
    pub fn get<T: SpecTag>(&self) -> Option<&T> {
        self.tags.0.iter().find_map(|t| t.as_any().downcast_ref())
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
