// A match as this page plays or watches it: its socket and what the server's messages change, the states shown
// one at a time, and the player's commands (choose, take back, ask a hint, continue, rematch). Views call the
// commands; the store tells the views what changed.

import { seatKey } from "./account.js";
import { chatPanel } from "./chat.js";
import { announce, toast } from "./dom.js";
import { CLOSE, ERROR, EVENT, MATCH_TO_CLIENT, MATCH_TO_SERVER } from "./protocol.js";
import { startReplay } from "./replay.js";
import { startReview } from "./review.js";
import { isCardAction } from "./selectors.js";
import { forgetToken, loadToken, pace, saveToken } from "./storage.js";
import * as store from "./store.js";
import { api, matchSocket, sendActions } from "./transport.js";
import { puzzleAct } from "./puzzles.js";
import { tutorialAct } from "./tutorial.js";

const match = () => store.getState().match;
let socket = null;
let pumping = false;  // a pump() is showing the queued states
let fromLink = false;  // the seat's token came with the link (#token=...), not from this device
let signedOut = false;  // the server closed this page's seat: its player signed out everywhere
let keyAsked = false;  // a refused seat asked once for a new key (this device signed in again)

/** Open the match `id`: with the seat token of the link's fragment (#token=..., which browsers never send to a
 *  server), the one this browser keeps, or — a player signed in on this device who plays a seat here — a new
 *  key to their seat; #replay opens the replay once the match is over, #review the review. */
export async function openMatch(id) {
  const frag = new URLSearchParams(location.hash.slice(1));
  const linked = frag.get("token");
  if (linked) {
    saveToken(id, linked);
    history.replaceState(null, "", location.pathname);  // keep the token out of sight (and of screenshots)
  }
  fromLink = !!linked;
  const autoOpen = frag.has("review") ? "review" : frag.has("replay") ? "replay" : null;
  if (autoOpen) history.replaceState(null, "", location.pathname);
  store.matchOpened(id, linked || loadToken(id) || await seatKey(id), autoOpen);
  socket = matchSocket(id, () => match().token, { message: onMessage, closed: onClose });
  socket.open();
}

/** Send a message on the match's socket; says so when it cannot. */
function send(doc) {
  if (socket && socket.send(doc)) return true;
  toast("Not connected; reconnecting…");
  return false;
}

/** The seat's token holds it no more (or never did): a device signed in again gets a new key to its player's
 *  seat and plays on; otherwise the page watches, and says why. This device's token, revoked by a sign-out
 *  everywhere, is kept (opened again, the page says why again) until a new key replaces it; a link's that never
 *  held a seat is forgotten. */
async function seatRefused(id) {
  const kept = !fromLink || signedOut;
  if (!kept) forgetToken(id);
  const key = kept && !keyAsked ? await seatKey(id) : null;
  keyAsked = true;
  if (key) {
    store.tokenGiven(key);
  } else {
    store.tokenRefused();
    toast(kept ? "This device is signed out of this match (Sign out everywhere), so you are watching: sign in again " +
                 "on the home page to play it."
               : "This link does not hold a seat in this match; you are watching.");
  }
  socket.open();
}

/** The connection closed: whether to connect again. */
function onClose(ev) {
  const s = match();
  if (ev.code === CLOSE.UNAUTHORIZED) {  // the token holds no seat here (any more): a new key, or watch
    store.disconnected("reconnecting");
    seatRefused(s.id);
    return false;
  }
  if (ev.code === CLOSE.FORBIDDEN) {  // this player is banned here: the seat is refused, watching is not
    store.seatBanned();
    toast("This server's hosts banned this player: you may watch, not play.");
  }
  if (ev.code === CLOSE.REPLACED) {  // this seat connected again elsewhere (another tab or device): that one plays
    store.disconnected("elsewhere");  // (reconnecting here would in turn close that one, and so on)
    return false;
  }
  if (ev.code === CLOSE.NOT_FOUND) {
    store.disconnected(s.connection);
    store.matchMissing();
    return false;
  }
  store.disconnected(socket.stopped ? s.connection : "reconnecting");
  return true;
}

