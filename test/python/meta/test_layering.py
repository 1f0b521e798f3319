"""mbarrier_dialect.lang is in layers (issue 19): every module imports only
modules of lower layers, so its import graph has no circle; no module
imports inside a function (the way a circle is dodged); no module is over
400 lines; and nothing outside lang imports lang, so no circle can close
through the rest of the package either. The layers are the ones
lang/__init__.py's docstring lists. Read from the source tree with `ast`:
nothing is imported to check it."""
import ast
import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PACKAGE = os.path.join(ROOT, "python", "mbarrier_dialect")
LANG = os.path.join(PACKAGE, "lang")

# Lowest first; modules of one layer must not import each other.
LAYERS = [
    ["dtypes"],
    ["values"],
    ["builder"],
    ["control"],
    ["threads", "smem", "named_barriers", "wgmma"],
    ["barriers"],
    ["pipeline", "sequence", "bulk_store"],
    ["prologue"],
    ["kernel"],
    ["__init__"],
]
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}
MAX_LINES = 400


def _lang_modules():
    return sorted(name[:-3] for name in os.listdir(LANG) if name.endswith(".py"))


def _tree(path):
    with open(path) as f:
        return ast.parse(f.read(), path)


def _imported(node, package):
    """The dotted modules an import node names, resolved against `package`
    (the importing module's package, e.g. "mbarrier_dialect.lang")."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = package.split(".")
    if node.level:
        base = base[:len(base) - node.level + 1]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module
    # `from . import values` imports the submodule values; `from .values
    # import X` imports values (X is a name in it, or a submodule of it).
    return [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]


def _lang_imports(name):
    """{imported lang module: line} of lang module `name`."""
    found = {}
    for node in ast.walk(_tree(os.path.join(LANG, f"{name}.py"))):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target in _imported(node, "mbarrier_dialect.lang"):
                parts = target.split(".")
                if parts[:2] == ["mbarrier_dialect", "lang"] and len(parts) == 3 \
                        and parts[2] in LAYER and parts[2] != name:
                    found.setdefault(parts[2], node.lineno)
    return found


def test_every_lang_module_has_a_layer():
    assert set(_lang_modules()) == set(LAYER), (
        "a new lang module needs a layer here and in lang/__init__.py's docstring")


@pytest.mark.parametrize("name", _lang_modules())
def test_imports_go_down_the_layers(name):
    wrong = {target: line for target, line in _lang_imports(name).items()
             if LAYER[target] >= LAYER[name]}
    assert not wrong, f"lang/{name}.py imports a module of its own layer or above: {wrong}"


def test_the_import_graph_has_no_circle():
    graph = {name: set(_lang_imports(name)) for name in _lang_modules()}
    done, path = set(), []

    def visit(node):
        if node in path:
            raise AssertionError("import circle: " + " -> ".join(path[path.index(node):] + [node]))
        if node in done:
            return
        path.append(node)
        for target in sorted(graph[node]):
            visit(target)
        path.pop()
        done.add(node)

    for name in graph:
        visit(name)
    # The test sees the imports there are: kernel reaches every layer below it.
    reach, todo = set(), ["kernel"]
    while todo:
        for target in graph[todo.pop()] - reach:
            reach.add(target)
            todo.append(target)
    # wgmma (tensor cores) is a leaf the examples use through lang.wgmma;
    # no barrier call needs it.
    assert reach == set(LAYER) - {"kernel", "__init__", "wgmma"}


@pytest.mark.parametrize("path", [os.path.join(LANG, f"{n}.py") for n in _lang_modules()]
                         + [os.path.join(PACKAGE, "locations.py")],
                         ids=lambda p: os.path.relpath(p, PACKAGE))
def test_imports_are_at_module_level(path):
    tree = _tree(path)
    top = {id(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))}
    inner = [node.lineno for node in ast.walk(tree)
             if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top]
    assert not inner, f"{path}: imports inside a function or block at lines {inner}"


@pytest.mark.parametrize("name", _lang_modules())
def test_no_lang_module_is_over_400_lines(name):
    with open(os.path.join(LANG, f"{name}.py")) as f:
        lines = sum(1 for _ in f)
    assert lines <= MAX_LINES, f"lang/{name}.py has {lines} lines"


def test_nothing_outside_lang_imports_lang():
    for base, _, files in os.walk(PACKAGE):
        if os.path.commonpath([base, LANG]) == LANG:
            continue
        for fname in files:
            if not fname.endswith(".py"):
                continue
            path = os.path.join(base, fname)
            rel = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].replace(os.sep, ".")
            package = rel if fname == "__init__.py" else rel.rsplit(".", 1)[0]
            package = package.removesuffix(".__init__")
            for node in ast.walk(_tree(path)):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    for target in _imported(node, package):
                        assert not target.startswith("mbarrier_dialect.lang"), (path, node.lineno)


def test_the_check_sees_an_upward_import():
    """The resolver on a made-up lower module that imports kernel: the
    layer test would fail on it."""
    node = ast.parse("from .kernel import Kernel\nfrom . import values as V").body
    targets = [t for n in node for t in _imported(n, "mbarrier_dialect.lang")]
    assert "mbarrier_dialect.lang.kernel" in targets
    assert "mbarrier_dialect.lang.values" in targets


# --------------------------------------------------------------------------
# The annex (issue 33): mbarrier_dialect <- examples <- bench <- test, each
# importing only what is to its left, through package paths: the `examples`
# and `bench` packages from the repository root (pyproject's pytest
# pythonpath, `python -m` from there), no PYTHONPATH and no sys.path edits
# anywhere (the device-side runners load what they need by path).
# --------------------------------------------------------------------------

ANNEX = ["python/mbarrier_dialect", "examples", "bench", "test"]


def _py_files(folder):
    for base, dirs, files in os.walk(os.path.join(ROOT, folder)):
        dirs[:] = [d for d in dirs if d not in ("results", "__pycache__")]
        for fname in files:
            if fname.endswith(".py"):
                yield os.path.relpath(os.path.join(base, fname), ROOT)


def _top_names(folder):
    """The top-level module names a layer defines (its files and packages)."""
    if folder in ("bench", "examples"):
        return {folder}
    if folder == "python/mbarrier_dialect":
        return {"mbarrier_dialect"}
    names = set()
    for rel in _py_files(folder):
        parts = os.path.relpath(rel, folder)[:-3].split(os.sep)
        # a test folder's files are imported by their own names (pytest's
        # rootdir paths and pythonpath).
        names.add(parts[-1])
    return names - {"conftest", "__init__"}


def _absolute_imports(path):
    for node in ast.walk(_tree(os.path.join(ROOT, path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.lineno, node.module.split(".")[0]


def _upward_imports(path, layer):
    above = set()
    for folder in ANNEX[layer + 1:]:
        above |= _top_names(folder)
    below = set()
    for folder in ANNEX[:layer + 1]:
        below |= _top_names(folder)
    return [(line, name) for line, name in _absolute_imports(path)
            if name in above and name not in below]


@pytest.mark.parametrize("layer", range(len(ANNEX) - 1), ids=ANNEX[:-1])
def test_the_annex_imports_only_downward(layer):
    wrong = {path: found for path in _py_files(ANNEX[layer])
             if (found := _upward_imports(path, layer))}
    assert not wrong, f"imports of a layer above {ANNEX[layer]}: {wrong}"


# The device-side runners that import attention_parts from the copy their
# builder put beside them (DIR/attention_parts, their own folder).
FROM_A_COPY = {"bench/attention/api_run.py", "bench/attention/bwd_run.py",
               "bench/attention/fa4_run.py"}


def _bare_example_imports(path):
    """Imports of `path` that name a module of examples/ without the
    package (``import gemm``, ``from gemm_parts import ...``): they need
    examples/ itself on the path, and load the module a second time."""
    bare = {os.path.splitext(name)[0] for name in os.listdir(os.path.join(ROOT, "examples"))
            if name.endswith(".py") or os.path.isdir(os.path.join(ROOT, "examples", name))}
    bare -= {"__init__", "__pycache__"}
    return [(line, name) for line, name in _absolute_imports(path) if name in bare]


def test_examples_are_imported_through_their_package():
    assert {"gemm", "gemm_parts", "attention_parts"} <= {
        os.path.splitext(n)[0] for n in os.listdir(os.path.join(ROOT, "examples"))}
    found = {path: lines for folder in ANNEX for path in _py_files(folder)
             if path not in FROM_A_COPY and (lines := _bare_example_imports(path))}
    assert not found, (
        "import an example through its package (`from examples import gemm`, "
        f"`from examples.gemm_parts import ...`, or relatively inside examples/): {found}")


def _gemm_imports(path):
    """Imports of `path` (a module of examples/) that reach the GEMM example:
    `examples.gemm`, `examples.gemm_parts`, or relatively `gemm` /
    `gemm_parts` from inside examples/."""
    found = []
    for node in ast.walk(_tree(os.path.join(ROOT, path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [module] + [f"{module}.{a.name}".lstrip(".") for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "examples":
                parts = parts[1:]
            if parts and parts[0] in ("gemm", "gemm_parts"):
                found.append((node.lineno, name))
                break
    return found


def test_attention_imports_nothing_of_the_gemm():
    """What both flagship examples need (wgmma descriptors, the wgmma) is
    lang's; attention is not built on the GEMM example (issue 33)."""
    paths = ["examples/attention.py"] + [
        f"examples/attention_parts/{n}" for n in sorted(os.listdir(os.path.join(ROOT, "examples", "attention_parts")))
        if n.endswith(".py")]
    found = {path: lines for path in paths if (lines := _gemm_imports(path))}
    assert not found, f"attention imports the GEMM example: {found}"


