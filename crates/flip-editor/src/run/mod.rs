//! The run mode: one simulation of the graph on its own thread, its cached frames, and their
//! playback.

/// Scripted runs: autoplay, screenshot, quit.
pub mod autorun;
/// Play/Step/Reset, timeline and viewport options (both modes).
pub mod controls;
/// Play/Step and the run mode's timeline.
pub mod play;
/// Simulation threads below the UI's CPU priority.
pub mod priority;
/// The values a run keeps for the overlays (probes).
pub mod probes;
/// Where an edited graph's run starts: frame 0, "simulate from here", live edits.
pub mod resim;
/// A simulation thread behind channels (run and compare modes).
pub mod sim_thread;
/// Saved states after simulated frames.
pub mod snapshots;
/// Stats panel.
pub mod stats;
/// Timeline rules: playback of cached frames, the cache bar.
pub mod timeline;
/// The simulation thread.
pub mod worker;
