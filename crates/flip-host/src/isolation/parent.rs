//! The host's end of an isolated solver or node: starts the child, maps the shared memory, sends
//! requests and waits for replies while watching the child, the time limit and the cancel
//! token. Every way the child can end is reaped and described; none leaves a zombie.

use super::memory::SharedMemory;
use super::ports;
use super::shm::{self, Plan};
use super::wire::{self, Answer, ChildMessage, EvalMeta, Reply, Request, WireContext};
use super::{ChildCommand, ChildFailure};
use crate::node::{LoadedNodePlugin, PortRef};
use crate::{LoadedPlugin, LogLine, ProblemRef, ServiceEvent, ServiceListener, SolveLimits};
use flip_abi as abi;
use flip_abi::node::NodeContext;
use flip_sdk::OwnedProblem;
use std::io::Read;
use std::os::fd::AsRawFd;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How long a call without a time limit (create, reset, state) may take.
const CONTROL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a cancelled solve may take to stop before the child is killed.
const CANCEL_GRACE: Duration = Duration::from_secs(1);
/// How often the host looks at the clock and the cancel token while waiting.
const POLL_MS: i32 = 5;

/// A reply and how the wait went.
pub(crate) struct Waited {
    /// The child's reply.
    pub reply: Reply,
    /// The host raised the cancel flag because the time limit passed.
    pub timed_out: bool,
    /// The host raised the cancel flag because the token was cancelled.
    pub cancelled: bool,
}

/// A live child holding one solver or node instance.
pub(crate) struct ChildSolver {
    child: Child,
    input: Option<ChildStdin>,
    output: ChildStdout,
    buf: Vec<u8>,
    memory: SharedMemory,
    failure: Option<ChildFailure>,
    /// Told what the child forwards (log lines, progress) as it arrives.
    pub listener: Option<ServiceListener>,
    /// The lines forwarded during the current call.
    live: Vec<LogLine>,
    /// Time the last solve spent bringing the problem into the mapping and the pressure out.
    pub last_transfer: Duration,
}

impl ChildSolver {
    /// Starts the child and creates the instance in it; the reply tells whether `create`
    /// succeeded.
    pub fn start(
        cmd: &ChildCommand,
        plugin: &LoadedPlugin,
        algorithm: &str,
        params: &[(String, f64)],
    ) -> Result<(Self, Reply), ChildFailure> {
        let create = Request::Create {
            plugin: plugin.path.clone(),
            sha256: plugin.sha256.clone(),
            algorithm: algorithm.into(),
            params: params.to_vec(),
        };
        Self::spawn(cmd, &create)
    }

    /// Starts the child and creates an instance of node kind `kind` in it (the child's node
    /// mode); the reply tells whether `create` succeeded.
    pub fn start_node(
        cmd: &ChildCommand,
        plugin: &LoadedNodePlugin,
        kind: &str,
        params: &[(String, f64)],
    ) -> Result<(Self, Reply), ChildFailure> {
        let create = Request::CreateNode {
            plugin: plugin.path.clone(),
            sha256: plugin.sha256.clone(),
            kind: kind.into(),
            params: params.to_vec(),
        };
        Self::spawn(cmd, &create)
    }

    /// Starts the child and sends it `create`.
    fn spawn(cmd: &ChildCommand, create: &Request) -> Result<(Self, Reply), ChildFailure> {
        let mut child = Command::new(&cmd.program)
            .args(&cmd.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| ChildFailure::Start {
                program: cmd.program.clone(),
                reason: e.to_string(),
            })?;
        let (input, output) = (child.stdin.take(), child.stdout.take());
        let mut me = Self {
            child,
            input,
            output: output.expect("piped"),
            buf: Vec::new(),
            memory: SharedMemory::default(),
            failure: None,
            listener: None,
            live: Vec::new(),
            last_transfer: Duration::ZERO,
        };
        let reply = me.call(create)?;
        Ok((me, reply))
    }

