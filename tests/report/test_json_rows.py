"""A JSON row is spliced from texts encoded once per record (report/json.py `_row_text`, issue
24): it must be the bytes json.dumps writes for the row's dict, for every kind of row, whether
its parts' texts were made for it or kept from a row before."""

from __future__ import annotations

import json

from cutlint.records import CheckResult
from cutlint.report import json as json_report


def test_a_spliced_row_is_the_dumped_row(shared_result: CheckResult) -> None:
    rows = [r for f in shared_result.files for r in f.instantiations]
    assert any(r.resources is not None for r in rows) and any(r.resources is None for r in rows)
    cache: json_report.PartsTextCache = {}
    for _ in range(2):  # the second time every text is kept from the first
        for r in rows:
            expected = json.dumps(json_report._instantiation(r, {}))
            assert json_report._row_text(r, cache) == expected


def test_a_streamed_report_of_many_files_is_the_whole_results_report(
    shared_result: CheckResult,
) -> None:
    """`Stream.finish` writes the files' entries a thousand at a time: with more files than
    that (and a count that is no multiple of it), the bytes are still those `chunks` writes."""
    import io
    import tempfile

    files = [
        f.model_copy(update={"path": f"{f.path}.{i}"})
        for i in range(json_report.FILES_A_WRITE * 2 // len(shared_result.files) + 3)
        for f in shared_result.files
    ]
    assert len(files) > 2 * json_report.FILES_A_WRITE and len(files) % 1000
    whole = shared_result.model_copy(update={"files": files})
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        stream = json_report.Stream(spool)
        for f in files:
            stream.add(f)
        out = io.StringIO()
        stream.finish(out)
    assert out.getvalue() == "".join(json_report.chunks(whole))
