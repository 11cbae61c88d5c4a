// What the views read of a match's state beyond its fields: whose eyes the page shows the table through, how
// players and seats are named for this viewer, which choices are this page's to make.

import { cap, lower } from "./dom.js";
import { ACTION, EVENT } from "./protocol.js";
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

/** How the table names a seat's player: their name, a bot by its level ("Hard bot"), or "Player 1" / "Player 2"
 *  (an anonymous player: seats counted from 1, as players count). */
export function playerName(p) {
  const s = match();
  if (s.tutorial) return p === 0 ? "You" : "Your opponent";
  if (s.puzzle) return p === s.seat ? "You" : "Your opponent";
  const seat = s.meta && s.meta.seats[p];
  if (!seat) return "Player " + (p + 1);
  if (seat.replaced) return seat.name ? seat.name + " (a bot stands in)" : "A bot standing in";
  if (seat.name) return seat.name;
  if (seat.kind === "bot") return "The bot";
  return s.meta.mode === "friend" && s.seat >= 0 && p !== s.seat ? "Your friend" : "Player " + (p + 1);
}

/** The name whose profile a seat's player has: a named person in the seat (not a bot, nor a bot standing in,
 *  nor an anonymous player); null otherwise. */
export function profileNameOf(p) {
  const s = match();
  const seat = !s.tutorial && !s.puzzle && s.meta && s.meta.seats[p];
  return seat && seat.kind === "human" && seat.name && !seat.replaced ? seat.name : null;
}

/** A seat's rating as players read it ("1512", "1500?": still uncertain), or null. */
export function ratingOf(p) {
  const s = match();
  const seat = !s.tutorial && !s.puzzle && s.meta && s.meta.seats[p];
  if (!seat || seat.rating === null || seat.rating === undefined || seat.replaced) return null;
  return seat.rating + (seat.provisional ? "?" : "");
}

/** A player in running text for this viewer: "you", or the other player's name. */
export function who(player, viewer) {
  if (player === null || player === undefined || player < 0) return "nobody";
  if (viewer >= 0 && player === viewer) return "you";
  if (match().tutorial || match().puzzle) return "them";
  return playerName(player);
}

/** A seat's heading at the table: "You", or the name with the rating ("Bob · 1512"). */
export function seatName(p) {
  const viewer = viewerOf();
  if (viewer >= 0 && p === viewer) return "You";
  const rating = ratingOf(p);
  return playerName(p) + (rating ? " · " + rating : "");
}

/** A sentence of the server's for this viewer, with the seats named: a spectator's "Player 0 adds…" reads
 *  "Ada adds…", and a goal's "P0 2 vs P1 1" (the engine's short names) "Ada 2 vs Bob 1" (a player's sentences
 *  say "you" and "they" already). */
export function named(text) {
  if (viewerOf() >= 0 || match().tutorial || !text) return text;
  return text.replace(/\b(?:[Pp]layer |P)([01])\b/g, (_m, n) => playerName(Number(n)));
}

/** Players in the order this viewer reads them: you first, then them (player 0 first for spectators). */
export function order(viewer) { return viewer >= 0 ? [viewer, 1 - viewer] : [0, 1]; }

