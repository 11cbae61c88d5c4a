// The explanations of the score: points per goal, a round's summary (it replaces the decision strip until the
// player continues), the match's end (its banner and what may follow: a rematch, the replay, the record).

import { STAR, el } from "./dom.js";
import { continueRound, requestRematch } from "./match.js";
import { startReplay } from "./replay.js";
import { startReview } from "./review.js";
import { named, pair, playerName, viewerOf, who } from "./selectors.js";
import { getState } from "./store.js";
import { coach } from "./tutorial.js";

/** The points per goal: each goal, its stars and who scores it (`goals`: a score breakdown). */
export function goalTable(goals, viewer, testid) {
  const table = el("table", { class: "score", data: { testid } },
    el("caption", { class: "sr-only", text: "Points per goal" }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Goal" }), el("th", { scope: "col", text: "Stars" }),
      el("th", { scope: "col", text: "Scored by" }))));
  const body = el("tbody");
  for (const item of goals) {
    const w = item.winners;
    const text = w.length === 2 ? "both" : w.length === 1 ? who(w[0], viewer) : "nobody";
    const cls = w.length === 2 ? "who-both" : !w.length ? "who-nobody" : viewer < 0 ? "" :
      w[0] === viewer ? "who-you" : "who-them";
    body.append(el("tr", { data: { goal: item.goal } },
      el("td", {}, el("strong", { text: item.goal + " " }), item.text, el("span", { class: "why", text: named(item.why) })),
      el("td", { class: "stars", "aria-label": item.stars + " star" + (item.stars === 1 ? "" : "s"), text: STAR.repeat(item.stars) }),
      el("td", { class: cls, text })));
  }
  if (!goals.length) body.append(el("tr", {}, el("td", { colspan: 3, class: "empty", text: "No goal declared yet." })));
  table.append(body);
  return table;
}

const isMatchEnd = (r) => r.match_winner !== null && r.match_winner !== undefined;

function roundLine(r, viewer) {
  const winner = who(r.round_end.winner, viewer);
  const reason = r.round_end.reason === "hands_empty" ? "both hands were empty; " + winner + " held the artifact" :
    winner + " held the artifact and scored more";
  return "Round " + r.round + ": " + winner + " won — " + reason + " (" + pair(r.scores, viewer, " to ") + ")";
}

/** A round's end (or the match's), over the round's final board: it takes the decision strip's place. */
export function roundSummary(r) {
  const s = getState().match;
  const viewer = viewerOf();
  const over = isMatchEnd(r);
  const won = viewer >= 0 && r.round_end.winner === viewer;
  const title = over ? (viewer >= 0 ? (r.match_winner === viewer ? "You won the match!" : "You lost the match.") : playerName(r.match_winner) + " won the match.") :
    (viewer >= 0 ? (won ? "You won round " + r.round + "!" : playerName(r.round_end.winner) + " won round " + r.round + ".") : playerName(r.round_end.winner) + " won round " + r.round + ".");
  const box = el("section", { id: "decision", class: "decision summary " + (won ? "good" : "bad"), "aria-labelledby": "summary-title",
    data: { testid: over ? "match-summary" : "round-summary" } },
    el("h2", { id: "summary-title", class: "summary-title", text: over ? "Match summary" : title }),
    el("p", { class: "lines" }, named(r.lines.join(" "))),
    r.goals.length ? goalTable(r.goals, viewer, "summary-goals") : null);
  if (over) {
    box.append(el("ol", { class: "rounds", data: { testid: "rounds" } }, ...s.rounds.map((x) => el("li", { text: roundLine(x, viewer) }))));
  }
  if (!over && !s.tutorial) {
    box.append(el("div", { class: "choices" }, el("button", { type: "button", class: "choice", data: { testid: "continue", focus: "continue" },
      onclick: continueRound }, "Continue to round " + (r.round + 1))));
  }
  if (over && !s.tutorial) box.append(overActions());
  if (s.tutorial) box.append(coach());
  return box;
}