def test_the_gemm_example_is_a_model_kernel_in_size():
    """examples/gemm.py is the pipe GEMM, readable as the protocol: at most
    400 lines (issue 33); its variants live in gemm_parts/, the raw ring in
    bench/gemm/."""
    with open(os.path.join(ROOT, "examples", "gemm.py")) as f:
        assert len(f.read().splitlines()) <= 400


def test_the_gemm_import_check_sees_one(tmp_path, monkeypatch):
    """The check above on a made-up file: the two ways attention used to
    reach the GEMM, and lang's module, which is allowed."""
    monkeypatch.setattr(__import__(__name__), "ROOT", str(tmp_path))
    (tmp_path / "a.py").write_text("from ..gemm_parts.wgmma import wgmma\nfrom examples import gemm\n"
                                   "from mbarrier_dialect.lang.wgmma import wgmma\n")
    assert [line for line, _ in _gemm_imports("a.py")] == [1, 2]


def _is_sys_path(node) -> bool:
    """`node` is ``sys.path`` (``sys.path``, ``_sys.path``, or ``path`` taken
    from sys)."""
    return (isinstance(node, ast.Attribute) and node.attr == "path"
            and isinstance(node.value, ast.Name) and node.value.id in ("sys", "_sys"))


def _path_edits(path):
    """Lines of `path` that change the import path: a call of a sys.path
    method that changes it, an assignment to sys.path or an item or slice of
    it, ``sys.path += ...``, ``site.addsitedir``."""
    edits = []
    tree = _tree(os.path.join(ROOT, path))
    from_sys = {alias.asname or alias.name for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module == "sys"
                for alias in node.names if alias.name == "path"}
    def is_path(node):
        return _is_sys_path(node) or (isinstance(node, ast.Name) and node.id in from_sys)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("insert", "append", "extend", "remove", "pop", "clear") \
                    and is_path(node.func.value):
                edits.append(node.lineno)
            elif node.func.attr == "addsitedir":
                edits.append(node.lineno)
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if is_path(target) or (isinstance(target, ast.Subscript) and is_path(target.value)):
                    edits.append(node.lineno)
    return sorted(set(edits))


