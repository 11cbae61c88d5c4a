// The page's one state object, changed only by the functions below. Each change replaces the area it touches
// with a new frozen object (so a view that tried to write the state would fail loudly, in strict mode) and then
// tells every subscriber its name: subscribe((change, state) => ...). Views read getState(); controllers
// (match.js, lobby.js, tutorial.js, puzzles.js, replay.js) call these functions with what the server said.
//
// What is not here is not the page's state but a view's bookkeeping (which decision the focus was put on, the
// favicon shown last, a toast's timer, a request in flight on one button): it stays in that view's module.

import { EVENT } from "./protocol.js";

const freeze = Object.freeze;

const LOBBY = freeze({
  me: null,                // the player this browser is (/api/me), null: nobody yet
  tables: freeze([]),      // the open public tables
  myTables: freeze([]),    // the ids of my own open tables
  ownTable: null,          // {id, open}: the table I opened from this page
  quick: freeze({
    searching: false,      // a quick match was asked for and is not over
    clock: null,           // the clock it was asked with (asked again after a reconnection)
    inQueue: false,        // the server queued me (I may leave)
    status: null,          // what the status line says: {kind, ...}
    offer: null,           // {bot, rating, accepted}: a bot offered instead of a human
  }),
});

const MATCH = freeze({
  id: null,
  token: null,             // this browser's seat token for the match (null: a spectator)
  autoOpen: null,          // "replay" or "review": the page was opened to show it once the match is over
  linked: false,           // this browser's player was recorded as playing this seat
  connection: null,        // "connected", "watching", "reconnecting" or "elsewhere" (another window plays)
  missing: false,          // the server has no such match
  seat: -1,
  bannedSeat: -1,          // the seat this page played until its player was banned (it now watches)
  meta: null,              // the match's public metadata: seats, status, clock, hints, result...
  cards: freeze({}),       // card id -> printed card
  colors: freeze({}),      // skillset -> colour name
  obs: null,               // the observation shown (every event so far)
  seq: 0,                  // the number of actions of the observation shown
  next: freeze({}),        // action id -> the choice it opens (it may be held and taken back)
  receivedAt: 0,           // when the shown observation came (clocks run from then)
  queue: freeze([]),       // states received and not shown yet (the opponent's moves, one at a time)
  staged: null,            // {action, follow, card}: a choice held in this page, not sent yet
  pending: false,          // actions sent and not all acknowledged yet
  pendingCount: 0,         // how many of them the states to come still acknowledge
  roundView: null,         // the summary of a round that just ended, shown until the player continues
  rounds: freeze([]),      // the summaries of the finished rounds
  lastTurn: null,          // the summary of the latest end of turn
  turnFresh: false,        // the latest end of turn happened since the last play
  hint: null,              // {seq, options} or {seq, loading: true}
  replay: null,            // {step, total, view, data}: a finished match replayed step by step
  review: null,            // {status, doc, practise, picked}: this seat's review (practise: the marked decision
                           // chosen again, the replay showing it; picked: the option tried there)
  tutorial: null,          // {script, step, seen, done, waiting}
  puzzle: null,            // {doc, actions, status, result, final, stale}: a puzzle played in the page (doc: the
                           // puzzle as the server sent it; actions: the mover's steps so far; status: "playing", "solved"
                           // or "failed"; result: the server's verdict once it is over; final: the summary of the
                           // round that ended; stale: no summary came, the board is the one before the last step)
});

const PUZZLES = freeze({
  dashboard: null,         // /api/puzzles/dashboard: my puzzle rating, streak, and per theme tried and solved
  themes: freeze([]),      // /api/puzzles/themes: [{key, name, count}]
  theme: "",               // the theme the next puzzle is chosen from ("": any)
  missing: null,           // why no puzzle is shown (none left, no such puzzle), or null
});

const GALLERY = freeze({
  doc: null,               // /api/cards: every card the server plays, by skillset
  filters: freeze({ set: "", keyword: "", q: "", decks: "" }),  // which of them the page shows (its address says it too)
});

const CHAT = freeze({
  room: null,              // "players", "spectators" or "lobby": the room this page reads
  lines: freeze([]),       // its last lines, oldest first
  on: null,                // my typed chat is on (null: not known, or no player yet)
});
const CHAT_KEPT = 100;     // the lines a page keeps

