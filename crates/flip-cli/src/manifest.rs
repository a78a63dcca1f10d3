//! `run.json`, the manifest of an output folder: what the run was (the graph as resolved, its
//! hash, the plugins, seed, threads) and what it wrote (every frame's files with their SHA-256,
//! timings, checkpoints). `run --resume` and `run --from` read it; `flipgraph verify` checks
//! the frames against it.

use anyhow::{Context, Result};
use flip_graph::{GraphDoc, ParamValue};
use flip_host::PluginSet;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// File name of the manifest inside an output folder.
pub const MANIFEST_FILE: &str = "run.json";
/// Layout version of `run.json`.
pub const MANIFEST_VERSION: u32 = 1;

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Running, or killed without a chance to say so.
    Running,
    /// Every requested frame written.
    Done,
    /// Stopped by a signal after writing a checkpoint.
    Interrupted,
    /// Stopped by an error.
    Failed,
}

/// A solver plugin the run had loaded.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PluginRecord {
    /// Library file.
    pub file: PathBuf,
    /// Plugin id.
    pub id: String,
    /// Plugin version.
    pub version: String,
    /// ABI version it was loaded through.
    pub abi: u32,
    /// SHA-256 of the library.
    pub sha256: String,
    /// Whether the graph names one of its algorithms.
    pub used: bool,
}

/// Whether a node's state goes into checkpoints whole.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StateRecord {
    /// Node id.
    pub node: String,
    /// Why part of its state cannot be saved (a resumed run re-creates that solver).
    pub not_saved: String,
}

/// One written file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// Path relative to the output folder, or absolute for a frame of the run this one was
    /// forked from.
    pub path: PathBuf,
    /// Size in bytes.
    pub bytes: u64,
    /// SHA-256, lowercase hex.
    pub sha256: String,
}

/// One simulated frame.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FrameRecord {
    /// Frame number (1-based, as in the file names).
    pub frame: u32,
    /// Substeps it took (0 for a frame referenced from another run).
    pub substeps: u32,
    /// Wall time (s).
    pub wall_s: f64,
    /// Files the output nodes wrote.
    pub files: Vec<FileRecord>,
    /// The frame's liquid volume balance (in, out per open face and sink, change inside).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<flip_nodes::stats::VolumeBalance>,
    /// Particles at its end (where the run carries particles): a resumed run's first frame
    /// measures its change inside from them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub particles: Option<usize>,
}

/// The run this one was forked from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ForkRecord {
    /// Its output folder.
    pub run: PathBuf,
    /// Frames taken from it.
    pub frame: u32,
}

/// The content of `run.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// Layout version ([`MANIFEST_VERSION`]).
    pub manifest_version: u32,
    /// flipgraph version that wrote it.
    pub flipgraph_version: String,
    /// The graph file (absolute); relative inputs resolve against its folder.
    pub graph_file: PathBuf,
    /// SHA-256 of [`Manifest::graph`].
    pub graph_sha256: String,
    /// The graph as resolved (after `--set`), RON.
    pub graph: String,
    /// Plugins loaded.
    pub plugins: Vec<PluginRecord>,
    /// Node plugins loaded (`used`: the graph has one of their node kinds).
    #[serde(default)]
    pub node_plugins: Vec<PluginRecord>,
    /// Random seed (`settings.seed`).
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// Frames requested.
    pub frames: u32,
    /// Checkpoint interval in frames.
    pub checkpoint_every: u32,
    /// How many of the newest checkpoints are kept (0: all).
    #[serde(default)]
    pub keep_checkpoints: u32,
    /// Start (Unix seconds).
    pub started_unix: u64,
    /// End (Unix seconds), once stopped.
    pub ended_unix: Option<u64>,
    /// Where the run stands.
    pub status: RunStatus,
    /// The run this one was forked from.
    pub forked_from: Option<ForkRecord>,
    /// Nodes whose state checkpoints cannot hold whole.
    pub state_not_saved: Vec<StateRecord>,
    /// Frames written, in order.
    pub frame_records: Vec<FrameRecord>,
    /// Frames with a checkpoint in `checkpoints/`.
    pub checkpoints: Vec<u32>,
    /// Peak resident memory of the process so far (bytes, getrusage).
    #[serde(default)]
    pub peak_rss_bytes: u64,
    /// Ranks of a decomposed run (`run --mpi`), whose checkpoints are one file per rank and
    /// resume only on as many ranks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi_ranks: Option<u32>,
}

/// SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Seconds since the Unix epoch.
pub fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Manifest {
    /// A new manifest for `doc` (resolved) read from `graph_file`.
    pub fn new(doc: &GraphDoc, graph_file: &Path, plugins: &PluginSet, frames: u32) -> Self {
        let graph = doc.to_ron();
        let used = |id: &str| {
            let prefix = format!("{id}/");
            doc.nodes.iter().any(|n| {
                n.params
                    .values()
                    .any(|v| matches!(v, ParamValue::Text(t) if t.starts_with(&prefix)))
            })
        };
        let solver_plugins = plugins
            .plugins
            .iter()
            .map(|p| PluginRecord {
                file: p.path.clone(),
                id: p.id.clone(),
                version: p.version.clone(),
                abi: flip_abi::ABI_VERSION,
                sha256: p.sha256.clone(),
                used: used(&p.id),
            })
            .collect();
        let node_plugins = plugins
            .nodes
            .iter()
            .map(|p| PluginRecord {
                file: p.path.clone(),
                id: p.id.clone(),
                version: p.version.clone(),
                abi: flip_abi::node::NODE_ABI_VERSION,
                sha256: p.sha256.clone(),
                used: {
                    let prefix = format!("{}/", p.id);
                    doc.nodes.iter().any(|n| n.kind.starts_with(&prefix))
                },
            })
            .collect();
        Self {
            manifest_version: MANIFEST_VERSION,
            flipgraph_version: env!("CARGO_PKG_VERSION").into(),
            graph_file: std::path::absolute(graph_file).unwrap_or_else(|_| graph_file.into()),
            graph_sha256: sha256_hex(graph.as_bytes()),
            graph,
            plugins: solver_plugins,
            node_plugins,
            seed: doc.settings.seed,
            threads: rayon::current_num_threads(),
            frames,
            checkpoint_every: 0,
            keep_checkpoints: 0,
            started_unix: now_unix(),
            ended_unix: None,
            status: RunStatus::Running,
            forked_from: None,
            state_not_saved: Vec::new(),
            frame_records: Vec::new(),
            checkpoints: Vec::new(),
            peak_rss_bytes: 0,
            mpi_ranks: None,
        }
    }

    /// The resolved graph.
    pub fn doc(&self) -> Result<GraphDoc> {
        GraphDoc::from_ron(&self.graph, "run.json `graph`").map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// Reads `<out>/run.json`.
    pub fn read(out: &Path) -> Result<Self> {
        let path = out.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let m: Self = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a flipgraph run manifest", path.display()))?;
        anyhow::ensure!(
            m.manifest_version == MANIFEST_VERSION,
            "{}: manifest version {}, this flipgraph reads {MANIFEST_VERSION}",
            path.display(),
            m.manifest_version
        );
        Ok(m)
    }

    /// Writes `<out>/run.json` atomically.
    pub fn write(&self, out: &Path) -> Result<()> {
        let path = out.join(MANIFEST_FILE);
        let tmp = out.join("run.json.tmp");
        let text = serde_json::to_string_pretty(self).expect("manifests serialise");
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .with_context(|| format!("cannot write {}", path.display()))
    }

    /// Records the files of a frame, hashing them (paths made relative to `out`).
    pub fn add_frame(
        &mut self,
        out: &Path,
        frame: u32,
        substeps: u32,
        wall_s: f64,
        files: &[PathBuf],
    ) -> Result<()> {
        let mut records = Vec::with_capacity(files.len());
        for f in files {
            let bytes = std::fs::read(f).with_context(|| format!("cannot hash {}", f.display()))?;
            records.push(FileRecord {
                path: f.strip_prefix(out).unwrap_or(f).to_path_buf(),
                bytes: bytes.len() as u64,
                sha256: sha256_hex(&bytes),
            });
        }
        self.frame_records.retain(|r| r.frame < frame);
        self.frame_records.push(FrameRecord {
            frame,
            substeps,
            wall_s,
            files: records,
            volume: None,
            particles: None,
        });
        Ok(())
    }

    /// Records frame `frame`'s volume balance and the particles at its end (after
    /// [`Manifest::add_frame`]).
    pub fn set_balance(
        &mut self,
        frame: u32,
        volume: &flip_nodes::stats::VolumeBalance,
        particles: usize,
    ) {
        if let Some(r) = self
            .frame_records
            .iter_mut()
            .rev()
            .find(|r| r.frame == frame)
        {
            r.volume = Some(volume.clone());
            r.particles = Some(particles);
        }
    }

    /// Particles at the end of the last recorded frame, where recorded.
    pub fn last_particles(&self) -> Option<usize> {
        self.frame_records.last().and_then(|r| r.particles)
    }
}