/** Two numbers of the players as this viewer reads them: "you 1 – 0 Bob", "Ada 1 – 0 Bob". */
export function pair(values, viewer, sep) {
  const [a, b] = order(viewer);
  return who(a, viewer) + " " + values[a] + sep + values[b] + " " + who(b, viewer);
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

/** A puzzle being played in the page, and not over: its mover plays on. */
export const puzzlePlaying = () => !!(match().puzzle && match().puzzle.status === "playing");

/** A finished puzzle's round that ended: its summary (the final board), or null. */
export const puzzleFinal = () => (match().puzzle && match().puzzle.final && match().puzzle.final.board ? match().puzzle.final : null);

/** Whether the decision on screen is this page's to make now. */
export function myDecision(obs) {
  const s = match();
  const d = obs && obs.decision;
  if (!d || !d.legal_actions || s.replay || s.roundView || s.queue.length || !s.meta) return false;
  if (!s.tutorial && (s.meta.status !== "active" || s.pending)) return false;
  if (s.tutorial && (s.tutorial.done || currentStep().expect === null)) return false;
  if (s.puzzle && s.puzzle.status !== "playing") return false;
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

/** The hint's options for the choice on screen, the best chance first: the decision's own, or, once a card
 *  is held, how to play it — from the same search, so that the steps of one play agree. Null: no hint. */
export function hintOptions() {
  const s = match();
  const h = s.hint;
  if (!h || !h.options) return null;
  if (!s.staged) return h.options;
  const held = h.options.find((o) => o.action === s.staged.action);
  return held && held.then && held.then.length ? held.then : null;
}

/** The hint in a sentence for the choice on screen: the server's words for the decision's own options (the
 *  best, or those about equal to it, and the chance in words); once a card is held, how to play it best. */
export function hintVerdict() {
  const s = match();
  const options = hintOptions();
  if (!options) return "";
  if (!s.staged) return s.hint.verdict;
  return "To play the card you hold, “" + options[0].label + "” has the best chance (" +
    Math.round(options[0].win_chance * 100) + "%).";
}

/** Whether the hint gives this action the best chance (the first of its options for the choice on screen). */
export function suggested(actionId) {
  const options = hintOptions();
  return !!(options && options.length && options[0].action === actionId);
}

export function clockOf() {
  const s = match();
  return s.replay ? s.replay.data.clock : s.meta && s.meta.clock;
}

/** A turn-based match in progress: {move_s, deadline, running} (null otherwise, and in a replay). */
export function turnOf() {
  const s = match();
  return !s.replay && s.meta && s.meta.turn && s.meta.turn.deadline ? s.meta.turn : null;
}

/** A turn-based match's time left to its player to move, in ms (the server's deadline, this device's clock). */
export function turnLeft(turn) {
  return turn.deadline * 1000 - Date.now();
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

/** What the other player did since this viewer's last play, in this round (a spectator: the latest play and
 *  what followed): {player, events, cards}, or null. Shown at the decision, its cards marked on the board. */
const MOVE_KINDS = [EVENT.PLAY, EVENT.PASS, EVENT.RESOLVE, EVENT.MOVE, EVENT.CONVERT, EVENT.GUARD, EVENT.REVEAL, EVENT.SEARCH];
export function lastMove(obs) {
  if (!obs || !obs.events) return null;
  const viewer = viewerOf();
  const events = obs.events;
  let from = 0;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.kind === EVENT.ROUND_START) { from = i + 1; break; }
    if ((e.kind === EVENT.PLAY || e.kind === EVENT.PASS) && (viewer < 0 ? true : e.player === viewer)) {
      from = viewer < 0 ? i : i + 1;
      break;
    }
  }
  const theirs = events.slice(from).filter((e) => MOVE_KINDS.includes(e.kind) && e.player !== null && e.player !== viewer && e.text);
  if (!theirs.length) return null;
  const cards = [];
  for (const e of theirs) if (e.card && !cards.includes(e.card)) cards.push(e.card);
  return { player: theirs[0].player, events: theirs, cards };
}

/** The cards the other player's last move touched (marked on the board until this viewer's next play). */
let touchedFor = null;  // [observation, viewer, the set]: one reading per state shown
export function touchedCards() {
  const s = match();
  if (s.replay || s.roundView) return new Set();
  const obs = currentObs();
  const viewer = viewerOf();
  if (!touchedFor || touchedFor[0] !== obs || touchedFor[1] !== viewer) {
    const m = lastMove(obs);
    touchedFor = [obs, viewer, new Set(m ? m.cards : [])];
  }
  return touchedFor[2];
}
