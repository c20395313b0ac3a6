"""Passes on the KTIR kernel, shared by every back end: normalize, fold reshapes, check inter-tile
accesses, HBM round trips, physical layouts, counted loops, compute-group extraction."""
