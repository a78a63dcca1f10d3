//! Vorticity confinement as a node plugin (Fedkiw, Stam & Jensen 2001, §3.3; Wave §2.1.2):
//! puts back the small swirls numerical dissipation smooths away. With `ω = ∇ × u` at cell
//! centres and `N = ∇|ω| / |∇|ω||`, the force `f = ε·dx·(N × ω)` (eq. 11) is added to every
//! inner face as the mean of its two cells' forces, times `dt`.
//!
//! Written against the public SDK only (`flip-sdk`), as a third party would.

use flip_sdk::node::{Context, DataKind, NodeInstance, NodeIo, NodeKind, NodePlugin, Port};
use flip_sdk::{ParamSchema, Params, SolveError};
use rayon::prelude::*;

/// The plugin.
pub struct Confinement;

const PORTS: &[Port] = &[
    Port::input("velocity", DataKind::FaceVelocity, "grid velocity"),
    Port::output_from_input(
        "velocity",
        DataKind::FaceVelocity,
        "velocity with the confinement force added",
    ),
];

const PARAMS: &[ParamSchema] = &[ParamSchema::float(
    "epsilon",
    "Strength ε",
    "confinement strength (0 = off)",
    0.3,
    0.0,
    100.0,
)];

impl NodePlugin for Confinement {
    const KINDS: &'static [NodeKind] = &[NodeKind {
        name: "vorticity_confinement",
        label: "Vorticity Confinement (plugin)",
        category: "Forces",
        help: "Adds ε·dx·(N × ω) to the velocity, N the unit gradient of |ω| (Fedkiw, Stam & \
               Jensen 2001, eq. 11): keeps small vortices alive.",
        ports: PORTS,
        params: PARAMS,
        acceleration_hint: 0.0,
    }];

    fn create(_kind: &NodeKind, params: &Params) -> Result<Box<dyn NodeInstance>, SolveError> {
        Ok(Box::new(Instance {
            epsilon: params.float("epsilon") as f32,
            scratch: Scratch::default(),
        }))
    }
}

flip_sdk::export_node_plugin!(Confinement, "confinement", "Vorticity confinement");

/// Per-cell work arrays, kept between steps so a step allocates nothing (no state: they are
/// rebuilt from the velocity every step).
#[derive(Default)]
struct Scratch {
    center: Vec<[f32; 3]>,
    omega: Vec<[f32; 3]>,
    magnitude: Vec<f32>,
    force: Vec<[f32; 3]>,
}

struct Instance {
    epsilon: f32,
    scratch: Scratch,
}

/// Cell-index helper for a grid of `n` cells.
#[derive(Clone, Copy)]
struct Cells {
    n: [usize; 3],
}

impl Cells {
    fn index(self, c: [usize; 3]) -> usize {
        c[0] + self.n[0] * (c[1] + self.n[1] * c[2])
    }
    fn coords(self, i: usize) -> [usize; 3] {
        let plane = self.n[0] * self.n[1];
        [i % self.n[0], (i % plane) / self.n[0], i / plane]
    }
    /// The neighbours of cell `c` along axis `a`, below and above (none for border cells,
    /// where the central differences are zero).
    fn neighbours(self, c: [usize; 3], a: usize) -> Option<(usize, usize)> {
        if c[a] == 0 || c[a] + 1 >= self.n[a] {
            return None;
        }
        let (mut lo, mut hi) = (c, c);
        lo[a] -= 1;
        hi[a] += 1;
        Some((self.index(lo), self.index(hi)))
    }
}

fn sub3(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn scale3(a: [f32; 3], s: f32) -> [f32; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn length(a: [f32; 3]) -> f32 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

impl NodeInstance for Instance {
    fn eval(&mut self, ctx: &Context, io: &mut NodeIo<'_>) -> Result<(), SolveError> {
        let mut vel = io.output_velocity("velocity")?;
        if self.epsilon == 0.0 {
            return Ok(());
        }
        let cells = Cells { n: ctx.dims };
        let count = ctx.dims.iter().product::<usize>();
        let axes = ctx.dimension;
        let inv_2dx = 0.5 / ctx.dx;
        let s = &mut self.scratch;
        for v in [&mut s.center, &mut s.omega, &mut s.force] {
            v.resize(count, [0.0; 3]);
        }
        s.magnitude.resize(count, 0.0);
        let faces = |a: usize| {
            let mut d = ctx.dims;
            d[a] += 1;
            Cells { n: d }
        };
        let (fu, fv, fw) = (faces(0), faces(1), faces(2));
        let (u, v, w) = (&*vel.u, &*vel.v, &*vel.w);
        // Cell-centred velocity: the mean of each cell's two faces per axis.
        s.center.par_iter_mut().enumerate().for_each(|(i, out)| {
            let [x, y, z] = cells.coords(i);
            let mean = |g: &[f32], f: Cells, a: usize| {
                let mut hi = [x, y, z];
                hi[a] += 1;
                0.5 * (g[f.index([x, y, z])] + g[f.index(hi)])
            };
            let wz = if axes == 3 { mean(w, fw, 2) } else { 0.0 };
            *out = [mean(u, fu, 0), mean(v, fv, 1), wz];
        });
        // ω = ∇ × u by central differences (eq. 9).
        let center = &s.center;
        s.omega.par_iter_mut().enumerate().for_each(|(i, out)| {
            let c = cells.coords(i);
            let d = |a: usize| match cells.neighbours(c, a) {
                Some((lo, hi)) if a < axes => scale3(sub3(center[hi], center[lo]), inv_2dx),
                _ => [0.0; 3],
            };
            let (dx, dy, dz) = (d(0), d(1), d(2));
            *out = [dy[2] - dz[1], dz[0] - dx[2], dx[1] - dy[0]];
        });
        let omega = &s.omega;
        s.magnitude
            .par_iter_mut()
            .zip(omega.par_iter())
            .for_each(|(m, o)| *m = length(*o));
        // N = ∇|ω| / |∇|ω|| (eq. 10), f = ε·dx·(N × ω) (eq. 11).
        let (magnitude, epsilon, dx) = (&s.magnitude, self.epsilon, ctx.dx);
        s.force.par_iter_mut().enumerate().for_each(|(i, out)| {
            let c = cells.coords(i);
            let g = [0, 1, 2].map(|a| match cells.neighbours(c, a) {
                Some((lo, hi)) if a < axes => (magnitude[hi] - magnitude[lo]) * inv_2dx,
                _ => 0.0,
            });
            let n = scale3(g, 1.0 / (length(g) + 1e-20));
            *out = scale3(cross(n, omega[i]), epsilon * dx);
        });
        let (force, dt) = (&s.force, ctx.dt);
        for (a, comp) in vel.axes_mut().into_iter().enumerate().take(axes) {
            let f = faces(a);
            comp.par_iter_mut().enumerate().for_each(|(i, value)| {
                let c = f.coords(i);
                if c[a] == 0 || c[a] == ctx.dims[a] {
                    return;
                }
                let mut lo = c;
                lo[a] -= 1;
                *value += dt * 0.5 * (force[cells.index(lo)][a] + force[cells.index(c)][a]);
            });
        }
        Ok(())
    }
}
