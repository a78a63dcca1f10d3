//! The solver node's algorithm parameters, built from the plugin's schema.
use flip_graph::{ParamMap, ParamSpec, ParamValue, Precision, WindowRefusal};
use flip_host::{AlgorithmInfo, LogLine, ParamInfo, PluginError, PluginSet, SolverInstance};
use flip_sdk::ParamKind as PluginKind;
use std::time::Duration;

/// The solving node's own parameters after its algorithm choice: `time_limit`, `isolation` and
/// `fallback_solver` (one of `choices` or none), shared by every node that solves with a plugin.
pub(crate) fn solving_specs(choices: &[&str]) -> [ParamSpec; 3] {
    let fallback: Vec<&str> = std::iter::once("none")
        .chain(choices.iter().copied())
        .collect();
    [
        time_limit_spec(
            "wall-clock limit per solve, 0 = none: past it the solver is told to stop and the node fails",
        ),
        isolation_spec(
            "none: the solver runs in this process; process: in a child process on shared \
             memory, so a crash or hang of the plugin stops the run with a clear error (or \
             falls back)",
        ),
        ParamSpec::choice(
            "fallback_solver",
            "Fallback solver",
            "with isolation = process: the algorithm (in this process, default parameters) \
             that solves the failed step and the rest of the run when the isolated solver \
             crashes, exits or hangs; none: the run stops",
            &fallback,
            "none",
        ),
    ]
}

/// The `time_limit` parameter of a node that calls a plugin (seconds, 0 = none).
pub(crate) fn time_limit_spec(help: &str) -> ParamSpec {
    ParamSpec::float("time_limit", "Time limit (s)", help, 0.0, 0.0, 1e6)
}

/// The `isolation` parameter of a node that calls a plugin: `none` or `process`.
pub(crate) fn isolation_spec(help: &str) -> ParamSpec {
    ParamSpec::choice("isolation", "Isolation", help, &["none", "process"], "none")
}

/// Whether `values` ask for process isolation (`isolation = "process"`).
pub(crate) fn isolated(values: &ParamMap) -> bool {
    matches!(values.get("isolation"), Some(ParamValue::Text(t)) if t == "process")
}

/// The `time_limit` parameter (seconds, 0 = none).
pub(crate) fn time_limit(
    p: &crate::params::Params<'_>,
) -> Result<Option<Duration>, flip_graph::NodeError> {
    let secs = f64::from(p.f32("time_limit")?);
    Ok((secs > 0.0).then(|| Duration::from_secs_f64(secs)))
}

/// A failed solve: the plugin's error and the warnings and errors it logged during the call.
#[derive(Debug)]
pub struct SolverFailure {
    /// What the host found.
    pub error: PluginError,
    /// The plugin's own warnings and errors, oldest first.
    pub logs: Vec<String>,
}

impl std::fmt::Display for SolverFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.error)?;
        self.logs
            .iter()
            .try_for_each(|l| write!(f, "; plugin log: {l}"))
    }
}

impl std::error::Error for SolverFailure {
    // The plugin's error is shown in full above; the chain goes on below it.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.error.source()
    }
}

/// The node error of a failed solve, carrying the plugin's error ([`SolverFailure`]).
pub(crate) fn with_logs(error: PluginError, logs: Vec<LogLine>) -> flip_graph::NodeError {
    let logs = logs
        .into_iter()
        .filter(|l| l.level <= flip_abi::LOG_WARNING)
        .map(|l| l.text)
        .collect();
    flip_graph::NodeError::other(SolverFailure { error, logs })
}

/// The problems a solving node poses, which decide the algorithms it accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Poses {
    /// Structured grid problems (pressure); `separating`: LCPs.
    Structured {
        /// Separating walls: an LCP solver is needed.
        separating: bool,
    },
    /// The viscosity kind (`abi::PROBLEM_VISCOSITY`).
    Viscosity,
}

impl Poses {
    /// Why `info` (named `name`) cannot solve these problems, if it cannot.
    fn refuse(self, name: &str, info: &AlgorithmInfo, plugins: &PluginSet) -> Option<String> {
        match self {
            Poses::Structured { .. } if !info.accepts_structured() => Some(format!(
                "solver `{name}` takes only general sparse (CSR) problems; this node poses \
                structured grid problems"
            )),
            Poses::Structured { separating: true } if !info.supports_lcp() => Some(format!(
                "solver `{name}` solves linear systems only; separating walls need an LCP \
                solver ({})",
                lcp_solvers(plugins).join(", ")
            )),
            Poses::Viscosity if !(info.accepts_viscosity() && info.supports_linear()) => {
                Some(format!(
                    "solver `{name}` does not take viscosity problems, which this node poses; \
                     solvers that do: {}",
                    viscosity_solvers(plugins).join(", ")
                ))
            }
            _ => None,
        }
    }
}

/// Names of the algorithms that solve viscosity problems.
pub(crate) fn viscosity_solvers(plugins: &PluginSet) -> Vec<String> {
    plugins
        .algorithms()
        .into_iter()
        .filter(|(_, a)| a.accepts_viscosity() && a.supports_linear())
        .map(|(n, _)| n)
        .collect()
}