let state = freeze({ lobby: LOBBY, match: MATCH, chat: CHAT, puzzles: PUZZLES, gallery: GALLERY });
const subscribers = new Set();

export const getState = () => state;

/** Call `fn(change, state)` after every change; returns the function that stops it. */
export function subscribe(fn) {
  subscribers.add(fn);
  return () => subscribers.delete(fn);
}

function commit(change, area, fields) {
  state = freeze({ ...state, [area]: freeze({ ...state[area], ...fields }) });
  for (const fn of subscribers) fn(change, state);
}
const setMatch = (change, fields) => commit(change, "match", fields);
const setLobby = (change, fields) => commit(change, "lobby", fields);
const setChat = (change, fields) => commit(change, "chat", fields);
const setPuzzles = (change, fields) => commit(change, "puzzles", fields);
const setGallery = (change, fields) => commit(change, "gallery", fields);
const setQuick = (change, fields) => setLobby(change, { quick: freeze({ ...state.lobby.quick, ...fields }) });

// ------------------------------------------------------------------ the lobby

export function playerKnown(player, tables) {
  const mine = (tables || []).map((t) => t.id);
  setLobby("playerKnown", { me: player, myTables: freeze([...new Set([...state.lobby.myTables, ...mine])]) });
}
export const tablesListed = (tables) => setLobby("tablesListed", { tables: freeze(tables) });
export const tableOpened = (id) => setLobby("tableOpened", {
  ownTable: freeze({ id, open: true }), myTables: freeze([...state.lobby.myTables, id]) });
export const tableClosed = () => setLobby("tableClosed", { ownTable: freeze({ ...state.lobby.ownTable, open: false }) });

export const quickAsked = (clock) => setQuick("quickAsked", { searching: true, clock, status: freeze({ kind: "looking" }) });
export const quickQueued = (msg) => setQuick("quickQueued", {
  inQueue: true, status: freeze({ kind: "waiting", rating: msg.rating, botAfter: msg.bot_after_s }) });
export const quickLeft = () => setQuick("quickLeft", {
  searching: false, inQueue: false, offer: null, status: freeze({ kind: "left" }) });
export const botOffered = (msg) => setQuick("botOffered", {
  offer: freeze({ bot: msg.bot, rating: msg.bot_rating, accepted: false }), status: freeze({ kind: "offered" }) });
export const botAccepted = () => setQuick("botAccepted", { offer: freeze({ ...state.lobby.quick.offer, accepted: true }) });
export const quickMatched = (opponent) => setQuick("quickMatched", {
  status: freeze({ kind: "found", name: opponent && opponent.name ? opponent.name : null }) });
/** The lobby refused a request: Quick match may be pressed again. */
export const lobbyRefused = () => setQuick("lobbyRefused", { searching: false });

// ------------------------------------------------------------------ chat

/** The room this page reads, known at the welcome (the server then sends its last lines, if it has any). */
export const chatRoom = (room) => setChat("chatRoom", room === state.chat.room ? {} : { room, lines: freeze([]) });
/** The room's last lines (after the welcome: a reconnection sends them again, whole). */
export const chatLines = (room, lines) => setChat("chatLines", { room, lines: freeze(lines.slice(-CHAT_KEPT)) });
export const chatLine = (room, line) => setChat("chatLine", {
  room, lines: freeze([...state.chat.lines, line].slice(-CHAT_KEPT)) });
export const chatSettings = (doc) => setChat("chatSettings", { on: doc.on });
/** I muted the sender of `line`: their lines go (by name; an anonymous sender's, that line). */
export const chatSenderMuted = (line) => setChat("chatSenderMuted", { lines: freeze(state.chat.lines.filter((l) =>
  l.id !== line.id && (l.mine || line.name === null || l.name !== line.name))) });

// ------------------------------------------------------------------ a match: the connection

export const matchOpened = (id, token, autoOpen) => setMatch("matchOpened", { id, token, autoOpen });
/** The token holds no seat in this match: this page watches instead. */
export const tokenRefused = () => setMatch("tokenRefused", { token: null });
/** This page's player was banned: its seat is refused (it watches), and the page still knows whose it was. */
export const seatBanned = () => setMatch("seatBanned", {
  token: null, bannedSeat: state.match.seat >= 0 ? state.match.seat : state.match.bannedSeat });
