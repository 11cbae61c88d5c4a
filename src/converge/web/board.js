// The table's zones: the status line with the clocks, their faction, the goals, the discard pile and the deck,
// your faction, your hand. Also the board of a round that just ended (`summary`), which the next deal replaces
// in every observation.

import { cap, el, icon, profileUrl } from "./dom.js";
import { cardRow, factionRow } from "./cards.js";
import { timeLeftText } from "./forms.js";
import { clockLeft, clockOf, legalCards, order, pair, profileNameOf, ratingOf, seatName, turnLeft, turnOf, viewerOf, who } from "./selectors.js";
import { getState } from "./store.js";

function fmtClock(ms) {
  if (ms === null || ms === undefined) return "–";
  const s = Math.max(0, Math.ceil(ms / 1000));
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

const perMoveText = (s) => (s % 86400 === 0 ? s / 86400 + (s === 86400 ? " day" : " days") : s / 3600 + " hours");

/** "You have 2 days 23 h to move, then 7 days of vacation": a move's time first, then the player's vacation. */
function turnTimeText(turn, viewer) {
  const has = turn.running === viewer ? "You have " : cap(who(turn.running, viewer)) + " has ";
  const vacation = ((turn.vacation_left_s || [])[turn.running] || 0) * 1000;
  const left = turnLeft(turn);
  if (vacation > 0 && left > vacation) return has + timeLeftText(left - vacation) + " to move, then " + timeLeftText(vacation) + " of vacation";
  return has + timeLeftText(left) + (vacation > 0 ? " of vacation left to move" : " to move");
}

function clockText(p, viewer, left, running) {
  return (running ? "▶ " : "") + who(p, viewer) + " " + fmtClock(left);
}

/** Clocks tick between messages: rewrite their text (four times a second, from the page's timer). */
export function tickClocks() {
  const s = getState().match;
  const turn = turnOf();
  const node = turn && document.querySelector("[data-testid=turn-time]");
  if (node) node.textContent = turnTimeText(turn, viewerOf());
  if (!s.meta || !s.meta.clock || s.replay || s.tutorial) return;
  const viewer = viewerOf();
  for (const node of document.querySelectorAll("[data-clock]")) {
    const p = Number(node.dataset.clock);
    node.textContent = clockText(p, viewer, clockLeft(p), s.meta.clock.running === p);
  }
}

export function statusBar(obs) {
  const viewer = viewerOf();
  const bar = el("div", { class: "status", data: { testid: "status" } },
    el("span", { class: "big", text: "Round " + obs.round }),
    el("span", { class: "stat", data: { testid: "round-wins" } }, el("span", { class: "k", text: "Rounds " }), pair(obs.round_wins, viewer, " – ")),
    el("span", { class: "stat", data: { testid: "scores" } }, el("span", { class: "k", text: "Points " }), pair(obs.scores, viewer, " – ")),
    el("span", { class: "stat artifact-stat" }, icon("artifact", "artifact-icon"), el("span", { class: "k", text: "Artifact: " }),
      el("strong", { class: "artifact", data: { testid: "artifact-holder" }, text: who(obs.artifact_holder, viewer) })));
  const clock = clockOf();
  if (clock) {
    const clocks = el("span", { class: "clocks", data: { testid: "clocks" } });
    for (const p of order(viewer)) {
      const left = clockLeft(p);
      const running = clock.running === p;
      clocks.append(el("span", { class: "clock" + (running ? " running" : "") + (left !== null && left < 30000 ? " low" : ""),
        data: { clock: p }, text: clockText(p, viewer, left, running) }));
    }
    bar.append(clocks);
  }
  const turn = turnOf();
  if (turn) {
    const mine = turn.running === viewer;
    bar.append(el("span", { class: "clock turn-time" + (mine ? " running" : ""), data: { testid: "turn-time" },
      title: "A turn-based match: each move may take " + perMoveText(turn.move_s) + "; a longer one spends the player's vacation, " +
             "and running out of both loses the match.",
      text: turnTimeText(turn, viewer) }));
  }
  return bar;
}

/** A seat's heading ("Bob · 1512"): a named player's name opens their profile, in a new tab (the match stays). */
function seatHeading(p, text) {
  const name = profileNameOf(p);
  if (!name || viewerOf() === p) return el("h2", { class: "h3", text });
  const rating = ratingOf(p);
  return el("h2", { class: "h3" }, el("a", { href: profileUrl(name), target: "_blank", rel: "noopener", class: "seat-link",
    data: { testid: "seat-profile" }, "aria-label": name + "'s profile (opens in a new tab)" }, name), rating ? " · " + rating : "");
}

/** Their faction (top), the goals with the discard pile and the deck (middle), the viewer's faction (bottom). */
export function board(obs, interactive, summary) {
  const viewer = viewerOf();
  const bottom = viewer >= 0 ? viewer : 0;
  const top = 1 - bottom;
  const legal = interactive ? legalCards(obs) : {};
  const factions = summary ? summary.board.factions : obs.factions;
  const goals = summary ? summary.board.goals : obs.goals;
  const holder = summary ? summary.holder : obs.artifact_holder;
  const handNote = (p) => summary ? "" : obs.hand_sizes[p] + " card" + (obs.hand_sizes[p] === 1 ? "" : "s") + " in hand";
  const artifactTag = (p) => holder === p ? el("span", { class: "tag artifact-tag" }, icon("artifact", "artifact-icon"), "artifact") : null;
  const themName = seatName(top);
  const topZone = el("section", { class: "zone them", "aria-label": themName + ": faction", data: { testid: "zone-them" } },
    el("div", { class: "zone-head" }, seatHeading(top, themName), artifactTag(top),
      el("span", { class: "note", text: handNote(top) }),
      summary ? null : el("span", { class: "backs", "aria-hidden": "true" }, ...Array.from({ length: obs.hand_sizes[top] }, () => el("span", { class: "back" })))),
    factionRow(factions[top], legal, "No card in this faction yet.", themName + "'s faction"));
  if (!summary && viewer >= 0 && obs.known_opponent_hand.length) {  // (in the heading's line: the table stays short)
    topZone.querySelector(".zone-head").append(el("span", { class: "note known", text: "you know they hold " + obs.known_opponent_hand.join(", ") }));
  }
  const goalZone = el("section", { class: "zone goals", "aria-labelledby": "h-goals", data: { testid: "zone-goals" } },
    el("div", { class: "zone-head" }, el("h2", { id: "h-goals", class: "h3", text: "Goals" }),
      el("span", { class: "note", text: "scored at the end of every turn" })),
    cardRow(goals, legal, { size: "goal" }, "No goal yet: declare a card to make one.", "Goals"));
  const middle = el("div", { class: "middle" }, goalZone, summary ? finalNote(summary) : pile(obs));
  const youName = seatName(bottom);
  const bottomZone = el("section", { class: "zone you", "aria-label": youName + ": faction", data: { testid: "zone-you" } },
    el("div", { class: "zone-head" }, viewer >= 0 ? el("h2", { class: "h3", text: "Your faction" }) : seatHeading(bottom, youName), artifactTag(bottom),
      viewer < 0 ? el("span", { class: "note", text: handNote(bottom) }) : null),
    factionRow(factions[bottom], legal, viewer >= 0 ? "No card in your faction yet." : "No card in this faction yet.",
      viewer >= 0 ? "Your faction" : youName + "'s faction"));
  return { topZone, middle, bottomZone };
}

/** Where the pile is, on a round's final board: what that board is. */
function finalNote(summary) {
  return el("section", { class: "zone pile final", data: { testid: "zone-final" } },
    el("p", { class: "note", text: summary.match_winner !== null && summary.match_winner !== undefined ?
      "The board as the match ended." : "The board as round " + summary.round + " ended. The next round is dealt afresh." }));
}

/** The discard pile (its top card: the cards to pick from it are in the decision strip, with their text) and
 *  the deck. */
function pile(obs) {
  const discard = obs.discard.slice().reverse();
  return el("section", { class: "zone pile", "aria-label": "Deck and discard pile", data: { testid: "zone-discard" } },
    el("div", { class: "zone-head" }, el("h2", { class: "h3", text: "Discard" }), el("span", { class: "note", text: discard.length + ", top first" })),
    el("div", { class: "pile-body" },
      cardRow(discard.slice(0, 1), {}, { size: "mini" }, "empty", "Discard pile, top card"),
      el("div", { class: "deck-side" },
        el("p", { class: "deck" }, el("span", { class: "back", "aria-hidden": "true" }),
          el("span", {}, "Deck: ", el("strong", { data: { testid: "deck-size" }, text: String(obs.deck_size) }))),
        obs.known_deck.length ? el("p", { class: "note", text: "You know: " + obs.known_deck.map((k) => k.id + " (" + (k.from_top + 1) + " from top)").join(", ") }) : null)));
}

export function handZone(obs, interactive) {
  if (!obs.hand) return null;
  const legal = interactive ? legalCards(obs) : {};
  return el("section", { class: "zone hand", "aria-labelledby": "h-hand", data: { testid: "zone-hand" } },
    el("h2", { id: "h-hand", class: "sr-only", text: "Your hand" }),
    cardRow(obs.hand, legal, { size: "full" }, "Your hand is empty.", "Your hand"));
}
