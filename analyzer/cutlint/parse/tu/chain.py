"""From a TU's entry points down its dispatch, the type arguments that may be kernels.

The template patterns are walked, not their instantiations: libclang does not list the members
of implicit instantiations, and in a TU with stubbed third-party headers clang may not
instantiate a function whose signature names a stubbed type. So a call `f<A, B>(...)` in a
non-template function of the main file is followed into the body of `f` with its template
parameters replaced by `A` and `B` as written there, made fully qualified (`::vllm::c3x::...`)
from the cursor each name refers to, so that clang can evaluate them anywhere (`probe.py`).
Every explicit template argument met on the way is a candidate; the probe says which are
CUTLASS kernels.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from cutlint.parse.tu.tokens import Alias, Body, Call, pretty, read_body
from cutlint.tu_records import CallSite

Cursor = Any  # clang.cindex.Cursor

MAX_DEPTH = 12
"""Deeper dispatch chains than this are not followed (the deepest measured in vLLM is 5)."""


_VALUE = re.compile(r"true|false|nullptr|[-+]?[0-9][0-9a-zA-Z.']*|'.*'|\".*\"")
_TYPENAMES = re.compile(r"(?:typename\s+){2,}")


@dataclass(frozen=True)
class Function:
    cursor: Cursor
    params: tuple[str, ...]
    """Template parameter names in order (empty for a non-template function)."""
    pack: bool
    """Whether the last parameter is a pack (deduced: never explicit here)."""
    body_cursor: Cursor
    """The definition's compound statement."""

    @functools.cached_property
    def body(self) -> Body:
        """Read when the walk first enters the function: a TU defines thousands of functions
        of its own (vLLM's `cutlass_extensions`), its dispatch passes through a few dozen."""
        return read_body([t for t in self.body_cursor.get_tokens() if t.kind.name != "COMMENT"])


@dataclass(frozen=True)
class Candidate:
    path: tuple[CallSite, ...]
    type_expr: str


def _kind() -> Any:
    from clang import cindex  # type: ignore[import-untyped]

    return cindex.CursorKind


def qualified_name(decl: Cursor) -> str:
    """`::ns::Outer::Name` of a declaration (anonymous namespaces left out: the probe is in the
    same TU, where their names are visible)."""
    kind = _kind()
    parts: list[str] = []
    c = decl
    while c is not None and c.kind != kind.TRANSLATION_UNIT:
        if c.spelling:
            parts.append(c.spelling)
        c = c.semantic_parent
    return "::" + "::".join(reversed(parts))


class Index:
    """The function definitions of the TU's own files, by name."""

    def __init__(self, tu: Any, own: Callable[[str], bool], main: str | None = None) -> None:
        kind = _kind()
        self.tu = tu
        self.by_name: dict[str, list[Function]] = {}
        self.entries: list[Function] = []
        self.aliases: list[Cursor] = []
        """Namespace-scope `using` / `typedef` declarations of the main file: CUTLASS's examples
        name their kernels so (`using Gemm = GemmUniversalAdapter<GemmKernel>;`)."""
        main = main or tu.spelling
        params_kinds = {
            kind.TEMPLATE_TYPE_PARAMETER,
            kind.TEMPLATE_NON_TYPE_PARAMETER,
            kind.TEMPLATE_TEMPLATE_PARAMETER,
        }
        for c in _definitions(tu.cursor, own):
            if c.kind in (kind.TYPE_ALIAS_DECL, kind.TYPEDEF_DECL):
                if c.location.file is not None and c.location.file.name == main:
                    self.aliases.append(c)
                continue
            template = c.kind == kind.FUNCTION_TEMPLATE
            if not template and (c.location.file is None or c.location.file.name != main):
                continue  # neither a template the dispatch may call nor an entry point
            children = list(c.get_children())
            params = [ch for ch in children if ch.kind in params_kinds]
            body = next((ch for ch in children if ch.kind == kind.COMPOUND_STMT), None)
            if body is None:
                continue
            fn = Function(
                c,
                tuple(p.spelling for p in params),
                bool(params) and _is_pack(params[-1]),
                body,
            )
            if template:
                self.by_name.setdefault(c.spelling, []).append(fn)
            elif c.location.file is not None and c.location.file.name == main:
                self.entries.append(fn)


def _is_pack(param: Cursor) -> bool:
    return any(t.spelling == "..." for t in param.get_tokens())


def _definitions(cursor: Cursor, own: Callable[[str], bool]) -> Iterator[Cursor]:
    kind = _kind()
    scopes = (kind.NAMESPACE, kind.LINKAGE_SPEC, kind.UNEXPOSED_DECL)
    for c in cursor.get_children():
        f = c.location.file
        if f is not None and not own(f.name):
            # A library's declaration, its namespace blocks included: the TU's own functions
            # are not opened inside CUTLASS's or the toolkit's `namespace` blocks, and walking
            # theirs was 3 of a read's 16 s of CPU (vLLM's scaled_mm_sm120_fp8.cu).
            continue
        if c.kind in scopes:
            yield from _definitions(c, own)
        elif f is None:
            continue
        elif c.kind in (kind.FUNCTION_TEMPLATE, kind.FUNCTION_DECL) and c.is_definition():
            yield c
        elif c.kind in (kind.TYPE_ALIAS_DECL, kind.TYPEDEF_DECL):
            yield c