/** A new key to this device's player's seat (signed in again): this page plays with it. */
export const tokenGiven = (token) => setMatch("tokenGiven", { token });
export const matchMissing = () => setMatch("matchMissing", { missing: true });
export const seatLinked = () => setMatch("seatLinked", { linked: true });
export const autoOpened = () => setMatch("autoOpened", { autoOpen: null });

/** The connection closed: `connection` says whether the page tries again ("reconnecting") or another window
 *  plays ("elsewhere"). What was being sent is not waited for any more. */
export const disconnected = (connection) => setMatch("disconnected", { connection, pending: false });

export function welcomed(msg) {
  const rounds = freeze(msg.rounds || []);
  const over = msg.match.status === "over" && rounds.length;
  setMatch("welcomed", {
    seat: msg.seat, meta: msg.match, cards: freeze(Object.fromEntries(msg.cards.map((c) => [c.id, c]))),
    colors: freeze(msg.colors), obs: msg.observation, seq: msg.seq, next: msg.next || {}, rounds,
    lastTurn: msg.last_turn || null, queue: freeze([]), staged: null, pending: false, pendingCount: 0,
    connection: msg.seat >= 0 ? "connected" : "watching", receivedAt: performance.now(),
    roundView: over ? rounds[rounds.length - 1] : state.match.roundView,
  });
}

/** A state arrived: it waits in the queue until the page shows it (showNextState). */
export const stateQueued = (msg) => setMatch("stateQueued", { queue: freeze([...state.match.queue, msg]) });

/** The ends of turn a state brings: the latest, whether it is fresh, the finished rounds, a round's end. */
function turnsOf(s, fresh, turns) {
  let { lastTurn, turnFresh, rounds, roundView } = s;
  if (fresh.some((e) => e.kind === EVENT.PLAY || e.kind === EVENT.PASS)) turnFresh = false;
  for (const t of turns || []) {
    lastTurn = t;
    turnFresh = true;
    if (t.round_end) {
      rounds = freeze([...rounds, t]);
      roundView = t;
    }
  }
  return { lastTurn, turnFresh, rounds, roundView };
}

/** Show the oldest queued state; returns it. Its observation holds only the events from `events_from` on. */
export function showNextState() {
  const s = state.match;
  const [msg, ...rest] = s.queue;
  const fresh = msg.observation.events;
  const events = (s.obs ? s.obs.events.slice(0, msg.events_from) : []).concat(fresh);
  let { pending, pendingCount, staged, hint } = s;
  if (pendingCount > 0) {  // (the page asked for no ack messages: each state after an action acknowledges it)
    pendingCount -= 1;
    if (pendingCount === 0) { pending = false; staged = null; }
  }
  if (hint && hint.seq !== msg.seq) hint = null;
  setMatch("stateShown", {
    queue: freeze(rest), obs: { ...msg.observation, events }, meta: msg.match, seq: msg.seq, next: msg.next || {},
    receivedAt: performance.now(), pending, pendingCount, staged, hint, ...turnsOf(s, fresh, msg.turns),
  });
  return msg;
}

export const metaChanged = (meta) => setMatch("metaChanged", { meta, receivedAt: performance.now() });
export const rematchCreated = (id) => setMatch("rematchCreated", {
  meta: state.match.meta && freeze({ ...state.match.meta, rematch_id: id }) });

/** The server refused a message: nothing is held or waited for any more. */
export function refused() {
  const hint = state.match.hint && state.match.hint.loading ? null : state.match.hint;
  setMatch("refused", { pending: false, pendingCount: 0, staged: null, hint });
}

// ------------------------------------------------------------------ a match: the player's choices

/** Hold a choice that only opens another (it is sent with the second, or taken back). */
export const held = (action, follow, card) => setMatch("held", { staged: freeze({ action, follow, card }) });
export const letGo = () => setMatch("letGo", { staged: null });
export const actionsSent = (count) => setMatch("actionsSent", { pending: true, pendingCount: count });
export const hintAsked = () => setMatch("hintAsked", { hint: freeze({ seq: state.match.seq, loading: true }) });
export function hintArrived(msg) {
  if (!state.match.hint || state.match.hint.seq !== msg.seq) return;  // a hint for a decision already gone
  setMatch("hintArrived", { hint: freeze({ seq: msg.seq, options: msg.options, verdict: msg.verdict }) });
}
export const roundContinued = () => setMatch("roundContinued", { roundView: null, turnFresh: false });

