//! Typed access to values: a node reads `io.particles("particles")?` (and
//! `io.particles_opt(..)?` for an optional input); a front end reads the particles a
//! simulation carries with [`CarriedParticles`].

use super::{
    VelocityField, BODIES, CELLS, DIFFUSE, LEVEL_SET, PARTICLES, SCALAR, SOLIDS, TALL_LIQUID,
    VELOCITY,
};
use flip_core::rigid::Bodies;
use flip_core::tallcell::TallLiquid;
use flip_core::whitewater::Diffuse;
use flip_core::{CellGrid, Grid3, Particles, Solids};
use flip_graph::{NodeError, NodeIo, Simulation, Value};
use std::sync::Arc;

macro_rules! typed_inputs {
    ($($fn:ident, $opt:ident, $kind:ident, $ty:ty;)*) => {
        /// Inputs of the built-in data kinds, typed.
        pub trait TypedInputs {
            $(
                /// Takes a required input of this kind.
                ///
                /// # Errors
                /// Missing input or wrong kind.
                fn $fn(&mut self, name: &str) -> Result<Arc<$ty>, NodeError>;

                /// Takes an optional input of this kind (`None` when unconnected or empty).
                ///
                /// # Errors
                /// Wrong kind.
                fn $opt(&mut self, name: &str) -> Result<Option<Arc<$ty>>, NodeError>;
            )*
        }

        impl TypedInputs for NodeIo {
            $(
                fn $fn(&mut self, name: &str) -> Result<Arc<$ty>, NodeError> {
                    self.$opt(name)?
                        .ok_or_else(|| NodeError::MissingInput(name.into()))
                }

                fn $opt(&mut self, name: &str) -> Result<Option<Arc<$ty>>, NodeError> {
                    self.take_as(name, $kind)
                }
            )*
        }
    };
}

typed_inputs! {
    particles, particles_opt, PARTICLES, Particles;
    velocity, velocity_opt, VELOCITY, VelocityField;
    cells, cells_opt, CELLS, CellGrid;
    level_set, level_set_opt, LEVEL_SET, Grid3<f32>;
    solids, solids_opt, SOLIDS, Solids;
    scalar, scalar_opt, SCALAR, Grid3<f32>;
    tall_liquid, tall_liquid_opt, TALL_LIQUID, TallLiquid;
    diffuse, diffuse_opt, DIFFUSE, Diffuse;
    bodies, bodies_opt, BODIES, Bodies;
}

/// The particles a simulation carries from one step to the next.
pub trait CarriedParticles {
    /// The particles carried to the next step (shares the buffer; the next step copies it once
    /// if you keep this `Arc`).
    fn particles(&self) -> Option<Arc<Particles>>;

    /// Replaces the particles carried into the next step (e.g. an initial state built outside
    /// the graph, such as an analytic wave); emitters then add to them as usual.
    fn set_particles(&mut self, particles: Particles);
}

impl CarriedParticles for Simulation {
    fn particles(&self) -> Option<Arc<Particles>> {
        self.carried_as()
    }

    fn set_particles(&mut self, particles: Particles) {
        self.set_carried("particles", Value::new(PARTICLES, particles));
    }
}