class Resolver:
    """Type arguments as text clang can evaluate at the end of the TU."""

    def __init__(self, tu: Any) -> None:
        from clang import cindex

        self.cindex = cindex
        self.tu = tu

    def referenced(self, token: Any) -> Cursor | None:
        c = self.cindex.Cursor.from_location(self.tu, token.location)
        return None if c is None else c.referenced

    def text(
        self,
        tokens: Sequence[Any],
        subst: dict[str, str],
        aliases: dict[str, Alias],
        unresolved: set[str],
        depth: int = 0,
    ) -> str:
        kind = _kind()
        out: list[str] = []
        for i, t in enumerate(tokens):
            s = t.spelling
            qualified_tail = i > 0 and tokens[i - 1].spelling in ("::", ".", "->")
            if t.kind.name != "IDENTIFIER" or qualified_tail:
                out.append(s)
                continue
            if s in aliases and depth < MAX_DEPTH:
                a = aliases[s]
                out.append(self.text(a.tokens, subst, aliases, unresolved, depth + 1))
                continue
            if s in subst:
                out.append(subst[s])
                continue
            ref = self.referenced(t)
            if ref is None or ref.kind in (
                kind.TEMPLATE_TYPE_PARAMETER,
                kind.TEMPLATE_NON_TYPE_PARAMETER,
                kind.TEMPLATE_TEMPLATE_PARAMETER,
            ):
                if ref is not None:
                    unresolved.add(s)
                out.append(s)
                continue
            parent = ref.semantic_parent
            local = parent is not None and parent.kind in (
                kind.FUNCTION_DECL,
                kind.FUNCTION_TEMPLATE,
                kind.CXX_METHOD,
            )
            out.append(s if local else qualified_name(ref))
        return _TYPENAMES.sub("typename ", pretty(out))


def walk(index: Index, resolver: Resolver) -> tuple[list[Candidate], list[str]]:
    """Every explicit template argument on the dispatch paths from the entry points, with the
    path, and what could not be resolved (a deduced parameter, a pack)."""
    candidates: list[Candidate] = []
    unresolved_notes: list[str] = []
    seen: set[tuple[str, int, tuple[str, ...]]] = set()

    def visit(fn: Function, subst: dict[str, str], path: tuple[CallSite, ...]) -> None:
        if len(path) > MAX_DEPTH:
            return
        for call in fn.body.calls:
            aliases = call.aliases
            callee_name = call.name.split("::")[-1]
            # `std::forward<Args>`: the standard library's, never one of the TU's own templates
            # that share its name.
            std = call.name.startswith(("std::", "::std::", "cute::", "cutlass::"))
            targets = [] if std else index.by_name.get(callee_name, [])
            if not targets:
                continue
            unresolved: set[str] = set()
            args = tuple(resolver.text(a, subst, aliases, unresolved) for a in call.args)
            site = _site(call, args, fn, subst)
            here = (*path, site)
            if unresolved:
                unresolved_notes.append(
                    f"{site.path}:{site.line}: {site.call}: {', '.join(sorted(unresolved))} "
                    "not known on this path (deduced or a pack): context unknown"
                )
                continue
            # A value (`true`, `128`) is a template argument but never a kernel type.
            candidates.extend(Candidate(here, a) for a in args if not _VALUE.fullmatch(a))
            for target in targets:
                key = (target.cursor.location.file.name, target.cursor.location.line, args)
                if key in seen:
                    continue
                seen.add(key)
                explicit = len(target.params) - (1 if target.pack else 0)
                if len(args) > explicit and not target.pack:
                    continue
                visit(target, dict(zip(target.params, args, strict=False)), here)  # deduced rest

    for alias in index.aliases:
        loc = alias.location
        site = CallSite(path=str(loc.file.name), line=int(loc.line), call=f"using {alias.spelling}")
        candidates.append(Candidate((site,), qualified_name(alias)))
    for entry in index.entries:
        visit(entry, {}, ())
    return candidates, unresolved_notes


def _site(call: Call, args: tuple[str, ...], fn: Function, subst: dict[str, str]) -> CallSite:
    loc = call.token.location
    conds = tuple(_substitute(c, subst) for c in call.conditions)
    return CallSite(
        path=str(loc.file.name),
        line=int(loc.line),
        call=f"{call.name}<{', '.join(args)}>",
        conditions=conds,
    )


def _substitute(cond: str, subst: dict[str, str]) -> str:
    words = cond.split(" ")
    return " ".join(subst.get(w, w) for w in words)


__all__ = ["Candidate", "Function", "Index", "Resolver", "qualified_name", "walk"]
