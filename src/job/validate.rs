//! `equimorph validate`: do a task file's originals pass their own tests.
