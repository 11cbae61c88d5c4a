// The home page's live part: who I am (a name, or anonymous), quick match, and the open tables — with the lobby's
// socket (/ws/lobby) that keeps the tables listed and carries the quick match's queue.

import { accountBox } from "./account.js";
import { chatPanel } from "./chat.js";
import { $, absolute, cap, el, profileUrl, ratingText, toast } from "./dom.js";
import { clockSelect, clockText, playsetPicker, timeControl } from "./forms.js";
import { LOBBY_TO_CLIENT, LOBBY_TO_SERVER } from "./protocol.js";
import { loadToken, saveInvite, saveToken } from "./storage.js";
import * as store from "./store.js";
import { Socket, api } from "./transport.js";

const lobby = () => store.getState().lobby;
let socket = null;
// The queue lives in the server process the socket reached: after a reconnection (that process restarted,
// or the network dropped) a page still looking for a match queues again.
let requeue = false;

// ------------------------------------------------------------------ the socket

export function connectLobby() {
  socket = new Socket("/ws/lobby", { hello: () => ({ type: LOBBY_TO_SERVER.HELLO }), message: onLobby, closed: onLobbyClosed });
  socket.open();
}

function onLobbyClosed() {
  const q = lobby().quick;
  requeue = q.searching && !(q.status && q.status.kind === "found");
  return true;
}

/** The lobby's chat panel. */
export function lobbyChat() {
  return chatPanel((doc) => lobbySend({ type: LOBBY_TO_SERVER.CHAT, ...doc }));
}

function lobbySend(doc) {
  if (socket && socket.send(doc)) return true;
  toast("Not connected to the lobby yet; try again in a moment.");
  return false;
}

function onLobby(msg) {
  switch (msg.type) {
    case LOBBY_TO_CLIENT.WELCOME:
      store.chatRoom("lobby");
      if (requeue) {
        requeue = false;
        lobbySend({ type: LOBBY_TO_SERVER.QUEUE, clock: lobby().quick.clock });
      }
    // falls through: a welcome lists the tables too
    case LOBBY_TO_CLIENT.TABLES:
      socket.welcomed();
      store.tablesListed(msg.tables);
      break;
    case LOBBY_TO_CLIENT.QUEUED:
      store.quickQueued(msg);
      break;
    case LOBBY_TO_CLIENT.UNQUEUED:
      store.quickLeft();
      break;
    case LOBBY_TO_CLIENT.BOT_OFFER:
      store.botOffered(msg);
      break;
    case LOBBY_TO_CLIENT.MATCHED:
      saveToken(msg.match_id, msg.token);
      store.quickMatched(msg.opponent);
      location.assign(msg.url);
      break;
    case LOBBY_TO_CLIENT.TABLE_STARTED:  // someone joined my table: play it (when this browser holds its seat)
      if (loadToken(msg.match_id)) location.assign(msg.url);
      break;
    case LOBBY_TO_CLIENT.CHAT_LINES:
      store.chatLines(msg.room, msg.lines);
      break;
    case LOBBY_TO_CLIENT.CHAT:
      store.chatLine(msg.room, msg.line);
      break;
    case LOBBY_TO_CLIENT.ERROR:
      toast(msg.message);
      store.lobbyRefused();
      break;
    default:
      break;
  }
}

/** Whether this browser is a player yet; says what to do first when it is not. */
function named() {
  if (lobby().me) return true;
  toast("Choose a name (or stay anonymous) first.");
  return false;
}

// ------------------------------------------------------------------ who I am

