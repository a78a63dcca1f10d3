//! `bench step` on a small grid: the table has a row per node with its time and, for the
//! stages whose kinds declare their least traffic, the roofline columns.

mod common;
use common::{flipgraph, text};

#[test]
fn bench_step_prints_the_roofline_of_every_stage_that_declares_its_traffic() {
    let out = tempfile::tempdir().unwrap();
    let o = flipgraph(&[
        "bench",
        "step",
        "--size",
        "20",
        "--steps",
        "2",
        "--warmup",
        "1",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    let printed = text(&o);
    assert!(o.status.success(), "{printed}");
    assert!(
        printed.contains("GB/s, this machine's parallel copy"),
        "{printed}"
    );
    let csv = std::fs::read_to_string(out.path().join("step_3d_20.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (floor, share) = (column("floor MB"), column("% of bandwidth"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let row = |kind: &str| rows.iter().find(|r| r[1] == kind).unwrap().clone();
    // "bench step: 3D 20 cells/axis, N particles, …"
    let particles: f64 = printed
        .split(" particles,")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the title names the particle count");
    assert!(particles > 1000.0, "{particles}");
    let p2g_floor: f64 = row("p2g")[floor].parse().unwrap();
    let expected = (24.0 * particles + 15.0 * 8000.0) / 1e6;
    assert!(
        (p2g_floor - expected).abs() <= 0.006,
        "{p2g_floor} vs {expected}"
    );
    for kind in [
        "p2g",
        "g2p",
        "advect",
        "level_set",
        "pressure",
        "volume_correction",
    ] {
        let s: f64 = row(kind)[share].parse().unwrap_or(f64::NAN);
        assert!(s.is_finite() && s > 0.0, "{kind}: {:?}", row(kind));
    }
    assert_eq!(
        row("solids")[share],
        "–",
        "a kind without a declared traffic"
    );
}
