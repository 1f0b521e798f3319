"""Compile time, checker cost and the PTX snapshot of every kernel."""
