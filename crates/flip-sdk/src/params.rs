use super::SolveError;

/// Kind of a parameter, mirrored to `abi::PARAM_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A real number.
    Float,
    /// An integer.
    Int,
    /// A boolean.
    Bool,
    /// One of the labels in [`ParamSchema::choices`].
    Choice,
}

/// Schema of one parameter of an algorithm.
#[derive(Clone, Copy, Debug)]
pub struct ParamSchema {
    /// snake_case identifier.
    pub name: &'static str,
    /// Editor label.
    pub label: &'static str,
    /// One-sentence help.
    pub help: &'static str,
    /// Kind.
    pub kind: ParamKind,
    /// Default value (choice: index).
    pub default: f64,
    /// Minimum (inclusive).
    pub min: f64,
    /// Maximum (inclusive).
    pub max: f64,
    /// Labels for [`ParamKind::Choice`].
    pub choices: &'static [&'static str],
}

impl ParamSchema {
    /// A float parameter.
    pub const fn float(
        name: &'static str,
        label: &'static str,
        help: &'static str,
        default: f64,
        min: f64,
        max: f64,
    ) -> Self {
        Self {
            name,
            label,
            help,
            kind: ParamKind::Float,
            default,
            min,
            max,
            choices: &[],
        }
    }
    /// An integer parameter.
    pub const fn int(
        name: &'static str,
        label: &'static str,
        help: &'static str,
        default: i64,
        min: i64,
        max: i64,
    ) -> Self {
        Self {
            name,
            label,
            help,
            kind: ParamKind::Int,
            default: default as f64,
            min: min as f64,
            max: max as f64,
            choices: &[],
        }
    }
    /// A boolean parameter.
    pub const fn bool(
        name: &'static str,
        label: &'static str,
        help: &'static str,
        default: bool,
    ) -> Self {
        Self {
            name,
            label,
            help,
            kind: ParamKind::Bool,
            default: if default { 1.0 } else { 0.0 },
            min: 0.0,
            max: 1.0,
            choices: &[],
        }
    }
    /// A choice parameter; `default` indexes `choices`.
    pub const fn choice(
        name: &'static str,
        label: &'static str,
        help: &'static str,
        choices: &'static [&'static str],
        default: usize,
    ) -> Self {
        Self {
            name,
            label,
            help,
            kind: ParamKind::Choice,
            default: default as f64,
            min: 0.0,
            max: (choices.len() - 1) as f64,
            choices,
        }
    }
}

/// One algorithm of a plugin.
#[derive(Clone, Copy, Debug)]
pub struct Algorithm {
    /// Identifier (`"mic0-pcg"`).
    pub name: &'static str,
    /// Editor label.
    pub label: &'static str,
    /// Help text citing the method.
    pub help: &'static str,
    /// `abi::CAP_*` bits.
    pub capabilities: u32,
    /// Parameter schemas.
    pub params: &'static [ParamSchema],
}

/// Validated parameter values with defaults filled in, in schema order.
#[derive(Clone, Debug)]
pub struct Params {
    schema: &'static [ParamSchema],
    values: Vec<f64>,
}

impl Params {
    /// Resolves `given` (name, value) pairs against `schema`: unknown names and out-of-range
    /// values are refused; missing ones take their defaults.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] naming the parameter.
    pub fn resolve(
        schema: &'static [ParamSchema],
        given: &[(&str, f64)],
    ) -> Result<Self, SolveError> {
        let mut values: Vec<f64> = schema.iter().map(|p| p.default).collect();
        for (name, value) in given {
            let Some(i) = schema.iter().position(|p| p.name == *name) else {
                return Err(SolveError::BadValue(format!("unknown parameter `{name}`")));
            };
            let p = &schema[i];
            let integral = matches!(p.kind, ParamKind::Int | ParamKind::Bool | ParamKind::Choice);
            if !value.is_finite()
                || *value < p.min
                || *value > p.max
                || (integral && value.fract() != 0.0)
            {
                return Err(SolveError::BadValue(format!(
                    "parameter `{name}` = {value} is outside [{}, {}]",
                    p.min, p.max
                )));
            }
            values[i] = *value;
        }
        Ok(Self { schema, values })
    }

    fn index(&self, name: &str) -> usize {
        self.schema
            .iter()
            .position(|p| p.name == name)
            .unwrap_or_else(|| panic!("parameter `{name}` is not in this algorithm's schema"))
    }
    /// A float parameter. Panics if `name` is not in the schema (a plugin bug).
    pub fn float(&self, name: &str) -> f64 {
        self.values[self.index(name)]
    }
    /// An integer parameter.
    pub fn int(&self, name: &str) -> i64 {
        self.values[self.index(name)] as i64
    }
    /// A boolean parameter.
    pub fn bool(&self, name: &str) -> bool {
        self.values[self.index(name)] != 0.0
    }
    /// A choice parameter, as its label.
    pub fn choice(&self, name: &str) -> &'static str {
        let i = self.index(name);
        self.schema[i].choices[self.values[i] as usize]
    }
}
