//! The child's end of an isolated solver or node: reads requests from stdin, runs them on an
//! in-process [`SolverInstance`] (or, in node mode, [`NodeInstance`]) of its own, answers on
//! the channel. Problems are read from and
//! solved in the shared mapping; the solve's cancel service reads the mapping's cancel flag.

use super::segment::{Access, Segment};
use super::wire::{
    self, Answer, ChildMessage, EvalMeta, Reply, Request, SolveMeta, WireError, WireStats,
};
use super::{ports, shm, views};
use crate::node::{LoadedNodePlugin, NodeInstance};
use crate::{
    CancelToken, LoadedPlugin, PluginError, ProblemRef, ServiceEvent, ServiceListener, SolveLimits,
    SolverInstance,
};
use flip_abi::node::NodeContext;
use std::io::BufWriter;
use std::os::fd::FromRawFd;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// The channel to the host, shared by the request loop and the live forwarding.
type Channel = Arc<Mutex<BufWriter<std::fs::File>>>;

/// Sends `msg` on the channel.
fn send(channel: &Channel, msg: &ChildMessage) -> std::io::Result<()> {
    let mut out = channel
        .lock()
        .map_err(|_| std::io::Error::other("poisoned"))?;
    wire::send(&mut *out, msg)
}

/// Forwards log lines as they are logged, and progress when it moved by a percent or more.
fn forwarder(channel: Channel) -> ServiceListener {
    let last = Mutex::new(f64::NEG_INFINITY);
    Arc::new(move |event: &ServiceEvent| {
        let msg = match event {
            ServiceEvent::Log(line) => ChildMessage::Log(line.level, line.text.clone()),
            ServiceEvent::Progress(f) => {
                let Ok(mut last) = last.lock() else { return };
                if (f - *last).abs() < 0.01 && *f < 1.0 {
                    return;
                }
                *last = *f;
                ChildMessage::Progress(*f)
            }
        };
        // A broken channel ends the request loop; nothing to do here.
        let _ = send(&channel, &msg);
    })
}

/// The body of the solver child: serves requests until the host closes the channel, then
/// destroys the instance and returns the exit code (0; 2 when the channel broke).
pub fn child_main() -> i32 {
    // SAFETY: plain descriptor calls on this process's own stdout/stderr. The channel gets a
    // private copy of fd 1 (close-on-exec); fd 1 then points at stderr, so a plugin's prints
    // cannot garble the channel.
    let channel = unsafe {
        let fd = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
        if fd < 0 || libc::dup2(2, 1) < 0 {
            return 2;
        }
        std::fs::File::from_raw_fd(fd)
    };
    die_with_parent();
    // How the child ends is the parent's to report, plugin's exit status included.
    crate::host_exits();
    let out: Channel = Arc::new(Mutex::new(BufWriter::new(channel)));
    let mut input = std::io::stdin().lock();
    let mut state = State {
        forward: Some(forwarder(out.clone())),
        ..State::default()
    };
    loop {
        match wire::receive::<Request>(&mut input) {
            Ok(Some(req)) => {
                let reply = state.handle(req);
                if send(&out, &ChildMessage::Reply(reply)).is_err() {
                    return 2;
                }
            }
            Ok(None) => return 0,
            Err(e) => {
                eprintln!("flipgraph solver child: bad request: {e}");
                return 2;
            }
        }
    }
}

/// The child is killed when the host dies (Linux), so a hung solve cannot outlive it.
fn die_with_parent() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments; getppid cannot fail.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() == 1 {
            std::process::exit(0);
        }
    }
}

#[derive(Default)]
struct State {
    instance: Option<SolverInstance>,
    /// The node instance (node mode; then `instance` is none).
    node: Option<NodeInstance>,
    /// The problem's inputs (read only) and the exchange (cancel flag, pressure).
    segments: Option<(Segment, Arc<Segment>)>,
    /// Forwards what the plugin logs and reports to the host as it happens.
    forward: Option<ServiceListener>,
}

