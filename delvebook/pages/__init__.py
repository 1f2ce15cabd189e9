"""The players' pages served: the second screen and each player's own page, drawn by the same front end as the
keeper's table (``delvebook.view``) from the campaign followed read-only, with the players' requests checked and
written beside the log (``delvebook.players``).

``app``: the tornado handlers; ``served``: the campaigns served and their pages; ``extension``: the handlers under
the Jupyter server the table runs in (this package is the Jupyter server extension); ``alone``: the same handlers
in a small server of their own for the table's Wi-Fi (``delvebook players``). Importing this package loads nothing
else: a Jupyter server that lists it pays nothing until it loads the extension.
"""


def _jupyter_server_extension_points() -> list[dict]:
    """What jupyter_server loads from this package (it is switched on by jupyter_server_config.d/delvebook.json)."""
    return [{"module": "delvebook.pages.extension"}]
