//! `equimorph check`.
