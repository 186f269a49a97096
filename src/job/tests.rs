//! `equimorph tests score|grow`: test adequacy of a task file.
