"""Blank out comments and literals, keeping every byte offset, so later scans can use plain regexes.

All scanning in the parse stage works on byte offsets into the file as read; libclang reports
skipped ranges as byte offsets too, so nothing has to be translated between the two. A comma,
parenthesis, `#` or macro name inside a comment or a string must not count, and a regex over the
masked text sees none of them. Newlines stay where they were (a comment that spans lines is still
"white space containing a new-line" for the directive rules, C++ [cpp.pre]/1).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# Tried at what can open a comment or a literal (`/`, `"`, `'`, found by `bytes.find` in `mask`):
# matching the alternation only there is 10x faster than letting it try every byte (0.03 s
# against 0.4 s on a 10 MB line), since most bytes of a file open nothing. the leftmost lexeme wins, so `"//"` is a string and `/*"*/` a comment.
# Every branch is linear (no nested quantifiers over the same characters). Unterminated comments
# run to the end of the file and unterminated literals to the end of the line, as clang's lexer
# treats them. An encoding prefix (u8, u, U, L, R) is left in the code: an identifier there is
# harmless.
_LEXEMES = re.compile(
    rb"""
      (?P<comment>
          //[^\\\n]*(?:\\(?:\r?\n)?[^\\\n]*)*     # line comment; a backslash-newline continues it
        | /\*.*?(?:\*/|\Z)                        # block comment
      )
    | (?P<literal>
          (?<=R)"(?P<delim>[^()\\\s"]{0,16})\(.*?(?:\)(?P=delim)"|\Z)   # raw string R"d(...)d"
        | "[^"\\\n]*(?:\\.[^"\\\n]*)*(?:"|(?=\n)|\Z)                   # string literal
        | '[^'\\\n]*(?:\\.[^'\\\n]*)*(?:'|(?=\n)|\Z)        # char literal (digit
                                    # separators, 1'000, are told apart in `mask`)
      )
    """,
    re.DOTALL | re.VERBOSE,
)
# Every repetition above is "unrolled" (`a*(?:b a*)*`): the engine keeps a backtracking record per
# iteration of a repeated group, so `(?:x|y)*` over a 10 MB comment line cost 1.4 GB; here a
# group repeats once per backslash, and runs of ordinary bytes are one single-character repeat.

# C++'s alternative tokens ([lex.digraph]): `<:` `:>` `<%` `%>` `%:` `%:%:` are `[` `]` `{` `}`
# `#` `##` to the preprocessor, so `%:include` and `%:if` are directives. The lexer takes the
# longest token ([lex.pptoken]/3), so `::` and `<<` are not broken up; `<::` not followed by `:`
# or `>` is `<` then `::` (`vector<::std::size_t>`). The first alternative of the pattern is what
# is left as it is.
_DIGRAPH = re.compile(rb"(<::(?![:>])|<<|::)|%:%:|<:|:>|<%|%>|%:")
# `re`'s literal search, 4x faster here than `in` (whose search stumbles on every `::`).
_LT_COLON = re.compile(rb"<:")
_COLON_GT = re.compile(rb":>")
_PLAIN = {b"<:": b"[", b":>": b"]", b"<%": b"{", b"%>": b"}", b"%:": b"#", b"%:%:": b"##"}

# bytes.translate table: every byte becomes a space except the newline.
_BLANK = bytes(10 if b == 10 else 32 for b in range(256))


@dataclass(frozen=True)
class Unterminated:
    """A block comment without `*/`, or a literal without its closing quote: clang's lexer runs
    the first to the end of the file and the others to the end of the line, and so does `mask`;
    in compiled code each is an error (the file does not compile)."""

    start: int
    end: int
    what: str
    """"block comment", "string literal", "character literal", "raw string literal"."""


@dataclass(frozen=True)
class MaskedText:
    """The file three ways, all the same length as the original."""

    original: bytes
    uncommented: bytes
    """Comments blanked: the text arguments and conditions are spelled from."""
    code: bytes
    """Comments and string/char literals blanked: what structure is scanned on."""
    comment_spans: tuple[tuple[int, int], ...]
    """(start, end) of every comment, for the directive-end rule."""
    literal_spans: tuple[tuple[int, int], ...] = ()
    """(start, end) of every string and character literal."""
    unterminated: tuple[Unterminated, ...] = ()
    """Comments and literals that run to the end of their line or of the file."""
    padding: tuple[int, ...] = ()
    """Offsets of the spaces that pad a digraph's plain token to the digraph's length in `code`
    and `uncommented` (`<:` is `[ ` there), sorted: `spelled` leaves them out."""

    def spelled(self, start: int, end: int) -> bytes:
        """`uncommented[start:end]` with each digraph spelled as its plain token, unpadded: an
        argument reads the same whichever way it was spelled."""
        text = self.uncommented[start:end]
        if not self.padding:
            return text
        lo = bisect.bisect_left(self.padding, start)
        hi = bisect.bisect_left(self.padding, end, lo)
        if lo == hi:
            return text
        out = bytearray()
        at = start
        for pad in self.padding[lo:hi]:
            out += self.uncommented[at:pad]
            at = pad + 1
        out += self.uncommented[at:end]
        return bytes(out)

    def in_spans(self, spans: tuple[tuple[int, int], ...], offset: int) -> bool:
        i = bisect.bisect_right(spans, (offset, 1 << 62)) - 1
        return i >= 0 and spans[i][0] <= offset < spans[i][1]

    def newline_in_comment(self, offset: int) -> bool:
        """Whether the newline at `offset` lies inside a comment (so it does not end a line)."""
        i = bisect.bisect_right(self.comment_spans, (offset, 1 << 62)) - 1
        return i >= 0 and self.comment_spans[i][0] <= offset < self.comment_spans[i][1]

    def comments_within(self, start: int, end: int) -> list[tuple[int, int]]:
        """The comments overlapping [start, end), clipped to it. Comments do not overlap each
        other, so they are sorted by start and by end alike."""
        spans = self.comment_spans
        i = bisect.bisect_right(spans, (start, 1 << 62)) - 1
        i = max(i, 0)
        out: list[tuple[int, int]] = []
        while i < len(spans) and spans[i][0] < end:
            cs, ce = spans[i]
            if ce > start:
                out.append((max(cs, start), min(ce, end)))
            i += 1
        return out


def blank(text: bytes) -> bytes:
    """Spaces for every byte of `text` except newlines."""
    return text.translate(_BLANK)


_NUMBER_CHAR = frozenset(b"0123456789abcdefABCDEFxXbBpPeEuUlLzZ_.'")


def _digit_separator(text: bytes, at: int) -> bool:
    """Whether the `'` at `at` is inside a number ([lex.icon]: 1'000, 0x1'F), not a character
    literal, prefixed (L'x', u8'x') or not: the token it continues starts with a digit."""
    if text[at] != 0x27 or at == 0:
        return False
    i = at
    while i > 0 and text[i - 1] in _NUMBER_CHAR:
        i -= 1
    if i == at:
        return False  # not preceded by any part of a token: a character literal
    if i > 0 and (chr(text[i - 1]).isalnum() or text[i - 1] == 0x5F or text[i - 1] >= 0x80):
        return False  # part of an identifier (say `chars'...`): not a number
    first = text[i]
    return 0x30 <= first <= 0x39 or (first == 0x2E and at > i + 1 and 0x30 <= text[i + 1] <= 0x39)


def mask(original: bytes) -> MaskedText:
    uncommented = bytearray(original)
    code = bytearray(original)
    comments: list[tuple[int, int]] = []
    literals: list[tuple[int, int]] = []
    open_ended: list[Unterminated] = []
    # The next `/`, `"` and `'` at or after `pos`, each found by bytes.find and looked for again
    # only once `pos` has passed it (a character-class search steps through every byte in the
    # regex engine: a third of the time of masking a cutlass_library file).
    length = len(original)
    pos = 0
    slash = double = single = -1
    while True:
        if slash < pos:
            slash = original.find(b"/", pos)
            if slash < 0:
                slash = length
        if double < pos:
            double = original.find(b'"', pos)
            if double < 0:
                double = length
        if single < pos:
            single = original.find(b"'", pos)
            if single < 0:
                single = length
        at = min(slash, double, single)
        if at >= length:
            break
        m = (
            None
            if at == single and _digit_separator(original, at)
            else _LEXEMES.match(original, at)
        )
        if m is None:  # a division sign, or a digit separator (1'000)
            pos = at + 1
            continue
        start, end = m.span()
        pos = end
        blanked = original[start:end].translate(_BLANK)
        code[start:end] = blanked
        if at == slash:  # only the comments begin with `/`
            uncommented[start:end] = blanked
            comments.append((start, end))
            if original[start + 1] == 0x2A and not original.endswith(b"*/", start + 2, end):
                open_ended.append(Unterminated(start, end, "block comment"))
        else:
            literals.append((start, end))
            if (
                end - start >= 2
                and original[end - 1] == original[start]
                and original[end - 2] != 0x5C
                and (start == 0 or original[start - 1] != 0x52)
            ):
                continue  # closed by its own quote, unescaped; not a raw string (R"...")
            what = _unterminated_literal(original, m, start, end)
            if what is not None:
                open_ended.append(Unterminated(start, end, what))
    padding = _plain_digraphs(code, uncommented)
    return MaskedText(
        original,
        bytes(uncommented),
        bytes(code),
        tuple(comments),
        tuple(literals),
        tuple(open_ended),
        padding,
    )


def _has_digraph(code: bytearray) -> bool:
    """Whether any of _PLAIN's digraphs is in `code`: where none is, _DIGRAPH's matches are
    all the `::` and `<<` it skips. Each of the three spelled with `%` is looked for, not `%`
    alone: a header with a `%` in its code (a modulo) and no digraph took 10 ms to walk every
    `::` of its 192 KB (FlashInfer's, read for a macro's #define, on the 2-core machine)."""
    if b"%" in code and (b"<%" in code or b"%>" in code or b"%:" in code):
        return True
    return _LT_COLON.search(code) is not None or _COLON_GT.search(code) is not None


def _plain_digraphs(code: bytearray, uncommented: bytearray) -> tuple[int, ...]:
    """Spell each digraph of the code (comments and literals are blank there already) as its
    plain token followed by spaces, in both copies; the offsets of those spaces."""
    if not _has_digraph(code):
        return ()
    padding: list[int] = []
    for m in _DIGRAPH.finditer(code):
        if m.group(1) is not None:
            continue
        start, end = m.span()
        plain = _PLAIN[m.group()]
        spelled = plain + b" " * (end - start - len(plain))
        code[start:end] = spelled
        uncommented[start:end] = spelled
        padding.extend(range(start + len(plain), end))
    return tuple(padding)


def _unterminated_literal(original: bytes, m: re.Match[bytes], start: int, end: int) -> str | None:
    quote = original[start]
    if m.group("delim") is not None:
        delim = m.group("delim")
        closed = end - start >= 2 * len(delim) + 4 and original.endswith(
            b")" + delim + b'"', 0, end
        )
        return None if closed else "raw string literal"
    closed = (
        end - start >= 2 and original[end - 1] == quote and not _escaped(original, start, end - 1)
    )
    if closed:
        return None
    return "string literal" if quote == 0x22 else "character literal"


def _escaped(original: bytes, start: int, at: int) -> bool:
    """Whether the quote at `at` is escaped: an odd run of backslashes before it."""
    n = 0
    while at - 1 - n > start and original[at - 1 - n] == 0x5C:
        n += 1
    return n % 2 == 1
