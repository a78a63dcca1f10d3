//! Checkpoints: everything a run carries from one frame to the next (the step state, the
//! step counter and simulated time, the speed that sizes the next substep, every node's saved
//! state), so a run restored from one writes the same bytes as a run that never stopped.
//!
//! Layout of a checkpoint file: the magic `FGCK`, the format version as a little-endian
//! `u32`, then a [`Checkpoint`] encoded with postcard. Files are written to a temporary name
//! and renamed, so a reader never sees half a checkpoint.

use super::Simulation;
use crate::node::NodeError;
use crate::step::StateSlot;
use crate::value::Value;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// First bytes of every checkpoint file.
pub const CHECKPOINT_MAGIC: &[u8; 4] = b"FGCK";
/// Version of the checkpoint layout; a file of another version is refused. (2: carried
/// values are saved by their data kinds, as kind id and bytes; 3: particles carry their
/// viscosity attribute.)
pub const CHECKPOINT_VERSION: u32 = 3;

/// A value carried between steps, saved by its data kind ([`crate::kind::KindOps::encode`]).
#[derive(Serialize, Deserialize)]
struct Carried {
    /// The data kind's id.
    kind: String,
    /// What the kind encoded.
    bytes: Vec<u8>,
}

/// One node's saved state.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SavedNode {
    /// Node id.
    pub id: String,
    /// Bytes for the node's `load_state`.
    pub bytes: Vec<u8>,
    /// Why part of the state could not be saved (`None`: complete).
    pub incomplete: Option<String>,
}

/// A run saved at a frame boundary.
#[derive(Serialize, Deserialize)]
pub struct Checkpoint {
    /// Hash of the resolved graph the run simulates (set by the front end; checked on resume).
    pub graph_hash: String,
    /// Frames completed.
    pub frame: u32,
    step: u64,
    time: f64,
    state_speed: Option<f32>,
    state: Vec<Option<Carried>>,
    /// Every node's saved state, in plan order.
    pub nodes: Vec<SavedNode>,
}

/// Why a checkpoint could not be made, written, read or restored.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// File system error.
    #[error("checkpoint {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Not a checkpoint, or a checkpoint of another layout version.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A node could not save or restore its state.
    #[error("node `{node}`: {source}")]
    Node {
        /// Node id.
        node: String,
        /// The node's error.
        #[source]
        source: NodeError,
    },
    /// The checkpoint does not belong to this graph.
    #[error("the checkpoint does not match the graph: {0}")]
    Mismatch(String),
}

/// A writer that keeps the first I/O error it meets: postcard's own error would drop it.
struct KeepingError<W> {
    inner: W,
    error: Option<std::io::Error>,
}

impl<W: Write> KeepingError<W> {
    fn new(inner: W) -> Self {
        Self { inner, error: None }
    }
}