/// The solver instance named by the `solver` parameter, with the algorithm's parameters from
/// `values`; refuses CSR-only algorithms (the grid nodes pose structured problems) and, for
/// separating walls, linear-only ones.
pub(crate) fn create_solver(
    plugins: &PluginSet,
    values: &ParamMap,
    separating: bool,
) -> Result<SolverInstance, String> {
    create_posing(plugins, values, Poses::Structured { separating })
}

/// The solver instance named by the `solver` parameter for a node posing `poses`, in this
/// process or isolated (`isolation`).
pub(crate) fn create_posing(
    plugins: &PluginSet,
    values: &ParamMap,
    poses: Poses,
) -> Result<SolverInstance, String> {
    let p = crate::params::Params(values);
    let name = p.text("solver").map_err(|e| e.to_string())?;
    let (plugin, info) = plugins
        .find(name)
        .map_err(|e| no_solver_message(&e, plugins))?;
    if let Some(why) = poses.refuse(name, info, plugins) {
        return Err(why);
    }
    let isolated = isolated(values);
    let values = algorithm_values(info, values)?;
    if !isolated {
        return SolverInstance::create(plugin, &info.name, &values).map_err(|e| e.to_string());
    }
    let Some(cmd) = &plugins.solver_child else {
        return Err(
            "parameter `isolation`: \"process\" is not offered by this program (it \
            cannot start a solver child process); use \"none\""
                .into(),
        );
    };
    SolverInstance::create_isolated(plugin, &info.name, &values, cmd).map_err(|e| e.to_string())
}

/// The in-process fallback named by `fallback_solver` (`none`: no fallback), with its default
/// parameters; it must pose the same problems as the node.
pub(crate) fn create_fallback(
    plugins: &PluginSet,
    values: &ParamMap,
    poses: Poses,
) -> Result<Option<SolverInstance>, String> {
    let name = match values.get("fallback_solver") {
        Some(ParamValue::Text(t)) if t != "none" && !t.is_empty() => t,
        _ => return Ok(None),
    };
    let (plugin, info) = plugins
        .find(name)
        .map_err(|e| no_solver_message(&e, plugins))?;
    if poses.refuse(name, info, plugins).is_some() {
        let need = match poses {
            Poses::Structured { separating: true } => "an LCP solver of structured grid problems",
            Poses::Structured { .. } => "a solver of structured grid problems",
            Poses::Viscosity => "a solver of viscosity problems",
        };
        return Err(format!("`{name}` cannot stand in: this node needs {need}"));
    }
    SolverInstance::create(plugin, &info.name, &[])
        .map(Some)
        .map_err(|e| e.to_string())
}

/// The first of `order` that `names` offers, else the first of `names` (empty when none).
pub(crate) fn preferred(names: &[String], order: &[&str]) -> String {
    order
        .iter()
        .find(|p| names.iter().any(|n| n == *p))
        .map(|s| s.to_string())
        .or_else(|| names.first().cloned())
        .unwrap_or_default()
}

/// Preferred default: multigrid-preconditioned CG, then MIC(0)-PCG, then anything.
pub(crate) fn default_solver(names: &[String]) -> String {
    preferred(names, &["multigrid/mgpcg", "pcg/mic0-pcg"])
}

/// Names of the LCP-capable algorithms.
pub(crate) fn lcp_solvers(plugins: &PluginSet) -> Vec<String> {
    plugins
        .algorithms()
        .into_iter()
        .filter(|(_, a)| a.supports_lcp())
        .map(|(n, _)| n)
        .collect()
}

/// Names of the algorithms that solve this node's problems (`separating`: LCPs) on one rank's
/// slab of a distributed run.
pub(crate) fn distributed_solvers(plugins: &PluginSet, separating: bool) -> Vec<String> {
    plugins
        .algorithms()
        .into_iter()
        .filter(|(_, a)| a.supports_distributed() && a.accepts_structured())
        .filter(|(_, a)| {
            if separating {
                a.supports_lcp()
            } else {
                a.supports_linear()
            }
        })
        .map(|(n, _)| n)
        .collect()
}

/// Whether `solver` can solve one rank's slab of a distributed run, and if not, why
/// (`alternatives`: the loaded solvers that can).
pub(crate) fn distributable(
    solver: &SolverInstance,
    alternatives: &[String],
) -> Result<(), WindowRefusal> {
    let name = solver.qualified_name();
    let why = if solver.is_isolated() {
        format!(
            "solver `{name}` runs isolated in a child process (`isolation`), which a \
             distributed solve cannot; set `isolation` to \"none\""
        )
    } else if !solver.supports_distributed() {
        format!("solver `{name}` does not solve distributed (MPI slab) problems")
    } else {
        return Ok(());
    };
    Err(WindowRefusal::Solver {
        why,
        alternatives: alternatives.to_vec(),
    })
}

