//! `equimorph robustness`: the train-then-attack experiment.
