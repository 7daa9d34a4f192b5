"""Every import of emusim in the tree resolves: the workflow's scripts and rules import the
package too, and a module moved without them would only fail when Snakemake runs that rule."""

import ast
import importlib
import importlib.util
import re
import subprocess

from emusim.core.paths import REPO_ROOT


def _imports() -> list[tuple[str, int, str, str | None]]:
    """(file, line, module, name or None) of every `from emusim… import` and `import emusim…`,
    in tracked Python files, Snakemake rules and the Snakefile."""
    files = subprocess.run(
        ["git", "ls-files", "*.py", "*.smk", "Snakefile"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    out = []
    for rel in files:
        text = (REPO_ROOT / rel).read_text()
        if not rel.endswith(".py"):  # Snakemake: only its import lines are Python
            keep = (
                ln if re.match(r"\s*(from|import) emusim", ln) else "" for ln in text.splitlines()
            )
            text = "\n".join(ln.strip() for ln in keep)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("emusim"):
                out += [(rel, node.lineno, node.module, a.name) for a in node.names]
            elif isinstance(node, ast.Import):
                out += [
                    (rel, node.lineno, a.name, None)
                    for a in node.names
                    if a.name.startswith("emusim")
                ]
    return out


def _unresolved(module: str, name: str | None) -> bool:
    if name is None:
        return importlib.util.find_spec(module) is None
    mod = importlib.import_module(module)
    return not hasattr(mod, name) and importlib.util.find_spec(f"{module}.{name}") is None


def test_every_emusim_import_resolves():
    imports = _imports()
    assert len(imports) > 100  # the scan found the tree's imports
    broken = [
        f"{rel}:{line}: {module}" + (f" has no {name}" if name else " does not exist")
        for rel, line, module, name in imports
        if _unresolved(module, name)
    ]
    assert not broken, "\n".join(broken)
