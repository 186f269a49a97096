//! `equimorph dataset`.
