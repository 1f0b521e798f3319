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

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PACKAGE = os.path.join(ROOT, "python", "mbarrier_dialect")
LANG = os.path.join(PACKAGE, "lang")

# Lowest first; modules of one layer must not import each other.
LAYERS = [
    ["dtypes"],
    ["values"],
    ["builder"],
    ["control"],
    ["threads", "smem", "named_barriers"],
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
    assert reach == set(LAYER) - {"kernel", "__init__"}


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
