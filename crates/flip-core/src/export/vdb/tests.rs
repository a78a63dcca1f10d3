//! Round trips through OpenVDB's own reader (Debian's `python3-openvdb`, module `pyopenvdb`
//! or `openvdb`, run by the system Python).
use super::*;
use std::process::Command;

/// The system interpreter (python3-openvdb installs for it, not for pyenv's).
const PYTHON: &str = "/usr/bin/python3";

/// Reads the file with OpenVDB, compares every grid with the expected raw values
/// (`<name>.raw`, x fastest) and prints one line per grid.
const CHECK: &str = r#"
import sys, numpy as np
try:
    import pyopenvdb as vdb
except ImportError:
    import openvdb as vdb
path, folder, dx, ni, nj, nk = sys.argv[1], sys.argv[2], float(sys.argv[3]), *map(int, sys.argv[4:7])
grids, meta = vdb.readAll(path)
assert meta.get("creator") == "flipgraph", meta
for g in grids:
    comps = 3 if g.valueTypeName == "vec3s" else 1
    exp = np.fromfile(f"{folder}/{g.name}.raw", dtype="<f4").reshape((nk, nj, ni, comps))
    exp = exp.transpose(2, 1, 0, 3)
    shape = (ni, nj, nk, 3) if comps == 3 else (ni, nj, nk)
    got = np.zeros(shape, dtype=np.float32)
    g.copyToArray(got, ijk=(0, 0, 0))
    got = got.reshape((ni, nj, nk, comps))
    vs = g.transform.voxelSize()
    assert all(abs(v - dx) < 1e-12 for v in vs), vs
    w = g.transform.indexToWorld((1, 2, 3))
    assert all(abs(a - (b + 0.5) * dx) < 1e-9 for a, b in zip(w, (1, 2, 3))), w
    if g.gridClass == vdb.GridClass.LEVEL_SET:
        bg = g.background
        active = np.abs(exp) < bg
        exp = np.where(active, exp, np.copysign(bg, exp))
        assert g.activeVoxelCount() == active.sum(), (g.activeVoxelCount(), active.sum())
    assert np.array_equal(got, exp), (g.name, np.abs(got - exp).max())
    print(g.name, g.valueTypeName, g.gridClass, g.activeVoxelCount(), g.leafCount())
"#;

fn reader_available() -> bool {
    let probe = "try:\n import pyopenvdb\nexcept ImportError:\n import openvdb\nimport numpy";
    Command::new(PYTHON)
        .args(["-c", probe])
        .status()
        .is_ok_and(|s| s.success())
}

fn sample_fields(spec: &GridSpec) -> (Vec<f32>, Vec<Vec3>, Vec<f32>, Vec<f32>) {
    let c = spec.extent() * 0.5;
    let (mut phi, mut vel, mut pressure, mut density) = (vec![], vec![], vec![], vec![]);
    for k in 0..spec.nk {
        for j in 0..spec.nj {
            for i in 0..spec.ni {
                let p = spec.cell_center(i, j, k);
                phi.push(p.distance(c) - 0.25);
                vel.push(Vec3::new(
                    i as f32,
                    -(j as f32) * 0.5,
                    0.25 * k as f32 + 1.0,
                ));
                pressure.push((i + 100 * j + 10_000 * k) as f32 * 0.125);
                density.push(if i % 3 == 0 {
                    0.0
                } else {
                    (i * j) as f32 / 7.0
                });
            }
        }
    }
    (phi, vel, pressure, density)
}

fn raw(path: &Path, values: &[f32]) {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn openvdb_reads_back_level_set_vec3_and_scalars() {
    if !reader_available() {
        eprintln!(
            "\n!!!!!!!!!! SKIPPED: OpenVDB round trip: `{PYTHON} -c 'import pyopenvdb'` failed; \
             install python3-openvdb (apt-get install -y python3-openvdb) !!!!!!!!!!\n"
        );
        return;
    }
    // sizes that are not multiples of 8, and differ per axis, to catch axis mix-ups
    let spec = GridSpec::new(21, 13, 18, 1.0 / 20.0);
    let (phi, vel, pressure, density) = sample_fields(&spec);
    let dir = tempfile::tempdir().unwrap();
    raw(&dir.path().join("phi.raw"), &phi);
    raw(&dir.path().join("velocity.raw"), bytemuck::cast_slice(&vel));
    raw(&dir.path().join("pressure.raw"), &pressure);
    raw(&dir.path().join("density.raw"), &density);
    let grids = [
        VdbGrid {
            name: "phi",
            class: VdbClass::LevelSet { half_width: 3.0 },
            values: VdbValues::Float(&phi),
        },
        VdbGrid {
            name: "velocity",
            class: VdbClass::Unknown,
            values: VdbValues::Vec3(&vel),
        },
        VdbGrid {
            name: "pressure",
            class: VdbClass::Unknown,
            values: VdbValues::Float(&pressure),
        },
        VdbGrid {
            name: "density",
            class: VdbClass::FogVolume,
            values: VdbValues::Float(&density),
        },
    ];
    let mut sizes = vec![];
    for compression in [VdbCompression::None, VdbCompression::Zlib] {
        let path = dir.path().join(format!("{compression:?}.vdb"));
        write_vdb(&path, &spec, &grids, compression).unwrap();
        sizes.push(std::fs::metadata(&path).unwrap().len());
        let out = Command::new(PYTHON)
            .args(["-c", CHECK])
            .arg(&path)
            .arg(dir.path())
            .arg(format!("{}", f64::from(spec.dx)))
            .args(spec.dims().map(|n| n.to_string()))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        println!("{compression:?}: {text}");
        assert!(out.status.success(), "{compression:?}: {text}");
        assert_eq!(text.lines().count(), 4, "{text}");
    }
    assert!(sizes[1] < sizes[0] / 2, "zlib {sizes:?}");
}

#[test]
fn writing_is_deterministic_and_bad_grids_are_refused() {
    let spec = GridSpec::new(9, 8, 10, 0.1);
    let (phi, vel, _, _) = sample_fields(&spec);
    let dir = tempfile::tempdir().unwrap();
    let grid = |values| VdbGrid {
        name: "v",
        class: VdbClass::Unknown,
        values,
    };
    let (a, b) = (dir.path().join("a.vdb"), dir.path().join("b.vdb"));
    for p in [&a, &b] {
        write_vdb(
            p,
            &spec,
            &[grid(VdbValues::Vec3(&vel))],
            VdbCompression::Zlib,
        )
        .unwrap();
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let short = write_vdb(
        &a,
        &spec,
        &[grid(VdbValues::Float(&phi[1..]))],
        VdbCompression::None,
    );
    assert!(short
        .unwrap_err()
        .to_string()
        .contains("719 values for 720 cells"));
    let twice = [grid(VdbValues::Float(&phi)), grid(VdbValues::Float(&phi))];
    let repeated = write_vdb(&a, &spec, &twice, VdbCompression::None).unwrap_err();
    assert!(repeated.to_string().contains("repeated"));
    let vector_level_set = VdbGrid {
        class: VdbClass::LevelSet { half_width: 3.0 },
        ..grid(VdbValues::Vec3(&vel))
    };
    assert!(write_vdb(&a, &spec, &[vector_level_set], VdbCompression::None).is_err());
    // the file written before is intact, no temporary file is left
    assert!(!super::super::tmp_path(&a).exists());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}