/** What may follow the match's end: a seat's rematch and review, everyone's replay and record. (Built with
 *  el(), which leaves out what a spectator does not get: DOM's append() would print it "null".) */
function overActions() {
  const s = getState().match;
  const mine = s.seat >= 0;
  const rematch = s.meta.rematch_id ?
    el("a", { class: "button-link", href: "/m/" + s.meta.rematch_id, data: { testid: "rematch-link" } }, "Go to the rematch") :
    mine ? el("button", { type: "button", class: "choice", data: { testid: "rematch" }, onclick: requestRematch }, "Rematch") : null;
  return el("div", { class: "choices", data: { testid: "over-actions" } },
    rematch,
    mine ? el("button", { type: "button", class: "choice", data: { testid: "review-open" }, onclick: startReview }, "Review my play") : null,
    el("button", { type: "button", class: "quiet", data: { testid: "replay" }, onclick: () => startReplay() }, "Replay step by step"),
    el("a", { class: "button-link quiet", href: "/api/matches/" + s.id + "/record", download: "converge-" + s.id + ".json" }, "Download the record"),
    el("a", { class: "button-link quiet", href: "/" }, "New match"),
    mine ? el("a", { class: "button-link quiet", href: "/history", data: { testid: "my-history" } }, "My matches") : null);
}

/** The match's result above the table (not in a replay). */
export function overBanner() {
  const s = getState().match;
  const result = s.meta.result;
  if (!result || s.replay) return null;
  const mine = s.seat >= 0;
  const won = mine && result.winner === s.seat;
  const loser = 1 - result.winner;
  let text;
  if (result.reason === "resign") {
    text = mine ? (won ? playerName(loser) + " resigned: you won the match!" : "You resigned: " + playerName(result.winner) + " won the match.") :
      playerName(loser) + " resigned: " + playerName(result.winner) + " won the match.";
  } else if (result.reason === "banned") {
    // (the banned player's page watches once the ban has closed its seat, whichever came first: still "you")
    text = mine ? (won ? playerName(loser) + " was banned by this server's hosts: you won the match." :
      "This server's hosts banned you: " + playerName(result.winner) + " won the match.") :
      s.bannedSeat === loser ? "This server's hosts banned you: " + playerName(result.winner) + " won the match." :
      playerName(loser) + " was banned: " + playerName(result.winner) + " won the match.";
  } else if (result.reason === "absent") {
    text = mine ? (won ? playerName(loser) + " never came to the match: you won it by forfeit." :
      "You did not come to the match in time: " + playerName(result.winner) + " won it by forfeit.") :
      playerName(loser) + " never came: " + playerName(result.winner) + " won the match by forfeit.";
  } else {
    const how = result.reason === "time" ? " on time" : "";
    text = mine ? (won ? "You won the match" + how + "!" : "You lost the match" + how + ".") : playerName(result.winner) + " won the match" + how + ".";
  }
  return el("section", { class: "banner" + (mine && !won ? " lost" : ""), data: { testid: "match-over" } },
    el("span", { class: "big", text }),
    ratingChanges(),
    s.roundView ? null : overActions());
}

/** What a rated match changed the ratings by: "Your rating 1500 → 1488 (−12) · Bob 1500 → 1512 (+12)". */
function ratingChanges() {
  const s = getState().match;
  const viewer = viewerOf();
  const parts = [];
  for (const p of viewer >= 0 ? [viewer, 1 - viewer] : [0, 1]) {
    const seat = s.meta.seats[p];
    const d = seat.rating_change;
    if (d === null || d === undefined) continue;
    const sign = d >= 0 ? "+" : "−";
    parts.push((p === viewer ? "Your rating" : playerName(p)) + " " + (seat.rating - d) + " → " + seat.rating + " (" + sign + Math.abs(d) + ")");
  }
  return parts.length ? el("span", { class: "rating-change", data: { testid: "rating-change" }, text: parts.join(" · ") }) : null;
}
