"""From a TU's entry points down its dispatch, the type arguments that may be kernels.

The template patterns are walked, not their instantiations: libclang does not list the members
of implicit instantiations, and in a TU with stubbed third-party headers clang may not
instantiate a function whose signature names a stubbed type. So a call `f<A, B>(...)` in a
non-template function of the main file is followed into the body of `f` with its template
parameters replaced by `A` and `B` as written there, made fully qualified (`::vllm::c3x::...`)
from the cursor each name refers to, so that clang can evaluate them anywhere (`probe.py`).
Every explicit template argument met on the way is a candidate, and so is every local alias of
a visited body that names a CUTLASS kernel or adapter template (SGLang's launchers build their
kernels as `using PingpongGemmKernel = cutlass::gemm::kernel::GemmUniversal<...>;` in the body
and hand them to a lambda), written out with the body's other aliases and `constexpr` values
replaced; the probe says which are CUTLASS kernels.

Entry points are the main file's non-template functions, and the functions a JIT wrapper exports
(`TVM_FFI_DLL_EXPORT_TYPED_FUNC(name, (function))`: tvm-ffi's export macro, which SGLang's JIT
wrapper `cuda.cu` writes once per export and whose header a reading without tvm-ffi stubs).
Plain calls to the TU's own non-template functions are followed (an entry that forwards to
`fp8_blockwise_scaled_mm_sm120(...)`, which calls the dispatch templates).

Calls to a static member of a class (template) of the TU's own files are followed too, the class
named as written (`W4A8GemmKernel<Shape<_128, _64>, Shape<_1, _1, _1>>::mm(...)`) or through an
alias of it (vLLM's W4A8 dispatch: `using Kernel_128x64_1x1x1 = W4A8GemmKernel<...>;` at
namespace scope, then `Kernel_128x64_1x1x1::mm(...)`). The specialization's arguments bind the
class's parameters; its member aliases that name a CUTLASS kernel or adapter
(`using GemmKernelShuffled = cutlass::gemm::kernel::GemmUniversal<...>;`) are candidates, as
`typename SPEC::GemmKernelShuffled`, and the member function's body is walked with the class's
parameters and member aliases known.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cutlint.parse.tu.tokens import Alias, Body, Call, Punct, pretty, read_body, split_args
from cutlint.tu_records import CallSite

Cursor = Any  # clang.cindex.Cursor

MAX_DEPTH = 12
"""Deeper dispatch chains than this are not followed (the deepest measured in vLLM is 5)."""
MAX_PATHS_FOLLOWED = 256
"""Paths to one type expression the walk keeps; more are counted and named in a note. A bound
on what a file of many branches calling many branches could list (the most measured in vLLM
is 3 per kernel); the report lists at most `MAX_PATHS` of a kernel's (front.py)."""


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
    defaults: tuple[tuple[Any, ...], ...] = ()
    """Each template parameter's default argument as its tokens (empty: none)."""

    @functools.cached_property
    def body(self) -> Body:
        """Read when the walk first enters the function: a TU defines thousands of functions
        of its own (vLLM's `cutlass_extensions`), its dispatch passes through a few dozen."""
        return read_body([t for t in self.body_cursor.get_tokens() if t.kind.name != "COMMENT"])


