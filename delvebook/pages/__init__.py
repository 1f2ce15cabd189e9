"""The players' pages served: the second screen and each player's own page, drawn by the same front end as the
keeper's table (``delvebook.view``) from the campaign followed read-only, with the players' requests checked and
written beside the log (``delvebook.players``)."""
