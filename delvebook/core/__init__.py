"""The pure core: dice and exact odds, the rules as data (``rules``, read through the one safe YAML loader), the
state's shape (``statecheck``), the events and their fold (``events``), read-only views of the state (``model``),
who did what to whom (``roles``), names, and the followers that add up what stands (``collect``).

Standard library and PyYAML only: no store, no view, no third-party library, so a script, a bot or the danger
forecast imports it fast. Nothing is imported here: ``import delvebook.dice`` loads the dice alone."""

__version__ = "0.1.0"
"""This delvebook's version (``delvebook.__version__``; pyproject.toml says the same): here, at the bottom, so what the
core keeps in the user's cache is named by it without the core importing the package above it."""