@dataclass(frozen=True)
class OwnClass:
    """A class or class template of the TU's own files, whose static members a dispatch may
    call (`Kernel::mm(...)`)."""

    cursor: Cursor
    params: tuple[str, ...]
    """Template parameter names in order (empty for a class that is no template)."""
    defaults: tuple[tuple[Any, ...], ...]
    aliases: tuple[str, ...]
    """Every member `using` / `typedef`, by name: inside a member's body they name
    `typename SPEC::NAME`."""
    kernels: tuple[str, ...]
    """The candidates of a call to a static member: the member aliases that name a CUTLASS
    kernel shell (`cutlass::gemm::kernel::GemmUniversal<...>`), else those that name an adapter
    or are named as a kernel (`Gemm`, `GemmKernel`, `Cutlass3xGemm`)."""
    methods: dict[str, list[Function]] = field(default_factory=dict, compare=False, hash=False)
    """The member functions defined in the class, by name."""


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
        self.functions: dict[str, list[Function]] = {}
        """The non-template function definitions of the TU's own files, by name."""
        self.entries: list[Function] = []
        self.classes: dict[str, OwnClass] = {}
        """The classes and class templates of the TU's own files, by USR."""
        self.alias_names: dict[str, list[Cursor]] = {}
        """The namespace-scope aliases of the TU's own files, by name: a qualifier in a call
        clang recovered from (its arguments name a stubbed type) refers to nothing."""
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
                self.alias_names.setdefault(c.spelling, []).append(c)
                if c.location.file is not None and c.location.file.name == main:
                    self.aliases.append(c)
                continue
            if c.kind in (kind.CLASS_TEMPLATE, kind.STRUCT_DECL, kind.CLASS_DECL):
                owned = _own_class(c, params_kinds)
                if owned is not None:
                    self.classes[c.get_usr()] = owned
                continue
            template = c.kind == kind.FUNCTION_TEMPLATE
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
                tuple(_default(p) for p in params),
            )
            if template:
                self.by_name.setdefault(c.spelling, []).append(fn)
                continue
            self.functions.setdefault(c.spelling, []).append(fn)
            if c.location.file is not None and c.location.file.name == main:
                self.entries.append(fn)
        for name in exported(tu, main):
            self.entries += [f for f in self.functions.get(name, []) if f not in self.entries]


_GEMM_NAME = re.compile(r"Gemm|Kernel")


def _own_class(c: Cursor, params_kinds: set[Any]) -> OwnClass | None:
    """A class's parameters, member aliases and member function definitions; None for one that
    defines no member function (nothing to call)."""
    kind = _kind()
    params: list[Cursor] = []
    aliases: list[str] = []
    kernels: list[str] = []
    shells: list[str] = []
    methods: dict[str, list[Function]] = {}
    for ch in c.get_children():
        if ch.kind in params_kinds:
            params.append(ch)
        elif ch.kind in (kind.TYPE_ALIAS_DECL, kind.TYPEDEF_DECL):
            aliases.append(ch.spelling)
            written = pretty([t.spelling for t in ch.get_tokens() if t.kind.name != "COMMENT"])
            if "::kernel::" in written:
                shells.append(ch.spelling)
            elif _KERNEL_TEMPLATE.search(written) or _GEMM_NAME.search(ch.spelling):
                kernels.append(ch.spelling)
        elif ch.kind in (kind.CXX_METHOD, kind.FUNCTION_TEMPLATE) and ch.is_definition():
            grand = list(ch.get_children())
            body = next((g for g in grand if g.kind == kind.COMPOUND_STMT), None)
            if body is None:
                continue
            own = [g for g in grand if g.kind in params_kinds]
            fn = Function(
                ch,
                tuple(p.spelling for p in own),
                bool(own) and _is_pack(own[-1]),
                body,
                tuple(_default(p) for p in own),
            )
            methods.setdefault(ch.spelling, []).append(fn)
    if not methods:
        return None
    return OwnClass(
        c,
        tuple(p.spelling for p in params),
        tuple(_default(p) for p in params),
        tuple(aliases),
        # the kernel shell itself where the class names one (its adapter is the same kernel,
        # probed again for nothing: each candidate is a line of clang's probe parse)
        tuple(shells or kernels),
        methods,
    )


_EXPORT = "TVM_FFI_DLL_EXPORT_TYPED_FUNC"


def exported(tu: Any, main: str | None = None) -> list[str]:
    """The functions the main file exports through tvm-ffi's macro: `(name, (function))`, the
    function's last name (`sglang::f` -> `f`). `main`: the TU's file where libclang's main file
    is another that includes it (front.py's libraries' preamble)."""
    if main is None or main == tu.spelling:
        cursor_tokens = tu.cursor.get_tokens()
    else:
        try:
            size = os.path.getsize(main)
        except OSError:
            return []
        cursor_tokens = tu.get_tokens(extent=tu.get_extent(main, (0, size)))
    toks = [t.spelling for t in cursor_tokens]
    out: list[str] = []
    for i, t in enumerate(toks):
        if t != _EXPORT or i + 2 >= len(toks) or toks[i + 1] != "(":
            continue
        depth, j, comma = 0, i + 1, None
        while j < len(toks):
            if toks[j] in ("(", "[", "{"):
                depth += 1
            elif toks[j] in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    break
            elif toks[j] == "," and depth == 1 and comma is None:
                comma = j
            j += 1
        names = [w for w in toks[(comma or j) + 1 : j] if w.isidentifier()]
        if names:
            out.append(names[-1])
    return out


