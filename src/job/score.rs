//! `equimorph score`.
