"""Find kernels defined as `using` chains of CUTLASS types (docs/architecture.md, "Parse").

The third source form, beside macro calls and explicit launcher instantiations: CUTLASS's own
generator (`cutlass_library`) and hand-written code (CUTLASS examples, vLLM and SGLang kernels)
define a kernel as a type, built from aliases:

    using X_epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<...>::CollectiveOp;
    using X_mainloop = typename cutlass::gemm::collective::CollectiveBuilder<...>::CollectiveOp;
    using X_base = cutlass::gemm::kernel::GemmUniversal<Shape<int,int,int,int>, X_mainloop, ...>;
    struct X : public X_base { };

    using X_base = typename cutlass::gemm::kernel::DefaultGemmUniversal<...>::GemmKernel;  // 2.x
    using Operation_X = typename cutlass::gemm::device::RankK<...>;                         // 2.x

Every alias (and every `struct NAME : public BASE {};`) at namespace scope is read into a
`TypeAlias`; aliases in a function or class body are not (there they usually name dependent
types, which no reader can size without the template's arguments). A kernel is an alias of a
template in a `::kernel::` namespace, or of one in a `::device::` namespace that wraps no kernel
alias (a 2.x device-level type such as `device::Gemm<...>`, `device::RankK<...>`); an adapter
around a kernel (`GemmUniversalAdapter<GemmKernel>`) is the same kernel, not a second one. Each
kernel becomes one instantiation whose `chain` holds every alias its definition refers to, so a
family reads the CollectiveBuilders of a 3.x kernel without the real headers.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from cutlint.parse import calls
from cutlint.parse.bytefind import offsets
from cutlint.parse.lexmask import MaskedText
from cutlint.records import FormKind, TypeAlias

_USING = re.compile(rb"using")
# A name may hold UTF-8 (C++ takes Unicode identifiers, nvcc too): a name spelled `Opération_...`
# is the same kernel as `Operation_...`, never a dropped one.
_NAME = rb"(?:[\w\x80-\xff])+"
_STRUCT = re.compile(
    rb"(?:struct|class)\s+(" + _NAME + rb")\s*:\s*(?:public\s+)?([\w:\s]+?)\s*\{\s*\}\s*;"
)
_NAME_EQ = re.compile(rb"\s+(" + _NAME + rb")\s*=")
# What may stand before a `{` that keeps its inside at namespace scope.
_NAMESPACE_HEAD = re.compile(rb"(?:\bnamespace(?:\s+[\w:]+)?|\bextern\s*(?:\"[^\"\n]*\")?)\s*$")
_IDENT = re.compile(r"[^\W\d]\w*")  # a C++ name, Unicode ones too
# The same names in ASCII text, three times faster (a negated Unicode class is slow to test).
_ASCII_IDENT = re.compile(r"[A-Za-z_]\w*", re.ASCII)
_TYPENAME = re.compile(r"^typename\s+")
_TEMPLATE_ID = re.compile(r"^((?:::)?\w+(?:\s*::\s*\w+)*)\s*<")
_PLAIN = re.compile(r"^((?:::)?\w+(?:\s*::\s*\w+)*)$")


@dataclass(frozen=True)
class _Raw:
    alias: TypeAlias
    start: int
    close: int


LineOf = Callable[[int], int]


def find(masked: MaskedText, body: bytes, line_of: LineOf) -> list[calls.Call]:
    """Every kernel defined by a namespace-scope alias chain in `body`, in file order."""
    if b"using" not in body and b"struct" not in body and b"class" not in body:
        return []
    scope = _NamespaceScope(body)
    raws: list[_Raw] = []
    usings = [
        m.start()
        for m in _USING.finditer(body)
        if calls.is_word(body, m) and scope.holds(m.start())
    ]
    for start, limit in zip(usings, [*usings[1:], len(body)], strict=False):
        raw = _using(masked, body, start, limit, line_of)
        if raw is not None:
            raws.append(raw)
    for m in _structs(body):
        if scope.holds(m.start()):
            target = "".join(m.group(2).decode("ascii", "replace").split())
            alias = TypeAlias(
                name=m.group(1).decode("utf-8", "replace"),
                target=target,
                args=None,
                member=None,
                line=line_of(m.start()),
            )
            raws.append(_Raw(alias, m.start(), m.end() - 1))
    raws.sort(key=lambda r: r.start)
    by_name = {r.alias.name: r.alias for r in raws}
    references: dict[int, frozenset[str]] = {}  # by id(): the aliases live as long as this call
    found: list[calls.Call] = []
    for r in raws:
        if not _may_be_kernel(r.alias):
            continue  # most aliases of a chain are parts: their closure is never needed
        chain = _chain(r.alias, by_name, references)
        if _is_kernel(r.alias, chain):
            found.append(
                calls.Call(
                    FormKind.TYPE_ALIAS, r.alias.target, r.start, r.close, r.alias.args or (), chain
                )
            )
    return found


def _structs(body: bytes) -> list[re.Match[bytes]]:
    """`_STRUCT.finditer(body)`, tried only where `struct` or `class` is spelled: a pattern that
    opens with an alternation is tried at every offset of the file (a quarter of the time of a
    cutlass_library file's alias scan), where `bytes.find` skips to the few candidates. The
    matches are the same: finditer tries each offset in turn, and only these can match."""
    starts = _all(body, b"struct") + _all(body, b"class")
    if not starts:
        return []
    starts.sort()
    out: list[re.Match[bytes]] = []
    end = 0
    for at in starts:
        if at < end:
            continue  # inside the previous match, as finditer would skip it
        m = _STRUCT.match(body, at)
        if m is not None:
            out.append(m)
            end = m.end()
    return out


def _all(text: bytes, word: bytes) -> list[int]:
    out: list[int] = []
    at = text.find(word)
    while at >= 0:
        out.append(at)
        at = text.find(word, at + 1)
    return out


def _may_be_kernel(alias: TypeAlias) -> bool:
    """What `_is_kernel` can accept, decided without the chain."""
    if alias.args is None:
        return False
    parts = alias.target.split("::")[:-1]
    return "kernel" in parts or "device" in parts


def _is_kernel(alias: TypeAlias, chain: tuple[TypeAlias, ...]) -> bool:
    if alias.args is None:
        return False
    parts = alias.target.split("::")
    if "kernel" in parts[:-1]:
        return True
    return "device" in parts[:-1] and not any(
        a.args is not None and "kernel" in a.target.split("::")[:-1] for a in chain[1:]
    )


MAX_CHAIN = 1_000
"""The most aliases one kernel's chain holds. cutlass_library writes 4 to 6 per kernel; a file of
thousands of aliases each naming the one before would otherwise give each kernel a chain as long
as the file (time and memory growing with the square of its length). A longer chain is cut: what
it leaves out, the family finds unresolved and reports not modeled."""


def _chain(
    alias: TypeAlias,
    by_name: Mapping[str, TypeAlias],
    references: dict[int, frozenset[str]] | None = None,
) -> tuple[TypeAlias, ...]:
    """`alias`, then every alias it refers to, transitively (at most MAX_CHAIN), in file order.
    `references` caches each alias's words across the calls of one file."""
    cache = references if references is not None else {}
    seen = {alias.name}
    todo = [alias]
    found: list[TypeAlias] = []
    while todo and len(found) < MAX_CHAIN:
        current = todo.pop()
        refs = cache.get(id(current))
        if refs is None:
            refs = cache[id(current)] = _references(current)
        for ref in refs:
            target = by_name.get(ref)
            if target is not None and target.name not in seen:
                seen.add(target.name)
                found.append(target)
                todo.append(target)
    return (alias, *sorted(found, key=lambda a: a.line))


def _references(alias: TypeAlias) -> frozenset[str]:
    # One search over the target and the arguments joined by spaces, which no name holds.
    text = " ".join((alias.target, *(alias.args or ())))
    return _words(text) - {alias.name}


_WORDS: dict[str, frozenset[str]] = {}


def _words(text: str) -> frozenset[str]:
    """The names `text` spells, once per distinct text (an alias type that repeats across a
    build's files, `_type_of`, repeats its words). The key is complete: the answer reads nothing
    but `text`."""
    words = _WORDS.get(text)
    if words is None:
        if len(_WORDS) >= TYPES_KEPT:
            _WORDS.clear()
        found = (_ASCII_IDENT if text.isascii() else _IDENT).findall(text)
        words = _WORDS[text] = frozenset(found)
    return words


def _using(masked: MaskedText, body: bytes, start: int, limit: int, line_of: LineOf) -> _Raw | None:
    """`using NAME = TYPE;` from `using` (None for a using-declaration or -directive, and for an
    alias whose `;` is missing before the next `using`: not a type cutlint can read)."""
    head = _NAME_EQ.match(body, start + len("using"))
    if head is None:
        return None
    semi = _statement_end(body, head.end(), limit)
    if semi is None:
        return None
    read = _type_of(masked, body, head.end(), semi, head.group(1).rpartition(b"_")[0])
    if read is None:
        return None
    target, args, member = read
    name = head.group(1).decode("utf-8", "replace")
    alias = TypeAlias(name=name, target=target, args=args, member=member, line=line_of(start))
    return _Raw(alias, start, semi)


_Type = tuple[str, tuple[str, ...] | None, str | None]
_TYPES: dict[tuple[object, ...], _Type | None] = {}
TYPES_KEPT = 4096
"""Distinct alias types kept (`_type_of`): the repeats of a build lie near one another (one
directory's kernels of one tile, cluster and schedule)."""


def _type_of(
    masked: MaskedText, body: bytes, rhs_at: int, semi: int, stem: bytes = b""
) -> _Type | None:
    """The (target, arguments, member) of the type `body[rhs_at:semi]` an alias names, or None
    where its template brackets do not pair up; once per distinct text: cutlass_library writes
    the same epilogue alias for every kernel of one tile, cluster, types and schedule (a
    quarter of the aliases of a 100a build; its other aliases name the kernel). The key is
    complete: `_read_type` reads the code `body[rhs_at:semi]` (the brackets, the member), and
    through `masked.spelled` and `calls.arguments` only `masked.uncommented[rhs_at:semi]` and
    the digraphs' padding inside it, which the key holds relative to `rhs_at`.

    `stem`: the alias's name less its last `_part` (`X` of `X_mainloop`), the kernel's own name
    in a cutlass_library file, where the mainloop and the kernel alias spell it (`X_epilogue`,
    `X_mainloop`): read with it as a mark (`_abstracted`), those texts repeat across a build's
    kernels as well (the 23,551 aliases of 8,000 files of the 90a to 110a builds: 14,833
    distinct texts, 3,776 so)."""
    padding = masked.padding
    if padding:
        lo = bisect.bisect_left(padding, rhs_at)
        hi = bisect.bisect_left(padding, semi, lo)
        inside = tuple(p - rhs_at for p in padding[lo:hi])
    else:
        inside = ()
    text = body[rhs_at:semi]
    spelled = masked.uncommented[rhs_at:semi]
    if not inside and stem and stem in text and text == spelled:
        marked = _abstracted(text, stem)
        if marked is not None:
            return marked
    key = (text, spelled, inside)
    if key in _TYPES:
        return _TYPES[key]
    if len(_TYPES) >= TYPES_KEPT:
        _TYPES.clear()
    read = _TYPES[key] = _read_type(masked, body, rhs_at, semi)
    return read


_MARK = b"Cutlint_Kernel_Name_"
"""What `_abstracted` spells a kernel's name as: a name, so the text is read as with the name."""
_STEM = re.compile(rb"[A-Za-z_]\w{7,}", re.ASCII)


def _abstracted(text: bytes, stem: bytes) -> _Type | None:
    """`_read_type` of `text` (code without comments, literals or digraphs) read with each
    `stem` in it spelled `_MARK`, then the stem put back; None where this reading does not
    apply (the stem not a plain ASCII name of 8 or more, the text not ASCII, a line splice, or
    the mark in the text already). The same answer as reading `text` itself: the mark and the
    stem are both names of word characters starting with a letter or `_`, so every name the
    stem stands in is still a name, of the same kind at both its ends, and `_read_type` only
    cuts the text between names (at brackets, commas and white space), so every mark in what
    it returns is a whole one."""
    if _STEM.fullmatch(stem) is None or not text.isascii() or b"\\" in text or _MARK in text:
        return None
    marked = text.replace(stem, _MARK)
    key = (marked,)  # a 1-tuple: never one of the 3-tuples of a text read as it is
    if key in _TYPES:
        read = _TYPES[key]
    else:
        if len(_TYPES) >= TYPES_KEPT:
            _TYPES.clear()
        plain = MaskedText(marked, marked, marked, ())
        read = _TYPES[key] = _read_type(plain, marked, 0, len(marked))
    if read is None:
        return None
    name = stem.decode("ascii")
    mark = _MARK.decode("ascii")
    target, args, member = read
    return (
        target.replace(mark, name),
        None if args is None else tuple(a.replace(mark, name) for a in args),
        None if member is None else member.replace(mark, name),
    )


def _read_type(masked: MaskedText, body: bytes, rhs_at: int, semi: int) -> _Type | None:
    rhs_text = body[rhs_at:semi]
    spelled = calls.normalize(masked.spelled(rhs_at, semi))
    if spelled.startswith("typename"):
        spelled = _TYPENAME.sub("", spelled)
    template = _TEMPLATE_ID.match(spelled)
    if template is None:
        plain = _PLAIN.match(spelled)
        return ("".join(plain.group(1).split()) if plain else spelled), None, None
    lead = rhs_text.find(b"<", len(rhs_text) - len(rhs_text.lstrip()))
    brackets = calls.Brackets(rhs_text)
    if lead < 0 or lead not in brackets.pairs:
        return None
    spans = [(rhs_at + a, rhs_at + b) for a, b in brackets.args(lead)]
    args = calls.arguments(masked, rhs_at, semi, spans)
    rest = calls.normalize(rhs_text[brackets.pairs[lead] + 1 :])
    member = rest.removeprefix("::").strip() or None
    return "".join(template.group(1).split()), args, member


_STATEMENT = re.compile(rb"[()\[\]{};]")
_NOT_STATEMENT_BRACKET = bytes(b for b in range(256) if b not in b"()[]{}")


def _statement_end(body: bytes, at: int, limit: int) -> int | None:
    """The `;` that ends the statement starting at `at`, outside (), [] and {}, before `limit`."""
    semi = body.find(b";", at, limit)
    if semi >= 0:
        # The first `;` ends it unless a bracket before it is left open or closes nothing: the
        # brackets alone, a few bytes, say so (deleting the rest is C code).
        depth = 0
        for c in body[at:semi].translate(None, _NOT_STATEMENT_BRACKET):
            depth += 1 if c in b"([{" else -1
            if depth < 0:
                break
        else:
            if depth == 0:
                return semi
    depth = 0
    for m in _STATEMENT.finditer(body, at, limit):
        c = body[m.start()]
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0:
            return m.start()
    return None


def _opens_namespace(head: bytes) -> bool:
    """`_NAMESPACE_HEAD.search(head)`, read backwards from the end of `head`, which the pattern
    is anchored to: searched, a pattern that ends in `$` is tried at each of the 200 offsets."""
    text = head.rstrip()
    if text.endswith(b'"'):  # extern "C": the opening quote is the one before
        quote = text.rfind(b'"', 0, len(text) - 1)
        if quote < 0 or b"\n" in text[quote:]:
            return False
        return _ends_with_word(text[:quote].rstrip(), b"extern")
    if _ends_with_word(text, b"extern") or _ends_with_word(text, b"namespace"):
        return True
    name = len(text)
    while name > 0 and text[name - 1] in _NAME_OR_COLON:
        name -= 1
    before = text[:name].rstrip()
    return 0 < name < len(text) and len(before) < name and _ends_with_word(before, b"namespace")


_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NAME_OR_COLON = _WORD | {ord(":")}


def _ends_with_word(text: bytes, word: bytes) -> bool:
    """`text` ends with `word`, not preceded by a word character (`\\b` in a bytes pattern)."""
    at = len(text) - len(word)
    return text.endswith(word) and (at == 0 or text[at - 1] not in _WORD)


class _NamespaceScope:
    """Which offsets lie at namespace scope: inside no braces but a namespace's or an
    `extern "C"` block's."""

    def __init__(self, body: bytes) -> None:
        # The outermost blocks that are not namespaces: disjoint, so one bisect answers `holds`.
        blocks: list[tuple[int, int]] = []
        stack: list[tuple[int, bool]] = []
        inside = 0  # how many non-namespace blocks are open
        for p in offsets(body, b"{}"):
            if body[p] == ord("{"):
                opens_namespace = inside == 0 and _opens_namespace(body[max(0, p - 200) : p])
                stack.append((p, opens_namespace))
                inside += not opens_namespace
            elif stack:
                opened, was_namespace = stack.pop()
                if not was_namespace:
                    inside -= 1
                    if inside == 0:
                        blocks.append((opened, p))
        outer = next((opened for opened, namespace in stack if not namespace), None)
        if outer is not None:
            blocks.append((outer, len(body)))
        self._starts = [a for a, _ in blocks]
        self._ends = [b for _, b in blocks]

    def holds(self, offset: int) -> bool:
        i = bisect.bisect_left(self._starts, offset) - 1
        return i < 0 or offset > self._ends[i]