def _default(param: Cursor) -> tuple[Any, ...]:
    """The tokens after a template parameter's `=` (`class ClusterShape = Shape<_1, _1, _1>`)."""
    toks = [t for t in param.get_tokens() if t.kind.name != "COMMENT"]
    at = next((i for i, t in enumerate(toks) if t.spelling == "="), None)
    if at is None:
        return ()
    default: list[Any] = toks[at + 1 :]
    # The last parameter's extent may take the `>` (or the `>>`) that closes the list.
    opened = sum(t.spelling == "<" for t in default)
    closed = sum({">": 1, ">>": 2}.get(t.spelling, 0) for t in default)
    if closed > opened and default and default[-1].spelling in (">", ">>"):
        last = default.pop()
        if last.spelling == ">>" and closed - opened == 1:
            default.append(Punct(">"))
    return tuple(default)


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
        elif c.kind in (kind.CLASS_TEMPLATE, kind.STRUCT_DECL, kind.CLASS_DECL) and (
            c.is_definition()
        ):
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
            # `X::Y`, `x.y`, `X::template Y<...>`: a member of what precedes, never looked up
            # on its own (clang may place a cursor of the enclosing declaration there)
            before = (
                tokens[i - 2].spelling if i > 1 and tokens[i - 1].spelling == "template" else ""
            )
            qualified_tail = i > 0 and (
                tokens[i - 1].spelling in ("::", ".", "->") or before in ("::", ".", "->")
            )
            if t.kind.name != "IDENTIFIER" or qualified_tail:
                out.append(s)
                continue
            if s in aliases and depth < MAX_DEPTH:
                a = aliases[s]
                expanded = self.text(a.tokens, subst, aliases, unresolved, depth + 1)
                if i + 1 < len(tokens) and tokens[i + 1].spelling == "::":
                    # a nested-name-specifier takes no `typename`: `GemmKernel_::kThreadCount`
                    # (a value) must not read `typename DefaultGemm<...>::GemmKernel::kThreadCount`
                    expanded = expanded.removeprefix("typename ")
                out.append(expanded)
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
            if ref.kind == kind.OVERLOADED_DECL_REF:
                # `size<0>(...)` in a template body: an unresolved overload set (found through
                # `using namespace cute;`); its first declaration names the namespace
                ref = self._first_overload(ref)
                if ref is None:
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

    def _first_overload(self, ref: Cursor) -> Cursor | None:
        lib = self.cindex.conf.lib
        if lib.clang_getNumOverloadedDecls(ref) == 0:
            return None
        decl = lib.clang_getOverloadedDecl(ref, 0)
        if decl is None or decl == self.cindex.conf.lib.clang_getNullCursor():
            return None
        decl._tu = ref._tu  # the raw call's cursor: keep its TU alive as cindex's own do
        return None if decl.kind.is_invalid() else decl


Key = tuple[str, int, tuple[str, ...]]
"""A function entered with its arguments: its definition's file and line, the explicit template
arguments as text (a static member: its class's specialization)."""


class _Found:
    """The candidates one function's body leads to, each path starting at a call in that body:
    the caller puts its own call in front. At most MAX_PATHS_FOLLOWED paths per type expression
    are kept; the rest are counted."""

    def __init__(self) -> None:
        self.candidates: list[Candidate] = []
        self.omitted: dict[str, int] = {}
        self._kept: dict[str, int] = {}
        self._known: set[tuple[tuple[CallSite, ...], str]] = set()
        self.low = 1 << 30
        """The shallowest frame of the walk's stack a recursion cut inside refers to: a body
        whose result depends on frames above it is not reused elsewhere."""

    def add(self, path: tuple[CallSite, ...], type_expr: str) -> None:
        if (path, type_expr) in self._known:
            return
        if self._kept.get(type_expr, 0) >= MAX_PATHS_FOLLOWED:
            self.omitted[type_expr] = self.omitted.get(type_expr, 0) + 1
            return
        self._known.add((path, type_expr))
        self._kept[type_expr] = self._kept.get(type_expr, 0) + 1
        self.candidates.append(Candidate(path, type_expr))

    def under(self, site: CallSite, inner: _Found) -> None:
        """A callee's candidates, reached through `site`."""
        for c in inner.candidates:
            self.add((site, *c.path), c.type_expr)
        for expr, n in inner.omitted.items():
            self.omitted[expr] = self.omitted.get(expr, 0) + n
        self.low = min(self.low, inner.low)