def test_no_sys_path_edits():
    found = {path: lines for folder in ANNEX for path in _py_files(folder)
             if (lines := _path_edits(path))}
    assert not found, (
        f"sys.path edits: import through package paths (the examples and bench packages "
        f"from the repository root, pyproject's pytest pythonpath) or load by path: {found}")


def test_the_annex_checks_see_an_upward_import_and_a_path_edit(tmp_path, monkeypatch):
    """The two checks above on made-up files: an example that imports the
    benchmarks, and a sys.path edit."""
    monkeypatch.setattr(__import__(__name__), "ROOT", str(tmp_path))
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "bad.py").write_text(
        "import sys\nsys.path" + ".insert(0, 'x')\nfrom bench.gemm import raw_ring\n")
    assert _upward_imports("examples/bad.py", 1) == [(3, "bench")]
    assert _path_edits("examples/bad.py") == [2]
    # A bare import of an example's module.
    (tmp_path / "examples" / "gemm_parts").mkdir()
    (tmp_path / "examples" / "gemm.py").write_text("from gemm_parts import api\nfrom . import bad\n")
    assert _bare_example_imports("examples/gemm.py") == [(1, "gemm_parts")]
    # Every other way of changing the path.
    (tmp_path / "examples" / "worse.py").write_text(
        "import site, sys as _sys\nfrom sys import path as P\n_sys.path" + "[:0] = ['x']\n"
        "_sys.path += ['y']\nP" + ".append('z')\nsite.addsitedir('w')\n_sys.path = []\n"
        "print(_sys.path[0], len(P))\n")
    assert _path_edits("examples/worse.py") == [3, 4, 5, 6, 7]


