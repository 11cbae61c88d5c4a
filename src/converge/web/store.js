// The page's one state object, changed only by the functions below. Each change replaces the area it touches
// with a new frozen object (so a view that tried to write the state would fail loudly, in strict mode) and then
// tells every subscriber its name: subscribe((change, state) => ...). Views read getState(); controllers
// (lobby.js) call these functions with what the server said.
//
// What is not here is not the page's state but a view's bookkeeping (which decision the focus was put on, the
// favicon shown last, a toast's timer, a request in flight on one button): it stays in that view's module.

const freeze = Object.freeze;

const LOBBY = freeze({
  me: null,                // the player this browser is (/api/me), null: nobody yet
  tables: freeze([]),      // the open public tables
  myTables: freeze([]),    // the ids of my own open tables
  ownTable: null,          // {id, open}: the table I opened from this page
  quick: freeze({
    searching: false,      // a quick match was asked for and is not over
    inQueue: false,        // the server queued me (I may leave)
    status: null,          // what the status line says: {kind, ...}
    offer: null,           // {bot, rating, accepted}: a bot offered instead of a human
  }),
});

let state = freeze({ lobby: LOBBY });
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
const setLobby = (change, fields) => commit(change, "lobby", fields);
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

export const quickAsked = () => setQuick("quickAsked", { searching: true, status: freeze({ kind: "looking" }) });
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
