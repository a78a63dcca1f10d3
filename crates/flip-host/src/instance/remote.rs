//! Calls into an instance isolated in a child process ([`crate::isolation`]): the same
//! contract as a local instance, with the child's failures reported as
//! [`PluginError::Isolated`].

use super::{Backend, SolverInstance};
use crate::isolation::wire::{clean, Answer, Reply, Request, WireError, MAX_LOG_LINES};
use crate::isolation::{ChildCommand, ChildFailure, ChildSolver};
use crate::services::LogLine;
use crate::{LoadedPlugin, PluginError, ProblemRef};
use flip_abi::{self as abi, SolveStats};
use flip_sdk::OwnedProblem;
use std::sync::Arc;

impl SolverInstance {
    /// Creates an instance of `algorithm` in a child process started by `cmd`; solves then copy
    /// the problem into shared memory and run in the child, so a crash, exit or hang of the
    /// plugin fails the call ([`PluginError::Isolated`]) instead of the host.
    ///
    /// # Errors
    /// [`PluginError::UnknownAlgorithm`], [`PluginError::Call`] with the plugin's message, or
    /// [`PluginError::Isolated`] when the child could not be started or failed.
    pub fn create_isolated(
        plugin: Arc<LoadedPlugin>,
        algorithm: &str,
        params: &[(String, f64)],
        cmd: &ChildCommand,
    ) -> Result<Self, PluginError> {
        let info = plugin
            .algorithm(algorithm)
            .ok_or_else(|| PluginError::UnknownAlgorithm(format!("{}/{algorithm}", plugin.id)))?;
        let isolated = |failure| PluginError::Isolated {
            plugin: plugin.id.clone(),
            algorithm: algorithm.into(),
            call: "create",
            failure,
        };
        let (child, reply) =
            ChildSolver::start(cmd, &plugin, algorithm, params).map_err(isolated)?;
        let caps = info.capabilities;
        let backend = Backend::Child(Box::new(child));
        let mut me = Self::new(plugin.clone(), caps, algorithm, backend, Vec::new(), params);
        me.answer(reply)?;
        Ok(me)
    }

    /// Lends `problem` storage for its input arrays where this instance's solver reads them,
    /// so assembling the problem in place is all a solve needs to bring it over: an isolated
    /// instance moves the arrays (contents kept) into its input segment, which the host writes
    /// and the child can only read. Returns whether the arrays lie there now; in-process
    /// instances (nothing to lend) and a failed child return `false`. A problem that later
    /// changes size moves back to the heap by itself, and solves take the copying path.
    pub fn lend_storage(&mut self, problem: &mut OwnedProblem) -> bool {
        match &mut self.backend {
            Backend::Child(child) => child.lend(problem),
            Backend::Local(_) => false,
        }
    }

    /// Sends a control request and returns the child's answer.
    pub(super) fn remote_call(
        &mut self,
        req: &Request,
        call: &'static str,
    ) -> Result<Answer, PluginError> {
        let Backend::Child(child) = &mut self.backend else {
            unreachable!("remote call on a local instance");
        };
        let reply = child.call(req).map_err(|f| self.isolated(call, f))?;
        self.answer(reply)
    }

    /// Solves a validated problem in the child.
    pub(super) fn remote_solve(
        &mut self,
        problem: &mut ProblemRef<'_, '_>,
    ) -> Result<SolveStats, PluginError> {
        if let ProblemRef::TallCell(_) = problem {
            // The shared-memory layout carries structured and CSR problems only.
            return Err(PluginError::UnsupportedKind {
                plugin: self.plugin.id.clone(),
                algorithm: self.algorithm.clone(),
                kind: "tall-cell (in an isolated process; solve it in-process)",
            });
        }
        let Backend::Child(child) = &mut self.backend else {
            unreachable!("remote solve on a local instance");
        };
        let limits = self.limits.clone();
        child.listener = self.listener.clone();
        let waited = match child.solve(problem, &limits) {
            Ok(w) => {
                self.transfer = Some(child.last_transfer);
                w
            }
            Err(f) => {
                // What the plugin logged before the child died or hung came over live.
                self.logs = child.take_live_logs();
                return Err(self.isolated("solve", f));
            }
        };
        let cancelled = matches!(waited.reply.result, Err(WireError::Cancelled));
        match (cancelled, waited.timed_out, waited.cancelled) {
            (true, true, _) => Err(PluginError::TimeLimit {
                plugin: self.plugin.id.clone(),
                algorithm: self.algorithm.clone(),
                limit: limits.time_limit.unwrap_or_default(),
            }),
            (true, _, true) => Err(PluginError::Cancelled {
                plugin: self.plugin.id.clone(),
                algorithm: self.algorithm.clone(),
            }),
            _ => match self.answer(waited.reply)? {
                Answer::Solved(s) => Ok(SolveStats {
                    iterations: s.iterations,
                    outer_iterations: s.outer_iterations,
                    residual: s.residual,
                    initial_residual: s.initial_residual,
                    converged: s.converged,
                }),
                _ => Err(self.protocol("solve")),
            },
        }
    }

    /// Takes the logs and progress of a reply and turns its error into a [`PluginError`].
    fn answer(&mut self, reply: Reply) -> Result<Answer, PluginError> {
        self.logs = reply
            .logs
            .iter()
            .take(MAX_LOG_LINES)
            .map(|(level, text)| LogLine {
                level: (*level).min(abi::LOG_DEBUG),
                text: clean(text),
            })
            .collect();
        let p = reply.progress;
        self.progress = if p.is_finite() {
            p.clamp(0.0, 1.0)
        } else {
            0.0
        };
        match reply.result {
            Ok(answer) => Ok(answer),
            Err(WireError::Call { status, message }) => {
                if status == abi::STATUS_PANIC {
                    self.poisoned = true;
                }
                Err(self.fail(status, clean(&message)))
            }
            Err(WireError::Cancelled) => Err(PluginError::Cancelled {
                plugin: self.plugin.id.clone(),
                algorithm: self.algorithm.clone(),
            }),
            Err(WireError::Other(message)) => Err(self.fail(abi::STATUS_FAILED, clean(&message))),
        }
    }

    fn isolated(&self, call: &'static str, failure: ChildFailure) -> PluginError {
        PluginError::Isolated {
            plugin: self.plugin.id.clone(),
            algorithm: self.algorithm.clone(),
            call,
            failure,
        }
    }

    /// An answer of the wrong kind.
    pub(super) fn protocol(&self, call: &'static str) -> PluginError {
        self.isolated(
            call,
            ChildFailure::Protocol(format!("wrong answer to {call}")),
        )
    }
}
