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
