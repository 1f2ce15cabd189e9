"""Opening a campaign: the collector waits for the whole open and is left as it was found."""
from __future__ import annotations

import gc
from pathlib import Path

import pytest

import delvebook as db

LONG = Path(__file__).resolve().parent.parent / "campaigns" / "the-long-delve"


@pytest.mark.parametrize("collector_on", [True, False])
def test_opening_leaves_the_collector_as_it_found_it(collector_on):
    was = gc.isenabled()
    (gc.enable if collector_on else gc.disable)()
    try:
        with db.Campaign.open(LONG, read_only=True) as camp:
            assert len(camp.events) >= 10_000
        assert gc.isenabled() is collector_on
        with pytest.raises(db.Refused, match="read-only"):
            camp.rest()
        assert gc.isenabled() is collector_on
    finally:
        (gc.enable if was else gc.disable)()
