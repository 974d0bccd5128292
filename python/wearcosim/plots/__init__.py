"""Figures (matplotlib, Agg backend): time series, orbits, wear maps."""
