//! `equimorph calibrate`: a detector's thresholds at chosen false-positive rates.