/// A host-side error as sent back.
fn to_wire(e: PluginError) -> WireError {
    match e {
        PluginError::Call {
            status, message, ..
        }
        | PluginError::NodeCall {
            status, message, ..
        } => WireError::Call { status, message },
        PluginError::Cancelled { .. } | PluginError::TimeLimit { .. } => WireError::Cancelled,
        other => WireError::Other(other.to_string()),
    }
}

impl State {
    fn handle(&mut self, req: Request) -> Reply {
        let result = match req {
            Request::Create {
                plugin,
                sha256,
                algorithm,
                params,
            } => self.create(&plugin, &sha256, &algorithm, &params),
            Request::Map {
                inputs,
                inputs_len,
                exchange,
                exchange_len,
            } => self.map(&inputs, inputs_len, &exchange, exchange_len),
            Request::CreateNode {
                plugin,
                sha256,
                kind,
                params,
            } => self.create_node(&plugin, &sha256, &kind, &params),
            Request::Solve(meta) => self.solve(&meta),
            Request::Eval(meta) => self.eval(&meta),
            Request::Reset => match self.node.as_mut() {
                Some(n) => n.reset().map_err(to_wire),
                None => self.instance().and_then(|i| i.reset().map_err(to_wire)),
            }
            .map(|()| Answer::Done),
            Request::SaveState => match self.node.as_mut() {
                Some(n) => n.save_state().map_err(to_wire),
                None => self
                    .instance()
                    .and_then(|i| i.save_state().map_err(to_wire)),
            }
            .map(Answer::State),
            Request::LoadState(bytes) => match self.node.as_mut() {
                Some(n) => n.load_state(&bytes).map_err(to_wire),
                None => self
                    .instance()
                    .and_then(|i| i.load_state(&bytes).map_err(to_wire)),
            }
            .map(|()| Answer::Done),
        };
        let (logs, progress) = self.instance.as_mut().map_or((Vec::new(), 0.0), |i| {
            let logs = i.take_logs().into_iter().map(|l| (l.level, l.text));
            (logs.collect(), i.last_progress())
        });
        Reply {
            result,
            logs,
            progress,
        }
    }

    fn instance(&mut self) -> Result<&mut SolverInstance, WireError> {
        self.instance
            .as_mut()
            .ok_or_else(|| WireError::Other("no instance created".into()))
    }

    fn create(
        &mut self,
        path: &std::path::Path,
        sha256: &str,
        algorithm: &str,
        params: &[(String, f64)],
    ) -> Result<Answer, WireError> {
        let plugin = LoadedPlugin::load(path).map_err(|e| WireError::Other(e.to_string()))?;
        if plugin.sha256 != sha256 {
            return Err(WireError::Other(format!(
                "{} changed since the host loaded it (content hash differs)",
                flip_abi::text::path(path)
            )));
        }
        let mut instance =
            SolverInstance::create(Arc::new(plugin), algorithm, params).map_err(to_wire)?;
        instance.set_listener(self.forward.clone());
        self.instance = Some(instance);
        Ok(Answer::Done)
    }

    /// The node mode: loads the node plugin and creates an instance of `kind`.
    fn create_node(
        &mut self,
        path: &std::path::Path,
        sha256: &str,
        kind: &str,
        params: &[(String, f64)],
    ) -> Result<Answer, WireError> {
        let plugin = LoadedNodePlugin::load(path).map_err(|e| WireError::Other(e.to_string()))?;
        if plugin.sha256 != sha256 {
            return Err(WireError::Other(format!(
                "{} changed since the host loaded it (content hash differs)",
                flip_abi::text::path(path)
            )));
        }
        self.node = Some(NodeInstance::create(Arc::new(plugin), kind, params).map_err(to_wire)?);
        Ok(Answer::Done)
    }

