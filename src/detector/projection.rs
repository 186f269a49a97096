//! A trained linear projection of pooled embeddings as a small ONNX graph (`projection.onnx`:
//! input `embedding` [batch, d] → MatMul with a d × k matrix → output `projected`
//! [batch, k]), which an embedding model applies after pooling when its `equimorph.toml`
//! names it (`projection = "projection.onnx"`).
//!
//! The graph is written here with the ONNX protobuf wire format directly (a handful of
//! fields), so training needs no Python; ONNX Runtime loads it like any other graph.

/// Input and output names of a projection graph.
pub const INPUT: &str = "embedding";
/// See [`INPUT`].
pub const OUTPUT: &str = "projected";

/// Protobuf wire helpers.
fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn key(out: &mut Vec<u8>, field: u32, wire: u8) {
    varint(out, (u64::from(field) << 3) | u64::from(wire));
}

fn int_field(out: &mut Vec<u8>, field: u32, v: i64) {
    key(out, field, 0);
    varint(out, v as u64);
}

fn bytes_field(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    key(out, field, 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// `ValueInfoProto` of a float tensor [batch, width].
fn value_info(name: &str, width: usize) -> Vec<u8> {
    let mut batch = Vec::new();
    bytes_field(&mut batch, 2, b"batch"); // Dimension.dim_param
    let mut cols = Vec::new();
    int_field(&mut cols, 1, width as i64); // Dimension.dim_value
    let mut shape = Vec::new();
    bytes_field(&mut shape, 1, &batch); // TensorShapeProto.dim
    bytes_field(&mut shape, 1, &cols);
    let mut tensor = Vec::new();
    int_field(&mut tensor, 1, 1); // elem_type FLOAT
    bytes_field(&mut tensor, 2, &shape);
    let mut ty = Vec::new();
    bytes_field(&mut ty, 1, &tensor); // TypeProto.tensor_type
    let mut vi = Vec::new();
    bytes_field(&mut vi, 1, name.as_bytes());
    bytes_field(&mut vi, 2, &ty);
    vi
}

/// The ONNX model computing `embedding · matrix`, `matrix` row-major with `rows` rows
/// (the embedding width) and `matrix.len() / rows` columns.
pub fn encode(matrix: &[f32], rows: usize) -> Vec<u8> {
    let cols = matrix.len() / rows.max(1);
    // TensorProto: dims, data_type FLOAT, name, raw_data (little-endian).
    let mut weight = Vec::new();
    int_field(&mut weight, 1, rows as i64);
    int_field(&mut weight, 1, cols as i64);
    int_field(&mut weight, 2, 1);
    bytes_field(&mut weight, 8, b"weight");
    let raw: Vec<u8> = matrix.iter().flat_map(|x| x.to_le_bytes()).collect();
    bytes_field(&mut weight, 9, &raw);
    // NodeProto: input ×2, output, name, op_type.
    let mut node = Vec::new();
    bytes_field(&mut node, 1, INPUT.as_bytes());
    bytes_field(&mut node, 1, b"weight");
    bytes_field(&mut node, 2, OUTPUT.as_bytes());
    bytes_field(&mut node, 3, b"project");
    bytes_field(&mut node, 4, b"MatMul");
    // GraphProto: node, name, initializer, input, output.
    let mut graph = Vec::new();
    bytes_field(&mut graph, 1, &node);
    bytes_field(&mut graph, 2, b"projection");
    bytes_field(&mut graph, 5, &weight);
    bytes_field(&mut graph, 11, &value_info(INPUT, rows));
    bytes_field(&mut graph, 12, &value_info(OUTPUT, cols));
    // OperatorSetIdProto: default domain, opset 17.
    let mut opset = Vec::new();
    bytes_field(&mut opset, 1, b"");
    int_field(&mut opset, 2, 17);
    // ModelProto: ir_version 8, producer_name, graph, opset_import.
    let mut model = Vec::new();
    int_field(&mut model, 1, 8);
    bytes_field(&mut model, 2, b"equimorph-train");
    bytes_field(&mut model, 7, &graph);
    bytes_field(&mut model, 8, &opset);
    model
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_are_little_endian_base_128() {
        let mut v = Vec::new();
        varint(&mut v, 300);
        assert_eq!(v, [0xAC, 0x02]);
        let mut k = Vec::new();
        key(&mut k, 12, 2);
        assert_eq!(k, [0x62]);
    }
}
