"""The Python dialect module: types, every op built through the ODS classes,
parsing back to those classes, and verifier errors as ir.MLIRError."""
import pytest
from mlir import ir
from mlir.dialects import arith, func

from mbarrier_dialect.dialects import mbarrier

DESIGN_EXAMPLES = """
func.func @all(%p: !llvm.ptr<3>, %i: index, %count: i32, %rank: i32, %cta: i32,
               %pred: i1, %c: i32, %bytes: i32, %phase: i32) {
  %g = mbarrier.alloc : !mbarrier.group<2>
  %v = mbarrier.view %p : !llvm.ptr<3> -> !mbarrier.group<2>
  mbarrier.init %g[%i], %count : !mbarrier.group<2>
  mbarrier.fence_init
  %r = mbarrier.remote_view %g, %rank : !mbarrier.group<2>
  %r1 = mbarrier.remote_view %g, cta_rank 1 : !mbarrier.group<2>
  mbarrier.arrive %g[%i] : !mbarrier.group<2>
  mbarrier.arrive %g[%i], count %c : !mbarrier.group<2>
  mbarrier.arrive %g[%i] on %cta : !mbarrier.group<2>
  mbarrier.arrive %g[%i] on %cta if %pred : !mbarrier.group<2>
  mbarrier.arrive %r[%i] : !mbarrier.remote<2>
  mbarrier.arrive_expect_tx %g[%i], %bytes : !mbarrier.group<2>
  mbarrier.expect_tx %g[%i], %bytes : !mbarrier.group<2>
  mbarrier.wait %g[%i], %phase : !mbarrier.group<2>
  mbarrier.wait %g[%i], %phase {phase_offset = 1 : i32} : !mbarrier.group<2>
  %ok = mbarrier.try_wait %g[%i], %phase : !mbarrier.group<2>
  %ok2 = mbarrier.test_wait %g[%i], %phase : !mbarrier.group<2>
  mbarrier.inval %g[%i] : !mbarrier.group<2>
  %pp = mbarrier.ptr %g[%i] : !mbarrier.group<2> -> !llvm.ptr<3>
  %q = mbarrier.ptr %r[%i] : !mbarrier.remote<2> -> !llvm.ptr<7>
  mbarrier.tcgen05_commit %g[%i] : !mbarrier.group<2>
  return
}
"""


def test_types(ctx):
    group = mbarrier.GroupType.get(2)
    remote = mbarrier.RemoteType.get(3)
    assert str(group) == "!mbarrier.group<2>" and group.depth == 2
    assert str(remote) == "!mbarrier.remote<3>" and remote.depth == 3
    assert mbarrier.GroupType.isinstance(group)
    assert not mbarrier.GroupType.isinstance(remote)
    parsed = ir.Type.parse("!mbarrier.remote<3>")
    assert mbarrier.RemoteType(parsed).depth == 3
    with pytest.raises(ValueError, match="at least one barrier"):
        mbarrier.GroupType.get(0)


def _kernel_args(module):
    """A func with (index, i32 x4, i1) arguments; returns its block args."""
    types = [ir.IndexType.get()] + [ir.IntegerType.get_signless(32)] * 4 + [
        ir.IntegerType.get_signless(1)
    ]
    f = func.FuncOp("k", ir.FunctionType.get(types, []))
    block = f.add_entry_block()
    return f, block


