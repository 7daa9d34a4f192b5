"""Code digested as what it does, not as where it lives or how it reads (the Python
definitions and other files whose digests make a code identity, emusim.infra.code_identity):
Python definition by definition, as its syntax tree without docstrings, log statements,
exception messages and top-level imports, an import inside a definition naming each module by
its name before it moved (`MOVED_MODULES`); C, C++, CMake, Make and YAML without comments and
with whitespace collapsed.
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass

PACKAGE = "emusim"


class IdentityError(RuntimeError):
    """The code's identity cannot be computed (a revision git does not have, a file that does
    not parse); the message says which."""


MOVED_MODULES = {
    "emusim.core.paths": "emusim.paths",
    "emusim.core.constants": "emusim.constants",
    "emusim.core.schema_errors": "emusim.schema_errors",
    "emusim.core.plugins": "emusim.plugins",
    "emusim.core.run_status": "emusim.run_status",
    "emusim.core.script_log": "emusim.script_log",
    "emusim.core.drop_decision": "emusim.drop_decision",
    "emusim.core.backend_registry": "emusim.backends",
    "emusim.infra.runjson": "emusim.runjson",
    "emusim.infra.archive": "emusim.archive",
    "emusim.infra.audit": "emusim.audit",
    "emusim.infra.code_identity": "emusim.code_identity",
    "emusim.infra.vm": "emusim.vm",
    "emusim.infra.teardown": "emusim.teardown",
    "emusim.linux.tcp_tracefs": "emusim.linux.tcp_trace",
    "emusim.linux.tracefs_convert": "emusim.linux.tcp_trace_convert",
    "emusim.inputs.scenario": "emusim.scenario",
    "emusim.inputs.variants": "emusim.variants",
    "emusim.inputs.tcp_profiles": "emusim.profiles",
    "emusim.inputs.delay": "emusim.delay",
    "emusim.inputs.measurements_2001": "emusim.reference",
    "emusim.analysis.collect": "emusim.collect",
    "emusim.analysis.compare": "emusim.compare",
    "emusim.analysis.stats": "emusim.stats",
    "emusim.analysis.tables": "emusim.tables",
    "emusim.analysis.plotting": "emusim.plotting",
    "emusim.analysis.plots_scenario": "emusim.plots_scenario",
    "emusim.analysis.plots_selfcheck": "emusim.plots_selfcheck",
    "emusim.analysis.tcp_events": "emusim.tcptrace",
    "emusim.planning.costs": "emusim.costs",
    "emusim.planning.progress": "emusim.progress",
    "emusim.report.macros": "emusim.paper_numbers",
    "emusim.report.shared_numbers": "emusim.paper_numbers",
    "emusim.report.setup_tables": "emusim.paper_tables",
    "emusim.report.latex_build": "emusim.paperbuild",
}
"""Modules moved in the package since runs were kept (the layers of issue 56), each with the name
it had: an import inside a definition names the module it imports, and is digested with that
former name, so that the move keeps every digest."""


def _former(module: str) -> str:
    """A module's name (or an attribute's, `MODULE.NAME`) as it was before `MOVED_MODULES`."""
    for new, old in MOVED_MODULES.items():
        if module == new or module.startswith(new + "."):
            return old + module[len(new) :]
    return module


_LOG_FUNCTIONS = frozenset({"log"})
"""Functions that only write a message to the log (emusim.backends.mininet.plan.log and its
kind): a call of one, as a statement, is not behaviour."""


class _Normalizer(ast.NodeTransformer):
    """A module's tree as what it does: no docstrings (nor any other lone string), no statements
    that only write to the log
    (`log(...)`, `print(..., file=sys.stderr)`), and no text in the exceptions it raises (a
    kept run raised none): a better message does not change a run."""

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for stmt in body:
            stmt = self.visit(stmt)
            # a docstring, of a module, class, function or attribute, does nothing
            if stmt is None or _is_log(stmt) or _is_text(stmt):
                continue
            # an `if` left with nothing to do in either branch does nothing
            if isinstance(stmt, ast.If) and _empty(stmt.body) and _empty(stmt.orelse):
                continue
            out.append(stmt)
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                kept = self._body(body)
                setattr(node, name, kept or ([] if name != "body" else [ast.Pass()]))
        for name, value in ast.iter_fields(node):
            if name in ("body", "orelse", "finalbody") and isinstance(value, list):
                continue
            if isinstance(value, list):
                setattr(node, name, [self.visit(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, name, self.visit(value))
        return node

    def visit_Import(self, node: ast.Import) -> ast.Import:
        for alias in node.names:
            alias.name = _former(alias.name)
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.ImportFrom:
        # `from emusim.inputs import variants` was `from emusim import variants`
        if node.level or not (node.module or "").startswith(PACKAGE):
            return node
        former = [_former(f"{node.module}.{alias.name}").rpartition(".") for alias in node.names]
        node.module = former[0][0]
        for alias, (_, _, name) in zip(node.names, former, strict=True):
            alias.name = name
        return node

    def visit_Raise(self, node: ast.Raise) -> ast.Raise:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                sub.value = "<message>"
            elif isinstance(sub, ast.JoinedStr):
                sub.values = [ast.Constant("<message>")]
        return node


def _is_log(stmt: ast.stmt) -> bool:
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    if isinstance(call.func, ast.Name) and call.func.id in _LOG_FUNCTIONS:
        return True
    return (
        isinstance(call.func, ast.Name)
        and call.func.id == "print"
        and any(k.arg == "file" and ast.unparse(k.value) == "sys.stderr" for k in call.keywords)
    )


def _is_text(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _empty(body: list[ast.stmt]) -> bool:
    return all(isinstance(s, ast.Pass) for s in body)


def digest(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()[:16]


@dataclass
class Unit:
    """One definition of a module: its name, digest, the names it defines and those it uses."""

    name: str
    digest: str
    defines: frozenset[str]
    uses: frozenset[str]


def _names_used(node: ast.AST) -> frozenset[str]:
    used = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            used.add(n.id)
        elif isinstance(n, ast.Attribute):
            used.add(n.attr)
    return frozenset(used)


def _defined(stmt: ast.stmt) -> frozenset[str]:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return frozenset({stmt.name})
    targets = getattr(stmt, "targets", None) or [getattr(stmt, "target", None)]
    return frozenset(
        n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)
    )


def _is_main_guard(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.If) and "__main__" in ast.unparse(stmt.test)


def python_units(source: bytes, where: str) -> list[Unit]:
    """A module's definitions: each top-level function, each class (whole), and each other
    top-level statement but imports and the `if __name__ == "__main__"` block, normalised
    (`_Normalizer`) and digested as syntax trees (`ast.dump`: no positions, no formatting)."""
    try:
        tree = ast.parse(source, filename=where)
    except SyntaxError as err:
        raise IdentityError(f"{where}: does not parse: {err}") from err
    tree = _Normalizer().visit(tree)
    units = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom) or _is_main_guard(stmt):
            continue
        if isinstance(stmt, ast.ClassDef):
            units += _class_units(stmt, where)
            continue
        defines = _defined(stmt)
        label = ", ".join(sorted(defines)) or f"line {getattr(stmt, 'lineno', 0)}"
        units.append(Unit(f"{where}:{label}", digest(ast.dump(stmt)), defines, _names_used(stmt)))
    return units


def _class_units(cls: ast.ClassDef, where: str) -> list[Unit]:
    """A class as its shell (bases, decorators, attributes), which uses every method's name so
    that reaching the class reaches them all, and one unit per method."""
    methods = [s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
    shell = ast.ClassDef(
        name=cls.name,
        bases=cls.bases,
        keywords=cls.keywords,
        body=[s for s in cls.body if s not in methods] or [ast.Pass()],
        decorator_list=cls.decorator_list,
        type_params=[],
    )
    method_names = frozenset(f"{cls.name}.{m.name}" for m in methods)
    units = [
        Unit(
            f"{where}:{cls.name}",
            digest(ast.dump(shell)),
            frozenset({cls.name}),
            _names_used(shell) | method_names,
        )
    ]
    units += [
        Unit(
            f"{where}:{cls.name}.{m.name}",
            digest(f"{cls.name}." + ast.dump(m)),
            frozenset({f"{cls.name}.{m.name}"}),
            _names_used(m),
        )
        for m in methods
    ]
    return units


def reachable_units(units: list[Unit], entries: list[Unit]) -> list[Unit]:
    """The units that `entries` reach: by the names they use (a call, an attribute, a
    constant), again from what those use, and every unit that defines nothing (a statement
    that runs when its module is imported). By name, so more rather than fewer."""
    reached = {id(u): u for u in entries}
    reached |= {id(u): u for u in units if not u.defines}
    used = set().union(*(u.uses for u in reached.values()))
    grew = True
    while grew:
        grew = False
        for u in units:
            if id(u) not in reached and u.defines & used:
                reached[id(u)] = u
                used |= u.uses
                grew = True
    return sorted(reached.values(), key=lambda u: u.name)


_C_TOKENS = re.compile(
    r'"(?:\\.|[^"\\\n])*"'  # a string literal
    r"|'(?:\\.|[^'\\\n])*'"  # a character literal
    r"|//[^\n]*"  # a line comment
    r"|/\*.*?\*/",  # a block comment
    re.S,
)
_HASH_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"' r"|'[^'\n]*'" r"|#[^\n]*")


def normalized_source(path: str, data: bytes) -> str:
    """A non-Python file as what it does: comments out (C and C++: `//`, `/* */`; CMake, Make,
    Kbuild, YAML: `#`), whitespace collapsed. String literals are kept as written."""
    text = data.decode(errors="replace")
    name = path.rsplit("/", 1)[-1]
    if name.endswith((".c", ".cc", ".h", ".cpp", ".hpp")):
        pattern, comment = _C_TOKENS, ("//", "/*")
    elif name.endswith((".cmake", ".txt", ".yaml", ".yml", ".mk")) or name in (
        "Makefile",
        "Kbuild",
    ):
        pattern, comment = _HASH_TOKENS, ("#",)
    else:
        return " ".join(text.split())
    text = pattern.sub(lambda m: " " if m.group().startswith(comment) else m.group(), text)
    return " ".join(text.split())
