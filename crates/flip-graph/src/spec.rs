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

/// Everything the CLI, the editor and validation know about a node kind.
#[derive(Clone, Debug, PartialEq)]
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
}

impl NodeSpec {
    /// Input port index by name.
    pub fn input(&self, name: &str) -> Option<usize> {
        self.inputs.iter().position(|p| p.name == name)
    }
    /// Output port index by name.
    pub fn output(&self, name: &str) -> Option<usize> {
        self.outputs.iter().position(|p| p.name == name)
    }
}
