"""The bundle back end: coarse tiling, the core split, the LX plan, unrolling and the emitted bundle."""
