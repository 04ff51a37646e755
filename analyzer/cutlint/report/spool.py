"""A streamed report's spool (the temporary file its files' texts are written to as they come)
copied to where the report goes."""

from __future__ import annotations

import codecs
import shutil
from typing import IO, TextIO

CHUNK = 1 << 20


def copy(spool: IO[str], out: TextIO) -> None:
    """Write everything `spool` holds to `out`. Where both encode UTF-8 and each has a binary
    buffer, as bytes: the spool's bytes are then what `out` would make of its text, and a
    hundred-thousand-kernel JSON report (1 GB) was otherwise decoded and encoded again, and
    encoded once more for the replay's copy (engine/replay.py keeps the bytes as they pass).
    Where the replay's entry keeps the spool itself as part of its body (a `Recorder.spool`),
    its bytes go to the stream alone (`adopted`), not into the body once more."""
    spool.seek(0)  # writes out what the text layer still holds, and rewinds its buffer too
    source = getattr(spool, "buffer", None)
    target = getattr(out, "buffer", None)
    if source is None or target is None or not (_utf8(spool) and _utf8(out)):
        shutil.copyfileobj(spool, out)
        return
    out.flush()  # what was written before the spool's text goes first
    adopted = getattr(target, "adopted", None)
    dest = adopted(spool) if adopted is not None else None
    shutil.copyfileobj(source, dest if dest is not None else target, CHUNK)


def _utf8(stream: IO[str]) -> bool:
    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "").name == "utf-8"
    except LookupError:
        return False
