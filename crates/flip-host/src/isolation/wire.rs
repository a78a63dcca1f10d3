//! The control channel between the host and an isolated solver or node: length-prefixed postcard
//! messages (`u32` little-endian length, then the body) on the child's stdin (requests) and on
//! the child's original stdout (replies; the child points its fd 1 at stderr, so what a plugin
//! prints cannot garble the channel).

use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::PathBuf;

/// Largest message either side accepts (saved states are the large ones).
pub(crate) const MAX_FRAME: usize = 1 << 30;
/// Most log lines the host takes from one call (the child caps them too).
pub(crate) const MAX_LOG_LINES: usize = 65;
/// Longest log line or message taken from the child, in bytes.
const MAX_TEXT: usize = 4096;

/// Text from the child, sanitised again (the child runs plugin code) and capped.
pub(crate) fn clean(text: &str) -> String {
    let mut end = text.len().min(MAX_TEXT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    flip_abi::sanitize(&text[..end]).into_owned()
}

/// The metadata of a problem whose arrays are in the shared mapping.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum SolveMeta {
    /// `abi::PressureProblem`.
    Structured {
        dims: [u64; 3],
        dimension: u32,
        dx: f64,
        lcp: bool,
        step: u64,
    },
    /// `abi::CsrProblem`.
    Csr {
        rows: u64,
        nnz: u64,
        symmetric: bool,
        lcp: bool,
        step: u64,
        flags: bool,
    },
    /// `abi::ViscosityProblem`: its CSR system (no row flags) and its grid.
    Viscosity {
        rows: u64,
        nnz: u64,
        step: u64,
        dims: [u64; 3],
        dimension: u32,
        dx: f64,
        dt: f64,
    },
    /// `abi::CoupledProblem`: the structured problem (linear) and the bodies' terms.
    Coupled {
        dims: [u64; 3],
        dimension: u32,
        dx: f64,
        step: u64,
        bodies: u64,
        dofs: u32,
        entries: u64,
    },
}

/// The step a node evaluates (`abi::node::NodeContext`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct WireContext {
    pub dims: [u32; 3],
    pub dimension: u32,
    pub dx: f32,
    pub dt: f32,
    pub time: f64,
    pub step: u64,
    pub frame: u32,
}

/// One port of a node's `eval` whose arrays are in the shared mappings ([`super::ports`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum PortMeta {
    /// No value (an unconnected optional input, or an input an output holds).
    Absent,
    /// `count` particles (`ids`: they carry ids); `output`: positions and velocities written.
    Particles { count: u64, ids: bool, output: bool },
    /// A face velocity on the context's grid.
    Velocity { output: bool },
    /// A cell field on the context's grid.
    Field { output: bool },
    /// Cell kinds on the context's grid.
    Cells { output: bool },
}

/// The metadata of a node evaluation whose ports are in the shared mappings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct EvalMeta {
    pub context: WireContext,
    /// One per declared port, in order.
    pub ports: Vec<PortMeta>,
}

/// What the host asks.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Request {
    /// Load the plugin (it must still have content hash `sha256`) and create the instance.
    Create {
        plugin: PathBuf,
        sha256: String,
        algorithm: String,
        params: Vec<(String, f64)>,
    },
    /// Load the node plugin (it must still have content hash `sha256`) and create an
    /// instance of its node kind `kind` (the child's node mode).
    CreateNode {
        plugin: PathBuf,
        sha256: String,
        kind: String,
        params: Vec<(String, f64)>,
    },
    /// Map the host's input segment (read only) and exchange segment (read-write), files the
    /// child opens by path, of at least the given bytes (replacing the previous mappings).
    Map {
        inputs: PathBuf,
        inputs_len: u64,
        exchange: PathBuf,
        exchange_len: u64,
    },
    /// Solve the problem in the mapping.
    Solve(SolveMeta),
    /// Evaluate the node over the ports in the mapping (outputs written in place).
    Eval(EvalMeta),
    /// `reset`.
    Reset,
    /// `state_size` + `save_state`.
    SaveState,
    /// `load_state`.
    LoadState(Vec<u8>),
}

/// Why a call failed in the child.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum WireError {
    /// The plugin returned this status and message.
    Call { status: i32, message: String },
    /// The solve stopped on the cancel flag.
    Cancelled,
    /// Anything else (loading the plugin, a bad mapping), as text.
    Other(String),
}

/// The statistics of a solve (`abi::SolveStats`).
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct WireStats {
    pub iterations: u32,
    pub outer_iterations: u32,
    pub residual: f64,
    pub initial_residual: f64,
    pub converged: u32,
}

/// What the child answers: the result, and what the plugin logged and last reported as
/// progress during the call.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Reply {
    pub result: Result<Answer, WireError>,
    pub logs: Vec<(u32, String)>,
    pub progress: f64,
}

/// What the child sends: live reports of the call under way, then its reply.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum ChildMessage {
    /// A line the plugin logged (level, text), forwarded as it was logged.
    Log(u32, String),
    /// The fraction done the plugin reported (forwarded when it moved by a percent or more).
    Progress(f64),
    /// The call's reply (ends the call).
    Reply(Reply),
}

/// The successful result of a request.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Answer {
    /// Create, Map, Reset, LoadState.
    Done,
    /// Solve.
    Solved(WireStats),
    /// Eval (the outputs are in the exchange segment).
    Evaluated,
    /// SaveState (`None`: the plugin has no state support).
    State(Option<Vec<u8>>),
}

/// Encodes `msg` as one frame.
pub(crate) fn frame<T: Serialize>(msg: &T) -> Vec<u8> {
    let body = postcard::to_stdvec(msg).unwrap_or_default();
    let mut out = (body.len() as u32).to_le_bytes().to_vec();
    out.extend(body);
    out
}

/// Writes one frame.
pub(crate) fn send<T: Serialize>(w: &mut impl Write, msg: &T) -> std::io::Result<()> {
    w.write_all(&frame(msg))?;
    w.flush()
}

/// Reads one frame (blocking); `None` at end of input.
pub(crate) fn receive<T: for<'de> Deserialize<'de>>(
    r: &mut impl Read,
) -> std::io::Result<Option<T>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        other => other?,
    }
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(std::io::Error::other(format!("frame of {len} bytes")));
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body)?;
    postcard::from_bytes(&body)
        .map(Some)
        .map_err(std::io::Error::other)
}

/// A complete frame at the start of `buf`, decoded and removed; `Ok(None)` while incomplete.
pub(crate) fn take_frame<T: for<'de> Deserialize<'de>>(
    buf: &mut Vec<u8>,
) -> Result<Option<T>, String> {
    if buf.len() < 4 {
        return Ok(None);
    }
    let len = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]) as usize;
    if len > MAX_FRAME {
        return Err(format!("it announced a reply of {len} bytes"));
    }
    if buf.len() < 4 + len {
        return Ok(None);
    }
    let msg = postcard::from_bytes(&buf[4..4 + len]).map_err(|e| format!("garbled reply: {e}"));
    buf.drain(..4 + len);
    msg.map(Some)
}
