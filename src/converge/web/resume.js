// The matches in progress this browser holds a seat in (it keeps their seat tokens), for the home page and My
// matches: each with its opponent, the score and a "your turn" mark, and the link back into it.

import { seatKey } from "./account.js";
import { el } from "./dom.js";
import { timeLeftText } from "./forms.js";
import { heldMatches, markOver } from "./storage.js";
import { api } from "./transport.js";

/** The matches this browser's player plays elsewhere too (signed in on several devices): each gets a key to
 *  its seat here, kept like a seat token. */
async function fetchOthers() {
  let doc;
  try { doc = await api("GET", "/api/me/matches"); } catch (_) { return; }  // (signed out meanwhile)
  const held = new Set(heldMatches().map((m) => m.id));
  await Promise.all(doc.matches.filter((m) => !held.has(m.match_id)).map((m) => seatKey(m.match_id)));
}

/** The view of a held match through this browser's seat, or null (over, gone, or no seat any more). A token
 *  that holds the seat no more (its player signed out everywhere) is not listed; signed in again, the device
 *  gets a new key to the seat in its place. (The match's page, opened, says why it watches.) */
async function viewOf(id, token, again = true) {
  try {
    const view = await api("GET", "/api/matches/" + id, undefined, token);
    if (view.seat < 0 || view.match.status !== "active") { markOver(id); return null; }
    return view;
  } catch (e) {
    if (e.status === 404) markOver(id);
    const key = e.status === 401 && again ? await seatKey(id) : null;
    return key ? viewOf(id, key, false) : null;
  }
}

/** Read each held match (its view through this browser's seat): those still in progress, newest first.
 *  `player`: this browser is a player (only then may it play elsewhere too: a first visit asks nothing). */
async function inProgress(player) {
  if (player) await fetchOthers();
  const found = await Promise.all(heldMatches().slice(0, 12).map(({ id, token }) => viewOf(id, token)));
  return found.filter(Boolean);
}

function opponentOf(view) {
  const seat = view.match.seats[1 - view.seat];
  if (seat.name) return seat.name + (seat.rating !== null && seat.rating !== undefined ? " · " + seat.rating + (seat.provisional ? "?" : "") : "");
  return seat.kind === "bot" ? "a bot" : "your friend";
}

function row(view) {
  const obs = view.observation;
  const mine = isMine(view);
  const me = view.seat;
  return el("li", { class: "resume-row", data: { testid: "in-progress", match: view.match.id, turn: mine ? "yours" : "theirs" } },
    el("a", { href: "/m/" + view.match.id, class: "button-link" + (mine ? " primary" : ""), data: { testid: "resume" } },
      mine ? "Your turn" : "Open"),
    el("span", { class: "who", text: "Against " + opponentOf(view) }),
    el("span", { class: "what", text: "Round " + obs.round + " · rounds " + obs.round_wins[me] + " – " + obs.round_wins[1 - me] +
      (mine ? "" : " · their turn") + turnText(view, mine) }));
}

/** A turn-based match: how long the player to move has left. */
function turnText(view, mine) {
  const turn = view.match.turn;
  if (!turn || !turn.deadline) return "";
  return " · " + timeLeftText(turn.deadline * 1000 - Date.now()) + (mine ? " left to move" : " left for them");
}

const isMine = (v) => !!(v.observation.decision && v.observation.decision.player === v.seat);
const deadlineOf = (v) => (v.match.turn && v.match.turn.deadline) || Infinity;

/** Yours to move first, the nearest deadline first. */
function waitingFirst(a, b) {
  return Number(isMine(b)) - Number(isMine(a)) || deadlineOf(a) - deadlineOf(b);
}

/** The panel of matches in progress, or nothing when there is none (filled in when the reads come back).
 *  `player`: whether this browser is a player (named or anonymous) yet. */
export function resumePanel(player) {
  const panel = el("section", { class: "panel resume", "aria-labelledby": "h-resume", data: { testid: "resume-panel" }, hidden: true });
  inProgress(player).then((views) => {
    if (!views.length) return;
    views.sort(waitingFirst);
    const yours = views.filter(isMine).length;
    panel.replaceChildren(
      el("h2", { id: "h-resume", text: "Your matches in progress" + (yours ? " — your turn in " + yours : "") }),
      el("ul", { class: "resume-list" }, ...views.map(row)));
    panel.hidden = false;
  });
  return panel;
}
