"""A consistent, discoverable API: the arguments that choose an op's form are
keyword-only everywhere (init's lone arrival count may be positional), sem/scope are accepted as enum or name on every op,
element types by name everywhere a dtype goes, and help() shows what there
is (with docstrings and type hints on every public function)."""
import importlib
import inspect
import pydoc

import numpy as np
import pytest

import mbarrier_dialect
from mbarrier_dialect.dialects.mbarrier import Scope, Semantics
from mbarrier_dialect.lang import (Kernel, MBarrier, TCGen05Bar, TMABar, const,
                                   initialized_barrier)

FORM_ARGUMENTS = {"cta_id", "tx_count", "count", "pred", "sem", "scope", "cta_group", "cta_mask"}


@pytest.mark.parametrize("fn", [MBarrier.arrive, MBarrier.wait, MBarrier.try_wait,
                                MBarrier.test_wait, TMABar.arrive, TMABar.expect_tx,
                                TCGen05Bar.arrive, initialized_barrier, Kernel.prologue])
def test_form_arguments_are_keyword_only(fn):
    params = inspect.signature(fn).parameters.values()
    named = [p for p in params if p.name in FORM_ARGUMENTS]
    assert named or fn is Kernel.prologue
    for p in named:
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, (fn.__qualname__, p.name)


def test_positional_form_arguments_are_refused():
    """MBarrier.arrive(0, 1) used to arrive on CTA 1 and TMABar.arrive(0, 1)
    to expect 1 byte: now both are TypeErrors."""
    for call in (lambda b, t: b.arrive(0, 1), lambda b, t: t.arrive(0, 1),
                 lambda b, t: t.expect_tx(0, 16), lambda b, t: b.init(1, 2)):
        with pytest.raises(TypeError, match="positional argument"):
            with Kernel("k", block=32, cluster=2) as k:
                pool = k.smem_pool()
                bar, tma = MBarrier(pool, 1), TMABar(pool, 1)
                pool.commit()
                call(bar, tma)


def test_init_takes_its_lone_count_positionally_or_by_name():
    """The seed's spelling bar.init(1) (issue 19): init has one argument, the
    arrival count, so a positional count is unambiguous; both spellings
    build the same IR. arrive's cta_id/count/pred/tx_count stay keyword-only
    (test_form_arguments_are_keyword_only)."""
    (count,) = [p for p in inspect.signature(MBarrier.init).parameters.values()
                if p.name != "self"]
    assert count.name == "count" and count.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    texts = [_module_text(lambda b, t: b.init(3)), _module_text(lambda b, t: b.init(count=3))]
    assert texts[0] == texts[1]
    assert texts[0].count("mbarrier.init") == 2 and "arith.constant 3 : i32" in texts[0]
    assert _module_text(lambda b, t: t.init(5)) == _module_text(lambda b, t: t.init(count=5))


def _module_text(build):
    with Kernel("k", block=32, cluster=2) as k:
        pool = k.smem_pool()
        bar, tma = MBarrier(pool, 2), TMABar(pool, 2)
        pool.commit()
        build(bar, tma)
    return str(k.module)


@pytest.mark.parametrize("op", [
    lambda b, t, s, c: b.arrive(0, sem=s("relaxed"), scope=c("cluster")),
    lambda b, t, s, c: b.arrive(0, cta_id=1, sem=s("release"), scope=c("cta")),
    lambda b, t, s, c: b.remote_view(1).arrive(1, sem=s("relaxed"), scope=c("cluster")),
    lambda b, t, s, c: t.arrive(0, tx_count=64, sem=s("relaxed"), scope=c("cta")),
    lambda b, t, s, c: t.expect_tx(0, tx_count=64, sem=s("relaxed"), scope=c("cluster")),
    lambda b, t, s, c: b.wait(0, 0, sem=s("relaxed"), scope=c("cta")),
    lambda b, t, s, c: b.try_wait(0, 1, sem=s("acquire"), scope=c("cluster")),
    lambda b, t, s, c: b.test_wait(1, 0, sem=s("relaxed"), scope=c("cluster")),
])
def test_sem_and_scope_by_enum_or_name(op):
    by_enum = _module_text(lambda b, t: op(b, t, lambda n: Semantics[n], lambda n: Scope[n]))
    by_name = _module_text(lambda b, t: op(b, t, str, str))
    assert by_enum == by_name
    assert "#mbarrier.sem<" in by_name and "#mbarrier.scope<" in by_name