impl<W: Write> Write for KeepingError<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.inner.write(bytes).map_err(|e| {
            let copy = std::io::Error::new(e.kind(), e.to_string());
            self.error.get_or_insert(e);
            copy
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl Checkpoint {
    /// Writes the checkpoint to `path` atomically (temporary file, sync, rename).
    ///
    /// # Errors
    /// [`CheckpointError::Io`].
    pub fn write(&self, path: &Path) -> Result<(), CheckpointError> {
        let io = |source| CheckpointError::Io {
            path: path.into(),
            source,
        };
        let tmp = path.with_extension("tmp");
        let f = std::fs::File::create(&tmp).map_err(io)?;
        // encoded straight into the file: a buffer of the whole body would double the
        // particles' share of the run's peak memory while it is written
        let mut out = KeepingError::new(std::io::BufWriter::new(f));
        out.write_all(CHECKPOINT_MAGIC)
            .and_then(|()| out.write_all(&CHECKPOINT_VERSION.to_le_bytes()))
            .map_err(io)?;
        if let Err(e) = postcard::to_io(self, &mut out) {
            return Err(io(out
                .error
                .take()
                .unwrap_or_else(|| std::io::Error::other(e))));
        }
        out.flush().map_err(io)?;
        let f = out.inner.into_inner().map_err(|e| io(e.into_error()))?;
        f.sync_all().map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

    /// Reads a checkpoint written by [`Checkpoint::write`].
    ///
    /// # Errors
    /// [`CheckpointError::Io`], or [`CheckpointError::Format`] for a file that is not a
    /// checkpoint of this version or is damaged.
    pub fn read(path: &Path) -> Result<Self, CheckpointError> {
        let bytes = std::fs::read(path).map_err(|source| CheckpointError::Io {
            path: path.into(),
            source,
        })?;
        let format = |message: String| CheckpointError::Format {
            path: path.into(),
            message,
        };
        let (magic, rest) = bytes.split_at(bytes.len().min(4));
        if magic != CHECKPOINT_MAGIC || rest.len() < 4 {
            return Err(format("not a flipgraph checkpoint".into()));
        }
        let (version, body) = rest.split_at(4);
        let version = u32::from_le_bytes(version.try_into().expect("4 bytes"));
        if version != CHECKPOINT_VERSION {
            return Err(format(format!(
                "checkpoint format {version}; this flipgraph reads format {CHECKPOINT_VERSION}"
            )));
        }
        postcard::from_bytes(body).map_err(|e| format(format!("damaged checkpoint: {e}")))
    }
}

/// The run between two frames, held in memory: the carried values (shared, so holding them
/// costs one copy of what the next frame modifies) and every node's saved state. The front end
/// takes one before each frame, so an interrupted frame can still be checkpointed.
pub struct Snapshot {
    frame: u32,
    step: u64,
    time: f64,
    state_speed: Option<f32>,
    state: Vec<Option<Value>>,
    nodes: Vec<SavedNode>,
}

impl Snapshot {
    /// Frames completed when it was taken.
    pub fn frame(&self) -> u32 {
        self.frame
    }

    /// The nodes whose state could not be fully saved, with the reason.
    pub fn incomplete(&self) -> impl Iterator<Item = (&str, &str)> {
        self.nodes
            .iter()
            .filter_map(|n| Some((n.id.as_str(), n.incomplete.as_deref()?)))
    }

    /// Bytes held by the carried values (what keeping this snapshot costs once the next
    /// frame has copied them), plus the nodes' saved state.
    pub fn bytes(&self) -> usize {
        let values = self.state.iter().flatten();
        let carried: usize = values.map(|v| v.kind().ops().held_bytes(v)).sum();
        carried + self.nodes.iter().map(|n| n.bytes.len()).sum::<usize>()
    }

    /// A checkpoint of this snapshot for the graph with hash `graph_hash`.
    pub fn to_checkpoint(&self, graph_hash: &str) -> Checkpoint {
        Checkpoint {
            graph_hash: graph_hash.into(),
            frame: self.frame,
            step: self.step,
            time: self.time,
            state_speed: self.state_speed,
            state: self
                .state
                .iter()
                .map(|v| v.as_ref().and_then(carried))
                .collect(),
            nodes: self.nodes.clone(),
        }
    }
}

impl Simulation {
    /// Takes a [`Snapshot`] of the run as it stands between frames.
    ///
    /// # Errors
    /// A node (plugin) that failed to save its state.
    pub fn snapshot(&mut self) -> Result<Snapshot, CheckpointError> {
        let mut nodes = Vec::with_capacity(self.nodes.len());
        for (node, p) in self.nodes.iter_mut().zip(&self.plan.nodes) {
            let saved = node.save_state().map_err(|source| CheckpointError::Node {
                node: p.id.clone(),
                source,
            })?;
            nodes.push(SavedNode {
                id: p.id.clone(),
                bytes: saved.bytes,
                incomplete: saved.incomplete,
            });
        }
        Ok(Snapshot {
            frame: self.frame,
            step: self.step,
            time: self.time,
            state_speed: self.state_speed,
            state: self.state.clone(),
            nodes,
        })
    }

    /// Continues from `ck`, taken of a graph with the same nodes. The nodes named in `fresh`
    /// (those whose parameters a fork changed) start without their saved state.
    ///
    /// # Errors
    /// A checkpoint of another graph, or a node that refused its saved state.
    pub fn restore(&mut self, ck: Checkpoint, fresh: &[&str]) -> Result<(), CheckpointError> {
        let ids: Vec<String> = self.plan.nodes.iter().map(|p| p.id.clone()).collect();
        let saved: Vec<&str> = ck.nodes.iter().map(|n| n.id.as_str()).collect();
        if ids != saved || ck.state.len() != self.state.len() {
            return Err(CheckpointError::Mismatch(format!(
                "it holds nodes {saved:?}, the graph has {ids:?}"
            )));
        }
        self.reset();
        for ((node, saved), id) in self.nodes.iter_mut().zip(&ck.nodes).zip(&ids) {
            if fresh.contains(&id.as_str()) {
                continue;
            }
            node.load_state(&saved.bytes)
                .map_err(|source| CheckpointError::Node {
                    node: id.clone(),
                    source,
                })?;
        }
        let slots = self.slots.iter().zip(ck.state);
        self.state = slots
            .map(|(slot, c)| c.map(|c| value(slot, c)).transpose())
            .collect::<Result<_, _>>()?;
        (self.frame, self.step, self.time) = (ck.frame, ck.step, ck.time);
        self.state_speed = ck.state_speed;
        Ok(())
    }
}

impl Simulation {
    /// Continues from `snap`, taken of this graph or of an edited version of it (the editor's
    /// "simulate from here"): the carried values are shared, not copied; a node whose id the
    /// snapshot has and that is not named in `fresh` gets its saved state back, every other
    /// node (new, or changed by the edit) starts fresh.
    ///
    /// # Errors
    /// A node that refused its saved state.
    pub fn fork_from(&mut self, snap: &Snapshot, fresh: &[&str]) -> Result<(), CheckpointError> {
        self.reset();
        for (node, p) in self.nodes.iter_mut().zip(&self.plan.nodes) {
            let saved = snap.nodes.iter().find(|n| n.id == p.id);
            let Some(saved) = saved.filter(|_| !fresh.contains(&p.id.as_str())) else {
                continue;
            };
            node.load_state(&saved.bytes)
                .map_err(|source| CheckpointError::Node {
                    node: p.id.clone(),
                    source,
                })?;
        }
        self.state.clone_from(&snap.state);
        (self.frame, self.step, self.time) = (snap.frame, snap.step, snap.time);
        self.state_speed = snap.state_speed;
        Ok(())
    }
}

fn carried(v: &Value) -> Option<Carried> {
    let bytes = v.kind().ops().encode(v)?;
    let kind = v.kind().id().into();
    Some(Carried { kind, bytes })
}

/// The value of `slot` back from a checkpoint.
fn value(slot: &StateSlot, c: Carried) -> Result<Value, CheckpointError> {
    let mismatch =
        |what: String| CheckpointError::Mismatch(format!("state `{}`: {what}", slot.name));
    if c.kind != slot.kind.id() {
        let expected = slot.kind.id();
        return Err(mismatch(format!(
            "it holds {}, the graph carries {expected}",
            c.kind
        )));
    }
    slot.kind.ops().decode(&c.bytes).map_err(|e| mismatch(e.0))
}

/// Encodes a node's state (for [`crate::Node::save_state`]).
///
/// # Errors
/// A value serde cannot encode.
pub fn encode_state<T: Serialize>(value: &T) -> Result<Vec<u8>, NodeError> {
    postcard::to_stdvec(value).map_err(|e| NodeError::Failed(format!("cannot save state: {e}")))
}

/// Decodes what [`encode_state`] wrote (for [`crate::Node::load_state`]).
///
/// # Errors
/// Bytes of another layout.
pub fn decode_state<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, NodeError> {
    postcard::from_bytes(bytes).map_err(|e| NodeError::Failed(format!("unreadable state: {e}")))
}
