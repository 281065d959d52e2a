"""anisotropy."""
