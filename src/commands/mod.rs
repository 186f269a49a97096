//! One module per subcommand. Only this layer prints.

pub mod apply;
pub mod common;
pub mod transforms;