    /// Evaluates the node over the ports in the mapping; the host checks the outputs.
    fn eval(&mut self, meta: &EvalMeta) -> Result<Answer, WireError> {
        let (inputs, exchange) = self
            .segments
            .as_ref()
            .ok_or_else(|| WireError::Other("no shared memory mapped".into()))?;
        let node = self
            .node
            .as_mut()
            .ok_or_else(|| WireError::Other("no node instance created".into()))?;
        let flag = exchange.clone();
        let cancel =
            CancelToken::watching(move || shm::cancel_flag(&flag).load(Ordering::Relaxed) != 0);
        let c = meta.context;
        let ctx = NodeContext {
            dims: c.dims,
            dimension: c.dimension,
            dx: c.dx,
            dt: c.dt,
            time: c.time,
            step: c.step,
            frame: c.frame,
            reserved: 0,
        };
        // SAFETY: the host wrote the ports of `meta` and waits for the reply; nothing else in
        // this process uses the mapping.
        let mut ports =
            unsafe { ports::child_ports(inputs, exchange, meta) }.map_err(WireError::Other)?;
        node.eval_unchecked(&ctx, &mut ports, Some(cancel))
            .map_err(to_wire)?;
        Ok(Answer::Evaluated)
    }

    /// Maps the host's segments: the inputs read only (the host sealed them: a writable
    /// mapping would be refused anyway), the exchange read-write.
    fn map(
        &mut self,
        inputs: &std::path::Path,
        inputs_len: u64,
        exchange: &std::path::Path,
        exchange_len: u64,
    ) -> Result<Answer, WireError> {
        let inputs = Segment::open(inputs, inputs_len as usize, Access::ReadOnly);
        let exchange = Segment::open(exchange, exchange_len as usize, Access::Shared);
        let both = inputs.and_then(|i| Ok((i, exchange?)));
        let (inputs, exchange) =
            both.map_err(|e| WireError::Other(format!("cannot map shared memory: {e}")))?;
        if exchange.len() < shm::HEADER {
            return Err(WireError::Other("exchange segment too short".into()));
        }
        self.segments = Some((inputs, Arc::new(exchange)));
        Ok(Answer::Done)
    }

    fn solve(&mut self, meta: &SolveMeta) -> Result<Answer, WireError> {
        let (inputs, exchange) = self
            .segments
            .take()
            .ok_or_else(|| WireError::Other("no shared memory mapped".into()))?;
        let result = self.solve_in(&inputs, &exchange, meta);
        self.segments = Some((inputs, exchange));
        result
    }

    fn solve_in(
        &mut self,
        inputs: &Segment,
        exchange: &Arc<Segment>,
        meta: &SolveMeta,
    ) -> Result<Answer, WireError> {
        let flag = exchange.clone();
        let instance = self.instance()?;
        instance.set_limits(SolveLimits {
            time_limit: None,
            cancel: Some(CancelToken::watching(move || {
                shm::cancel_flag(&flag).load(Ordering::Relaxed) != 0
            })),
            ..SolveLimits::default()
        });
        // SAFETY: the host wrote the problem for `meta` and waits for the reply; nothing else
        // in this process uses the mapping.
        let stats = match meta {
            SolveMeta::Structured { .. } => {
                let mut p = unsafe { views::structured_view(inputs, exchange, meta) }
                    .map_err(WireError::Other)?;
                instance.solve_unchecked(ProblemRef::Structured(&mut p))
            }
            SolveMeta::Csr { .. } => {
                let mut p =
                    unsafe { views::csr_view(inputs, exchange, meta) }.map_err(WireError::Other)?;
                instance.solve_unchecked(ProblemRef::Csr(&mut p))
            }
            SolveMeta::Coupled { .. } => {
                let mut p = unsafe { views::coupled_view(inputs, exchange, meta) }
                    .map_err(WireError::Other)?;
                instance.solve_unchecked(ProblemRef::Coupled(&mut p))
            }
            SolveMeta::Viscosity { .. } => {
                let mut p = unsafe { views::viscosity_view(inputs, exchange, meta) }
                    .map_err(WireError::Other)?;
                instance.solve_unchecked(ProblemRef::Viscosity(&mut p))
            }
        }
        .map_err(to_wire)?;
        Ok(Answer::Solved(WireStats {
            iterations: stats.iterations,
            outer_iterations: stats.outer_iterations,
            residual: stats.residual,
            initial_residual: stats.initial_residual,
            converged: stats.converged,
        }))
    }
}
