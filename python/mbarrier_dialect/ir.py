"""``mlir.ir``, under the name the ODS-generated modules of this package
import it by (``from ..ir import ...``): one MLIR per process, the installed
``mlir`` package's."""
from mlir.ir import *  # noqa: F401,F403
from mlir.ir import register_attribute_builder  # noqa: F401