def test_build_every_op(ctx):
    module, _ = ctx
    f, block = _kernel_args(module)
    i, count, rank, bytes_, phase, pred = block.arguments
    with ir.InsertionPoint(block):
        g = mbarrier.AllocOp(mbarrier.GroupType.get(2)).result
        mbarrier.InitOp(g, i, count)
        mbarrier.FenceInitOp()
        r = mbarrier.RemoteViewOp(g, rank=rank).result
        r1 = mbarrier.RemoteViewOp(g, cta_rank=1).result
        assert str(r.type) == "!mbarrier.remote<2>"
        mbarrier.ArriveOp(g, i)
        mbarrier.ArriveOp(g, i, count=count, cta_id=rank, pred=pred)
        mbarrier.ArriveOp(r1, i, sem=mbarrier.Semantics.relaxed,
                          scope=mbarrier.Scope.cluster)
        mbarrier.ArriveExpectTxOp(r, i, bytes_)
        mbarrier.ExpectTxOp(g, i, bytes_)
        mbarrier.WaitOp(g, i, phase, phase_offset=1)
        ok = mbarrier.TryWaitOp(g, i, phase).result
        ok2 = mbarrier.TestWaitOp(g, i, phase).result
        assert str(ok.type) == "i1" and str(ok2.type) == "i1"
        ptr3 = ir.Type.parse("!llvm.ptr<3>")
        ptr7 = ir.Type.parse("!llvm.ptr<7>")
        mbarrier.PtrOp(ptr3, g, i)
        mbarrier.PtrOp(ptr7, r, i)
        mbarrier.ViewOp(mbarrier.GroupType.get(1), mbarrier.PtrOp(ptr3, g, i).result)
        mbarrier.InvalOp(g, i)
        mbarrier.Tcgen05CommitOp(g, i, cta_group=2)
        func.ReturnOp([])
    assert module.operation.verify()
    text = str(module)
    for expected in (
        "mbarrier.remote_view %0, cta_rank 1 : !mbarrier.group<2>",
        "mbarrier.arrive %0[%arg0], count %arg1 on %arg2 if %arg5 : !mbarrier.group<2>",
        "{scope = #mbarrier.scope<cluster>, sem = #mbarrier.sem<relaxed>} : !mbarrier.remote<2>",
        "mbarrier.wait %0[%arg0], %arg4 {phase_offset = 1 : i32} : !mbarrier.group<2>",
        "mbarrier.tcgen05_commit %0[%arg0] {cta_group = 2 : i32}",
    ):
        assert expected in text, expected
    # What Python built parses back to the same text.
    assert str(ir.Module.parse(text)) == text


def test_parsed_ops_are_generated_classes(ctx):
    module = ir.Module.parse(DESIGN_EXAMPLES)
    body = module.body.operations[0].regions[0].blocks[0]
    ops = list(body.operations)
    assert isinstance(ops[0], mbarrier.AllocOp)
    assert isinstance(ops[2], mbarrier.InitOp)
    arrive_on = ops[8]  # mbarrier.arrive %g[%i] on %cta
    assert isinstance(arrive_on, mbarrier.ArriveOp)
    assert arrive_on.cta_id is not None and arrive_on.pred is None
    by_rank, by_attr = ops[4], ops[5]
    assert isinstance(by_rank, mbarrier.RemoteViewOp) and by_rank.cta_rank is None
    assert by_attr.cta_rank.value == 1 and by_attr.rank is None
    assert module.operation.verify()


@pytest.mark.parametrize(
    "body, message",
    [
        ("mbarrier.init %r[%i], %c : !mbarrier.remote<2>",
         "cannot be initialized through a remote view"),
        ("mbarrier.wait %r[%i], %c : !mbarrier.remote<2>",
         "cannot be waited on through a remote view"),
        ("mbarrier.inval %r[%i] : !mbarrier.remote<2>",
         "cannot be invalidated through a remote view"),
        ("%x = mbarrier.remote_view %r, cta_rank 0 : !mbarrier.remote<2>",
         "cannot be applied to a remote view"),
        ("mbarrier.arrive %r[%i] on %c : !mbarrier.remote<2>",
         "cannot also specify cta_id"),
    ],
)
def test_verifier_errors_surface_as_mlir_error(ctx, body, message):
    text = f"""
    func.func @f(%r: !mbarrier.remote<2>, %i: index, %c: i32) {{
      {body}
      return
    }}"""
    with pytest.raises(ir.MLIRError) as err:
        ir.Module.parse(text)
    assert message in str(err.value)
    # The diagnostic is located at the offending op (line 3 of the text).
    assert any("3:" in str(d.location) for d in err.value.error_diagnostics)


def test_verifier_error_on_python_built_ir(ctx):
    module, _ = ctx
    f, block = _kernel_args(module)
    i, count, rank, bytes_, phase, pred = block.arguments
    with ir.InsertionPoint(block):
        g = mbarrier.AllocOp(mbarrier.GroupType.get(2)).result
        r = mbarrier.RemoteViewOp(g, rank=rank).result
        mbarrier.InitOp(r, i, count)  # IR built any way at all is verified
        c5 = arith.ConstantOp(ir.IndexType.get(), 5).result
        func.ReturnOp([])
    with pytest.raises(ir.MLIRError, match="cannot be initialized through a remote view"):
        module.operation.verify()


