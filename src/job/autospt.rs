//! `equimorph autospt`: design → implement → select → attack, resumable, with one report.
