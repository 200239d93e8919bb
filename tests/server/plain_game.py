"""A game without bots, registered for one test only (every game the product registers has bots):
Connect Four's rules under another name and title, with no bot module.

``python -m tests.server.plain_game serve ...`` is ``parlour serve`` with this game added to the
catalog first; nothing in ``parlour/`` knows it.
"""

from __future__ import annotations

from parlour.bots.catalog import CATALOG, Listing
from parlour.cli import main
from parlour.games.connect_four import ConnectFour


class PlainFour(ConnectFour):
    name = "plain_four"
    title = "Plain Four"


GAME = PlainFour()

if __name__ == "__main__":
    CATALOG[GAME.name] = Listing(GAME, {})
    raise SystemExit(main())