    /// A control request (no time limit of the node; [`CONTROL_TIMEOUT`]).
    pub fn call(&mut self, req: &Request) -> Result<Reply, ChildFailure> {
        self.send(req)?;
        Ok(self.wait(None)?.reply)
    }

    /// Brings the problem into the shared memory (nothing to bring when its inputs were lent,
    /// [`ChildSolver::lend`]; the warm-start pressure always), solves it in the child under
    /// `limits` and copies the solution back into the problem's own pressure.
    pub fn solve(
        &mut self,
        problem: &mut ProblemRef<'_, '_>,
        limits: &SolveLimits,
    ) -> Result<Waited, ChildFailure> {
        let (meta, lent) = match problem {
            ProblemRef::Structured(p) => {
                let meta = shm::structured_meta(p);
                (meta, self.memory.holds(&shm::plan(&meta), p))
            }
            ProblemRef::Csr(p) => (shm::csr_meta(p), false),
            // Refused before this call (`remote_solve`); the system alone is what would travel.
            ProblemRef::TallCell(p) => (shm::csr_meta(&p.csr), false),
            ProblemRef::Viscosity(p) => (shm::viscosity_meta(p), false),
            // A lent structured part is copied into a fresh segment with the bodies' terms.
            ProblemRef::Coupled(p) => (shm::coupled_meta(p), false),
        };
        let plan = shm::plan(&meta);
        self.map(&plan, lent)?;
        let transfer = Instant::now();
        let inputs = self.memory.inputs().expect("mapped");
        // SAFETY: not lent, so `prepare` gave a private input segment sized for the plan.
        match problem {
            _ if lent => {}
            ProblemRef::Structured(p) => unsafe { shm::write_structured(inputs, &plan, p) },
            ProblemRef::Csr(p) => unsafe { shm::write_csr(inputs, &plan, p) },
            ProblemRef::TallCell(p) => unsafe { shm::write_csr(inputs, &plan, &p.csr) },
            ProblemRef::Viscosity(p) => unsafe { shm::write_viscosity(inputs, &plan, p) },
            ProblemRef::Coupled(p) => unsafe { shm::write_coupled(inputs, &plan, p) },
        }
        let exchange = self.memory.exchange().expect("mapped");
        shm::write_pressure(exchange, pressure(problem));
        shm::cancel_flag(exchange).store(0, Ordering::SeqCst);
        self.last_transfer = transfer.elapsed();
        self.send(&Request::Solve(meta))?;
        let waited = self.wait(Some(limits))?;
        if matches!(waited.reply.result, Ok(Answer::Solved(_))) {
            let back = Instant::now();
            let exchange = self.memory.exchange().expect("mapped");
            shm::read_pressure(exchange, pressure(problem));
            self.last_transfer += back.elapsed();
        }
        Ok(waited)
    }