def test_dtype_names_everywhere():
    with Kernel("k", block=32, params=[("out", "ptr"), ("x", "f32"), ("y", "int64"),
                                       ("z", np.int16)]) as k:
        pool = k.smem_pool()
        halves = pool.alloc(8, "bf16")
        words = pool.alloc((2, 4), np.float32)
        small = pool.alloc(4, "uint8")
        pool.commit()
        assert [str(b.dtype) for b in (halves, words, small)] == ["bf16", "f32", "i8"]
        assert halves.nbytes == 16 and words.nbytes == 32 and small.nbytes == 4
        assert [str(k.param(n).type) for n in ("x", "y", "z")] == ["f32", "i64", "i16"]
        assert str(k.load(k.param("out"), 0, dtype="float32").type) == "f32"
        assert str(k.load(k.param("out"), 0, "i64").type) == "i64"
        assert str(const(3, "int64").type) == "i64" and str(const(1.0, "f16").type) == "f16"
        assert str(k.param("y").to("int32").type) == "i32"
        k.store(2, k.param("out"), 0, dtype="i16")
        words.store(k.param("x"), (1, 2))
    assert "llvm.store %" in str(k.module) and ": i16, !llvm.ptr<1>" in str(k.module)
    with pytest.raises(ValueError, match="parameter 'n': kind must be 'ptr' or an element type"):
        Kernel("k", block=32, params=[("n", "int33")])


def test_help_shows_compile_and_the_ops():
    text = pydoc.render_doc(mbarrier_dialect, renderer=pydoc.plaintext)
    assert "compile(module" in text and "class CompiledKernel" in text
    from mbarrier_dialect.dialects import mbarrier
    text = pydoc.render_doc(mbarrier, renderer=pydoc.plaintext)
    for op in ("AllocOp", "ViewOp", "RemoteViewOp", "PtrOp", "InitOp", "FenceInitOp", "InvalOp",
               "ArriveOp", "ArriveExpectTxOp", "ExpectTxOp", "WaitOp", "TryWaitOp", "TestWaitOp",
               "Tcgen05CommitOp", "Semantics", "Scope"):
        assert f"class {op}" in text, op
    assert "compile" in dir(mbarrier_dialect)


PUBLIC_MODULES = ["mbarrier_dialect", "mbarrier_dialect.compiler", "mbarrier_dialect.errors", "mbarrier_dialect.cli",
                  "mbarrier_dialect.launch", "mbarrier_dialect.versions",
                  "mbarrier_dialect.locations",
                  "mbarrier_dialect.lang.dtypes", "mbarrier_dialect.lang.values",
                  "mbarrier_dialect.lang.builder", "mbarrier_dialect.lang.threads",
                  "mbarrier_dialect.lang.control", "mbarrier_dialect.lang.smem",
                  "mbarrier_dialect.lang.barriers", "mbarrier_dialect.lang.pipeline",
                  "mbarrier_dialect.lang.prologue", "mbarrier_dialect.lang.kernel"]


def _public_functions():
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        for oname in getattr(module, "__all__", []):
            obj = getattr(module, oname)
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj):
                yield f"{name}.{oname}", obj
            elif inspect.isclass(obj):
                yield f"{name}.{oname}", obj
                for mname, member in vars(obj).items():
                    if mname.startswith("_") and mname != "__init__":
                        continue
                    f = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
                    if inspect.isfunction(f):
                        yield f"{name}.{oname}.{mname}", f


def test_every_public_function_has_a_docstring_and_type_hints():
    missing_doc, missing_hints = [], []
    for qual, obj in _public_functions():
        if not qual.endswith("__init__") and not inspect.getdoc(obj):
            missing_doc.append(qual)
        if inspect.isfunction(obj):
            sig = inspect.signature(obj)
            if any(p.annotation is inspect.Parameter.empty for p in sig.parameters.values()
                   if p.name not in ("self", "cls")) or (
                    sig.return_annotation is inspect.Parameter.empty
                    and not qual.endswith("__init__")):
                missing_hints.append(qual)
    assert not missing_doc, missing_doc
    assert not missing_hints, missing_hints


def test_section_comments_are_not_method_docs():
    """pydoc falls back to the comment above a def without a docstring: no
    `# -- building --` banner may become a method's documentation."""
    from mbarrier_dialect import lang, runtime
    for obj in (lang.Kernel, lang.MBarrier, lang.TMABar, lang.TCGen05Bar, lang.SmemPool,
                lang.SmemBuffer, lang.Value, lang.IfElse, lang.Range, runtime.Module,
                runtime.DeviceBuffer, lang.kernel, lang.barriers, lang.values, lang.smem,
                lang.dtypes, lang.builder, lang.threads, lang.control, lang.pipeline,
                lang.prologue):
        text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
        assert "# --" not in text and "-- building" not in text, obj