def walk(index: Index, resolver: Resolver) -> tuple[list[Candidate], list[str]]:
    """Every explicit template argument on the dispatch paths from the entry points, once per
    path (a function reached along two paths lists its candidates under each, with each path's
    conditions), and what could not be resolved (a deduced parameter, a pack) or followed.

    A function's body is read once for each set of arguments (and depth): what it leads to is
    kept and put under every call that reaches it, so that paths are listed without walking a
    body again per path. Recursion ends the path: a function entered again on its own path with
    the same arguments, or with an argument grown from the one it had there (vLLM's
    `cutlass_gemm_caller<Gemm>` calls `cutlass_gemm_caller<typename Gemm::GemmKernel>`, meant
    for its other overload: followed as written it would nest `::GemmKernel` to MAX_DEPTH)."""
    notes: list[str] = []
    memo: dict[tuple[Key, int], _Found] = {}
    stack: list[Key] = []

    def enter(fn: Function, subst: dict[str, str], key: Key) -> _Found:
        depth = len(stack)
        for i, on in enumerate(stack):
            if on == key or (on[:2] == key[:2] and _grown(on[2], key[2])):
                cut = _Found()
                cut.low = i
                return cut
        known = memo.get((key, depth))
        if known is not None:
            return known
        stack.append(key)
        try:
            found = body(fn, subst) if depth <= MAX_DEPTH else _Found()
        finally:
            stack.pop()
        if found.low >= depth:
            found.low = 1 << 30
            memo[(key, depth)] = found
        return found

    def body(fn: Function, subst: dict[str, str]) -> _Found:
        found = _Found()
        if fn.params:  # a template's body, its parameters known on this path
            for c in _kernel_aliases(fn, subst, (), resolver, notes):
                found.add(c.path, c.type_expr)
        for call in fn.body.calls:
            aliases = call.aliases
            callee_name = call.name.split("::")[-1]
            if not call.explicit:
                if call.name.startswith(("std::", "::std::", "cute::", "cutlass::")):
                    continue
                if call.qualifier:
                    member(call, subst, found)
                    continue
                for target in index.functions.get(callee_name, []):
                    where = target.cursor.location
                    inner = enter(target, {}, (where.file.name, where.line, ()))
                    found.under(_plain_site(call), inner)
                continue
            # `std::forward<Args>`: the standard library's, never one of the TU's own templates
            # that share its name.
            std = call.name.startswith(("std::", "::std::", "cute::", "cutlass::"))
            targets = [] if std else index.by_name.get(callee_name, [])
            if not targets:
                continue
            unresolved: set[str] = set()
            args = tuple(resolver.text(a, subst, aliases, unresolved) for a in call.args)
            site = _site(call, args, fn, subst)
            if unresolved:
                notes.append(
                    f"{site.path}:{site.line}: {site.call}: {', '.join(sorted(unresolved))} "
                    "not known on this path (deduced or a pack): context unknown"
                )
                continue
            # A value (`true`, `128`) is a template argument but never a kernel type.
            for a in args:
                if not _VALUE.fullmatch(a):
                    found.add((site,), a)
            for target in targets:
                explicit = len(target.params) - (1 if target.pack else 0)
                if len(args) > explicit and not target.pack:
                    continue
                where = target.cursor.location
                inner = enter(
                    target, _bound(target, args, resolver), (where.file.name, where.line, args)
                )
                found.under(site, inner)
        return found

    def member(call: Call, subst: dict[str, str], found: _Found) -> None:
        """`Q::f(...)`: Q a class (template) specialization of the TU's own files."""
        unresolved: set[str] = set()
        owner = _owner(call.qualifier, call.aliases, subst, index, resolver, unresolved)
        loc = call.token.location
        callee = call.name.split("::")[-1]
        if unresolved:
            notes.append(
                f"{loc.file.name}:{loc.line}: {call.name}(...): {', '.join(sorted(unresolved))} "
                "not known on this path (deduced or a pack): context unknown"
            )
            return
        if owner is None:
            return
        cls, spec, bound = owner
        site = CallSite(
            path=str(loc.file.name),
            line=int(loc.line),
            call=f"{spec}::{callee}(...)",
            conditions=tuple(_substitute(c, subst) for c in call.conditions),
        )
        for a in cls.kernels:
            found.add((site,), f"typename {spec}::{a}")
        members = {a: f"typename {spec}::{a}" for a in cls.aliases}
        for method in cls.methods.get(callee, []):
            where = method.cursor.location
            inner = enter(method, {**members, **bound}, (where.file.name, where.line, (spec,)))
            found.under(site, inner)

    top = _Found()
    for alias in index.aliases:
        loc = alias.location
        site = CallSite(path=str(loc.file.name), line=int(loc.line), call=f"using {alias.spelling}")
        top.add((site,), qualified_name(alias))
    for entry in index.entries:
        where = entry.cursor.location
        inner = enter(entry, {}, (where.file.name, where.line, ()))
        for c in inner.candidates:
            top.add(c.path, c.type_expr)
        for expr, n in inner.omitted.items():
            top.omitted[expr] = top.omitted.get(expr, 0) + n
    for expr, n in top.omitted.items():
        notes.append(
            f"{expr}: {n:,} more dispatch paths not followed (at most {MAX_PATHS_FOLLOWED:,} "
            "per type are)"
        )
    return top.candidates, notes


