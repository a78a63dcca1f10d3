//! The plugin's descriptions, parameter handling and one solve per algorithm.

use super::*;
use flip_sdk::ParamKind;
use flip_solvers::fixtures::{self, Scene};
use flip_solvers::lcp::complementarity;

const NAMES: [&str; 7] = ["pgs", "pi-pcg", "pi-mg", "pe-pcg", "pe-mg", "fas-mg", "fmg"];

#[test]
fn describes_the_seven_algorithms_with_valid_schemas() {
    let names: Vec<&str> = LcpPlugin::ALGORITHMS.iter().map(|a| a.name).collect();
    assert_eq!(names, NAMES);
    for alg in LcpPlugin::ALGORITHMS {
        // Policy iteration alone runs distributed (its inner MGPCG does).
        let distributed = if alg.name == "pi-mg" {
            CAP_DISTRIBUTED
        } else {
            0
        };
        // Policy and penalty iteration keep the previous step's per-cell set; the others keep none.
        let state = if ["pi-pcg", "pi-mg", "pe-pcg", "pe-mg"].contains(&alg.name) {
            CAP_SAVES_STATE
        } else {
            0
        };
        assert_eq!(alg.capabilities, CAPS | distributed | state, "{}", alg.name);
        assert!(!alg.help.is_empty() && !alg.label.is_empty());
        for p in alg.params {
            assert!(
                p.min <= p.default && p.default <= p.max,
                "{}.{}",
                alg.name,
                p.name
            );
            assert!(!p.help.is_empty(), "{}.{}", alg.name, p.name);
            if p.kind == ParamKind::Choice {
                assert_eq!(p.max as usize + 1, p.choices.len());
            }
        }
        let has = |n: &str| alg.params.iter().any(|p| p.name == n);
        assert!(has("tolerance") && has("rel_tolerance") && has("max_iterations"));
        assert_eq!(
            has("max_outer_iterations"),
            alg.name.starts_with("p") && alg.name != "pgs"
        );
        assert_eq!(has("penalty_factor"), alg.name.starts_with("pe-"));
        let tol = alg.params.iter().find(|p| p.name == "tolerance").unwrap();
        assert_eq!(tol.default, 1e-6, "Lai et al.'s absolute tolerance");
    }
}

#[test]
fn every_algorithm_solves_the_container_through_the_sdk() {
    for alg in LcpPlugin::ALGORITHMS {
        let params = Params::resolve(alg.params, &[]).expect("defaults resolve");
        let mut solver = LcpPlugin::create(alg, &params).expect("create");
        let mut p = fixtures::build(Scene::LcpContainer, [24, 24, 1], 9);
        let stats = solver.solve(&mut p.view()).expect("solve");
        assert_eq!(stats.converged, 1, "{}: {stats:?}", alg.name);
        let x = p.pressure.clone();
        let c = complementarity(&p.view(), &x);
        assert!(
            c.residual <= 1e-6 && c.min_pressure >= -1e-6,
            "{}: {c:?}",
            alg.name
        );
    }
}

#[test]
fn choices_select_the_table_12_variants_and_bad_values_are_refused() {
    let fas = &LcpPlugin::ALGORITHMS[5];
    let given = [
        ("interpolation", 2.0),
        ("boundaries", 1.0),
        ("coarse_matrices", 1.0),
    ];
    let params = Params::resolve(fas.params, &given).expect("valid choices");
    assert_eq!(params.choice("interpolation"), "piecewise-constant");
    assert_eq!(params.choice("boundaries"), "simple");
    assert_eq!(params.choice("coarse_matrices"), "direct-discretisation");
    assert!(LcpPlugin::create(fas, &params).is_ok());
    assert!(Params::resolve(fas.params, &[("interpolation", 3.0)]).is_err());
    assert!(Params::resolve(fas.params, &[("tolerance", 0.0)]).is_err());
    assert!(Params::resolve(fas.params, &[("penalty_factor", 1e3)]).is_err());
    let pe = &LcpPlugin::ALGORITHMS[3];
    let params = Params::resolve(pe.params, &[("preconditioner", 1.0)]).expect("mic0");
    assert_eq!(params.choice("preconditioner"), "mic0");
}
