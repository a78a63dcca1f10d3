//! The compare mode: variants of the graph (other solvers, any parameter) simulated in lockstep
//! with the same seed, shown side by side with their metric curves.

/// The compare mode's top-bar controls: Play/Step/Reset and the timeline.
pub mod controls;
/// The compare mode's variant list as edited.
pub mod drafts;
/// The compare mode's state: per-variant frame caches, playback.
pub mod mode;
/// The compare mode's variant list panel.
pub mod panel;
/// The compare mode's metric curves.
pub mod plots;
/// The compare mode's viewports and layout.
pub mod view;
/// The compare mode's simulation thread.
pub mod worker;
