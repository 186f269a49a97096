//! `equimorph design` and `equimorph implement`: the LLM stages of Auto-SPT.
