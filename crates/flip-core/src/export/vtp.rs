//! Particles as VTK XML poly data (`.vtp`, base64 binary, ParaView's native point format): one
//! vertex cell per particle with its velocity as point data, written with the `vtkio` crate.

use super::write_atomic;
use crate::particles::Particles;
use std::path::Path;
use vtkio::model::{
    Attribute, Attributes, ByteOrder, DataSet, IOBuffer, PolyDataPiece, Version, VertexNumbers, Vtk,
};

/// Writes the particles (positions, `velocity` point vectors) as a `.vtp` file, atomically.
pub fn write_particles_vtp(path: &Path, particles: &Particles) -> std::io::Result<()> {
    let flat = |v: &[glam::Vec3]| -> Vec<f32> { v.iter().flat_map(|p| p.to_array()).collect() };
    let n = particles.len() as u64;
    let vtk = Vtk {
        version: Version::new_xml(1, 0),
        title: "flipgraph particles".into(),
        byte_order: ByteOrder::LittleEndian,
        file_path: None,
        data: DataSet::inline(PolyDataPiece {
            points: IOBuffer::F32(flat(&particles.pos)),
            verts: Some(VertexNumbers::XML {
                connectivity: (0..n).collect(),
                offsets: (1..=n).collect(),
            }),
            lines: None,
            polys: None,
            strips: None,
            data: Attributes {
                point: vec![Attribute::vectors("velocity").with_data(flat(&particles.vel))],
                cell: Vec::new(),
            },
        }),
    };
    let to_io = |e: vtkio::Error| std::io::Error::other(e.to_string());
    write_atomic(
        path,
        |tmp| {
            let file = std::io::BufWriter::new(std::fs::File::create(tmp)?);
            vtk.write_xml(file).map_err(to_io)
        },
        |e| e,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;
    use vtkio::model::{DataArray, Piece};

    #[test]
    fn particles_round_trip_through_the_vtk_reader() {
        let mut ps = Particles::default();
        for i in 0..5 {
            let f = i as f32;
            ps.push(Vec3::new(f, 0.5 * f, -f), Vec3::new(1.0, f, 2.0 * f));
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("particles_0001.vtp");
        write_particles_vtp(&path, &ps).unwrap();
        assert!(!super::super::tmp_path(&path).exists());
        let back = Vtk::import(&path).expect("vtkio reads the file back");
        let DataSet::PolyData { pieces, .. } = back.data else {
            panic!("poly data")
        };
        let Piece::Inline(piece) = &pieces[0] else {
            panic!("inline piece")
        };
        let points: Vec<f32> = piece.points.clone().cast_into().expect("numbers");
        assert_eq!(
            points,
            ps.pos.iter().flat_map(|p| p.to_array()).collect::<Vec<_>>()
        );
        assert_eq!(piece.num_verts(), 5);
        let Attribute::DataArray(DataArray { name, data, .. }) = &piece.data.point[0] else {
            panic!("a data array")
        };
        assert_eq!(name, "velocity");
        let vel: Vec<f32> = data.clone().cast_into().expect("numbers");
        assert_eq!(&vel[6..9], &[1.0, 2.0, 4.0]);
    }
}
