"""The analysis layer every back end asks: affine forms, grids, stick layouts, loops and memory accesses.

Public and unit-tested; nothing here rewrites IR."""
