// What the views read of a match's state beyond its fields: whose eyes the page shows the table through, how
// players and seats are named for this viewer, which choices are this page's to make.

import { cap, lower } from "./dom.js";
import { ACTION } from "./protocol.js";
import { getState } from "./store.js";

const match = () => getState().match;

/** The seat whose view the page shows: the replay's chosen view, the tutorial's player, or this browser's seat
 *  (-1: a spectator). */
export function viewerOf() {
  const s = match();
  return s.replay ? s.replay.view : s.tutorial ? 0 : s.seat;
}

/** The observation on screen: the replay's step, or the match's latest shown state. */
export function currentObs() {
  const s = match();
  return s.replay ? s.replay.data.observation : s.obs;
}

export function who(player, viewer) {
  if (player === null || player === undefined || player < 0) return "nobody";
  if (viewer >= 0) return player === viewer ? "you" : "them";
  return "player " + player;
}

export function seatName(p) {
  const s = match();
  if (s.tutorial) return p === 0 ? "You" : "Them — tutorial";
  const seat = s.meta && s.meta.seats[p];
  const label = seat && seat.kind === "bot" ? "bot (" + seat.bot + ")" : seat && seat.replaced ?
    "bot standing in (" + seat.bot + ")" : "player " + p;
  const viewer = viewerOf();
  if (viewer >= 0) return (p === viewer ? "You" : "Them — " + label);
  return cap(label);
}

/** Players in the order this viewer reads them: you first, then them (player 0 first for spectators). */
export function order(viewer) { return viewer >= 0 ? [viewer, 1 - viewer] : [0, 1]; }

/** Two numbers of the players as this viewer reads them: "you 1 – 0 them", "P0 1 – 0 P1". */
export function pair(values, viewer, sep) {
  const [a, b] = order(viewer);
  return viewer >= 0 ? "you " + values[a] + sep + values[b] + " them" : "P0 " + values[0] + sep + values[1] + " P1";
}

export const colorClass = (skillset) => "col-" + lower(match().colors[skillset] || "grey");

export function keywordOf(skillset) {
  for (const c of Object.values(match().cards)) if (c.skillset === skillset) return c.keyword;
  return "other";
}

export const isCardAction = (id) => id < ACTION.CARDS;
export const isDone = (choice) => choice.id === ACTION.DONE;

/** The tutorial's current step (an instruction, and the move it expects or null). */
export function currentStep() {
  const t = match().tutorial;
  return t.script.steps[t.step] || { expect: null, text: "" };
}

/** The step that says what to do now: the next one while a card is held. */
export function instructionStep() {
  const s = match();
  return s.staged ? s.tutorial.script.steps[s.tutorial.step + 1] : currentStep();
}

/** Whether the decision on screen is this page's to make now. */
export function myDecision(obs) {
  const s = match();
  const d = obs && obs.decision;
  if (!d || !d.legal_actions || s.replay || s.roundView || s.queue.length || !s.meta) return false;
  if (!s.tutorial && (s.meta.status !== "active" || s.pending)) return false;
  if (s.tutorial && (s.tutorial.done || currentStep().expect === null)) return false;
  return d.player === viewerOf();
}

/** In the tutorial only the move the instruction asks for may be made. */
export function allowed(actionId) {
  if (!match().tutorial) return true;
  const step = instructionStep();
  return !!step && step.expect === actionId;
}

/** The legal actions of this page's decision, by the card they choose ({} when it is not ours). */
export function legalCards(obs) {
  const out = {};
  if (!myDecision(obs) || match().staged) return out;
  for (const a of obs.decision.legal_actions) if (isCardAction(a.id) && allowed(a.id)) out[a.action] = a;
  return out;
}

/** Whether the strong bot suggests this action (the first of the hint's options). */
export function suggested(actionId) {
  const h = match().hint;
  return !!(h && h.options && h.options.length && h.options[0].action === actionId);
}

export function clockOf() {
  const s = match();
  return s.replay ? s.replay.data.clock : s.meta && s.meta.clock;
}

/** A player's time left now, in ms (the running clock counts down from when the state came), or null. */
export function clockLeft(p) {
  const c = clockOf();
  if (!c) return null;
  let left = c.left_ms[p];
  if (left === null || left === undefined) return null;
  if (c.running === p && !match().replay) left -= performance.now() - match().receivedAt;
  return left;
}
