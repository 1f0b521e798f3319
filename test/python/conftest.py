import pytest


@pytest.fixture
def ctx():
    """A Context with the mbarrier dialect, an unknown Location and a module
    whose body is the insertion point; yields (module, context). MLIR is
    imported here, not at collection, so runtime tests need no MLIR."""
    from mlir import ir

    import mbarrier_dialect

    with ir.Context() as context, ir.Location.unknown():
        mbarrier_dialect.register_dialect(context)
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            yield module, context
