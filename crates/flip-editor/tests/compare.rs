//! The compare mode without a window: variants of a small dam break advance in lockstep on
//! the compare thread; a variant identical to the baseline shows no difference on any frame;
//! a variant with a missing solver or a faulty plugin is reported as failed while the others
//! complete every frame.

use flip_editor::compare::drafts::{initial_drafts, list_problem, VariantDraft};
use flip_editor::compare::mode::CompareMode;
use flip_editor::compare::worker::{CompareCommand, CompareEvent, CompareWorker};
use flip_graph::overrides::{apply_overrides, parse_overrides};
use flip_graph::{GraphDoc, NodeRegistry};
use flip_host::{default_plugin_dirs, PluginSet};
use flip_nodes::compare::VariantSpec;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

const FRAMES: u32 = 4;

fn graphs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../graphs")
}

/// The default plugins plus the faulty fixture (built into target/<profile>/deps).
fn registry() -> Arc<NodeRegistry> {
    let mut set = PluginSet::load_dirs(&default_plugin_dirs());
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let faulty = deps.join(format!(
        "{}fixture_faulty{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    assert!(set.add_file(&faulty).is_none(), "{}", faulty.display());
    assert!(
        set.find("pcg/mic0-pcg").is_ok(),
        "the pcg plugin must be built: {:?}",
        set.refused
    );
    Arc::new(flip_nodes::builtin_registry(Arc::new(set)))
}

/// The dam break on a 32² grid.
fn small_dam_break() -> GraphDoc {
    let mut doc = GraphDoc::load(&graphs_dir().join("dam_break_2d.ron")).unwrap();
    apply_overrides(&mut doc, &parse_overrides(&["settings.grid=32"]).unwrap()).unwrap();
    doc
}

fn variant(text: &str) -> VariantSpec {
    VariantSpec::parse(text).unwrap()
}

#[test]
fn a_variant_identical_to_the_baseline_shows_no_difference() {
    let w = CompareWorker::spawn(registry(), || {});
    w.send(CompareCommand::Load {
        gen: 1,
        doc: Box::new(small_dam_break()),
        variants: vec![
            variant("base:pressure.solver=pcg/mic0-pcg"),
            variant("same:pressure.solver=pcg/mic0-pcg"),
            variant("loose:pressure.solver=pcg/mic0-pcg,pressure.rel_tolerance=1e-2"),
        ],
        base_dir: graphs_dir(),
        frames: FRAMES,
    });
    w.send(CompareCommand::Play);
    let start = Instant::now();
    let mut frames = vec![];
    while start.elapsed() < Duration::from_secs(120) {
        match w.rx.recv_timeout(Duration::from_millis(200)) {
            Ok(CompareEvent::Loaded { variants, .. }) => {
                let failures: Vec<_> = variants.iter().filter_map(|v| v.failure.as_ref()).collect();
                assert!(
                    failures.is_empty(),
                    "variants failed to start: {failures:?}"
                );
            }
            Ok(CompareEvent::Frame {
                frame, variants, ..
            }) => frames.push((frame, variants)),
            Ok(CompareEvent::VariantFailed { message, .. }) => panic!("{message}"),
            Ok(CompareEvent::Playing { finished: true, .. }) => break,
            _ => {}
        }
    }
    let numbers: Vec<u32> = frames.iter().map(|(f, _)| *f).collect();
    assert_eq!(numbers, [1, 2, 3, 4], "every frame, in order");
    for (frame, variants) in &frames {
        let m: Vec<_> = variants
            .iter()
            .map(|v| &v.as_ref().expect("no variant fails").metrics)
            .collect();
        assert_eq!(
            m[0].rms_vs_baseline,
            Some(0.0),
            "frame {frame}: baseline vs itself"
        );
        assert_eq!(
            m[1].rms_vs_baseline,
            Some(0.0),
            "frame {frame}: identical variant"
        );
        assert_eq!(m[0].iterations, m[1].iterations);
        assert!(m[0].iterations > 0.0 && m[0].volume > 0.0 && m[0].particles > 0);
        let data = &variants[1].as_ref().unwrap().data;
        assert_eq!(
            (data.frame, data.sample.points.len()),
            (*frame, m[1].particles)
        );
    }
    let last = &frames[3].1;
    let loose = &last[2].as_ref().unwrap().metrics;
    assert!(
        loose.rms_vs_baseline.unwrap() > 0.0,
        "a looser tolerance moves the particles"
    );
}

fn wait_finished(c: &mut CompareMode) {
    let start = Instant::now();
    while !c.playback.finished && start.elapsed() < Duration::from_secs(120) {
        if !c.poll() {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    assert!(c.playback.finished, "the run did not finish");
}

#[test]
fn failing_variants_are_reported_and_the_others_complete() {
    let mut c = CompareMode::new(registry(), || {});
    let draft = |name: &str, sets: &[&str]| VariantDraft {
        name: name.into(),
        overrides: sets.iter().map(|s| s.to_string()).collect(),
    };
    c.drafts = vec![
        draft("good", &["pressure.solver=pcg/mic0-pcg"]),
        draft("missing", &["pressure.solver=nope/none"]),
        draft(
            "faulty",
            &["pressure.solver=faulty/nan", "pressure.fail_after=2"],
        ),
        draft("typo", &["nosuchnode.x=1"]),
        draft("also-good", &["pressure.solver=pcg/ic0-pcg"]),
    ];
    c.frames = FRAMES;
    c.load(&small_dam_break(), graphs_dir());
    c.toggle_play();
    wait_finished(&mut c);
    let failure = |i: usize| c.variants[i].start.failure.clone();
    for good in [0, 4] {
        assert_eq!(failure(good), None);
        assert_eq!(c.variants[good].metrics.len(), FRAMES as usize);
        assert!(c.variants[good].frames.iter().all(Option::is_some));
    }
    let missing = failure(1).expect("the missing solver is reported");
    assert!(missing.contains("nope/none"), "{missing}");
    let faulty = failure(2).expect("the faulty plugin is reported");
    assert!(
        faulty.contains("pressure") && faulty.contains("non-finite"),
        "{faulty}"
    );
    let typo = failure(3).expect("the bad override is reported");
    assert!(typo.contains("no node `nosuchnode`"), "{typo}");
    assert!(c.variants[1].metrics.is_empty());
    assert!(c.variants[2].metrics.len() < FRAMES as usize);
    assert_eq!(c.done, FRAMES as usize);
    // Scrubbing shows every variant at the same frame; failed ones show none.
    c.playback.shown = 0;
    assert_eq!(c.shown_frame(0).unwrap().frame, 1);
    assert_eq!(c.shown_frame(4).unwrap().frame, 1);
    assert!(c.shown_frame(1).is_none());
    assert!(!c.all_failed());
}

#[test]
fn the_saved_variants_start_the_list() {
    let doc = GraphDoc::load(&graphs_dir().join("lcp_circle_2d.ron")).unwrap();
    let drafts = initial_drafts(&doc);
    let names: Vec<&str> = drafts.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        ["fas-mg", "pi-mg", "standard-mic0", "standard-mgpcg"]
    );
    assert_eq!(
        drafts[1].value_of("pressure.solver").as_deref(),
        Some("lcp/pi-mg")
    );
    assert_eq!(list_problem(&drafts), None);
    let mut d = drafts[2].clone();
    d.set("pressure.solver", "multigrid/mgpcg");
    assert_eq!(
        d.overrides,
        [
            "pressure.boundary=standard",
            "pressure.solver=multigrid/mgpcg"
        ]
    );
    d.unset("pressure.boundary");
    let spec = d.spec().unwrap();
    assert_eq!(
        spec.overrides,
        parse_overrides(&["pressure.solver=multigrid/mgpcg"]).unwrap()
    );
    // a line that is not `target=value` stops the list before a run, naming the variant
    d.overrides.push("pressure.solver".into());
    assert_eq!(
        list_problem(&[d]).as_deref(),
        Some("variant `standard-mic0`: `pressure.solver`: expected node.param=value")
    );
    let twice = vec![drafts[0].clone(), drafts[0].clone()];
    assert!(list_problem(&twice).unwrap().contains("two variants"));
    let none = GraphDoc::load(&graphs_dir().join("dam_break_2d.ron")).unwrap();
    assert_eq!(initial_drafts(&none).len(), 1, "the graph as it is");
    // A bad list does not start (and does not pretend to play).
    let no_plugins = Arc::new(PluginSet::default());
    let mut c = CompareMode::new(Arc::new(flip_nodes::builtin_registry(no_plugins)), || {});
    c.drafts = vec![VariantDraft {
        name: "a b".into(),
        overrides: vec![],
    }];
    c.load(&none, graphs_dir());
    assert!(c.problem.as_deref().unwrap().contains("name must be"));
    c.toggle_play();
    assert!(!c.playback.playing && !c.poll());
}

fn wait_loaded(c: &mut CompareMode) {
    let start = Instant::now();
    while c.variants.is_empty() && c.problem.is_none() && start.elapsed() < Duration::from_secs(60)
    {
        if !c.poll() {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    assert!(!c.variants.is_empty(), "not loaded: {:?}", c.problem);
}

/// Issue 14, bug 1: a solver parameter edited in the graph must not break the variants that
/// switch to another solver.
#[test]
fn variants_switching_the_solver_drop_the_edited_solvers_parameters() {
    let mut doc = GraphDoc::load(&graphs_dir().join("lcp_circle_2d.ron")).unwrap();
    apply_overrides(
        &mut doc,
        &parse_overrides(&[
            "pressure.solver=lcp/pi-mg",
            "pressure.max_outer_iterations=20",
            "settings.grid=32",
        ])
        .unwrap(),
    )
    .unwrap();
    let mut c = CompareMode::new(registry(), || {});
    c.drafts = initial_drafts(&doc);
    c.frames = 1;
    c.load(&doc, graphs_dir());
    wait_loaded(&mut c);
    for v in &c.variants {
        assert_eq!(v.start.failure, None, "variant {}", v.start.name);
    }
}

/// Issue 14, bug 2: the distance to a baseline that failed is n/a, not 0.
#[test]
fn distance_to_a_failed_baseline_reads_not_available() {
    let mut c = CompareMode::new(registry(), || {});
    let draft = |name: &str, set: &str| VariantDraft {
        name: name.into(),
        overrides: vec![set.into()],
    };
    c.drafts = vec![
        draft("broken", "pressure.solver=nope/none"),
        draft("good", "pressure.solver=pcg/mic0-pcg"),
    ];
    c.frames = 2;
    c.load(&small_dam_break(), graphs_dir());
    c.toggle_play();
    wait_finished(&mut c);
    assert!(c.variants[0].start.failure.is_some());
    let good = &c.variants[1].metrics;
    assert_eq!(good.len(), 2);
    assert!(good.iter().all(|m| m.rms_vs_baseline.is_none()));
    assert_eq!(good[1].rms_text(), "n/a");
}
