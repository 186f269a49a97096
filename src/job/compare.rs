//! `equimorph compare`: Table 2 across runs.
