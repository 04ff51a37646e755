"""A small deterministic TOML writer for releases.toml (the standard library only reads TOML).

Tables keep the key order they were built in. In a table, a scalar or a list of scalars or
lists is written inline (one row a line when it is long), a mapping becomes a sub-table and a
list of mappings an array of tables, both after the table's own keys.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

TomlValue = str | int | bool | Sequence["TomlValue"] | Mapping[str, "TomlValue"]
TomlTable = Mapping[str, TomlValue]

_WIDTH = 100


def _key(k: str) -> str:
    bare = k.replace("_", "").replace("-", "")
    return k if bare.isascii() and bare.isalnum() and not k.isdigit() else json.dumps(k)


def _inline(v: TomlValue) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_inline(x)}" for k, x in v.items()) + " }"
    return "[" + ", ".join(_inline(x) for x in v) + "]"


def _is_tables(v: TomlValue) -> bool:
    return (
        isinstance(v, Sequence)
        and not isinstance(v, str)
        and len(v) > 0
        and all(isinstance(x, Mapping) for x in v)
    )


def _assign(k: str, v: TomlValue) -> list[str]:
    one = f"{_key(k)} = {_inline(v)}"
    if len(one) <= _WIDTH or not isinstance(v, Sequence) or isinstance(v, str):
        return [one]
    return [f"{_key(k)} = ["] + [f"    {_inline(x)}," for x in v] + ["]"]


def _table(name: str, table: TomlTable, out: list[str], array: bool = False) -> None:
    out.extend(["", f"[[{name}]]" if array else f"[{name}]"])
    later: list[tuple[str, TomlValue]] = []
    for k, v in table.items():
        if isinstance(v, Mapping) or _is_tables(v):
            later.append((k, v))
        else:
            out.extend(_assign(k, v))
    for k, v in later:
        sub = f"{name}.{_key(k)}"
        if isinstance(v, Mapping):
            _table(sub, v, out)
        else:
            assert isinstance(v, Sequence)
            for item in v:
                assert isinstance(item, Mapping)
                _table(sub, item, out, array=True)


def dumps(header: Sequence[str], tables: Mapping[str, TomlTable]) -> str:
    """`header` lines as comments, then `[name]` for each of `tables` (names written as given)."""
    out = [f"# {line}".rstrip() for line in header]
    for name, table in tables.items():
        _table(name, table, out)
    return "\n".join(out) + "\n"
