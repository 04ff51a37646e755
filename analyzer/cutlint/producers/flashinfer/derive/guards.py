"""Launcher bodies a define compiles out: `launcher_guards`.

A launcher a generated file instantiates explicitly (`template void <launcher><...>(...);`) may
compile its body only under a define, with a throw in the `#else` branch:

    void sm90_generic_mixed_gemm_kernelLauncher(...) {   // fpA_intB_launcher_sm90.inl
      TLLM_LOG_DEBUG(__PRETTY_FUNCTION__);
    #ifdef COMPILE_HOPPER_TMA_GEMMS
      ... the kernel types, can_implement, initialize, run ...
    #else
      throw std::runtime_error("... Please recompile with support for hopper ...");
    #endif
    }

A module that does not define it compiles the instantiation, but no kernel: calling it throws.
This reads every `launchers/*.inl` of the release's csrc for that shape, exactly: an `#ifdef X`
(or `#if defined(X)`) directly in a function body, an `#else` branch that throws, and nothing
of the body after its `#endif`. Anything else is not a body guard and is left out.
"""

from __future__ import annotations

import re

from cutlint.producers.flashinfer.derive.cpp import CppSource, Directive, matching
from cutlint.producers.flashinfer.derive.launcher import CSRC
from cutlint.producers.flashinfer.derive.toml_out import TomlTable, TomlValue
from cutlint.producers.flashinfer.derive.wheel import WheelTree

_DEFINED = re.compile(r"defined\s*(?:\(\s*(\w+)\s*\)|(\w+))")
_THROW = re.compile(r"\b(?:throw|TLLM_THROW)\b")
_NAME_BEFORE = re.compile(r"(\w+)\s*$")
_KEYWORDS = frozenset({"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype"})


def launcher_guards(tree: WheelTree, headers: list[str]) -> TomlTable:
    rows: list[TomlValue] = []
    for path in sorted(h for h in headers if h.endswith(".inl") and "/launchers/" in h):
        rows += body_guards(CppSource(path, tree.read(path)))
    return {
        "launcher_guards": rows,
        "launcher_guards_source": f"every {CSRC}**/launchers/*.inl: an #ifdef X (#if defined(X)) "
        "directly in a function body, whose #else throws and whose #endif ends the body",
    }


def _groups(src: CppSource) -> list[tuple[Directive, Directive | None, Directive]]:
    """Each `#if` group with no `#elif`: (opener, its `#else` or None, its `#endif`)."""
    out: list[tuple[Directive, Directive | None, Directive]] = []
    stack: list[list[Directive | None]] = []
    for d in src.directives:
        if d.kind in ("if", "ifdef", "ifndef"):
            stack.append([d, None, None])
        elif d.kind in ("elif", "elifdef", "elifndef") and stack:
            stack[-1][2] = d  # marks the group as having an elif
        elif d.kind == "else" and stack:
            stack[-1][1] = d
        elif d.kind == "endif" and stack:
            opener, other, elif_ = stack.pop()
            if opener is not None and elif_ is None:
                out.append((opener, other, d))
    return out


def _define(d: Directive) -> str | None:
    if d.kind == "ifdef":
        return d.text.split()[0] if d.text else None
    if d.kind == "if":
        m = _DEFINED.fullmatch(d.text.strip())
        return (m[1] or m[2]) if m else None
    return None


def _enclosing_function(src: CppSource, offset: int) -> tuple[str, int, int] | None:
    """(name, `{`, `}`) of the function whose body directly holds `offset`: the innermost brace
    around it, when what precedes that brace is `name(...)` (optionally `const`/`noexcept`)."""
    code = src.code
    stack: list[int] = []
    for i in range(offset):
        c = code[i]
        if c == "{":
            stack.append(i)
        elif c == "}" and stack:
            stack.pop()
    if not stack:
        return None
    brace = stack[-1]
    head = re.sub(r"\b(?:const|noexcept|override)\s*$", "", code[:brace].rstrip()).rstrip()
    if not head.endswith(")"):
        return None
    depth, i = 0, len(head) - 1
    while i >= 0:
        depth += {")": 1, "(": -1}.get(head[i], 0)
        if depth == 0:
            break
        i -= 1
    m = _NAME_BEFORE.search(head[:i]) if i > 0 else None
    if m is None or m[1] in _KEYWORDS:
        return None
    return m[1], brace, matching(code, brace)


def body_guards(src: CppSource) -> list[TomlValue]:
    """The body guards of one header (see the module docstring), in file order."""
    starts = [0]
    for line in src.code.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    rows: list[TomlValue] = []
    for opener, other, endif in _groups(src):
        define = _define(opener)
        if define is None or other is None:
            continue
        found = _enclosing_function(src, starts[opener.line - 1])
        if found is None:
            continue
        name, _, close = found
        orelse = src.code[starts[other.line] : starts[endif.line - 1]]
        after = src.code[starts[endif.line] : close]
        if not _THROW.search(orelse) or after.strip():
            continue
        rows.append(
            {
                "launcher": name,
                "define": define,
                "source": f"{src.path}:{opener.line} #{opener.kind} {opener.text} in {name}()'s "
                f"body; #else (line {other.line}) throws; #endif (line {endif.line}) ends the body",
            }
        )
    return rows