export function playerPanel(me) {
  const box = el("section", { class: "panel", "aria-labelledby": "h-you", data: { testid: "player-panel" } },
    el("h2", { id: "h-you", text: "You" }));
  const redraw = (doc) => {
    store.playerKnown(doc.player);
    box.replaceWith(playerPanel(doc));
    if (socket) socket.reopen();  // the lobby learns who is there from the new cookie
  };
  const input = el("input", { id: "player-name", maxlength: "20", autocomplete: "nickname",
                              placeholder: "3 to 20 letters or digits", "aria-describedby": "name-error",
                              data: { testid: "name-input" } });
  // Why a name was refused stays beside the form until the next try (a toast would fade before it is read).
  const refused = el("p", { id: "name-error", class: "form-error", role: "alert", hidden: true,
                            data: { testid: "name-error" } });
  const save = async (name, button) => {
    button.disabled = true;
    try {
      const doc = await api("PUT", "/api/me", { name });
      toast(name ? "You are " + name + "." : "You play anonymously.", "ok");
      redraw(doc);
    } catch (e) {
      refused.textContent = cap(e.message) + ".";
      refused.hidden = false;
      input.setAttribute("aria-invalid", "true");
      button.disabled = false;
      input.focus();
    }
  };
  const form = el("form", { class: "row", onsubmit: (e) => { e.preventDefault(); save(input.value, saveButton); } },
    el("label", { for: "player-name", class: "sr-only", text: "Your name" }), input);
  const saveButton = el("button", { type: "submit", class: "primary", data: { testid: "save-name" } }, "Save my name");
  form.append(saveButton);
  input.addEventListener("input", () => { refused.hidden = true; input.removeAttribute("aria-invalid"); });
  if (!me.player) {
    const anon = el("button", { type: "button", class: "quiet", data: { testid: "play-anonymously" },
      onclick: () => save(null, anon) }, "Stay anonymous");
    box.append(el("p", { text: "Choose the name other players see. No password: this browser remembers you." }),
      form, refused, el("p", { class: "row" }, anon), accountBox(me, redraw));
  } else {
    const p = me.player;
    input.value = p.name || "";
    const details = el("details", { class: "rename" }, el("summary", { text: "Change my name" }), form, refused);
    box.append(
      el("p", { class: "me-line", data: { testid: "me" } },
        el("strong", { data: { testid: "me-name" }, text: p.name || "Anonymous" }),
        " · rating ", el("strong", { data: { testid: "me-rating" }, text: ratingText(p) }),
        " · " + p.games + " rated match" + (p.games === 1 ? "" : "es")),
      ...(p.provisional ? [el("p", { class: "note", data: { testid: "provisional-note" }, text: "The ? marks a provisional " +
        "rating: still uncertain (±" + p.rd + "), it moves a lot with each rated match until a few have measured you. " +
        "Everyone starts at 1500." })] : []),
      details,
      el("p", { class: "row" },
        el("a", { href: "/history", data: { testid: "history-link" } }, "My matches"),
        el("a", { href: "/leaderboard", data: { testid: "leaderboard-link" } }, "Leaderboard")),
      accountBox(me, redraw));
  }
  return box;
}

// ------------------------------------------------------------------ quick match

function quickStatus(status) {
  if (!status) return "";
  switch (status.kind) {
    case "looking": return "Looking for an opponent…";
    case "waiting": return "Looking for an opponent near " + status.rating + "… (a bot is offered after " + Math.round(status.botAfter) + " s)";
    case "left": return "You left the queue.";
    case "offered": return "Nobody of your level yet. Keep waiting, or play a bot now.";
    case "found": return status.name ? "Found: " + status.name + ". Starting…" : "Starting…";
    default: return "";
  }
}

export function quickPanel() {
  const clock = clockSelect("quick-clock", [5, 10]);
  const status = el("p", { class: "queue-status", role: "status", data: { testid: "queue-status" } });
  const offer = el("div", { class: "row", data: { testid: "bot-offer-box" } });
  const go = el("button", { type: "button", class: "primary", data: { testid: "quick-match" }, onclick: () => {
    if (!named()) { $("#player-name") && $("#player-name").focus(); return; }
    const seconds = clock.value ? Number(clock.value) : null;
    store.quickAsked(seconds);
    // Pressed before the lobby's socket is open (a slow start, a reconnection): asked as soon as it is.
    if (!(socket && socket.send({ type: LOBBY_TO_SERVER.QUEUE, clock: seconds }))) requeue = true;
  } }, "Quick match");
  const leave = el("button", { type: "button", class: "quiet", hidden: true, data: { testid: "leave-queue" },
    onclick: () => lobbySend({ type: LOBBY_TO_SERVER.UNQUEUE }) }, "Stop looking");
  store.subscribe((change, state) => {
    const q = state.lobby.quick;
    go.disabled = q.searching;
    leave.hidden = !q.inQueue;
    const text = quickStatus(q.status);
    if (status.textContent !== text) status.textContent = text;  // (a live region: said again only when it changes)
    if (change === "botOffered") {
      const b = el("button", { type: "button", class: "choice", data: { testid: "accept-bot" }, onclick: () => {
        store.botAccepted();
        lobbySend({ type: LOBBY_TO_SERVER.ACCEPT_BOT });
      } }, "Play the " + q.offer.bot + " bot (rating " + q.offer.rating + ")");
      offer.replaceChildren(b);
      b.focus();
    } else if (!q.offer) {
      offer.replaceChildren();
    } else if (offer.firstChild) {
      offer.firstChild.disabled = q.offer.accepted;
    }
  });
  return el("section", { class: "panel", "aria-labelledby": "h-quick" },
    el("h2", { id: "h-quick", text: "Quick match" }),
    el("p", { text: "Play someone of your level now: the search widens as you wait, and a bot of your level is offered if nobody comes. Rated." }),
    el("div", { class: "field" }, el("label", { for: "quick-clock", text: "Clock" }), clock),
    el("div", { class: "row" }, go, leave), status, offer);
}