    /// Brings a node's ports into the shared memory, evaluates the node in the child under
    /// `limits` and, when it answered `Evaluated`, checks the guards after the outputs and
    /// copies the outputs back into `ports`. The inner `Err(i)`: port `i` was written past its
    /// end ([`ports::read_outputs`]).
    pub fn eval(
        &mut self,
        ctx: &NodeContext,
        ports: &mut [PortRef<'_>],
        limits: &SolveLimits,
    ) -> Result<(Waited, Result<(), usize>), ChildFailure> {
        let meta = EvalMeta {
            context: WireContext {
                dims: ctx.dims,
                dimension: ctx.dimension,
                dx: ctx.dx,
                dt: ctx.dt,
                time: ctx.time,
                step: ctx.step,
                frame: ctx.frame,
            },
            ports: ports.iter().map(ports::port_meta).collect(),
        };
        let plan = ports::plan(&meta);
        self.map_sized(plan.inputs_len, plan.exchange_len, false)?;
        let transfer = Instant::now();
        let (inputs, exchange) = (self.memory.inputs(), self.memory.exchange());
        let (inputs, exchange) = (inputs.expect("mapped"), exchange.expect("mapped"));
        // SAFETY: `map_sized` gave a private input segment and an exchange of the plan's sizes.
        unsafe { ports::write_ports(inputs, exchange, &plan, ports) };
        shm::cancel_flag(exchange).store(0, Ordering::SeqCst);
        self.last_transfer = transfer.elapsed();
        self.send(&Request::Eval(meta))?;
        let waited = self.wait(Some(limits))?;
        let mut guards = Ok(());
        if matches!(waited.reply.result, Ok(Answer::Evaluated)) {
            let back = Instant::now();
            let exchange = self.memory.exchange().expect("mapped");
            // SAFETY: as above; the child answered, so it no longer writes the exchange.
            guards = unsafe { ports::read_outputs(exchange, &plan, ports) };
            self.last_transfer += back.elapsed();
        }
        Ok((waited, guards))
    }

    /// Moves the input arrays of `p` into the input segment, so assembling the next problem
    /// writes where the child reads and a solve brings nothing in; whether they lie there.
    pub fn lend(&mut self, p: &mut OwnedProblem) -> bool {
        self.failure.is_none() && self.memory.lend(p)
    }

    /// Makes sure there are segments for `plan` (`lent`: the problem's inputs are in the
    /// current one) and that the child has mapped them.
    fn map(&mut self, plan: &Plan, lent: bool) -> Result<(), ChildFailure> {
        self.map_sized(plan.inputs_len, plan.exchange_len(), lent)
    }

    /// Makes sure there are segments of these sizes and that the child has mapped them.
    fn map_sized(
        &mut self,
        inputs_len: usize,
        exchange_len: usize,
        lent: bool,
    ) -> Result<(), ChildFailure> {
        if let Err(e) = self.memory.prepare(inputs_len, exchange_len, lent) {
            let bytes = inputs_len + exchange_len;
            return Err(self.kill(ChildFailure::Protocol(format!(
                "cannot create shared memory of {bytes} bytes: {e}"
            ))));
        }
        let Some(request) = self.memory.map_request() else {
            return Ok(());
        };
        match self.call(&request)?.result {
            Ok(Answer::Done) => {
                self.memory.set_mapped();
                Ok(())
            }
            Ok(_) => Err(self.kill(ChildFailure::Protocol("unexpected answer to Map".into()))),
            Err(e) => Err(self.kill(ChildFailure::Protocol(format!(
                "it could not map the shared memory: {e:?}"
            )))),
        }
    }

    /// The lines the child forwarded during the last call (kept when it died or hung).
    pub fn take_live_logs(&mut self) -> Vec<LogLine> {
        std::mem::take(&mut self.live)
    }

    /// Takes in a live report from the child and tells the listener.
    fn forwarded(&mut self, msg: ChildMessage) -> Option<Reply> {
        let event = match msg {
            ChildMessage::Reply(reply) => return Some(reply),
            ChildMessage::Log(level, text) => {
                let line = LogLine {
                    level: level.min(abi::LOG_DEBUG),
                    text: wire::clean(&text),
                };
                if self.live.len() >= wire::MAX_LOG_LINES {
                    return None;
                }
                self.live.push(line.clone());
                ServiceEvent::Log(line)
            }
            ChildMessage::Progress(f) => ServiceEvent::Progress(if f.is_finite() {
                f.clamp(0.0, 1.0)
            } else {
                0.0
            }),
        };
        if let Some(l) = &self.listener {
            l(&event);
        }
        None
    }

    fn send(&mut self, req: &Request) -> Result<(), ChildFailure> {
        if let Some(f) = &self.failure {
            return Err(f.clone());
        }
        self.live.clear();
        let sent = match self.input.as_mut() {
            Some(input) => wire::send(input, req),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        sent.map_err(|_| self.reap())
    }

    /// Waits for the next reply; `limits` for a solve, `None` for a control call.
    fn wait(&mut self, limits: Option<&SolveLimits>) -> Result<Waited, ChildFailure> {
        let start = Instant::now();
        let limit = limits.and_then(|l| l.time_limit);
        let token = limits.and_then(|l| l.cancel.as_ref());
        let (mut timed_out, mut cancelled_at) = (false, None::<Duration>);
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            match wire::take_frame::<ChildMessage>(&mut self.buf) {
                Ok(Some(msg)) => {
                    if let Some(reply) = self.forwarded(msg) {
                        return Ok(Waited {
                            reply,
                            timed_out,
                            cancelled: cancelled_at.is_some(),
                        });
                    }
                    continue;
                }
                Ok(None) => {}
                Err(e) => return Err(self.kill(ChildFailure::Protocol(e))),
            }
            if readable(self.output.as_raw_fd(), POLL_MS) {
                match self.output.read(&mut chunk) {
                    Ok(0) | Err(_) => return Err(self.reap()),
                    Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                }
                continue;
            }
            let now = start.elapsed();
            if let Some(l) = limit.filter(|&l| now >= l) {
                timed_out = true;
                self.raise_cancel();
                if now >= l + l + Duration::from_secs(1) {
                    return Err(self.kill(ChildFailure::Hung {
                        limit: l,
                        waited: now,
                    }));
                }
            }
            if token.is_some_and(|t| t.is_cancelled()) {
                self.raise_cancel();
                let since = *cancelled_at.get_or_insert(now);
                if now - since >= CANCEL_GRACE {
                    return Err(self.kill(ChildFailure::CancelIgnored));
                }
            }
            if limits.is_none() && now >= CONTROL_TIMEOUT {
                return Err(self.kill(ChildFailure::Unresponsive { waited: now }));
            }
        }
    }

    /// Raises the cancel flag the child's solve polls.
    fn raise_cancel(&self) {
        if let Some(exchange) = self.memory.exchange() {
            shm::cancel_flag(exchange).store(1, Ordering::SeqCst);
        }
    }

    /// Kills and reaps the child, remembering why.
    fn kill(&mut self, why: ChildFailure) -> ChildFailure {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.failure = Some(why.clone());
        why
    }

    /// The child closed its channel: waits for it to end and says how it ended.
    fn reap(&mut self) -> ChildFailure {
        let deadline = Instant::now() + Duration::from_secs(2);
        let why = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break ending(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                _ => {
                    return self.kill(ChildFailure::Protocol(
                        "it closed its channel without ending".into(),
                    ))
                }
            }
        };
        self.failure = Some(why.clone());
        why
    }
}

