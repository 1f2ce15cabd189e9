"""The cycle collector around an open campaign: paused while it opens (``collector_paused``), and the campaign's
objects frozen out of its full passes while it is open (``freeze``, ``thaw``)."""

from __future__ import annotations

import contextlib
import gc
import threading

__all__ = ["collector_paused", "freeze", "thaw"]


@contextlib.contextmanager
def collector_paused():
    """The cycle collector paused for a block, as it was on entry afterwards. Opening makes tens of thousands of
    acyclic dicts (the events, then the state they fold into): a collector running meanwhile would scan them again
    and again as they pile up and find nothing; paused, it scans them once when it resumes."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


_FROZEN = [0]  # campaigns open whose opening froze the objects then alive out of the cycle collector's passes
_FROZEN_LOCK = threading.Lock()


def freeze() -> bool:
    """Move every object alive now (an open campaign's events and state: millions at 100k events) out of the
    cycle collector's full passes (``gc.freeze``): they are acyclic and live as long as the campaign, and a full
    pass over them stalls a click for seconds. Returns True: a hold that ``thaw`` releases."""
    with _FROZEN_LOCK:
        gc.freeze()
        _FROZEN[0] += 1
    return True


def thaw() -> bool:
    """Release one campaign's hold; the last one closed gives the frozen objects back to the collector
    (``gc.unfreeze``), so what closing left unreachable is collected. Returns False (no hold left)."""
    with _FROZEN_LOCK:
        _FROZEN[0] -= 1
        if _FROZEN[0] == 0:
            gc.unfreeze()
    return False