def _grown(before: tuple[str, ...], now: tuple[str, ...]) -> bool:
    """Whether an argument is built from the one the function had further up its path
    (`X` -> `typename X::GemmKernel`): a recursion the walk cannot see the end of."""
    return any(b and b != n and b in n for b, n in zip(before, now, strict=False))


_KERNEL_TEMPLATE = re.compile(r"::kernel::|GemmUniversalAdapter\b")
_ALIAS_KINDS = ("TYPE_ALIAS_DECL", "TYPEDEF_DECL")
_CLASS_KINDS = ("CLASS_TEMPLATE", "STRUCT_DECL", "CLASS_DECL")


def _owner(
    qualifier: Sequence[Any],
    aliases: dict[str, Alias],
    subst: dict[str, str],
    index: Index,
    resolver: Resolver,
    unresolved: set[str],
    depth: int = 0,
) -> tuple[OwnClass, str, dict[str, str]] | None:
    """The own class a call's qualifier names, its specialization as text clang can evaluate
    anywhere (`::ns::W4A8GemmKernel<::cute::Shape<::cute::_128, ::cute::_64>, ...>`) and its
    parameters bound; None when it names no class of the TU's own files. Aliases are followed:
    a local one of the body, then a namespace-scope one (`using Kernel_128x64 = ...;`)."""
    toks = [t for t in qualifier if t.spelling != "typename"]
    if not toks or depth > MAX_DEPTH:
        return None
    if toks[-1].spelling in (">", ">>"):
        at = next((i for i, t in enumerate(toks) if t.spelling == "<"), None)
        if at is None or at == 0:
            return None
        inner = list(toks[at + 1 : -1])
        if toks[-1].spelling == ">>":  # `C<A, Shape<_1, _1>>`: one `>` is the argument's
            inner.append(Punct(">"))
        ref = resolver.referenced(toks[at - 1])
        cls = index.classes.get(ref.get_usr()) if ref is not None else None
        if cls is None or not cls.params:
            return None
        args = tuple(resolver.text(a, subst, aliases, unresolved) for a in split_args(inner))
        bound = dict(zip(cls.params, args, strict=False))
        for name, default in zip(cls.params, cls.defaults, strict=False):
            if name not in bound and default:
                bound[name] = resolver.text(default, bound, {}, unresolved)
        written = ", ".join(bound.get(p, "") for p in cls.params)
        return cls, f"{qualified_name(cls.cursor)}<{written}>", bound
    last = toks[-1]
    if last.kind.name != "IDENTIFIER":
        return None
    if len(toks) == 1 and last.spelling in aliases:
        a = aliases[last.spelling]
        return _owner(a.tokens, a.visible, subst, index, resolver, unresolved, depth + 1)
    ref = resolver.referenced(last)
    if ref is None and len(toks) == 1 and len(index.alias_names.get(last.spelling, [])) == 1:
        ref = index.alias_names[last.spelling][0]
    if ref is None:
        return None
    if ref.kind.name in _ALIAS_KINDS:
        parent = ref.semantic_parent
        if parent is not None and parent.kind.name in _CLASS_KINDS:
            return None  # a member alias of another class: its parameters are not known here
        decl = [t for t in ref.get_tokens() if t.kind.name != "COMMENT"]
        eq = next((i for i, t in enumerate(decl) if t.spelling == "="), None)
        if eq is None:
            return None
        body = [t for t in decl[eq + 1 :] if t.spelling != ";"]
        return _owner(body, {}, subst, index, resolver, unresolved, depth + 1)
    cls = index.classes.get(ref.get_usr())
    if cls is None or cls.params:
        return None
    return cls, qualified_name(cls.cursor), {}


