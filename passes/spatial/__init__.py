"""The spatial back end: tile, place, fuse readers, size buffers, synthesize handshakes, verify."""
