"""The repository holds only code written here: Linux's own code is taken from Debian's
linux-source-6.1 when the ns-3 part is built (sim/ns3/linux/extract.cmake, docs/linux-cc.md).
No function body of the package's TCP code, or of the kernel files the shim stands in for, may
appear in a file of the repository, however it is indented or commented.

A body is compared as its tokens: comments and preprocessor lines removed, whitespace ignored,
braces included. A body of fewer than two statements (fewer than two `;`: `return tp->snd_cwnd;`,
`return (struct tcp_sock *)sk;`) is what anyone would write and is not compared."""

import re
import subprocess
import tarfile
from pathlib import Path

import pytest

from emusim.core.paths import REPO_ROOT

TARBALL = Path("/usr/src/linux-source-6.1.tar.xz")
SHIM = REPO_ROOT / "sim" / "ns3" / "linux" / "shim"

MIN_STATEMENTS = 2
"""a body with fewer `;` tokens is trivial (the module docstring)"""

# The files the shim stands in for or calls into, beyond its own header names (below): the TCP
# headers, the windowed minimum, module parameters and the arithmetic the shim provides.
KERNEL_FILES = {
    "include/net/tcp.h",
    "include/net/inet_connection_sock.h",
    "include/net/inet_ecn.h",
    "include/net/sock.h",
    "include/linux/tcp.h",
    "include/linux/win_minmax.h",
    "lib/win_minmax.c",
    "kernel/params.c",
    "include/linux/moduleparam.h",
    "include/linux/jiffies.h",
    "include/linux/minmax.h",
    "include/linux/log2.h",
    "include/linux/prandom.h",
    "lib/math/int_sqrt.c",
}


def _shim_stand_ins() -> set[str]:
    """The kernel headers the shim's files are named after (asm/ is asm-generic/ in the tree)."""
    names = set()
    for path in SHIM.rglob("*.h"):
        rel = path.relative_to(SHIM).as_posix()
        if rel == "emusim-kernel.h":
            continue
        names.add("include/" + rel.replace("asm/", "asm-generic/", 1))
    return names


def _compared(name: str, wanted: set[str]) -> bool:
    """Whether a tarball member (the tree's path) is one whose bodies are compared: every TCP
    source file of net/ipv4, and the kernel files above."""
    return bool(re.fullmatch(r"net/ipv4/tcp\w*\.[ch]", name)) or name in wanted


_COMMENT_OR_LITERAL = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL
)
_PREPROCESSOR = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.MULTILINE)
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|->|\+\+|--|<<=?|>>=?|&&|\|\||[-+*/%&|^=!<>]=|\S")


def tokens(text: str) -> list[str]:
    """The text's C tokens, comments and preprocessor lines left out (string literals kept)."""

    def keep_literals(match: re.Match) -> str:
        s = match.group(0)
        return s if s[0] in "\"'" else " "

    text = _COMMENT_OR_LITERAL.sub(keep_literals, text)
    return _TOKEN.findall(_PREPROCESSOR.sub(" ", text))


def function_bodies(text: str) -> list[tuple[str, str]]:
    """(name, body) of every function defined at file level: a "{" at depth 0 right after a
    ")", to its matching "}"; the body as its tokens joined by spaces, braces included, and
    only bodies of at least MIN_STATEMENTS statements."""
    toks = tokens(text)
    found = []
    depth = 0
    start = None
    for i, tok in enumerate(toks):
        if tok == "{":
            if depth == 0 and i > 0 and toks[i - 1] == ")":
                start = i
            depth += 1
        elif tok == "}":
            depth -= 1
            if depth == 0 and start is not None:
                body = toks[start : i + 1]
                if body.count(";") >= MIN_STATEMENTS:
                    found.append((_name_before(toks, start), " ".join(body)))
                start = None
    return found


