"""The `mbarrier` dialect: ODS-generated op classes, enums and types.

    from mlir import ir
    from mbarrier_dialect.dialects import mbarrier

    with ir.Context() as ctx:
        mbarrier.register_dialect(ctx)
        group = mbarrier.GroupType.get(2)
"""
from ._mbarrier_ops_gen import *  # noqa: F401,F403
from ._mbarrier_enum_gen import *  # noqa: F401,F403
from .._mbarrierDialects.mbarrier import (  # noqa: F401
    GroupType,
    RemoteType,
    register_dialect,
    register_passes,
)
