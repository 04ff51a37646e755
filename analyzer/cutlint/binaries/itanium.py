"""A small Itanium C++ ABI demangler for the names CUTLASS kernels have, used where `c++filt` is
not installed (demangle.py): `_Z` function encodings of templates over class templates, with
nested names, template arguments and argument packs, integer, bool and enum literals, pointers,
const, references, template parameters and back-references (`S_`, `S<seq>_`), as the Itanium
C++ ABI's "Mangling" chapter defines them. Anything else (operators, expressions, lambdas, std::
abbreviations beyond `St`) raises Unsupported: the caller then leaves the name undecoded.
tests/binaries/test_itanium.py holds it to c++filt's text on the recorded SM120 kernels."""

from __future__ import annotations

BUILTIN = {
    "v": "void", "b": "bool", "c": "char", "a": "signed char", "h": "unsigned char",
    "s": "short", "t": "unsigned short", "i": "int", "j": "unsigned int", "l": "long",
    "m": "unsigned long", "x": "long long", "y": "unsigned long long", "f": "float",
    "d": "double", "e": "long double", "n": "__int128", "o": "unsigned __int128",
}  # fmt: skip


class Unsupported(ValueError):
    """A construct this demangler does not read."""


class _Reader:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.subs: list[str] = []
        self.targs: list[str] = []
        self.last_args: list[str] = []
        self.depth = 0

    def peek(self, n: int = 1) -> str:
        return self.s[self.i : self.i + n]

    def take(self, expected: str) -> None:
        if not self.s.startswith(expected, self.i):
            raise Unsupported(f"expected {expected!r} at {self.i}")
        self.i += len(expected)

    def number(self) -> int:
        start = self.i
        while self.i < len(self.s) and self.s[self.i].isdigit():
            self.i += 1
        if start == self.i:
            raise Unsupported(f"expected a number at {start}")
        return int(self.s[start : self.i])

    def source_name(self) -> str:
        n = self.number()
        name = self.s[self.i : self.i + n]
        self.i += n
        return name

    def substitution(self) -> str:
        self.take("S")
        if self.peek() == "t":
            self.i += 1
            return "std"
        seq = 0
        if self.peek() != "_":
            start = self.i
            while self.i < len(self.s) and self.s[self.i] != "_":
                self.i += 1
            seq = int(self.s[start : self.i], 36) + 1
        self.take("_")
        if seq >= len(self.subs):
            raise Unsupported(f"substitution {seq} of {len(self.subs)}")
        return self.subs[seq]

    def template_param(self) -> str:
        self.take("T")
        index = 0 if self.peek() == "_" else self.number() + 1
        self.take("_")
        if index >= len(self.targs):
            raise Unsupported(f"template parameter {index}")
        return self.targs[index]

    def template_args(self) -> list[str]:
        self.take("I")
        args: list[str] = []
        while self.peek() != "E":
            args.extend(self.template_arg())
        self.take("E")
        return args

    def template_arg(self) -> list[str]:
        c = self.peek()
        if c == "J":  # an argument pack, flattened as c++filt prints it
            self.i += 1
            out: list[str] = []
            while self.peek() != "E":
                out.extend(self.template_arg())
            self.take("E")
            return out
        if c == "L":
            return [self.literal()]
        return [self.type()]

    def literal(self) -> str:
        self.take("L")
        c = self.peek()
        if c in BUILTIN and c != "v":
            self.i += 1
            negative = self.peek() == "n"
            self.i += negative
            value = self.number()
            self.take("E")
            if c == "b":
                return "true" if value else "false"
            text = f"{'-' if negative else ''}{value}"
            suffix = {"i": "", "j": "u", "l": "l", "m": "ul", "x": "ll", "y": "ull"}
            if c not in suffix:
                return f"({BUILTIN[c]}){text}"
            return text + suffix[c]
        enum = self.type()
        negative = self.peek() == "n"
        self.i += negative
        value = self.number()
        self.take("E")
        return f"({enum}){'-' if negative else ''}{value}"

    def unqualified(self) -> str:
        if self.peek().isdigit():
            return self.source_name()
        raise Unsupported(f"name at {self.i}")

    def nested(self, whole_is_candidate: bool) -> str:
        self.take("N")
        while self.peek() in ("r", "V", "K"):
            self.i += 1  # cv-qualifiers of a member function: not in kernel names
        prefix = ""
        while self.peek() != "E":
            c = self.peek()
            if c == "S":
                prefix = self.substitution()
                continue
            if c == "T":
                prefix = self.template_param()
                self.subs.append(prefix)
                continue
            if c == "I":
                self.depth += 1
                args = self.template_args()
                self.depth -= 1
                if self.depth == 0:
                    self.last_args = args
                prefix = f"{prefix}<{', '.join(args)}>"
            else:
                name = self.unqualified()
                prefix = f"{prefix}::{name}" if prefix else name
            if self.peek() != "E" or whole_is_candidate:
                self.subs.append(prefix)
        self.take("E")
        return prefix

    def type(self) -> str:
        c = self.peek()
        if c in BUILTIN:
            self.i += 1
            return BUILTIN[c]
        if c == "P":
            self.i += 1
            t = self.type() + "*"
        elif c == "R":
            self.i += 1
            t = self.type() + "&"
        elif c == "O":
            self.i += 1
            t = self.type() + "&&"
        elif c == "K":
            self.i += 1
            t = self.type() + " const"
        elif c == "N":
            return self.nested(whole_is_candidate=True)
        elif c == "T":
            t = self.template_param()
        elif c == "S":
            t = self.substitution()
            if self.peek() == "I":
                self.subs.append(t) if t == "std" else None
                t = f"{t}<{', '.join(self.template_args())}>"
            else:
                return t
        elif c.isdigit():
            t = self.source_name()
            self.subs.append(t)
            if self.peek() == "I":
                t = f"{t}<{', '.join(self.template_args())}>"
            else:
                return t
        else:
            raise Unsupported(f"type {c!r} at {self.i}")
        self.subs.append(t)
        return t

    def encoding(self) -> str:
        self.take("_Z")
        if self.peek() != "N":
            raise Unsupported("only nested function names")
        start = self.i
        self.nested(whole_is_candidate=False)
        # again, now knowing the function template's arguments (T_ in its parameter types)
        self.targs, self.i = self.last_args, start
        self.subs.clear()
        name = self.nested(whole_is_candidate=False)
        ret = self.type() if name.endswith(">") else ""
        params = []
        while self.i < len(self.s) and self.peek() != ".":
            params.append(self.type())
        shown = "" if params == ["void"] else ", ".join(params)
        return f"{ret + ' ' if ret else ''}{name}({shown})"


def demangle(name: str) -> str:
    """The C++ text of `name`; Unsupported for what this reader does not cover."""
    r = _Reader(name)
    text = r.encoding()
    if r.i != len(name):
        raise Unsupported(f"trailing {name[r.i : r.i + 20]!r}")
    return text
