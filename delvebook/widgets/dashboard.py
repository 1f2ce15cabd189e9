"""The keeper's dashboard: party cards, the fight, keeper controls, the log and charts, in tabs that fit a
1366x768 screen, with the message line, undo/redo and the roll panel always in view."""

from __future__ import annotations

import ipywidgets as w

from ._base import Table, esc, style_widget
from .cards import DelverCard
from .keeper import KeeperControls
from .log import LogView
from .rolls import RollPanel
from .tracker import Tracker

__all__ = ["Dashboard", "dashboard", "card"]


class Party:
    """A card per delver in seat order; a card is added for a delver who joins, never rebuilt."""

    shows_state_only = True  # redrawn only when an event changed the state

    def __init__(self, table: Table):
        self.table = table
        self.camp = table.camp
        self.cards: dict[str, DelverCard] = {}
        self.widget = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        table.add(self)
        self.refresh()

    def refresh(self) -> None:
        if not self.table.touched("seats"):
            return  # the same delvers in the same seats (each card redraws itself)
        seats = list(self.camp.state["seats"])
        for n in seats:
            if n not in self.cards:
                self.cards[n] = DelverCard(self.table, n)
        wanted = [self.cards[n].widget for n in seats]
        if list(self.widget.children) != wanted:
            self.widget.children = wanted


class Charts:
    """XP progress and heart history, drawn when the tab is first opened and on request (not on every click)."""

    def __init__(self, table: Table):
        self.camp = table.camp
        self.out = w.Output()
        self.button = w.Button(description="Draw charts", layout=w.Layout(width="auto"))
        self.button.on_click(lambda _b: self.draw())
        self.widget = w.VBox([self.button, self.out])
        self.drawn = False

    def draw(self) -> None:
        from .. import charts
        from IPython.display import display
        self.out.clear_output(wait=True)
        with self.out:
            try:
                display(charts.xp_progress(self.camp))
                display(charts.heart_history(self.camp))
            except Exception as err:  # a chart that cannot be drawn must not break the table
                print(f"charts: {type(err).__name__}: {err}")
        self.drawn = True


def _charts_available() -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec("delvebook.charts") is not None
    except (ImportError, ValueError):
        return False


class Dashboard:
    """Everything a keeper needs for one campaign, built once and updated in place."""

    def __init__(self, camp):
        self.camp = camp
        self.table = t = Table(camp)
        self.party = Party(t)
        self.rolls = RollPanel(t)
        self.tracker = Tracker(t)
        self.keeper = KeeperControls(t)
        self.log = LogView(t, with_buttons=False)
        titles = ["Party", "Fight", "Keeper", "Log"]
        children = [self.party.widget, self.tracker.widget, self.keeper.widget, self.log.widget]
        self.charts = None
        if _charts_available():
            self.charts = Charts(t)
            titles.append("Charts")
            children.append(self.charts.widget)
        self.tabs = w.Tab(children=children, titles=titles)
        self.tabs.observe(self._tab_changed, "selected_index")
        self._log_tab = children.index(self.log.widget)
        self.log.show(self.tabs.selected_index == self._log_tab)
        self._show_tab_views(self.tabs.selected_index)
        title = w.HTML(f'<b style="font-size:15px">{esc(camp.name)}</b>')
        title.add_class("delvebook-title")
        self.header = w.HBox([title, self.log.undo, self.log.redo, t.message],
                             layout=w.Layout(align_items="center"))
        self.widget = w.VBox([style_widget(), self.header, self.tabs, self.rolls.widget],
                             layout=w.Layout(max_width="1340px"))
        self.widget.add_class("delvebook-dashboard")
        t.refresh()

    def _tab_views(self) -> list[list]:
        """The views on each tab, in tab order (a card added since is on the Party tab)."""
        return [[self.party, *self.party.cards.values()], [self.tracker], [self.keeper]]

    def _show_tab_views(self, index) -> None:
        """Views on hidden tabs wait (a click in a fight does not redraw the party's cards behind it)."""
        tabs = self._tab_views()
        for i, views in enumerate(tabs):
            if i != index:
                self.table.show(views, False)
        if index is not None and index < len(tabs):
            self.table.show(tabs[index], True)

    def _tab_changed(self, change) -> None:
        self.log.show(change["new"] == self._log_tab)
        self._show_tab_views(change["new"])
        if self.charts is not None and change["new"] == 4 and not self.charts.drawn:
            self.charts.draw()

    def _ipython_display_(self):
        from IPython.display import display
        display(self.widget)


def dashboard(camp):
    """The keeper's dashboard for ``camp`` (a widget; display it, or leave it last in a cell)."""
    return Dashboard(camp).widget


def card(camp, name: str):
    """One delver's card with its roll panel (for a cell of its own)."""
    camp.delver(name)  # a clear KeyError for a name not in the party
    t = Table(camp)
    c = DelverCard(t, name)
    p = RollPanel(t)
    t.refresh()
    return w.VBox([style_widget(), t.message, c.widget, p.widget])
