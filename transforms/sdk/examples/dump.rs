//! Prints the syntax tree of a Python file (a development aid): `cargo run --example dump FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: dump FILE");
    let src = std::fs::read_to_string(path).expect("readable UTF-8 file");
    let tree = sdk::parse::parse_tree(&src).expect("grammar loads");
    println!("{}", tree.root_node().to_sexp());
}
