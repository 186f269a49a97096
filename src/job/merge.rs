//! `equimorph merge`: one run from the directories of a sharded run.
