//! The pressure solve of tall-cell water (the paper's PP stage): the point-wise Laplacian
//! with ghost-fluid surface and solid fractions, posed as a general sparse (CSR) problem with
//! its tall-cell geometry: an algorithm with the tall-cell capability gets both (the paper's
//! multigrid), one with only the CSR capability the system (the node refuses others at
//! creation).
use crate::kinds::{TypedInputs, TALL_LIQUID};
use crate::nodes::common::spec;
use crate::nodes::pressure::params;
use crate::roles::NodeRole;
use crate::stats::{SolveReport, SolvedGrid, TallCellSolve};
use flip_core::tallcell::pressure::{apply, assemble};
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, ParamValue, Value,
};
use flip_host::{PluginSet, ProblemRef, SolveLimits, SolverInstance};
use std::sync::Arc;
use std::time::Instant;

struct TallPressureSolve {
    solver: SolverInstance,
    /// The algorithm takes the tall-cell kind (else the CSR system alone).
    tallcell: bool,
    time_limit: Option<std::time::Duration>,
}

impl TallPressureSolve {
    fn new(init: &NodeInit<'_>, plugins: &PluginSet) -> Result<Self, NodeError> {
        let (solver, tallcell) = params::create_sparse_solver(plugins, init.params)
            .map_err(|e| NodeError::param("solver", e))?;
        let time_limit = params::time_limit(&crate::params::Params(init.params))
            .map_err(|e| NodeError::param("time_limit", e.to_string()))?;
        Ok(Self {
            solver,
            tallcell,
            time_limit,
        })
    }
}

impl Node for TallPressureSolve {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut liquid = io.tall_liquid("tall_liquid")?;
        let l = Arc::make_mut(&mut liquid);
        let mut problem = assemble(l, ctx.settings.density, ctx.dt);
        problem.csr.step = ctx.step;
        self.solver.set_limits(SolveLimits {
            time_limit: self.time_limit,
            cancel: Some(ctx.cancel.clone().into()),
            ..SolveLimits::default()
        });
        let start = Instant::now();
        let solved = if self.tallcell {
            self.solver
                .solve_any(ProblemRef::TallCell(&mut problem.tallcell()))
        } else {
            self.solver.solve_csr(&mut problem.csr.view())
        };
        let stats = solved.map_err(|e| params::with_logs(e, self.solver.take_logs()))?;
        let solve_ms = start.elapsed().as_secs_f64() * 1e3;
        let max_div = apply(l, &problem);
        io.report(SolveReport::new(
            &stats,
            solve_ms,
            max_div,
            problem.csr.rhs.len(),
            SolvedGrid::TallCell(TallCellSolve {
                regular_grid_cells: l.grid.regular_grid_cells(),
                symmetric: problem.csr.symmetric,
            }),
        ));
        io.set("tall_liquid", Value::shared(TALL_LIQUID, liquid));
        Ok(())
    }

    fn reset(&mut self) {
        // CSR solvers keep only caches of the matrix; a failed reset shows on the next solve.
        let _ = self.solver.reset();
    }
}

/// Preferred CSR solver: the direct solve (the operator is unsymmetric with tall cells).
fn default_solver(plugins: &PluginSet) -> String {
    params::preferred(
        &params::sparse_solvers(plugins),
        &["direct/cholesky", "pcg/bicgstab"],
    )
}

/// The tall-cell pressure node kind, offering every algorithm of `plugins`.
pub fn kind(plugins: Arc<PluginSet>) -> NodeKind {
    let names: Vec<String> = plugins.algorithms().into_iter().map(|(n, _)| n).collect();
    let default = default_solver(&plugins);
    let choices: Vec<&str> = names.iter().map(String::as_str).collect();
    let s = spec(
        "tallcell_pressure",
        "Tall-Cell Pressure",
        "Tall cells",
        "Projects the tall-cell liquid's velocity: the paper's point-wise Laplacian and \
         divergence at every liquid sample (neighbours inside tall cells read as the mix of \
         their bottom and top), p = 0 at the level set's zero (ghost fluid) and solid faces by \
         their open fraction, posed as a general sparse (CSR) problem with its tall-cell grid. The solver must take CSR \
         or tall-cell problems (multigrid/tall-mg: the paper's multigrid); with tall cells the \
         matrix is unsymmetric (CG refuses it).",
        vec![super::port("the liquid after forces")],
        vec![super::port("the projected liquid (pressure in Pa)")],
        vec![
            ParamSpec::choice(
                "solver",
                "Solver",
                "plugin algorithm taking CSR or tall-cell problems",
                &choices,
                &default,
            ),
            ParamSpec::float(
                "time_limit",
                "Time limit (s)",
                "wall-clock limit per solve, 0 = none",
                0.0,
                0.0,
                1e6,
            ),
        ],
    )
    .with(NodeRole::TallCellPressure);
    let for_params = plugins.clone();
    NodeKind::new(
        s,
        Box::new(move |init| Ok(Box::new(TallPressureSolve::new(init, &plugins)?))),
    )
    .with_dynamic_params(Box::new(move |values| {
        let mut values = values.clone();
        values
            .entry("solver".into())
            .or_insert_with(|| ParamValue::Text(default_solver(&for_params)));
        params::algorithm_specs(&for_params, &values)
            .map_err(|e| NodeError::param("solver", e).into())
    }))
}