/// A helpful message when a solver is not found.
pub(crate) fn no_solver_message(e: &PluginError, plugins: &PluginSet) -> String {
    let have: Vec<String> = plugins.algorithms().into_iter().map(|(n, _)| n).collect();
    let mut msg = format!(
        "{e}; available: {}",
        if have.is_empty() {
            "none".into()
        } else {
            have.join(", ")
        }
    );
    for r in &plugins.refused {
        msg.push_str(&format!("; refused: {r}"));
    }
    msg
}

/// Parameter specs of the algorithm named by `values["solver"]`.
pub(crate) fn algorithm_specs(
    plugins: &PluginSet,
    values: &ParamMap,
) -> Result<Vec<ParamSpec>, String> {
    let name = match values.get("solver") {
        Some(ParamValue::Text(s)) => s.clone(),
        _ => default_solver(
            &plugins
                .algorithms()
                .into_iter()
                .map(|(n, _)| n)
                .collect::<Vec<_>>(),
        ),
    };
    if name.is_empty() {
        return Err(no_solver_message(
            &PluginError::UnknownAlgorithm("(none)".into()),
            plugins,
        ));
    }
    let (_, info) = plugins
        .find(&name)
        .map_err(|e| no_solver_message(&e, plugins))?;
    Ok(plugin_param_specs(&info.params))
}

/// Graph parameter specs of a plugin's parameter schemas (a solver algorithm's or a plugin
/// node's), read in f64 as the plugin gets them ([`plugin_param_values`]).
pub(crate) fn plugin_param_specs(params: &[ParamInfo]) -> Vec<ParamSpec> {
    params
        .iter()
        .map(|p| match p.kind {
            PluginKind::Float => {
                ParamSpec::float(&p.name, &p.label, &p.help, p.default, p.min, p.max)
            }
            PluginKind::Int => ParamSpec::int(
                &p.name,
                &p.label,
                &p.help,
                p.default as i64,
                p.min as i64,
                p.max as i64,
            ),
            PluginKind::Bool => ParamSpec::bool(&p.name, &p.label, &p.help, p.default != 0.0),
            PluginKind::Choice => {
                let labels: Vec<&str> = p.choices.iter().map(String::as_str).collect();
                let default = labels.get(p.default as usize).copied().unwrap_or_default();
                ParamSpec::choice(&p.name, &p.label, &p.help, &labels, default)
            }
        })
        .map(|spec| spec.with_precision(Precision::F64))
        .collect()
}

/// Validated graph values of the algorithm's parameters, encoded for the ABI.
pub(crate) fn algorithm_values(
    info: &AlgorithmInfo,
    values: &ParamMap,
) -> Result<Vec<(String, f64)>, String> {
    plugin_param_values(&info.params, values)
}

/// Validated graph values of a plugin's parameters, encoded for the ABI (choices as indices,
/// booleans as 0 and 1).
pub(crate) fn plugin_param_values(
    params: &[ParamInfo],
    values: &ParamMap,
) -> Result<Vec<(String, f64)>, String> {
    let mut out = Vec::new();
    for p in params {
        let Some(v) = values.get(&p.name) else {
            continue;
        };
        let x = match (p.kind, v) {
            (PluginKind::Choice, ParamValue::Text(s)) => p
                .choices
                .iter()
                .position(|c| c == s)
                .ok_or_else(|| format!("`{s}` is not a choice of `{}`", p.name))?
                as f64,
            (PluginKind::Bool, ParamValue::Bool(b)) => f64::from(u8::from(*b)),
            (_, ParamValue::Number(x)) => *x,
            _ => return Err(format!("parameter `{}` has the wrong type", p.name)),
        };
        out.push((p.name.clone(), x));
    }
    Ok(out)
}

/// The solver instance (and whether it takes the tall-cell kind) for the tall-cell node, which poses general sparse (CSR) problems with
/// their tall-cell geometry: refuses algorithms that take neither kind, naming those that
/// do, and LCP-only ones.
pub(crate) fn create_sparse_solver(
    plugins: &PluginSet,
    values: &ParamMap,
) -> Result<(SolverInstance, bool), String> {
    let p = crate::params::Params(values);
    let name = p.text("solver").map_err(|e| e.to_string())?;
    let (plugin, info) = plugins
        .find(name)
        .map_err(|e| no_solver_message(&e, plugins))?;
    if !takes_sparse(info) {
        return Err(format!(
            "solver `{name}` takes neither general sparse (CSR) nor tall-cell linear problems, \
             which this node poses; solvers that do: {}",
            sparse_solvers(plugins).join(", ")
        ));
    }
    let values = algorithm_values(info, values)?;
    let solver = SolverInstance::create(plugin, &info.name, &values).map_err(|e| e.to_string())?;
    Ok((solver, info.accepts_tallcell()))
}

/// Whether an algorithm solves linear CSR or tall-cell problems.
fn takes_sparse(info: &AlgorithmInfo) -> bool {
    (info.accepts_csr() || info.accepts_tallcell()) && info.supports_linear()
}

/// Names of the algorithms that solve linear CSR or tall-cell problems.
pub(crate) fn sparse_solvers(plugins: &PluginSet) -> Vec<String> {
    plugins
        .algorithms()
        .into_iter()
        .filter(|(_, a)| takes_sparse(a))
        .map(|(n, _)| n)
        .collect()
}
