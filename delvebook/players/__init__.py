"""The players at the table: a second screen for everyone, and each player's own page on their phone.

The pages (``delvebook.pages``) hold the campaign read-only and follow its log: the second screen is the keeper's table in its read-only players' mode; a player's page (their
link carries their own secret, and a QR code of it shows in the keeper's table) shows their delver and lets them ask
for what is theirs to do (a luck die, the roll the keeper asks for, a level-up choice). Each such request is a
bounded line in a file beside the log (``requests``), checked against the rules and the state (``allowed``); the
keeper's table reads it, and records what the keeper accepts (``desk``): the keeper's kernel stays the only writer
of the log. ``links`` holds the secrets and draws a link as a QR code.

This package is what the pages, the keeper's table and its view share about the players, and no view of its
own; the second screen as a widget in a notebook is ``delvebook.table.screen.player_widget``.
"""