// ------------------------------------------------------------------ the open tables

function tableRow(t) {
  const mine = lobby().myTables.includes(t.id);
  const host = (t.host.name || "Anonymous") + " (" + ratingText(t.host) + ")";
  const join = mine ? el("span", { class: "muted", text: "your table" }) :
    el("button", { type: "button", class: "choice", data: { testid: "join-table", table: t.id },
      "aria-label": "Join " + host + "'s table", onclick: (e) => joinTable(t.id, e.currentTarget) }, "Join");
  // (a named host's name opens their profile; an anonymous host has none)
  const who = t.host.name ? [el("a", { href: profileUrl(t.host.name), data: { testid: "host-profile" } }, t.host.name),
    " (" + ratingText(t.host) + ")"] : host;
  return el("li", { class: "table-row", data: { testid: "lobby-table", table: t.id } },
    el("span", { class: "who" }, who),
    el("span", { class: "what", text: t.playset.map(cap).join(", ") + " · " + clockText(t) + (t.rated ? " · rated" : " · unrated") }),
    join);
}

async function joinTable(id, button) {
  if (!named()) return;
  button.disabled = true;
  try {
    const doc = await api("POST", "/api/lobby/tables/" + id + "/join");
    saveToken(doc.match_id, doc.token);
    location.assign(doc.url);
  } catch (e) {
    toast(e.message);
    button.disabled = false;
  }
}

/** The open tables, and the form that opens one of my own (a private one: an invite link only). */
export function lobbyPanel(options) {
  const pick = playsetPicker(options, "table");
  const clock = clockSelect("table-clock", [3, 5, 10, 20], [1, 3, 7]);
  const priv = el("input", { type: "checkbox", id: "table-private", data: { testid: "table-private" } });
  const rated = el("input", { type: "checkbox", id: "table-rated", checked: true, data: { testid: "table-rated" } });
  const waiting = el("p", { class: "queue-status", role: "status", data: { testid: "table-status" } });
  const list = el("ul", { class: "lobby-list", "aria-live": "polite", data: { testid: "lobby-list" } },
    el("li", { class: "muted", text: "Loading…" }));
  const open = el("button", { type: "button", class: "primary", data: { testid: "open-table" }, onclick: async () => {
    if (!named()) return;
    open.disabled = true;
    try {
      const doc = await api("POST", "/api/lobby/tables", { playset: pick.value(), ...timeControl(clock),
                                                            private: priv.checked, rated: rated.checked && !priv.checked });
      saveToken(doc.match_id, doc.token);
      if (doc.invite_url) {
        saveInvite(doc.match_id, absolute(doc.invite_url));
        location.assign(doc.url);
        return;
      }
      store.tableOpened(doc.table_id);
    } catch (e) {
      toast(e.message);
      open.disabled = false;
    }
  } }, "Open a table");
  const closeTable = async () => {
    try { await api("DELETE", "/api/lobby/tables/" + lobby().ownTable.id); } catch (e) { toast(e.message); }
    store.tableClosed();
  };
  store.subscribe((change, state) => {
    if (change === "tablesListed" || change === "tableOpened") {
      const tables = state.lobby.tables;
      if (!tables.length) list.replaceChildren(el("li", { class: "muted", text: "No open table right now: open one, or try a quick match." }));
      else list.replaceChildren(...tables.map(tableRow));
    }
    if (change === "tableOpened") {
      waiting.replaceChildren("Your table is open: waiting for someone to join… ",
        el("button", { type: "button", class: "quiet", data: { testid: "close-table" }, onclick: closeTable }, "Close it"));
    } else if (change === "tableClosed") {
      waiting.textContent = "Table closed.";
      open.disabled = false;
    }
  });
  return el("section", { class: "panel lobby", "aria-labelledby": "h-lobby" },
    el("h2", { id: "h-lobby", text: "Open tables" }),
    list,
    el("details", { class: "open-table" }, el("summary", { data: { testid: "open-table-form" }, text: "Open a table of your own" }),
      pick.node,
      el("div", { class: "field" }, el("label", { for: "table-clock", text: "Clock" }), clock),
      el("div", { class: "check" }, rated, el("label", { for: "table-rated", text: "Rated" })),
      el("div", { class: "check" }, priv, el("label", { for: "table-private", text: "Private: not listed, invite link only (unrated)" })),
      open),
    waiting);
}
