//! One module per subcommand. Only this layer prints.

pub mod apply;
pub mod attack;
pub mod augment;
pub mod autospt;
pub mod bench;
pub mod calibrate;
pub mod check;
pub mod common;
pub mod compare;
pub mod dataset;
pub mod design;
pub mod diversity;
pub mod implement;
pub mod merge;
pub mod models;
pub mod report;
pub mod robustness;
pub mod schema;
pub mod score;
pub mod select;
pub mod setup;
pub mod tests;
pub mod train;
pub mod transforms;
pub mod validate;
pub mod verify;
