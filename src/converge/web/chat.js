// Chat beside the table (the two players; the spectators in a room of their own) and on the home page (the
// lobby): the room's lines — a typed one shown as text, a link in it never made clickable —, the quick messages
// that need no typing, a line to type, a mute on each other player's line, and the player's chat switch. The
// panel is made once per page and kept across the table's redraws, so that a line being typed stays typed.

import { el, toast } from "./dom.js";
import { QUICK_MESSAGES } from "./protocol.js";
import * as store from "./store.js";
import { api } from "./transport.js";

const TITLES = { players: "Chat", spectators: "Spectators' chat", lobby: "Lobby chat" };

function lineItem(line, muting) {
  const who = line.mine ? "You" : line.name || "Anonymous";
  const mute = line.mine ? null : el("button", { type: "button", class: "quiet chat-mute", data: { testid: "chat-mute" },
    "aria-label": "Mute " + who + ": none of their lines will reach you", onclick: () => muting(line) }, "Mute");
  return el("li", { class: line.quick ? "quick" : null, data: { testid: "chat-line" } },
    el("strong", { text: who + ": " }), el("span", { class: "said", text: line.text }), mute);
}

/** The chat panel of a page whose socket sends with `send(doc)` (true when it went). */
export function chatPanel(send) {
  const list = el("ol", { class: "chat-lines", "aria-live": "polite", data: { testid: "chat-lines" } });
  const input = el("input", { id: "chat-input", maxlength: "200", autocomplete: "off", placeholder: "Say something",
                              data: { testid: "chat-input", focus: "chat-input" } });
  const form = el("form", { class: "row chat-form", onsubmit: (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (text && send({ text })) input.value = "";
  } }, el("label", { for: "chat-input", class: "sr-only", text: "A line to send" }), input,
    el("button", { type: "submit", data: { testid: "chat-send" } }, "Send"));
  const quick = el("div", { class: "row chat-quick" }, ...Object.entries(QUICK_MESSAGES).map(([key, words]) =>
    el("button", { type: "button", class: "quiet", data: { testid: "quick-" + key }, onclick: () => send({ quick: key }) }, words)));
  const setOn = async (on) => {
    try { store.chatSettings(await api("PUT", "/api/me/chat", { on })); } catch (e) { toast(e.message); }
  };
  const off = el("p", { class: "note", data: { testid: "chat-off" } });
  const switchOff = el("button", { type: "button", class: "quiet", data: { testid: "chat-switch-off" }, onclick: () => setOn(false) },
    "Turn my chat off");
  const muting = async (line) => {
    try {
      store.chatSettings(await api("POST", "/api/me/mutes", { line: line.id }));
      store.chatSenderMuted(line);
      toast((line.name || "That player") + " is muted: none of their lines will reach you.", "ok");
    } catch (e) { toast(e.message); }
  };
  const title = el("h2", { id: "h-chat", class: "h3" });
  const draw = () => {
    const c = store.getState().chat;
    title.textContent = TITLES[c.room] || "Chat";
    list.replaceChildren(...(c.lines.length ? c.lines.map((l) => lineItem(l, muting)) :
      [el("li", { class: "muted", text: c.room === "lobby" ? "Nobody has said anything yet." : "No line yet." })]));
    list.scrollTop = list.scrollHeight;
    form.hidden = c.on !== true;
    switchOff.hidden = c.on !== true;
    off.hidden = c.on === true;
    off.replaceChildren(...(c.on === null ? ["Choose a name, or play, to chat."] :
      ["Your chat is off: you read and send the quick messages only. ",
       el("button", { type: "button", class: "quiet", data: { testid: "chat-switch-on" }, onclick: () => setOn(true) }, "Turn it on")]));
  };
  const load = () => api("GET", "/api/me/chat").then(store.chatSettings, () => {});  // (no player yet: the note says)
  store.subscribe((change) => {
    if (change.startsWith("chat")) draw();
    if (change === "playerKnown") load();  // (a name chosen: chat turns on)
  });
  draw();
  load();
  return el("section", { class: "panel chat", "aria-labelledby": "h-chat", data: { testid: "chat" } },
    title, list, quick, form, off, switchOff);
}
