//! The run mode: one simulation of the graph on its own thread, its cached frames, and their
//! playback.

/// Scripted runs: autoplay, screenshot, quit.
pub mod autorun;
/// Capturing a simulated frame for the UI.
pub mod capture;
/// Which graph simulated each cached frame (what an undo keeps).
pub mod lineage;
/// The run mode's state: thread, frame cache, playback, problems.
pub mod mode;
/// The run mode's Play/Step/Reset, options and timeline.
pub mod play;
/// Where a mode's timeline stands, one implementation for both modes.
pub mod playback;
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
/// Timeline rules: replay of cached frames, the cache bar.
pub mod timeline;
/// The simulation thread.
pub mod worker;
