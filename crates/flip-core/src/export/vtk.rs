//! Grid fields as VTK XML image data (`.vti`, base64 binary, ParaView's native format): one
//! cell-data array per field on the simulation grid (origin 0, spacing dx), written with the
//! `vtkio` crate.

use super::write_atomic;
use crate::grid::{Grid3, GridSpec};
use crate::mac::MacGrid;
use std::path::Path;
use vtkio::model::{
    Attribute, Attributes, ByteOrder, DataSet, Extent, ImageDataPiece, Piece, Version, Vtk,
};

/// One named cell field: a scalar per cell or a 3-vector per cell.
pub enum CellField<'a> {
    /// One value per cell, x fastest.
    Scalar(&'a str, &'a [f32]),
    /// Three values per cell (x, y, z interleaved).
    Vector(&'a str, Vec<f32>),
}

/// The MAC velocity averaged to cell centres, interleaved `[u, v, w]` per cell.
pub fn cell_velocity(spec: &GridSpec, vel: &MacGrid) -> Vec<f32> {
    let mut out = vec![0.0f32; 3 * spec.cell_count()];
    for (c, o) in out.chunks_exact_mut(3).enumerate() {
        let (i, j, k) = (
            c % spec.ni,
            (c / spec.ni) % spec.nj,
            c / (spec.ni * spec.nj),
        );
        o[0] = 0.5 * (vel.u[(i, j, k)] + vel.u[(i + 1, j, k)]);
        o[1] = 0.5 * (vel.v[(i, j, k)] + vel.v[(i, j + 1, k)]);
        if !spec.is_2d() {
            o[2] = 0.5 * (vel.w[(i, j, k)] + vel.w[(i, j, k + 1)]);
        }
    }
    out
}

/// Writes `fields` (each with `spec.cell_count()` cells) as a `.vti` file, atomically.
///
/// # Errors
/// I/O errors, or a field of the wrong length (`InvalidInput`).
pub fn write_fields_vti(
    path: &Path,
    spec: &GridSpec,
    fields: &[CellField<'_>],
) -> std::io::Result<()> {
    let n = spec.cell_count();
    let mut cell = Vec::with_capacity(fields.len());
    for f in fields {
        let (name, data, comps) = match f {
            CellField::Scalar(name, d) => (*name, d.to_vec(), 1),
            CellField::Vector(name, d) => (*name, d.clone(), 3),
        };
        if data.len() != comps * n {
            let msg = format!("field `{name}` has {} values for {n} cells", data.len());
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, msg));
        }
        cell.push(if comps == 1 {
            Attribute::scalars(name, 1).with_data(data)
        } else {
            Attribute::vectors(name).with_data(data)
        });
    }
    let extent = Extent::Ranges([0..=spec.ni as i32, 0..=spec.nj as i32, 0..=spec.nk as i32]);
    let vtk = Vtk {
        version: Version::new_xml(1, 0),
        title: "flipgraph fields".into(),
        byte_order: ByteOrder::LittleEndian,
        file_path: None,
        data: DataSet::ImageData {
            extent: extent.clone(),
            origin: [0.0; 3],
            spacing: [spec.dx; 3],
            meta: None,
            pieces: vec![Piece::Inline(Box::new(ImageDataPiece {
                extent,
                data: Attributes {
                    point: Vec::new(),
                    cell,
                },
            }))],
        },
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

/// A cell grid's values as `f32` (cell kinds, flags).
pub fn as_f32<T: Copy + Into<f32>>(g: &Grid3<T>) -> Vec<f32> {
    g.data.iter().map(|&v| v.into()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use vtkio::model::{DataArray, IOBuffer};

    #[test]
    fn fields_round_trip_through_the_vtk_reader() {
        let spec = GridSpec::new(4, 3, 2, 0.25);
        let p: Vec<f32> = (0..24).map(|c| c as f32 * 1.5).collect();
        let mut vel = MacGrid::zeros(&spec);
        vel.u.fill(2.0);
        vel.w
            .data
            .iter_mut()
            .enumerate()
            .for_each(|(f, w)| *w = f as f32);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fields_0001.vti");
        let fields = [
            CellField::Scalar("pressure", &p),
            CellField::Vector("velocity", cell_velocity(&spec, &vel)),
        ];
        write_fields_vti(&path, &spec, &fields).unwrap();
        let back = Vtk::import(&path).expect("vtkio reads the file back");
        let DataSet::ImageData {
            extent,
            spacing,
            pieces,
            ..
        } = back.data
        else {
            panic!("image data")
        };
        assert_eq!(extent.into_dims(), [5, 4, 3]);
        assert_eq!(spacing, [0.25; 3]);
        let Piece::Inline(piece) = &pieces[0] else {
            panic!("inline piece")
        };
        let array = |name: &str| -> Vec<f32> {
            piece
                .data
                .cell
                .iter()
                .find_map(|a| match a {
                    Attribute::DataArray(DataArray { name: n, data, .. }) if n == name => {
                        Some(match data.clone() {
                            IOBuffer::F32(v) => v,
                            other => other.cast_into::<f32>().expect("numbers"),
                        })
                    }
                    _ => None,
                })
                .expect("array present")
        };
        assert_eq!(array("pressure"), p);
        let v = array("velocity");
        assert_eq!(v.len(), 72);
        assert_eq!(&v[..3], &[2.0, 0.0, 6.0]); // w faces 0 and 12 of cell 0
        let short = [CellField::Scalar("pressure", &p[..3])];
        assert!(write_fields_vti(&path, &spec, &short).is_err());
    }
}
