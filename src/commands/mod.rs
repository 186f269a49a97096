//! One module per subcommand. Only this layer prints.

pub mod apply;
pub mod check;
pub mod common;
pub mod transforms;
pub mod validate;
