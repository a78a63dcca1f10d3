//! An isolated solver's shared memory seen from the host: a problem whose input arrays are lent
//! the solver's sealed input segment is assembled and solved in place, bit for bit as in this
//! process, and a change of size falls back to the copying path.

use flip_host::{default_plugin_dirs, ChildCommand, PluginSet, SolverInstance};
use flip_sdk::OwnedProblem;
use flip_solvers::fixtures::{self, Scene};

/// The bundled plugins.
fn plugins() -> PluginSet {
    PluginSet::load_dirs(&default_plugin_dirs())
}

fn child() -> ChildCommand {
    ChildCommand {
        program: env!("CARGO_BIN_EXE_flipgraph-solver-child").into(),
        args: Vec::new(),
    }
}

/// Writes `src` into `dst`'s arrays in place where the sizes agree, as the pressure node's
/// assembly does (a size change moves an array to the heap).
fn assemble_into(dst: &mut OwnedProblem, src: &OwnedProblem) {
    (dst.dims, dst.dimension, dst.dx, dst.step) = (src.dims, src.dimension, src.dx, src.step);
    dst.cell_kind.assign(&src.cell_kind);
    dst.complementarity.assign(&src.complementarity);
    dst.rhs.assign(&src.rhs);
    for (d, s) in [&mut dst.diag, &mut dst.liquid_phi, &mut dst.solid_phi]
        .into_iter()
        .zip([&src.diag, &src.liquid_phi, &src.solid_phi])
        .chain(dst.off.iter_mut().zip(&src.off))
        .chain(dst.face_open.iter_mut().zip(&src.face_open))
    {
        d.assign(s);
    }
    dst.pressure.clone_from(&src.pressure);
}

#[test]
fn a_problem_in_lent_storage_solves_in_place_and_a_size_change_falls_back_to_copying() {
    let plugins = plugins();
    let (plugin, info) = plugins.find("multigrid/mgpcg").unwrap();
    let algorithm = info.name.clone();
    let mut local = SolverInstance::create(plugin.clone(), &algorithm, &[]).unwrap();
    let mut isolated = SolverInstance::create_isolated(plugin, &algorithm, &[], &child()).unwrap();
    let first = fixtures::build(Scene::FreeSurfaceBox, [24, 20, 1], 0);
    let mut p = first.clone();
    assert!(!local.lend_storage(&mut p), "nothing to lend in-process");
    assert!(isolated.lend_storage(&mut p));
    assert!(p.diag.is_lent() && p.rhs.is_lent() && p.face_open[2].is_lent());
    assert_eq!(p, first, "lending keeps the contents");
    let steps = [
        ([24, 20, 1], true),
        ([24, 20, 1], true),
        ([16, 12, 1], false),
    ];
    for (s, (dims, lent)) in steps.into_iter().enumerate() {
        let problem = fixtures::build(Scene::FreeSurfaceBox, dims, s as u64 + 1);
        assemble_into(&mut p, &problem);
        assert_eq!(p.rhs.is_lent(), lent, "step {s}");
        let mut expected = problem.clone();
        local.solve(&mut expected.view()).unwrap();
        isolated.solve(&mut p.view()).unwrap();
        assert_eq!(
            p.pressure, expected.pressure,
            "step {s}: same as in-process"
        );
        let inputs_kept = OwnedProblem {
            pressure: problem.pressure.clone(),
            ..p.clone()
        };
        assert_eq!(inputs_kept, problem, "step {s}: the inputs are the host's");
    }
    assert!(isolated.lend_storage(&mut p), "lent again at the new size");
    assert!(p.rhs.is_lent());
}