function onMessage(msg) {
  switch (msg.type) {
    case MATCH_TO_CLIENT.WELCOME: {
      socket.welcomed();
      store.welcomed(msg);
      store.chatRoom(msg.seat >= 0 ? "players" : "spectators");
      const s = match();
      if (s.autoOpen && s.meta.status === "over") {
        store.autoOpened();
        if (s.autoOpen === "review" && s.seat >= 0) startReview(); else startReplay();
      }
      if (s.seat >= 0 && s.token && !s.linked) { store.seatLinked(); linkSeat(); }
      break;
    }
    case MATCH_TO_CLIENT.STATE:
      store.stateQueued(msg);
      pump();
      break;
    case MATCH_TO_CLIENT.META:
      store.metaChanged(msg.match);
      break;
    case MATCH_TO_CLIENT.HINT:
      store.hintArrived(msg);
      break;
    case MATCH_TO_CLIENT.CHAT_LINES:
      store.chatLines(msg.room, msg.lines);
      break;
    case MATCH_TO_CLIENT.CHAT:
      store.chatLine(msg.room, msg.line);
      break;
    case MATCH_TO_CLIENT.REMATCH:
      if (match().token) {  // a seat: play the rematch (same seats, same tokens)
        saveToken(msg.match_id, match().token);
        socket.stayClosed();
        location.assign("/m/" + msg.match_id);
      } else {
        store.rematchCreated(msg.match_id);
      }
      break;
    case MATCH_TO_CLIENT.ERROR:
      store.refused();
      if (msg.code === ERROR.NOT_FOUND) { socket.stayClosed(); store.matchMissing(); return; }
      if (msg.code === ERROR.REPLACED) { socket.stayClosed(); return; }  // the close (REPLACED) says it on the page
      if (msg.code === ERROR.SIGNED_OUT) { signedOut = true; return; }  // the close (UNAUTHORIZED) says it
      if (msg.code !== ERROR.UNAUTHORIZED) toast(msg.message);
      break;
    default:  // ack (not asked for), pong
      break;
  }
}

/** Whether a state holds a move of the other player (or of a bot): shown for a moment before the next. */
const MOVES = [EVENT.PLAY, EVENT.PASS, EVENT.MOVE, EVENT.CONVERT, EVENT.GUARD];
function othersMove(events) {
  const seat = match().seat;
  return events.some((e) => e.player !== null && e.player !== seat && MOVES.includes(e.kind));
}

/** Show queued states one at a time: the opponent's moves stay on screen for a readable moment. A round's
 *  summary stops the show until the player continues. */
async function pump() {
  if (pumping) return;
  pumping = true;
  try {
    while (match().queue.length && !match().roundView) {
      const fresh = match().queue[0].observation.events;
      const seat = match().seat;
      // (said before the state is shown, so that a "Your turn" that showing it brings is said last)
      const others = fresh.filter((e) => e.player !== seat && e.player !== null && e.text).map((e) => e.text);
      if (others.length && seat >= 0) announce(others.join(" "));
      store.showNextState();
      const wait = othersMove(fresh) && match().queue.length ? pace() : 0;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  } finally {
    pumping = false;
  }
}

/** Tell the server that this browser's player plays this seat (a match reached by an invite link), so that it
 *  appears in their history; nothing happens for a visitor without a name. */
async function linkSeat() {
  try {
    const me = await api("GET", "/api/me");
    if (me.player) await api("POST", "/api/matches/" + match().id + "/players", {}, match().token);
  } catch (_) { /* not essential */ }
}

// ------------------------------------------------------------------ the player's commands

/** Choose an action: held when it only opens another choice of this player (nothing happens in between, so it
 *  can be taken back), else sent — with the held one first. */
export function act(actionId) {
  const s = match();
  if (s.pending || s.replay || s.roundView) return;
  const follow = s.next[String(actionId)];
  if (follow && !s.staged) {
    const legal = (s.obs.decision.legal_actions || []).find((a) => a.id === actionId);
    store.held(actionId, follow, legal && isCardAction(actionId) ? legal.action : null);
    return;
  }
  const actions = s.staged ? [s.staged.action, actionId] : [actionId];
  if (s.tutorial) { tutorialAct(actions); return; }
  if (s.puzzle) { puzzleAct(actions); return; }
  if (sendActions(socket, actions, s.seq) < actions.length) {
    toast("Not connected; reconnecting…");
    return;
  }
  store.actionsSent(actions.length);
}

export function takeBack() {
  const s = match();
  if (!s.staged || s.pending) return;
  store.letGo();
  announce("Taken back.");
}

export function askHint() {
  const s = match();
  if (!s.obs || s.pending) return;
  if (send({ type: MATCH_TO_SERVER.HINT })) store.hintAsked();
}

export function allowHints(allow) { send({ type: MATCH_TO_SERVER.HINTS, allow }); }
let chatBox = null;
/** The match's chat panel, made once (a line being typed survives the table's redraws). */
export function matchChat() {
  if (!chatBox) chatBox = chatPanel((doc) => send({ type: MATCH_TO_SERVER.CHAT, ...doc }));
  return chatBox;
}
export function requestRematch() { send({ type: MATCH_TO_SERVER.REMATCH }); }
/** Give up the match (the page asked first): the other player wins it. */
export function resign() { send({ type: MATCH_TO_SERVER.RESIGN }); }

/** Leave a round's summary for the next round (whose states waited meanwhile). */
export function continueRound() {
  store.roundContinued();
  pump();
}
