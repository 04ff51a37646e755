"""A streamed report's spool copied to its output (report/spool.py): as bytes where both encode
UTF-8, as text otherwise; either way what the text copy writes, in order with the text around it."""

from __future__ import annotations

import io
import tempfile

import pytest

from cutlint.report import spool

TEXT = 'a file "kernels/ü.cu", rows of\nJSON and text\n' * 5000


@pytest.mark.parametrize("encoding", ["utf-8", "UTF8", "latin-1"])
def test_the_copy_is_what_the_text_would_write(encoding: str) -> None:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding=encoding, newline="")
    with tempfile.TemporaryFile("w+", encoding="utf-8") as held:
        held.write(TEXT)
        out.write("head, ")
        spool.copy(held, out)
        out.write(" tail")
        out.flush()
    assert raw.getvalue() == ("head, " + TEXT + " tail").encode(encoding)


def test_a_stream_without_a_buffer_gets_text() -> None:
    out = io.StringIO()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as held:
        held.write(TEXT)
        spool.copy(held, out)
    assert out.getvalue() == TEXT
