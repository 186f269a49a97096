//! `equimorph apply`.
