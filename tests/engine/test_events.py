"""Events: one schema per kind, documented from the schema, read back exactly, followed by one interpreter."""

from __future__ import annotations

import random

from converge import Match
from converge.engine import all_playsets
from converge.engine.events import SCHEMA, EventKind, PublicTracker, from_dict, reference, to_dict
from tests.helpers import ROOT, finished_matches

DOCS = ROOT / "docs" / "events.md"


def test_the_reference_page_is_generated_from_the_schema() -> None:
    assert DOCS.read_text(encoding="utf-8") == reference(), "regenerate docs/events.md from events.reference()"
    for kind in EventKind:
        assert f"| `{kind.label}` |" in reference()


def test_every_event_reads_back_from_its_observation_form() -> None:
    for m in finished_matches(30, 17, 8):
        ps = m.playset
        for event in m.events:
            data = to_dict(event, ps.card_ids, ps.skillsets)
            spec = SCHEMA[EventKind(event[0])]
            names = [f.name for f in (spec.a, spec.b) if f is not None]
            assert list(data) == ["kind", "player", "card", *names]
            back = from_dict(data, ps.index_of, ps.skillsets)
            kind, vis, player, card, a, b = event
            assert back[:4] == (kind, vis, player, card)
            assert back[4] == (a if spec.a else 0) or (spec.a and spec.a.type == "player" and a < 0)
            assert back[5] == (b if spec.b else 0) or (spec.b and spec.b.type == "player" and b < 0)


def test_the_public_tracker_follows_the_public_zones() -> None:
    """Replaying a match's public events gives the goal area, factions (with conversions and guards), discard
    pile, hand and deck sizes and the artifact holder that the spectator's observation shows, at every step."""
    playsets = all_playsets()
    rng = random.Random(2)
    for k in range(25):
        m = Match.new(list(playsets[(k * 5) % len(playsets)]), seed=k)
        tracker = PublicTracker(m.playset.printed_skill, m.playset.printed_rank)
        fed = 0
        while not m.is_terminal:
            for event in m.events[fed:]:
                tracker.step(event)
            fed = len(m.events)
            obs = m.observation(-1)
            z = tracker.zones
            ids = m.playset.card_ids
            if obs["decision"]["kind"] == "chance":
                continue
            assert [ids[c] for c in z.goals] == obs["goals"]
            assert [ids[c] for c in z.discard] == obs["discard"]
            assert [[ids[c] for c in f] for f in z.factions] == [[e["id"] for e in f] for f in obs["factions"]]
            assert [[(m.playset.skillsets[z.skill[c]], z.rank[c]) for c in f] for f in z.factions] == [
                [(e["skillset"], e["rank"]) for e in f] for f in obs["factions"]]
            sizes = list(obs["hand_sizes"])
            if obs["decision"]["kind"] == "mode":  # a card chosen, not played yet: no event says so yet
                sizes[obs["decision"]["player"]] += 1
            assert tracker.hand_sizes == sizes and tracker.deck_size == obs["deck_size"]
            assert tracker.holder == obs["artifact_holder"]
            m.apply(rng.choice(m.legal_actions()))
