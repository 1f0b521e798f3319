"""Dialect modules of mbarrier_dialect (ODS-generated op classes)."""