def layer_arrows() -> dict:
    """{(importing layer, imported layer): (imports, files)} of the annex:
    every import of a module another layer defines (what docs/layout.md
    draws)."""
    names = {folder: _top_names(folder) for folder in ANNEX}
    count, files = {}, {}
    for folder in ANNEX:
        for path in _py_files(folder):
            for _, name in _absolute_imports(path):
                if name in names[folder]:
                    continue
                other = next((o for o in ANNEX if name in names[o]), None)
                if other is not None:
                    count[folder, other] = count.get((folder, other), 0) + 1
                    files.setdefault((folder, other), set()).add(path)
    return {key: (n, len(files[key])) for key, n in count.items()}


def _drawn_arrows() -> set:
    """The arrows of docs/layout.md's table: rows ``| FROM | TO | ... |``."""
    drawn = set()
    for line in open(os.path.join(ROOT, "docs", "layout.md")):
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 2 and cells[1].endswith("/"):
            drawn.add((cells[0].rstrip("/"), cells[1].rstrip("/")))
    return drawn


def test_docs_layout_draws_the_arrows_the_code_has():
    arrows = set(layer_arrows())
    assert arrows == _drawn_arrows(), (
        f"docs/layout.md's table: missing {sorted(arrows - _drawn_arrows())}, "
        f"not in the code {sorted(_drawn_arrows() - arrows)} (python {__file__} prints it)")
    # and none runs back up
    assert all(ANNEX.index(a) > ANNEX.index(b) for a, b in arrows)


def test_the_dialect_includes_nothing_of_passes():
    """dialect/ is IR only: no #include of what passes/ holds."""
    passes = set()
    for base, _, files in os.walk(os.path.join(ROOT, "passes", "include")):
        for fname in files:
            passes.add(os.path.relpath(os.path.join(base, fname),
                                       os.path.join(ROOT, "passes", "include")))
    assert "mbarrier/Target/NVPTX/TargetInfo.h" in passes
    wrong = []
    for base, _, files in os.walk(os.path.join(ROOT, "dialect")):
        for fname in files:
            path = os.path.join(base, fname)
            for n, line in enumerate(open(path, errors="replace"), 1):
                if line.startswith("#include \"") and line.split('"')[1] in passes:
                    wrong.append(f"{os.path.relpath(path, ROOT)}:{n}")
    assert not wrong, wrong


if __name__ == "__main__":
    # The table of docs/layout.md: the arrows between the annex's layers.
    for (a, b), (n, files) in sorted(layer_arrows().items(), key=lambda kv: ANNEX.index(kv[0][0])):
        print(f"| `{a}/` | `{b}/` | {n} | {files} |")