def test_out_of_range_constant_index(ctx):
    module, _ = ctx
    f, block = _kernel_args(module)
    with ir.InsertionPoint(block):
        g = mbarrier.AllocOp(mbarrier.GroupType.get(2)).result
        c2 = arith.ConstantOp(ir.IndexType.get(), 2).result
        mbarrier.ArriveOp(g, c2)
        func.ReturnOp([])
    with pytest.raises(ir.MLIRError, match="out of range"):
        module.operation.verify()


def _invalid_cases():
    """Each case of test/Dialect/invalid.mlir with the message it expects."""
    import os
    import re

    path = os.path.join(os.path.dirname(__file__), "..", "..", "Dialect", "invalid.mlir")
    for case in open(path).read().split("// -----"):
        match = re.search(r"expected-error @\+1 \{\{(.*)\}\}", case)
        name = re.search(r"@(\w+)", case.split("expected-error")[0] + case)
        if match:
            yield pytest.param(case, match.group(1), id=name.group(1) if name else None)


@pytest.mark.parametrize("case, message", list(_invalid_cases()))
def test_every_verifier_rule_fails_from_python(ctx, case, message):
    """The same rules, the same words, through the Python bindings."""
    with pytest.raises(ir.MLIRError) as err:
        ir.Module.parse(case)
    assert message in str(err.value)


def test_every_op_documents_an_example_that_round_trips():
    """Each op's description has a summary, a PTX ISA link and an example;
    every example line appears in test/Dialect/ops.mlir, pipe-ops.mlir or
    raised-ops.mlir, named-barrier-ops.mlir (SSA names aside)."""
    import os
    import re

    root = os.path.join(os.path.dirname(__file__), "..", "..", "..")
    dialect = os.path.join(root, "dialect", "include", "mbarrier", "Dialect", "MBarrier", "IR")
    td = "".join(open(os.path.join(dialect, name)).read()
                 for name in ("MBarrierOps.td", "MBarrierPipe.td", "MBarrierRaisedOps.td",
                              "MBarrierNamedBarrier.td"))
    ops_test = "".join(open(os.path.join(root, "test", "Dialect", name)).read()
                       for name in ("ops.mlir", "pipe-ops.mlir", "raised-ops.mlir",
                                    "named-barrier-ops.mlir"))

    def norm(line):
        return re.sub(r"%\w+", "%_", line.strip())

    tested = {norm(l) for l in ops_test.splitlines() if not l.strip().startswith("//")}
    defs = re.findall(r"def MBarrier_(\w+)Op\b.*?(?=\ndef MBarrier_|\Z)", td, re.S)
    bodies = re.split(r"\ndef MBarrier_\w+Op\b", td)[1:]
    # 15 barrier ops, 15 pipeline ops, 2 raised (arrive_nocomplete,
    # cp_async_bulk_tensor), 4 named-barrier ops
    assert len(bodies) == 36 == len(defs)
    for name, body in zip(defs, bodies):
        assert "let summary" in body, name
        assert "PTX ISA" in body and "docs.nvidia.com" in body, name
        examples = re.findall(r"```mlir\n(.*?)```", body, re.S)
        assert examples, f"{name}: no example"
        for line in examples[0].strip().splitlines():
            assert norm(line) in tested, f"{name}: example not round-tripped: {line.strip()}"


def test_op_docstrings_carry_the_ptx_isa_links():
    """The generated op classes' docstrings (what help() shows) carry real
    PTX ISA links, not TableGen names left unexpanded."""
    import inspect

    from mbarrier_dialect.dialects import mbarrier

    ops = [cls for _, cls in inspect.getmembers(mbarrier, inspect.isclass)
           if getattr(cls, "OPERATION_NAME", "").startswith("mbarrier.")]
    assert len(ops) == 41  # 30 + 5 mbarrier.seq.* + 2 raised + 4 named-barrier ops
    for cls in ops:
        doc = cls.__doc__ or ""
        assert "https://docs.nvidia.com/cuda/parallel-thread-execution/" in doc, cls.OPERATION_NAME
        assert "PtxMBarrier" not in doc, cls.OPERATION_NAME
