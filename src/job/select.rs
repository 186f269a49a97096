//! `equimorph select`: best-of-N selection among candidate implementations of SPTs.