def _name_before(toks: list[str], brace: int) -> str:
    """The function's name: the identifier before the parenthesis its parameters open with."""
    depth = 0
    for j in range(brace - 1, -1, -1):
        if toks[j] == ")":
            depth += 1
        elif toks[j] == "(":
            depth -= 1
            if depth == 0:
                return toks[j - 1] if j > 0 else "?"
    return "?"


def copies(bodies: list[tuple[str, str, str]], files: dict[str, str]) -> list[str]:
    """Each (Linux file, function, body) whose body appears in one of `files` (path -> text)."""
    found = []
    for path, text in files.items():
        haystack = " " + " ".join(tokens(text)) + " "
        for source, name, body in bodies:
            if f" {body} " in haystack:
                found.append(f"{path} holds the body of {name} ({source})")
    return found


@pytest.fixture(scope="module")
def linux_bodies() -> list[tuple[str, str, str]]:
    """(file, function, body) of every compared file of the tarball: one pass over it."""
    wanted = KERNEL_FILES | _shim_stand_ins()
    bodies = []
    seen = set()
    with tarfile.open(TARBALL, "r|xz") as tar:
        for member in tar:
            name = member.name.split("/", 1)[-1]
            if not member.isfile() or not _compared(name, wanted):
                continue
            seen.add(name)
            text = tar.extractfile(member).read().decode("utf-8", "replace")
            bodies += [(name, fn, body) for fn, body in function_bodies(text)]
    # the files named above are in the tree (a path that moved would compare nothing)
    assert seen >= KERNEL_FILES, sorted(KERNEL_FILES - seen)
    assert {"net/ipv4/tcp_input.c", "net/ipv4/tcp_cong.c"} <= seen
    return bodies


def _repository_files() -> dict[str, str]:
    """Every file of the repository, tracked or new, but the runs' data (JSON, CSV, archives)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    files = {}
    for rel in filter(None, listed.split("\0")):
        path = REPO_ROOT / rel
        if path.suffix in {".json", ".csv", ".gz", ".tsv", ".pdf", ".png"} or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data:
            continue
        files[rel] = data.decode("utf-8", "replace")
    return files


def _body(bodies, source: str, name: str) -> str:
    return next(b for s, n, b in bodies if s == source and n == name)


pytestmark = pytest.mark.skipif(not TARBALL.is_file(), reason=f"no {TARBALL} (tools/setup base)")


def test_the_detector_finds_a_copy_however_it_is_laid_out(linux_bodies):
    # Hand-made: tcp_is_cwnd_limited (include/net/tcp.h:1329-1341, four statements) reindented,
    # renamed and commented, and tcp_slow_start (net/ipv4/tcp_cong.c:406-414) on one line, are
    # found; tcp_snd_cwnd (tcp.h:1253-1256, one statement) is below the threshold and not
    # compared at all.
    limited = _body(linux_bodies, "include/net/tcp.h", "tcp_is_cwnd_limited")
    slow_start = _body(linux_bodies, "net/ipv4/tcp_cong.c", "tcp_slow_start")
    assert limited.count(";") == 4 and slow_start.count(";") == 4
    assert not any(n == "tcp_snd_cwnd" for s, n, b in linux_bodies if s == "include/net/tcp.h")
    laid_out = "\n".join(f"    {tok}  /* here */" for tok in limited.split())
    text = (
        "static bool cwnd_used(const struct sock *sk)\n"
        + laid_out
        + "\n// and another\nu32 grow(struct tcp_sock *tp, u32 acked) "
        + slow_start
        + "\nstatic u32 cwnd(const struct tcp_sock *tp) { return tp->snd_cwnd; }\n"
    )
    found = copies(linux_bodies, {"example.c": text})
    assert sorted(found) == [
        "example.c holds the body of tcp_is_cwnd_limited (include/net/tcp.h)",
        "example.c holds the body of tcp_slow_start (net/ipv4/tcp_cong.c)",
    ]


def test_no_function_body_of_the_linux_tarball_is_in_the_repository(linux_bodies):
    found = copies(linux_bodies, _repository_files())
    assert found == [], "\n".join(found)