// ------------------------------------------------------------------ a match: replay

export const replayShown = (data, view) => setMatch("replayShown", {
  replay: freeze({ step: data.step, total: data.total, view, data }), roundView: null });
export const replayClosed = () => setMatch("replayClosed", { replay: null });

// ------------------------------------------------------------------ a match: its review

/** The server's answer about this seat's review: {status, seat, review}. */
export const reviewShown = (got) => setMatch("reviewShown", {
  review: freeze({ status: got.status, doc: got.review, practise: null, picked: null, ...practiceOf(got) }) });
/** Keep the practice going when the same review comes again. */
const practiceOf = (got) => (state.match.review && state.match.review.doc && got.review ?
  { practise: state.match.review.practise, picked: state.match.review.picked } : {});
/** Practise the k-th marked decision (null: back to the review, the table back to the match's end). */
export const reviewPractised = (k) => setMatch("reviewPractised", {
  review: freeze({ ...state.match.review, practise: k, picked: null }), ...(k === null ? { replay: null } : {}) });
export const reviewPicked = (action) => setMatch("reviewPicked", { review: freeze({ ...state.match.review, picked: action }) });
export const reviewClosed = () => setMatch("reviewClosed", { review: null, replay: null });

// ------------------------------------------------------------------ the tutorial (played in the page)

export function tutorialLoaded(script) {
  setMatch("tutorialLoaded", {
    seat: script.seat, cards: freeze(Object.fromEntries(script.cards.map((c) => [c.id, c]))),
    colors: freeze(script.colors),
    meta: freeze({ status: "active", seats: [{ kind: "human" }, { kind: "bot", bot: "tutorial" }], mode: "tutorial",
                   clock: null, hints: null }),
    tutorial: freeze({ script, step: 0, seen: script.start.observation.events.length, done: false, waiting: false }),
    obs: script.start.observation, next: script.start.next, seq: 0,
  });
}

const setTutorial = (change, fields, more) => setMatch(change, { ...more, tutorial: freeze({ ...state.match.tutorial, ...fields }) });

/** The fields a tutorial state changes (as a state from the server would), and the events it brings. */
function tutorialState(s, t, played) {
  const fresh = played.observation.events.slice(t.seen);
  return [fresh, { obs: played.observation, seq: played.seq, next: played.next || {}, ...turnsOf(s, fresh, played.turns) }];
}

/** The player made the moves the script expects (a held card and its follow-up: two steps): show their states
 *  and move on to the next instruction. Returns the events they brought. */
export function tutorialPlayed(actions) {
  const s = state.match;
  let t = s.tutorial;
  let fields = {};
  let events = [];
  actions.forEach((_action, k) => {
    const [fresh, changed] = tutorialState({ ...s, ...fields }, t, t.script.steps[t.step].state);
    fields = { ...fields, ...changed };
    events = events.concat(fresh);
    t = { ...t, seen: changed.obs.events.length, step: t.step + 1 };
  });
  setTutorial("tutorialStepped", t, { ...fields, staged: null });
  return events;
}

/** Move on to the next instruction (after a pause, or a note read). */
export const tutorialStepped = () => setTutorial("tutorialStepped", { step: state.match.tutorial.step + 1 }, { staged: null });
/** The scripted opponent is about to move (after a readable pause). */
export const tutorialWaiting = () => setTutorial("tutorialWaiting", { waiting: true });
/** The scripted opponent's move: its state, then the next step. Returns the events it brought. */
export function tutorialOpponentMoved() {
  const s = state.match;
  const t = s.tutorial;
  const [fresh, changed] = tutorialState(s, t, t.script.steps[t.step].state);
  setTutorial("tutorialStepped", { seen: changed.obs.events.length, step: t.step + 1, waiting: false }, changed);
  return fresh;
}
export const tutorialFinished = () => setTutorial("tutorialFinished", { done: true });

