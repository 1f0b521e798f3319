"""The fence-merging benchmark: per-arrive release vs one merged fence."""
