"""The `mbarrier` dialect: ODS-generated op classes, enums and types.

    from mlir import ir
    from mbarrier_dialect.dialects import mbarrier

    with ir.Context() as ctx:
        mbarrier.register_dialect(ctx)
        group = mbarrier.GroupType.get(2)

Every op of the dialect is an ODS-generated class here, each also a builder
function (e.g. ``mbarrier.arrive(...)`` for ``ArriveOp``): the barrier ops
(``AllocOp``, ``InitOp``, ``ArriveOp``, ``WaitOp``, ...), the pipe and
ordered-sequence ops (``PipeCreateOp``, ``SeqWaitOp``, ...), the named
barriers (``NamedBarrierOp``, ``BarSyncOp``, ...) and the raised ops;
``__all__`` lists them, docs/reference/MBarrierDialect.md describes them,
and ``help()`` on each class gives its description. Enums (``Semantics``,
``Scope``, ...) and the types ``GroupType`` and ``RemoteType`` come with
them.
"""
from . import _mbarrier_enum_gen as _enums
from . import _mbarrier_ops_gen as _ops
from ._mbarrier_ops_gen import *  # noqa: F401,F403
from ._mbarrier_enum_gen import *  # noqa: F401,F403
from .._mbarrierDialects.mbarrier import (  # noqa: F401
    GroupType,
    RemoteType,
    register_dialect,
    register_passes,
)

# What `help()` and `import *` list: the generated ops, builders and enums
# (defined in the generated modules, so pydoc would hide them otherwise),
# the types and the registration functions.
__all__ = sorted(
    [name for gen in (_ops, _enums) for name, value in vars(gen).items()
     if not name.startswith("_") and getattr(value, "__module__", None) == gen.__name__]
    + ["GroupType", "RemoteType", "register_dialect", "register_passes"])

# Parsed `mbarrier.*` ops come back as the classes above: the Python bindings
# find a dialect's op classes through their module search prefixes.
from ._ods_common import _cext as _ods_cext  # noqa: E402

_PREFIX = __name__.rpartition(".")[0]
if _PREFIX not in _ods_cext.globals.dialect_search_modules:
    _ods_cext.globals.append_dialect_search_prefix(_PREFIX)
