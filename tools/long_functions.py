"""Lists the functions and lambdas in csrc/ longer than 100 lines (issue 18), for
``make lint``.

A scan of csrc/**/*.cc and *.h that matches braces outside strings, character
literals and comments. A function body starts at a ``{`` that ends a line whose
code, before the ``{``, ends with ``)`` (or a lambda's ``[...]``) and optional
qualifiers (``const``, ``override``, ``noexcept``, ``mutable``, ``-> type``, ...),
and that does not open an if/for/while/switch/catch block (preprocessor lines
are skipped). Its length counts the lines from that ``{`` to its closing ``}``,
both included.

Prints ``file:line: name: N lines`` for each such function over the limit (line:
where its name is) and exits 1 if one is not in the allowlist,
tools/long_functions_allowed.txt: one ``path function-name  # reason`` a line,
the reason required. A function is named as it is defined
(``Executor::flushLocked``; a macro with its arguments: ``TEST(Suite,Name)``); a
lambda by the variable it initializes, or else ``enclosing.<lambda>``. Allowlist
entries no longer over the limit are reported as stale (not an error).
``--max N`` changes the limit, ``--all`` also lists allowed ones, and files given
as arguments replace csrc/ (``--max 0 FILE`` lists every function of FILE).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
ALLOWLIST = Path(__file__).resolve().parent / "long_functions_allowed.txt"
MAX_LINES = 100

_CONTROL = {"if", "for", "while", "switch", "catch"}
# What may follow a function's ")" (or a lambda's "]") before its "{".
_QUALIFIERS = re.compile(
    r"(?:\s*(?:const|volatile|override|final|mutable|constexpr|consteval|noexcept"
    r"(?:\s*\((?:[^()]|\([^()]*\))*\))?|&&|&|->\s*[\w:<>,\s*&]+?))*\s*$"
)
_IDENT_BEFORE = re.compile(
    r"(~?[A-Za-z_][\w:]*(?:\s*<[^<>()]*>)?|operator\s*[^\s(]+|operator\s*\(\s*\))\s*$"
)
_ASSIGNED = re.compile(r"([A-Za-z_]\w*)\s*=\s*$")
_MACRO = re.compile(r"^[A-Z][A-Z0-9_]*$")
_CHAR_PREFIX = re.compile(r"(?:^|[^\w])(?:u8|u|U|L)$")


def strip_code(text: str) -> str:
    """The text with comments, strings and character literals blanked (newlines
    and the quotes themselves kept), so that only code remains."""
    out = list(text)
    i, n = 0, len(text)

    def blank(start: int, end: int) -> None:
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif c == '"':
            raw = re.search(r"(?:^|[^\w])(?:u8|u|U|L)?R$", text[max(0, i - 4) : i])
            if raw:
                delim_end = text.find("(", i)
                delim = text[i + 1 : delim_end]
                close = text.find(")" + delim + '"', delim_end)
                end = n if close < 0 else close + len(delim) + 1
            else:
                end = i + 1
                while end < n and text[end] not in '"\n':
                    end += 2 if text[end] == "\\" else 1
            blank(i + 1, min(end, n))
            i = end + 1
        elif c == "'":
            before = text[max(0, i - 3) : i]
            if i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
                if not _CHAR_PREFIX.search(before):
                    i += 1  # a digit separator: 1'000'000
                    continue
            end = i + 1
            while end < n and text[end] not in "'\n":
                end += 2 if text[end] == "\\" else 1
            blank(i + 1, min(end, n))
            i = end + 1
        else:
            i += 1
    return "".join(out)


def strip_preprocessor(code: str) -> str:
    """Blanks preprocessor directives (with their continuation lines)."""
    lines = code.split("\n")
    continued = False
    for k, line in enumerate(lines):
        if continued or line.lstrip().startswith("#"):
            continued = line.rstrip().endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


@dataclass
class Function:
    path: str
    line: int  # where its name is
    name: str
    lines: int  # from its "{" to its "}", both included


@dataclass
class _Block:
    brace: int
    name: str | None
    name_at: int
    parens: int = 0
    statement: int = 0

    def __post_init__(self) -> None:
        self.statement = self.brace + 1


def _match_back(code: str, close: int, opening: str, closing: str) -> int:
    """The index of the bracket that ``code[close]`` closes, or -1."""
    depth = 0
    for k in range(close, -1, -1):
        if code[k] == closing:
            depth += 1
        elif code[k] == opening:
            depth -= 1
            if depth == 0:
                return k
    return -1


def _body_name(code: str, head: int, brace: int, outer: str) -> tuple[str, int] | None:
    """The name and the index of the name of the function or lambda whose body
    opens at ``code[brace]`` (``head``: where its statement starts; ``outer``: the
    function around it, which names an unassigned lambda); None if that brace
    opens something else."""
    decl = code[head:brace].rstrip()  # the declaration, up to the "{"
    quals = _QUALIFIERS.search(decl)
    end = decl[: quals.start()].rstrip() if quals else decl
    if not end or end[-1] not in ")]":
        return None
    if end[-1] == "]":  # a lambda without parameters: [&] {
        lam = _match_back(end, len(end) - 1, "[", "]")
        prev = end[:lam].rstrip()
        if lam < 0 or (prev and prev[-1] not in "=(,{;" and not prev.endswith("return")):
            return None
        return _lambda_name(decl, lam, outer), head + lam
    paren = _match_back(end, len(end) - 1, "(", ")")
    if paren < 0:
        return None
    prev = end[:paren].rstrip()
    if prev.endswith("]"):  # a lambda: [&](int x) {
        lam = _match_back(prev, len(prev) - 1, "[", "]")
        return (_lambda_name(decl, lam, outer), head + lam) if lam >= 0 else None
    word = re.search(r"(\w+)$", prev)
    if word and word.group(1) in _CONTROL:
        return None
    # A function: its name is before the first "(" of its declaration (a
    # constructor's initializer list has more of them after it).
    first = 0
    while True:
        first = decl.find("(", first, paren + 1)
        if first < 0:
            return None
        ident = _IDENT_BEFORE.search(decl[:first])
        if ident and ident.group(1).replace(" ", "") == "operator":
            first += 1  # operator()(...): the name is "operator()"
            continue
        break
    if not ident:
        return None
    name = re.sub(r"\s+", "", ident.group(1))
    if name in _CONTROL:
        return None
    if _MACRO.match(name):  # TEST(Suite, Name), TORCH_LIBRARY_IMPL(aten, Meta, m)
        close = _match_forward(decl, first)
        if close > 0:
            name += re.sub(r"\s+", "", decl[first : close + 1])
    return name, head + ident.start(1)


def _match_forward(code: str, open_: int) -> int:
    """The index of the ")" that closes ``code[open_]``, or -1."""
    depth = 0
    for k in range(open_, len(code)):
        if code[k] == "(":
            depth += 1
        elif code[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    return -1


def _lambda_name(decl: str, bracket: int, outer: str) -> str:
    """A lambda's name: the variable it initializes, or else what holds it (the
    function around it; at namespace scope, the object its statement declares)."""
    assigned = _ASSIGNED.search(decl[:bracket])
    if assigned:
        return assigned.group(1)
    if not outer:
        first = decl.find("(")
        ident = _IDENT_BEFORE.search(decl[:first]) if 0 <= first < bracket else None
        outer = re.sub(r"\s+", "", ident.group(1)) if ident else ""
    return f"{outer}.<lambda>" if outer else "<lambda>"


def scan(path: Path, rel: str) -> list[Function]:
    """Every function and lambda of one source file, with its length."""
    code = strip_preprocessor(strip_code(path.read_text()))
    line_starts = [0] + [k + 1 for k, c in enumerate(code) if c == "\n"]

    def line_of(index: int) -> int:
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= index:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    found: list[Function] = []
    # One entry per open brace (the file itself first): its index, the name of
    # the function it opens (None: not a function), where that name is, and,
    # inside it, the open parentheses and brackets and where the statement starts.
    stack: list[_Block] = [_Block(-1, None, -1)]
    enclosing: list[str] = []
    for k, c in enumerate(code):
        block = stack[-1]
        if c in "([":
            block.parens += 1
        elif c in ")]":
            block.parens -= 1
        elif c == ";" and block.parens <= 0:
            block.statement = k + 1
        elif c == "{":
            nl = code.find("\n", k)
            named = None
            if not code[k + 1 : nl if nl >= 0 else len(code)].strip():
                named = _body_name(code, block.statement, k, enclosing[-1] if enclosing else "")
            if named:
                enclosing.append(named[0])
            stack.append(_Block(k, *named) if named else _Block(k, None, -1))
        elif c == "}" and len(stack) > 1:
            done = stack.pop()
            if stack[-1].parens <= 0:
                stack[-1].statement = k + 1
            if done.name is None:
                continue
            enclosing.pop()
            lines = line_of(k) - line_of(done.brace) + 1
            found.append(Function(rel, line_of(done.name_at), done.name, lines))
    return found


def read_allowlist(path: Path) -> dict[tuple[str, str], str]:
    allowed: dict[tuple[str, str], str] = {}
    if not path.exists():
        return allowed
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        entry, _, reason = raw.partition("#")
        if not entry.strip():
            continue
        fields = entry.split()
        if len(fields) != 2 or not reason.strip():
            sys.exit(f"{path}:{number}: expected 'path function-name  # reason'")
        allowed[(fields[0], fields[1])] = reason.strip()
    return allowed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="sources (default: csrc/)")
    parser.add_argument("--max", type=int, default=MAX_LINES, help="the longest allowed")
    parser.add_argument("--all", action="store_true", help="also list allowed functions")
    args = parser.parse_args()

    files = args.files or sorted(
        p for p in CSRC.rglob("*") if p.suffix in (".cc", ".h") and p.is_file()
    )
    allowed = read_allowlist(ALLOWLIST)
    seen: set[tuple[str, str]] = set()
    failures = 0
    for path in files:
        path = path.resolve()
        rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
        for fn in sorted(scan(path, rel), key=lambda f: f.line):
            if fn.lines <= args.max:
                continue
            key = (fn.path, fn.name)
            if key in allowed:
                seen.add(key)
                if args.all:
                    print(f"{fn.path}:{fn.line}: {fn.name}: {fn.lines} lines (allowed)")
                continue
            failures += 1
            print(f"{fn.path}:{fn.line}: {fn.name}: {fn.lines} lines")
    if not args.files:
        for path, name in sorted(set(allowed) - seen):
            print(f"{ALLOWLIST.name}: {path} {name}: no longer over {args.max} lines (stale)")
    if failures:
        sys.stdout.flush()
        print(
            f"{failures} function(s) over {args.max} lines: split them, or list them in "
            f"{ALLOWLIST.relative_to(ROOT)} with the reason",
            file=sys.stderr,
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
