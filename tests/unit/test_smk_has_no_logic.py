"""The Snakefile and the rules files hold no logic the unit tests cannot reach (issue 56): every
decision is a function of emusim.pipeline, which is tested; a rules file only imports, reads
configuration, defines rules whose inputs and parameters call one such function, and includes.

Each file is compiled to Python by Snakemake's own parser (what Snakemake runs), and the Python
is read with `ast`. Refused: a loop, an if (statement or expression), `and`/`or`, a try, a
comprehension, and a def whose body is more than one `return CALL` (a docstring aside). The
one exception: an `if PREDICATE(...):` at the top level whose body only defines rules or names
local rules (Snakemake cannot define a rule conditionally any other way).
"""

from __future__ import annotations

import ast
import io
from unittest import mock

import pytest
import snakemake.api  # noqa: F401  (imports snakemake.workflow in an order that works)
from snakemake import parser
from snakemake.sourcecache import LocalSourceFile

from emusim.core.paths import REPO_ROOT

SMK_FILES = [REPO_ROOT / "Snakefile", *sorted((REPO_ROOT / "workflow").rglob("*.smk"))]

# Snakemake compiles a rule's action into a function named so (its body is Snakemake's own).
RULE_FUNCTION_PREFIX = "__rule_"

REFUSED = {
    ast.For: "a for loop",
    ast.AsyncFor: "a for loop",
    ast.While: "a while loop",
    ast.If: "an if",
    ast.IfExp: "an if expression",
    ast.BoolOp: "an and/or",
    ast.Try: "a try",
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a comprehension",
}


def compile_snakefile(path) -> tuple[str, dict[int, int]]:
    """The Python that Snakemake runs for `path`, and its line map (compiled line -> file's)."""
    workflow = mock.MagicMock()
    workflow.sourcecache.open = lambda source, *args, **kwargs: io.StringIO(path.read_text())
    linemap: dict[int, int] = {}
    code, _ = parser.parse(LocalSourceFile(str(path)), workflow, linemap)
    return code, linemap


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _defines_rules_only(stmt: ast.If) -> bool:
    """`if PREDICATE(...):` holding only rule definitions and `localrules`."""
    if stmt.orelse or not isinstance(stmt.test, ast.Call):
        return False
    for inner in stmt.body:
        is_rule = isinstance(inner, ast.FunctionDef) and inner.name.startswith(RULE_FUNCTION_PREFIX)
        is_directive = (
            isinstance(inner, ast.Expr)
            and isinstance(inner.value, ast.Call)
            and isinstance(inner.value.func, ast.Attribute)
            and isinstance(inner.value.func.value, ast.Name)
            and inner.value.func.value.id == "workflow"
        )
        if not (is_rule or is_directive):
            return False
    return True


def offences(code: str) -> list[tuple[int, str]]:
    """(compiled line, what) of every piece of logic in compiled Snakemake code."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef) and node.name.startswith(RULE_FUNCTION_PREFIX):
            return  # Snakemake's own code for the rule's action; its decorators are visited
        if isinstance(node, ast.FunctionDef):
            body = [s for s in node.body if not _is_docstring(s)]
            single_call = (
                len(body) == 1
                and isinstance(body[0], ast.Return)
                and isinstance(body[0].value, ast.Call)
            )
            if not single_call:
                found.append((node.lineno, f"def {node.name}: more than one return of a call"))
        if isinstance(node, ast.If) and _defines_rules_only(node):
            visit(node.test)
            for inner in node.body:
                visit(inner)
            return
        for kind, what in REFUSED.items():
            if isinstance(node, kind):
                found.append((node.lineno, what))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(code))
    return found


def test_the_checker_finds_each_kind_of_logic():
    code = (
        "for x in y:\n    pass\n"
        "z = [a for a in b]\n"
        "w = a if b else c\n"
        "v = a or b\n"
        "try:\n    pass\nexcept Exception:\n    pass\n"
        "def f(wildcards):\n    x = 1\n    return g(x)\n"
        "def h(wildcards):\n    '''doc'''\n    return g(wildcards)\n"
        "if p():\n    workflow.localrules(a)\n"
        "if q:\n    x = 1\n"
    )
    kinds = sorted(what for _, what in offences(code))
    assert kinds == sorted(
        [
            "a for loop",
            "a comprehension",
            "an if expression",
            "an and/or",
            "a try",
            "def f: more than one return of a call",
            "an if",
        ]
    )


@pytest.mark.parametrize("path", SMK_FILES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_a_rules_file_holds_no_logic(path):
    code, linemap = compile_snakefile(path)
    found = [f"{path.name}:{linemap.get(line, line)}: {what}" for line, what in offences(code)]
    assert not found, "logic in a rules file (move it to emusim.pipeline):\n" + "\n".join(found)
