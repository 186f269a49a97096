//! `equimorph train`: a detector trained on augment output.
