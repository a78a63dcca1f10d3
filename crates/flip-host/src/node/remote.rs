//! Calls into a node instance isolated in a child process ([`crate::isolation`]): the same
//! contract as an instance in this process, the ports copied through shared memory, the
//! outputs checked by the host as in process plus the guards after them, and the child's
//! failures reported as [`PluginError::NodeIsolated`].

use super::guard;
use super::instance::{Backend, NodeInstance, PortRef};
use super::load::LoadedNodePlugin;
use crate::isolation::wire::{clean, Answer, Reply, Request, WireError};
use crate::isolation::{ChildCommand, ChildFailure, ChildSolver};
use crate::services::CancelToken;
use crate::{PluginError, SolveLimits};
use flip_abi::node::NodeContext;
use flip_abi::{STATUS_CANCELLED, STATUS_FAILED, STATUS_PANIC};
use std::sync::Arc;

impl NodeInstance {
    /// Creates an instance of `kind` (bare name) of `plugin` in a child process started by
    /// `cmd`; each `eval` then copies the ports into shared memory and runs in the child, so a
    /// crash, exit or hang of the plugin fails the call ([`PluginError::NodeIsolated`])
    /// instead of the host.
    ///
    /// # Errors
    /// [`PluginError::UnknownAlgorithm`], [`PluginError::NodeCall`] with the plugin's message,
    /// or [`PluginError::NodeIsolated`] when the child could not be started or failed.
    pub fn create_isolated(
        plugin: Arc<LoadedNodePlugin>,
        kind: &str,
        params: &[(String, f64)],
        cmd: &ChildCommand,
    ) -> Result<Self, PluginError> {
        let info = plugin
            .kind(kind)
            .cloned()
            .ok_or_else(|| PluginError::UnknownAlgorithm(format!("{}/{kind}", plugin.id)))?;
        let started = ChildSolver::start_node(cmd, &plugin, kind, params);
        let (child, reply) = started.map_err(|failure| PluginError::NodeIsolated {
            plugin: plugin.id.clone(),
            node: kind.into(),
            call: "create",
            failure,
        })?;
        let mut me = Self {
            plugin,
            kind: info,
            backend: Backend::Child(Box::new(child)),
            poisoned: false,
            time_limit: None,
        };
        me.answer(reply)?;
        Ok(me)
    }

    /// Evaluates the node in the child over `ports` (checked against the kind by the caller),
    /// under the time limit and `cancel`; the outputs come back only when the guards after
    /// them are intact.
    pub(super) fn remote_eval(
        &mut self,
        ctx: &NodeContext,
        ports: &mut [PortRef<'_>],
        cancel: Option<CancelToken>,
    ) -> Result<(), PluginError> {
        let limits = SolveLimits {
            time_limit: self.time_limit,
            cancel,
            ..SolveLimits::default()
        };
        let Backend::Child(child) = &mut self.backend else {
            unreachable!("remote eval on a local instance");
        };
        let (waited, guards) = match child.eval(ctx, ports, &limits) {
            Ok(done) => done,
            Err(failure) => return Err(self.isolated("eval", failure)),
        };
        if waited.timed_out && waited.reply.result.is_err() {
            let limit = limits.time_limit.unwrap_or_default().as_secs_f64();
            let why = format!("ran past its time limit of {limit:.3} s and was cancelled");
            return Err(self.fail(STATUS_CANCELLED, why));
        }
        match self.answer(waited.reply)? {
            Answer::Evaluated => {}
            _ => return Err(self.protocol("eval")),
        }
        guards.map_err(|i| self.ports_error(guard::overrun(&self.kind.ports[i].name)))
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
        match child.call(req) {
            Ok(reply) => self.answer(reply),
            Err(failure) => Err(self.isolated(call, failure)),
        }
    }

    /// Turns a reply's error into a [`PluginError`] (a panic poisons the instance).
    fn answer(&mut self, reply: Reply) -> Result<Answer, PluginError> {
        match reply.result {
            Ok(answer) => Ok(answer),
            Err(WireError::Call { status, message }) => {
                self.poisoned |= status == STATUS_PANIC;
                Err(self.fail(status, clean(&message)))
            }
            Err(WireError::Cancelled) => Err(self.fail(STATUS_CANCELLED, "cancelled".into())),
            Err(WireError::Other(message)) => Err(self.fail(STATUS_FAILED, clean(&message))),
        }
    }

    fn isolated(&self, call: &'static str, failure: ChildFailure) -> PluginError {
        PluginError::NodeIsolated {
            plugin: self.plugin.id.clone(),
            node: self.kind.name.clone(),
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
