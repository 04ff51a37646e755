"""Text from the input made safe to print: what a file name, a macro argument or a log line may
hold must not act on the terminal that shows it.

An escape sequence in a file name clears the screen or retitles the window when printed raw
(ESC, CSI, OSC, BEL); a bidirectional override reorders what the reader sees (the "Trojan Source"
characters, CVE-2021-42574); a carriage return or newline forges a line. Each of these is
printed as a visible escape instead: `\\x1b`, `\\u202e`, `\\n`. A byte of a file name that is not
UTF-8 (which Python carries as a lone surrogate, PEP 383) is printed as `\\xff`, the byte it
stands for; writing the surrogate itself would raise UnicodeEncodeError.

The JSON and SARIF writers need none of this (json.dumps escapes every control character); the
text, GitHub and explain outputs, and cutlint's own one-line errors, call `printable`.
"""

from __future__ import annotations

import os
import re

# C0 controls but tab and newline, DEL, the C1 controls, the bidi embeddings, overrides and
# isolates and the line/paragraph separators, and PEP 383's surrogates for undecodable bytes.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\udc80-\udcff]"
)
_UNSAFE_LINES = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\udc80-\udcff]"
)
_SHORT = {"\n": "\\n", "\r": "\\r"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    code = ord(c)
    if c in _SHORT:
        return _SHORT[c]
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str, *, newlines: bool = False) -> str:
    """`text` with everything that would act on a terminal escaped. `newlines=True` keeps `\\n`
    (for text made of several lines of cutlint's own, with input inside them); otherwise a
    newline is escaped too, so that one field of the input stays on one line."""
    pattern = _UNSAFE if newlines else _UNSAFE_LINES
    return pattern.sub(_escape, text) if pattern.search(text) else text


def display_path(path: str) -> str:
    """Relative to the working directory when under it, as ruff and clang-tidy print paths;
    escaped for the terminal (report/escape.py), as is every text from the input."""
    relative = os.path.relpath(os.path.abspath(path))
    return printable(path if relative.startswith("..") else relative)
