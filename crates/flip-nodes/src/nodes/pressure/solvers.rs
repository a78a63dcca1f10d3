//! The pressure node's solvers: the chosen algorithm, in this process or isolated in a child
//! process (`isolation = "process"`), and the optional in-process `fallback_solver` that takes
//! over for the rest of the run when the isolated child crashes, exits or hangs.

use super::params;
use flip_abi::SolveStats;
use flip_graph::{NodeError, NodeEvent, ParamMap, WindowRefusal};
use flip_host::{ChildFailure, PluginError, PluginSet, SolveLimits, SolverInstance};
use flip_sdk::Problem;
use params::Poses;

pub(crate) struct Solvers {
    primary: SolverInstance,
    fallback: Option<SolverInstance>,
    on_fallback: bool,
    /// Events for the node to report (the switch to the fallback).
    events: Vec<NodeEvent>,
}

impl Solvers {
    /// The node's solver and fallback from its parameters.
    pub fn new(
        plugins: &PluginSet,
        values: &ParamMap,
        separating: bool,
    ) -> Result<Self, NodeError> {
        Self::posing(plugins, values, Poses::Structured { separating })
    }

    /// The solver and fallback of a node that poses `poses`.
    pub fn posing(plugins: &PluginSet, values: &ParamMap, poses: Poses) -> Result<Self, NodeError> {
        if params::isolated(values) && plugins.solver_child.is_none() {
            let why = "\"process\" is not offered by this program (it cannot start a solver \
                child process); use \"none\"";
            return Err(NodeError::param("isolation", why));
        }
        let primary = params::create_posing(plugins, values, poses)?;
        let fallback = params::create_fallback(plugins, values, poses)
            .map_err(|e| NodeError::param("fallback_solver", e))?;
        Ok(Self {
            primary,
            fallback,
            on_fallback: false,
            events: Vec::new(),
        })
    }

    /// Whether the primary solver can solve one rank's slab of a distributed run
    /// ([`params::distributable`]).
    pub fn distributable(&self, alternatives: &[String]) -> Result<(), WindowRefusal> {
        params::distributable(&self.primary, alternatives)
    }

    /// The instance that solves now.
    pub fn active(&mut self) -> &mut SolverInstance {
        match (&mut self.fallback, self.on_fallback) {
            (Some(f), true) => f,
            _ => &mut self.primary,
        }
    }

    /// Whether the fallback has taken over.
    pub fn on_fallback(&self) -> bool {
        self.on_fallback
    }

    /// What happened since the last call (the node reports it).
    pub fn take_events(&mut self) -> Vec<NodeEvent> {
        std::mem::take(&mut self.events)
    }

    /// Solves `view` with the active instance; when the isolated primary fails, records a
    /// [`NodeEvent::SolverFallback`] and solves the same problem with the fallback, which then
    /// stays.
    pub fn solve(
        &mut self,
        view: &mut Problem<'_>,
        limits: SolveLimits,
    ) -> Result<SolveStats, NodeError> {
        self.solve_with(limits, |s| s.solve(view))
    }

    /// [`Solvers::solve`] of any problem: `solve` hands it to an instance (the primary, then
    /// the fallback after an isolated failure).
    pub fn solve_with(
        &mut self,
        limits: SolveLimits,
        mut solve: impl FnMut(&mut SolverInstance) -> Result<SolveStats, PluginError>,
    ) -> Result<SolveStats, NodeError> {
        let solver = self.active();
        solver.set_limits(limits.clone());
        let err = match solve(solver) {
            Ok(stats) => return Ok(stats),
            Err(e) => e,
        };
        let child_failed = match &err {
            // A user's stop is not a reason to switch solvers.
            PluginError::Isolated { failure, .. } => {
                failure.is_solver_fault() && *failure != ChildFailure::CancelIgnored
            }
            PluginError::TimeLimit { .. } => self.primary.is_isolated(),
            _ => false,
        };
        if self.on_fallback || !child_failed || self.fallback.is_none() {
            return Err(params::with_logs(err, self.active().take_logs()));
        }
        self.on_fallback = true;
        let event = NodeEvent::SolverFallback {
            plugin: self.primary.plugin_id().into(),
            algorithm: self.primary.algorithm().into(),
            fallback: self.active().qualified_name(),
            reason: flip_abi::sanitize(&err.to_string()).into_owned(),
        };
        self.events.push(event);
        let fallback = self.active();
        fallback.set_limits(limits);
        solve(fallback).map_err(|e| params::with_logs(e, fallback.take_logs()))
    }

    /// Resets the active instance.
    pub fn reset(&mut self) -> Result<(), PluginError> {
        self.active().reset()
    }
}