// ------------------------------------------------------------------ a puzzle (played in the page, judged by the server)

/** A puzzle to solve: its position as the mover saw it at the table (the page plays the mover's seat). */
export function puzzleLoaded(doc) {
  const seats = [{ kind: "human" }, { kind: "human" }];
  setMatch("puzzleLoaded", {
    id: doc.id, seat: doc.seat, cards: freeze(Object.fromEntries(doc.cards.map((c) => [c.id, c]))),
    colors: freeze(doc.colors),
    meta: freeze({ status: "active", seats, mode: "puzzle", clock: null, hints: null }),
    obs: doc.state.observation, next: doc.state.next || {}, seq: doc.state.seq, receivedAt: performance.now(),
    queue: freeze([]), staged: null, pending: false, pendingCount: 0, roundView: null, rounds: freeze([]),
    lastTurn: null, turnFresh: false, hint: null, replay: null, review: null, tutorial: null, missing: false,
    puzzle: freeze({ doc, actions: freeze([]), status: "playing", result: null, final: null }),
  });
  setPuzzles("puzzleShown", { missing: null });
}

/** The mover's steps so far (with the new ones) went to the server to be judged. */
export const puzzleSent = () => setMatch("puzzleSent", { pending: true });

/** The server's judgement of the steps `actions`: the position after them and the opponent's replies, and once
 *  the puzzle is over, the verdict. A round that ended shows its final board (`final`: its summary). */
export function puzzleAnswered(actions, answer) {
  const s = state.match;
  const st = answer.state;
  const fresh = st.observation.events.slice(s.obs ? s.obs.events.length : 0);
  const turns = turnsOf(s, fresh, st.turns);
  const ended = (st.turns || []).find((t) => t.round_end) || null;
  const over = answer.status !== "playing";
  const dealt = over && !ended && s.obs && st.observation.round !== s.obs.round;
  setMatch("puzzleAnswered", {
    obs: dealt ? roundEnd(s.obs, st.observation) : st.observation, next: st.next || {}, seq: st.seq, receivedAt: performance.now(), staged: null,
    pending: false, lastTurn: turns.lastTurn, turnFresh: turns.turnFresh,
    puzzle: freeze({ ...s.puzzle, actions: freeze(actions.slice()), status: answer.status,
                     result: answer.result || null, final: ended, stale: dealt }),
  });
}

/** A round that ended and was dealt again, with no summary of its final board: the board before the last step,
 *  with what happened to the round's end (the next deal is not the puzzle's). */
function roundEnd(before, after) {
  const i = after.events.findIndex((e, k) => k >= before.events.length && e.kind === EVENT.ROUND_START);
  return { ...before, decision: null, events: i < 0 ? after.events : after.events.slice(0, i) };
}

/** The server refused the steps (or could not be reached): the position stays, nothing is held. */
export const puzzleRefused = () => setMatch("puzzleRefused", { pending: false, staged: null });

/** No puzzle to show: `why` says so. */
export const puzzleMissing = (why) => setPuzzles("puzzleMissing", { missing: why });
export const puzzleDashboard = (doc) => setPuzzles("puzzleDashboard", { dashboard: freeze(doc) });
export const puzzleThemes = (themes) => setPuzzles("puzzleThemes", { themes: freeze(themes) });
export const puzzleThemeChosen = (key) => setPuzzles("puzzleThemeChosen", { theme: key });

// ------------------------------------------------------------------ the card gallery (/cards)

/** Every card the server plays, shown by `filters`. The gallery draws them with the table's own card, which reads
 *  the printed cards and the skillsets' colours where a match keeps them. */
export function galleryLoaded(doc, filters) {
  const cards = doc.skillsets.flatMap((s) => s.cards);
  setMatch("galleryCards", { cards: freeze(Object.fromEntries(cards.map((c) => [c.id, c]))),
                             colors: freeze(Object.fromEntries(doc.skillsets.map((s) => [s.name, s.color]))) });
  setGallery("galleryLoaded", { doc: freeze(doc), filters: freeze({ ...GALLERY.filters, ...filters }) });
}
export const galleryFiltered = (filters) => setGallery("galleryFiltered", { filters: freeze({ ...state.gallery.filters, ...filters }) });
