//! Build helper: turns core wasm modules (with the WIT metadata `wit-bindgen` embeds) into
//! components. Usage: `componentize IN.wasm OUT.wasm [IN OUT ...]`.

use anyhow::{bail, Context, Result};
use wit_component::ComponentEncoder;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || !args.len().is_multiple_of(2) {
        bail!("usage: componentize IN.wasm OUT.wasm [IN.wasm OUT.wasm ...]");
    }
    for pair in args.chunks(2) {
        let module = std::fs::read(&pair[0]).with_context(|| format!("reading {}", pair[0]))?;
        let component = ComponentEncoder::default()
            .validate(true)
            .module(&module)
            .with_context(|| format!("{}: not a module with component metadata", pair[0]))?
            .encode()
            .with_context(|| format!("encoding {}", pair[0]))?;
        std::fs::write(&pair[1], component).with_context(|| format!("writing {}", pair[1]))?;
    }
    Ok(())
}
