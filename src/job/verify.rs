//! `equimorph verify`: re-check a run's winners.
