// The replay of a finished match, step by step, through the eyes of either player or a spectator: each step's
// view comes from the server (/api/matches/{id}/replay), with its end-of-turn explanation and clocks.

import { el, toast } from "./dom.js";
import { named, playerName } from "./selectors.js";
import { replayClosed, replayShown, getState } from "./store.js";
import { api } from "./transport.js";

const fetchStep = (step, view) => {
  const s = getState().match;
  return api("GET", "/api/matches/" + s.id + "/replay?step=" + step + "&view=" + view, undefined, s.token);
};

export async function loadReplay(step, view) {
  try {
    replayShown(await fetchStep(step, view), view);
  } catch (e) {
    toast(e.message);
  }
}

/** Jump to the next end of turn (dir 1), or to the previous one (dir -1; the deal when there is none). */
async function jumpTurn(dir) {
  const r = getState().match.replay;
  try {
    for (let k = r.step + dir; k >= 0 && k <= r.total; k += dir) {
      const data = await fetchStep(k, r.view);
      if ((data.turns && data.turns.length) || k === 0 || k === r.total) { replayShown(data, r.view); return; }
    }
  } catch (e) {
    toast(e.message);
  }
}

const WORDS = { discard: "discards the card for its effect", declare: "declares the card a shared goal",
                mine: "adds the card to their own faction", theirs: "adds the card to the other faction",
                done: "declines the rest of the effect" };

/** A step's move in words: "Ada adds the card to their own faction", "Bob chooses ARC4". */
function moveText(move) {
  if (!move) return "the deal";
  return playerName(move.player) + " " + (WORDS[move.action] || "chooses " + move.action);
}

/** From the start, through this browser's seat (a spectator's view for a spectator). */
export function startReplay() { loadReplay(0, getState().match.seat); }

/** The arrow keys step through a replay (not while a range or a list has the keyboard). */
export function replayKey(e) {
  const r = getState().match.replay;
  if (!r || getState().match.review || e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
  if (e.key === "ArrowRight" && r.step < r.total) loadReplay(r.step + 1, r.view);
  if (e.key === "ArrowLeft" && r.step > 0) loadReplay(r.step - 1, r.view);
}

export function replayBar() {
  const s = getState().match;
  const r = s.replay;
  const go = (k) => loadReplay(Math.max(0, Math.min(r.total, k)), r.view);
  const range = el("input", { type: "range", min: 0, max: r.total, value: r.step, "aria-label": "step",
    onchange: (e) => go(Number(e.target.value)) });
  const views = el("select", { "aria-label": "whose view", onchange: (e) => loadReplay(r.step, Number(e.target.value)) },
    ...[[0, playerName(0) + "'s view"], [1, playerName(1) + "'s view"], [-1, "a spectator's view"]].map(([v, t]) =>
      el("option", { value: String(v), text: t + (v === s.seat ? " (you)" : ""), selected: v === r.view })));
  const move = moveText(r.data.move);
  const turn = r.data.turns && r.data.turns.length ? r.data.turns[r.data.turns.length - 1] : null;
  return el("section", { class: "replaybar", data: { testid: "replaybar" } },
    el("strong", { text: "Replay" }),
    el("button", { type: "button", data: { testid: "replay-first" }, disabled: r.step === 0, onclick: () => go(0), "aria-label": "first step" }, "« first"),
    el("button", { type: "button", data: { testid: "replay-prev" }, disabled: r.step === 0, onclick: () => go(r.step - 1), "aria-label": "previous step" }, "◀"),
    el("button", { type: "button", data: { testid: "replay-next" }, disabled: r.step === r.total, onclick: () => go(r.step + 1), "aria-label": "next step" }, "▶"),
    el("button", { type: "button", data: { testid: "replay-prev-turn" }, disabled: r.step === 0, onclick: () => jumpTurn(-1) }, "◀ turn"),
    el("button", { type: "button", data: { testid: "replay-next-turn" }, disabled: r.step === r.total, onclick: () => jumpTurn(1) }, "turn ▶"),
    el("button", { type: "button", data: { testid: "replay-last" }, disabled: r.step === r.total, onclick: () => go(r.total), "aria-label": "last step" }, "last »"),
    range,
    el("span", { class: "move", data: { testid: "replay-step" }, text: "Step " + r.step + " of " + r.total + ": " + move }),
    views,
    turn ? el("p", { class: "turn-line", data: { testid: "replay-turn" } }, named(turn.lines.join(" "))) : null,
    s.meta.rematch_id ? el("a", { href: "/m/" + s.meta.rematch_id, data: { testid: "rematch-link" } }, "Go to the rematch") : null,
    el("button", { type: "button", data: { testid: "replay-exit" }, onclick: replayClosed }, "Back to the match"));
}
