"""The ``delvebook`` command: ``main`` parses and runs it (``commands``); the commands that read a campaign (the
report, validate) are ``reading``."""
from .commands import main

__all__ = ["main"]