_KERNEL_MEMBER = re.compile(r"::\s*(?:Gemm|GemmKernel)\s*$")
"""A local alias that may name a kernel: a `::kernel::` template, an adapter, or a config's
conventional `Gemm` / `GemmKernel` member that no call takes as an explicit template argument
(SGLang's convrot_int8: `using Gemm = typename Types::template Select<WithBias>::Gemm;`, used
as `Gemm gemm_op;`; one handed to `f<Gemm>(...)` is that call's candidate). The probe decides
which are kernels."""


def _handed_on(name: str, fn: Function) -> bool:
    """Whether a call of the body takes `name` as an explicit template argument."""
    return any(name in (t.spelling for arg in c.args for t in arg) for c in fn.body.calls)


def _kernel_aliases(
    fn: Function,
    subst: dict[str, str],
    path: tuple[CallSite, ...],
    resolver: Resolver,
    notes: list[str],
) -> list[Candidate]:
    """The local aliases of a template body that name a CUTLASS kernel or adapter template, as
    text clang can evaluate at the end of the TU, each under the conditions of the calls that
    use it (`if (m <= 64) run_gemm(PingpongGemmKernel{})`), else of its declaration."""
    out: list[Candidate] = []
    for alias in fn.body.aliases:
        written = pretty([t.spelling for t in alias.tokens])
        if written.startswith("decltype"):
            continue
        if not _KERNEL_TEMPLATE.search(written) and not (
            _KERNEL_MEMBER.search(written) and not _handed_on(alias.name, fn)
        ):
            continue
        unresolved: set[str] = set()
        text = resolver.text(alias.tokens, subst, alias.visible, unresolved)
        loc = alias.token.location
        uses = [c for c in fn.body.calls if not c.explicit and alias.name in c.mentions]
        conds = uses[0].conditions if uses else alias.conditions
        site = CallSite(
            path=str(loc.file.name),
            line=int(loc.line),
            call=f"using {alias.name}",
            conditions=tuple(_substitute(c, subst) for c in conds),
        )
        if unresolved:
            notes.append(
                f"{site.path}:{site.line}: {site.call}: {', '.join(sorted(unresolved))} "
                "not known on this path (deduced or a pack): context unknown"
            )
            continue
        out.append(Candidate((*path, site), text))
    return out


def _bound(target: Function, args: tuple[str, ...], resolver: Resolver) -> dict[str, str]:
    """The template parameters bound to the call's explicit arguments, then to their defaults
    (read with the parameters before them bound); a deduced one stays unbound."""
    subst = dict(zip(target.params, args, strict=False))
    for name, default in zip(target.params, target.defaults, strict=False):
        if name in subst or not default:
            continue
        unresolved: set[str] = set()
        text = resolver.text(default, subst, {}, unresolved)
        if not unresolved:
            subst[name] = text
    return subst


def _plain_site(call: Call) -> CallSite:
    loc = call.token.location
    return CallSite(
        path=str(loc.file.name), line=int(loc.line), call=f"{call.name}(...)",
        conditions=call.conditions,
    )  # fmt: skip


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


__all__ = ["Candidate", "Function", "Index", "OwnClass", "Resolver", "qualified_name", "walk"]
