//! One file per node kind. Each exposes `kind()` returning its spec and factory.

/// Helpers shared by the node files.
mod common;
mod frame_files;
mod keyframes;
mod mesh_file;

pub mod advect;
pub mod advect_grid;
pub mod buoyancy;
pub mod cooling;
pub mod emitter;
pub mod export;
pub mod export_bodies;
pub mod export_fields;
pub mod export_liquid_cache;
pub mod export_vdb;
pub mod export_whitewater;
pub mod extrapolate;
pub mod g2p;
pub mod gas_domain;
pub mod gravity;
pub mod level_set;
pub mod liquid_cache;
pub mod marker;
pub mod p2g;
pub mod particle_viscosity;
pub mod plugin_node;
pub mod pressure;
pub mod reflect;
pub mod reseed;
pub mod rigid_bodies;
pub mod sink;
pub mod smoke_source;
pub mod solids;
pub mod surface;
/// Tall-cell water (Chentanez & Müller 2011), 2D.
pub mod tallcell;
pub mod viscosity;
pub mod volume_correction;
pub mod vorticity;
pub mod wave_absorber;
pub mod whitewater;
