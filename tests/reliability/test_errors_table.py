"""docs/errors.md lists every error that gradjit raises on purpose, with its message and a test
that triggers it. These tests keep the table and the source in step: a new raise, a changed
message or a test that is gone fails here, naming what to add to or change in the table."""
import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "docs" / "errors.md"
# Raises spelled through a helper, by the exception they raise.
ALIASES = {"self.error": "ParseError", "locate": "ShapeError",
           "{'ValueError': ValueError}[step.error]": "ValueError"}


@dataclass(frozen=True)
class Site:
    file: str
    kind: str
    message: str


@dataclass
class Row:
    site: Site
    tests: list


def message_text(node) -> str:
    """A message as written: literal text, with each interpolated value as {expression}."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else
                       "{" + ast.unparse(v.value) + "}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return message_text(node.left) + message_text(node.right)
    return "" if node is None else "{" + ast.unparse(node) + "}"


def error_sites() -> set:
    """Every `raise E(message)` and every shape-rule `require(condition, message)` in gradjit."""
    sites = set()
    for path in sorted((ROOT / "gradjit").rglob("*.py")):
        file = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                kind = ast.unparse(node.exc.func)
                args = node.exc.args
                sites.add(Site(file, ALIASES.get(kind, kind),
                               message_text(args[0] if args else None)))
            elif isinstance(node, ast.Raise) and node.exc is not None:
                sites.add(Site(file, ast.unparse(node.exc), ""))
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id == "require"):
                sites.add(Site(file, "ShapeError", message_text(node.args[1])))
    return sites


def escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("|", "\\|")


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), text)


def table_rows() -> list:
    """The rows of the table: | `Error` | message | `file` | tests |."""
    rows = []
    for line in TABLE.read_text().splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        kind, message, file, tests = cells
        rows.append(Row(Site(file.strip("`"), kind.strip("`"), unescape(message)),
                        [t.strip().strip("`") for t in tests.split("<br>")]))
    return rows


def test_every_error_in_the_source_is_in_the_table():
    listed = {row.site for row in table_rows()}
    missing = sorted(error_sites() - listed, key=lambda s: (s.file, s.message))
    assert not missing, "add to docs/errors.md:\n" + "\n".join(
        f"| `{s.kind}` | {escape(s.message)} | `{s.file}` | (a test that triggers it) |"
        for s in missing)


def test_every_row_of_the_table_is_an_error_in_the_source():
    sites = error_sites()
    stale = [row.site for row in table_rows() if row.site not in sites]
    assert not stale, f"docs/errors.md lists errors the source no longer raises: {stale}"


def test_every_row_names_tests_that_exist_or_why_none_can():
    from tests.reliability.test_errors import CASES
    for row in table_rows():
        for test in row.tests:
            if test.startswith("internal:"):
                assert len(test) > len("internal: ") + 10, f"say why {row.site} is internal"
                continue
            path, _, name = test.partition("::")
            function, _, case = name.partition("[")
            source = (ROOT / path).read_text()
            defined = rf"^(def {re.escape(function)}\(|[\w, ]*\b{re.escape(function)}\b[\w, ]* = )"
            assert re.search(defined, source, re.M), \
                f"{test} (listed for {row.site.message!r}) does not exist"
            if case and path.endswith("reliability/test_errors.py"):
                assert case.rstrip("]") in CASES, f"{test}: no such case"
