"""Automatic differentiation as IR-to-IR transformations."""
