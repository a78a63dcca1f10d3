use super::*;
use flip_solvers::fixtures::{self, Scene};

fn create(name: &str, given: &[(&str, f64)]) -> Result<Box<dyn PressureSolver>, SolveError> {
    let algorithm = MultigridPlugin::ALGORITHMS
        .iter()
        .find(|a| a.name == name)
        .expect("algorithm");
    let params = Params::resolve(algorithm.params, given)?;
    MultigridPlugin::create(algorithm, &params)
}

#[test]
fn algorithms_expose_their_parameters() {
    let names: Vec<_> = MultigridPlugin::ALGORITHMS.iter().map(|a| a.name).collect();
    assert_eq!(
        names,
        ["mg-vcycle", "mg-fullcycle", "mgpcg", "tall-mg", "amg-pcg"]
    );
    let tall = &MultigridPlugin::ALGORITHMS[3];
    assert_eq!(tall.capabilities, CAP_LINEAR | flip_sdk::abi::CAP_TALLCELL);
    let amg = &MultigridPlugin::ALGORITHMS[4];
    let kinds = flip_sdk::abi::CAP_CSR | flip_sdk::abi::CAP_VISCOSITY;
    assert_eq!(amg.capabilities, CAP_LINEAR | kinds);
    for a in &MultigridPlugin::ALGORITHMS[..3] {
        // Only MGPCG solves a rank's slab (CG over the slabs, slab V-cycle) and the coupled
        // rigid-body kind (its outer CG applies the bodies' term).
        let extra = if a.name == "mgpcg" {
            CAP_DISTRIBUTED | CAP_COUPLED
        } else {
            0
        };
        assert_eq!(a.capabilities, CAP_LINEAR | CAP_STRUCTURED | extra);
        let params: Vec<_> = a.params.iter().map(|p| p.name).collect();
        for required in [
            "n_sweep",
            "n_sweep_coarse",
            "n_vcycle",
            "n_full_cycle",
            "coarsening",
            "rel_tolerance",
            "abs_tolerance",
            "max_iterations",
        ] {
            assert!(params.contains(&required), "{} lacks {required}", a.name);
        }
        let rel = a.params.iter().find(|p| p.name == "rel_tolerance").unwrap();
        assert_eq!(rel.default, 1e-6);
        let abs = a.params.iter().find(|p| p.name == "abs_tolerance").unwrap();
        assert_eq!(abs.default, 1e-9);
        let coarsening = a.params.iter().find(|p| p.name == "coarsening").unwrap();
        assert_eq!(coarsening.choices, ["galerkin", "rediscretise"]);
        assert!(
            a.help.contains("Karlsson") || a.help.contains("McAdams"),
            "{}",
            a.name
        );
    }
}

#[test]
fn every_algorithm_solves_2d_and_3d_with_both_coarsenings() {
    for name in ["mg-vcycle", "mg-fullcycle", "mgpcg"] {
        for coarsening in [0.0, 1.0] {
            for dims in [[48, 40, 1], [20, 18, 16]] {
                let mut p = fixtures::build(Scene::AirBubbles, dims, 2);
                let mut s = create(name, &[("coarsening", coarsening)]).unwrap();
                let stats = s.solve(&mut p.view()).unwrap();
                assert_eq!(stats.converged, 1, "{name} {coarsening} {dims:?} {stats:?}");
                assert!(stats.residual <= stats.initial_residual * 1e-3, "{name}");
            }
        }
    }
}

#[test]
fn out_of_range_parameters_are_refused() {
    assert!(matches!(
        create("mg-vcycle", &[("n_sweep", 0.0)]),
        Err(SolveError::BadValue(_))
    ));
    assert!(matches!(
        create("mgpcg", &[("coarsening", 2.0)]),
        Err(SolveError::BadValue(_))
    ));
    assert!(matches!(
        create("mg-fullcycle", &[("bogus", 1.0)]),
        Err(SolveError::BadValue(_))
    ));
    // A full-cycle round with nothing in it.
    let nothing = [("n_full_cycle", 0.0), ("n_vcycle", 0.0)];
    assert!(matches!(
        create("mg-fullcycle", &nothing),
        Err(SolveError::BadValue(_))
    ));
}

#[test]
fn the_entry_symbol_is_exported() {
    let table = flipgraph_plugin_entry();
    assert!(!table.is_null());
}
