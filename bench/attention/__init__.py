"""The attention benchmark (examples/attention.py) against torch and Triton."""
