"""Render a derivation graph as a text tree, from the verdict down to the inputs.

The graph is a DAG (the tile feeds many quantities), so each node is expanded once, at the
shallowest depth it occurs (its BFS depth from the root), and referred to elsewhere: every
number appears with its derivation once, as close to the verdict as it is used.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

# A node's source is either where a number comes from outside cutlint (a CUTLASS or FlashInfer
# header and symbol, the arch's data sheet, the instantiation's arguments) or one of cutlint's
# own computations, named by its module (`engine/facts.py: ...`, `engine/judge.py: ...`).
# The two are drawn apart, `·` for a source and `=` for cutlint's arithmetic, so that a reader
# never takes a cutlint module for a CUTLASS header.
_CUTLINT_OWN = re.compile(r"(?P<where>(?:api|[a-z_]+/[a-z_/]+\.py)[\w.]*)(?::\s*(?P<what>.*))?")
LEGEND = "(· where a number comes from: CUTLASS, FlashInfer, the arch; = cutlint's own arithmetic)"


def source_line(source: str) -> str:
    """`· <source>` for an outside source; `= <what> (cutlint: <module>)` for cutlint's own."""
    own = _CUTLINT_OWN.fullmatch(source)
    if own is None:
        return f"· {source}"
    what = own["what"]
    if not what or what.startswith("_"):
        return f"= computed by cutlint ({own['where']}{': ' + what if what else ''})"
    return f"= {what} (cutlint: {own['where']})"


def _value(value: object, unit: str) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}" + (f" {unit}" if unit else "")
    return str(value)


def render_tree(g: nx.DiGraph[str], root: str = "verdict", sources: bool = True) -> str:
    """`root` and everything it is derived from, one node a line, its source (`·`) below it."""
    import networkx as nx  # only a derivation needs it: `explain --log` does not import it

    depth: dict[str, int] = nx.single_source_shortest_path_length(g, root)
    lines: list[str] = []
    expanded: set[str] = set()

    def walk(node: str, prefix: str, last: bool, level: int) -> None:
        data = g.nodes[node]
        branch = "" if level == 0 else ("└── " if last else "├── ")
        text = f"{data['label']}: {_value(data['value'], data.get('unit', ''))}"
        here = node not in expanded and level == depth[node]
        if not here:
            lines.append(
                prefix + branch + text + ("  (see above)" if node in expanded else "  (see below)")
            )
            return
        expanded.add(node)
        lines.append(prefix + branch + text)
        inner = prefix + ("" if level == 0 else ("    " if last else "│   "))
        children = list(g.successors(node))
        if sources and data.get("source"):
            lines.append(inner + ("│   " if children else "    ") + source_line(data["source"]))
        for i, child in enumerate(children):
            walk(child, inner, i == len(children) - 1, level + 1)

    walk(root, "", True, 0)
    return "\n".join(lines) + "\n"