/// The pressure of a problem of any kind (the host's own memory).
fn pressure<'x>(problem: &'x mut ProblemRef<'_, '_>) -> &'x mut [f64] {
    match problem {
        ProblemRef::Structured(p) => &mut *p.pressure,
        ProblemRef::Csr(p) => &mut *p.pressure,
        ProblemRef::TallCell(p) => &mut *p.csr.pressure,
        ProblemRef::Viscosity(p) => p.velocity(),
        ProblemRef::Coupled(p) => &mut *p.grid.pressure,
    }
}

/// How a child that ended by itself ended.
fn ending(status: std::process::ExitStatus) -> ChildFailure {
    use std::os::unix::process::ExitStatusExt;
    match (status.signal(), status.code()) {
        (Some(signal), _) => ChildFailure::Signal { signal },
        (None, Some(code)) => ChildFailure::Exit { code },
        (None, None) => ChildFailure::Protocol("it ended abnormally".into()),
    }
}

/// Whether `fd` has data (or end of file) within `ms` milliseconds.
fn readable(fd: std::os::fd::RawFd, ms: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd; an interrupted poll (EINTR) counts as "nothing yet".
    unsafe { libc::poll(&mut p, 1, ms) > 0 }
}

impl Drop for ChildSolver {
    /// Closes the channel (the child destroys the instance and exits), waits up to two
    /// seconds, then kills; the child is always reaped.
    fn drop(&mut self) {
        if self.failure.is_some() {
            return;
        }
        self.input = None;
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
