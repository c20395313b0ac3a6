"""The schedule back end: KTDF load/compute/store pipelines."""
