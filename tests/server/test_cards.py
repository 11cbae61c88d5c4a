"""The card gallery's API: ``GET /api/cards`` lists every card the server plays — the built-in decks and a
designer's (``--deck-dir``), marked custom — as the table prints them, to anyone, and is documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import designer_deck
from tests.server_support import client_for, create

pytest.importorskip("fastapi")

from converge.cards.loader import load_catalog
from converge.engine.playset import BUILTIN_ORDER, SETS


def test_every_card_of_the_catalogue_a_designers_deck_included_as_the_table_prints_it(tmp_path: Path) -> None:
    decks = tmp_path / "decks"
    mine = designer_deck(decks)
    with client_for(tmp_path, deck_dirs=(str(decks),)) as client:
        r = client.get("/api/cards")  # (nobody: no cookie, no player, no token)
        assert r.status_code == 200, r.text
        doc = r.json()
        # every skillset of the catalogue, the built-ins first in their order, each with its six cards by rank
        catalog = load_catalog([decks])
        assert [s["key"] for s in doc["skillsets"]] == [*BUILTIN_ORDER, mine]
        for s in doc["skillsets"]:
            deck = catalog[s["key"]]
            assert (s["name"], s["set"], s["keyword"]) == (deck.skillset, deck.set_name, deck.keyword)
            assert [c["id"] for c in s["cards"]] == [c.id for c in deck.cards]
            assert [c["rank"] for c in s["cards"]] == [1, 2, 3, 4, 5, 6]
            assert {c["keyword"] for c in s["cards"]} == {deck.keyword}
            assert s["custom"] == (s["key"] == mine)
        assert sum(len(s["cards"]) for s in doc["skillsets"]) == 9 * 6 + 6
        assert doc["sets"] == ["Catalysts of Change", "Engines of Progress", "Sparks of Hope", "Home Brew"]
        assert doc["keywords"] == ["Convert", "Assemble", "Recall", "Guard", "Search", "Trade", "Expand", "Study",
                                   "Heal"]  # (the designer's deck is a Convert deck: each keyword once)
        tinkerer = doc["skillsets"][-1]
        assert tinkerer["color"] == "orange" and tinkerer["cards"][0]["name"] == "Tinkerer Ember Apprentice"
        # each card as a match of its skillsets prints it at the table, the designer's deck included
        by_id = {c["id"]: c for s in doc["skillsets"] for c in s["cards"]}
        for playset in (list(SETS["catalysts"]), ["delver", "healer", mine]):
            made = create(client, opponent="bot", bot="random", playset=playset)
            shown = client.get(f"/api/matches/{made['match_id']}").json()["cards"]
            assert len(shown) == 18 and all(card == by_id[card["id"]] for card in shown)
    with client_for(tmp_path / "builtin") as client:  # a server without deck folders: the nine decks alone
        doc = client.get("/api/cards").json()
        assert [s["key"] for s in doc["skillsets"]] == list(BUILTIN_ORDER)
        assert not any(s["custom"] for s in doc["skillsets"])
        assert sum(len(s["cards"]) for s in doc["skillsets"]) == 54


def test_the_cards_route_is_documented_and_the_page_is_served(tmp_path: Path) -> None:
    with client_for(tmp_path, docs=True) as client:
        spec = client.get("/openapi.json").json()
        ok = spec["paths"]["/api/cards"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert ok == {"$ref": "#/components/schemas/CardGallery"}
        schemas = spec["components"]["schemas"]
        fields = {"key", "name", "set", "keyword", "color", "custom", "cards"}
        assert set(schemas["GallerySkillset"]["properties"]) == fields
        page = client.get("/cards?set=Sparks+of+Hope&keyword=Heal")
        assert page.status_code == 200 and '<script type="module" src="/static/app.js">' in page.text
        assert client.head("/cards").status_code == 200
