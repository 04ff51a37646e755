"""`cutlint families`: the registry in claim order with each family's rule groups; the one list of
the families (no doc page keeps a copy)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from cutlint.cli import main
from cutlint.families.registry import families


def test_every_family_in_claim_order() -> None:
    out = CliRunner().invoke(main, ["families", "--format", "json"])
    assert out.exit_code == 0, out.output
    assert [r["family"] for r in json.loads(out.output)] == [f.name for f in families()]


def test_a_group_selects_its_families() -> None:
    out = CliRunner().invoke(main, ["families", "--group", "tmem", "--format", "json"])
    rows = json.loads(out.output)
    assert rows and all("tmem" in r["groups"] for r in rows)
    assert {r["family"] for r in rows} == {
        f.name for f in families() if "tmem" in {g.value for g in f.joins}
    }


def test_an_unknown_group_is_a_usage_error() -> None:
    out = CliRunner().invoke(main, ["families", "--group", "no-such-group"])
    assert out.exit_code == 2 and "unknown rule group" in out.output
