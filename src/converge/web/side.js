// Beside the table (below it on a phone): the last end of turn, the score per goal, the settings, the share
// links, and the log of what happened (each event's sentence for this viewer).

import { absolute, cap, el, toast } from "./dom.js";
import { EVENT } from "./protocol.js";
import { allowHints } from "./match.js";
import { named, pair, viewerOf } from "./selectors.js";
import { beep } from "./signals.js";
import { loadInvite, notifyOn, saveSetting, setting, soundOn } from "./storage.js";
import { getState } from "./store.js";
import { goalTable } from "./summaries.js";

export function turnPanel(obs) {
  const t = getState().match.lastTurn;
  if (!t || (obs && t.round !== obs.round)) return null;  // (a new round: its first turn has not ended yet)
  return el("section", { id: "turn-panel", class: "panel turn-panel", "aria-labelledby": "h-turn", data: { testid: "turn-summary" } },
    el("h2", { id: "h-turn", class: "h3", text: "End of turn " + t.turn + " (round " + t.round + ")" }),
    el("p", { class: "lines" }, named(t.lines.join(" "))),
    goalTable(t.goals, viewerOf(), "turn-goals"));
}

/** `score`: {score_breakdown, scores} (an observation, or a round's final board). */
export function scorePanel(score) {
  const viewer = viewerOf();
  return el("section", { class: "panel", "aria-labelledby": "h-score" }, el("h2", { id: "h-score", class: "h3", text: "Score per goal" }),
    goalTable(score.score_breakdown, viewer, "score-table"),
    el("p", { class: "total", data: { testid: "score-total" } }, el("strong", { text: "Total " }), pair(score.scores, viewer, " : ")));
}

let logOpen = false;  // on a phone: the log opened over the table (one tap from the status line)

/** The button that opens the log over the table on a phone (hidden where the log sits beside the table). */
export function logButton() {
  return el("button", { type: "button", class: "quiet log-button", data: { testid: "log-open" }, "aria-expanded": logOpen ? "true" : "false",
    onclick: () => { logOpen = !logOpen; const p = document.querySelector("#log-panel"); if (p) p.classList.toggle("open", logOpen); } }, "Log");
}

/** What happened, newest first, under a heading for each round and each turn (a turn runs from its first play
 *  to the draws after its scoring). `upToRound`: a round's summary is shown: the next round's deal waits. */
export function logPanel(obs, upToRound) {
  const groups = [];
  let round = 1;
  let turn = 0;
  let scored = true;  // (the next play starts a turn)
  for (const e of obs.events) {
    if (upToRound && e.kind === EVENT.ROUND_START && e.round > upToRound) break;
    if (!e.text) continue;
    if (e.kind === EVENT.ROUND_START) { round = e.round; turn = 0; scored = true; groups.push({ title: "Round " + round, cls: "round-sep", events: [] }); }
    if (scored && (e.kind === EVENT.PLAY || e.kind === EVENT.PASS)) {
      turn += 1;
      scored = false;
      groups.push({ title: "Round " + round + ", turn " + turn, cls: "", events: [] });
    }
    if (e.kind === EVENT.SCORE) scored = true;
    if (!groups.length) groups.push({ title: "", cls: "", events: [] });
    groups[groups.length - 1].events.push(e);
  }
  const items = [];
  let first = true;
  for (const g of groups.slice().reverse()) {  // (newest first, each under its heading)
    if (g.title) items.push(el("li", { class: "sep " + g.cls, text: g.title }));
    for (const e of g.events.slice().reverse()) {
      items.push(el("li", { class: first ? "newest" : null, text: named(e.text) }));
      first = false;
    }
  }
  const close = el("button", { type: "button", class: "quiet log-close", onclick: () => {
    logOpen = false; document.querySelector("#log-panel").classList.remove("open"); } }, "Close");
  return el("section", { id: "log-panel", class: "panel log-panel" + (logOpen ? " open" : ""), "aria-labelledby": "h-log" },
    el("div", { class: "zone-head" }, el("h2", { id: "h-log", class: "h3", text: "What happened" }), close),
    // (focusable: a long log scrolls, and keyboard users scroll it with the arrow keys once it has the focus)
    el("ol", { class: "log", tabindex: "0", "aria-labelledby": "h-log", data: { testid: "log" } }, ...items.slice(0, 150)));
}

export function copyField(label, url, testid) {
  const id = "copy-" + testid;
  const input = el("input", { id, readonly: true, value: url, data: { testid }, onfocus: (e) => e.target.select() });
  const button = el("button", { type: "button", onclick: async () => {
    input.select();
    try { await navigator.clipboard.writeText(url); toast("Copied: " + (testid === "watch-link" ? "anyone with it can watch." : "send it to your friend."), "ok"); } catch (_) { toast("Select the link and copy it."); }
  } }, "Copy");
  return el("div", { class: "field invite" }, el("label", { for: id, text: label }), el("div", { class: "row" }, input, button));
}

export function sharePanel() {
  const s = getState().match;
  const panel = el("section", { class: "panel", "aria-labelledby": "h-share" }, el("h2", { id: "h-share", class: "h3", text: "Share" }));
  const invite = loadInvite(s.id);
  if (s.seat >= 0 && s.meta.mode === "friend") {
    const other = s.meta.seats[1 - s.seat];
    if (invite) {
      const status = other.connected ? "Your friend is here." : s.meta.seq === 0 ?
        "Send this link to your friend: it holds their seat (keep it private)." : "Your friend is away.";
      panel.append(el("p", { text: status }), copyField("Invite link", invite, "invite-link"));
    } else {
      panel.append(el("p", { text: other.connected ? "Your opponent is here." : "Your opponent is away." }));
    }
  }
  panel.append(copyField("Spectator link", absolute("/m/" + s.id), "watch-link"));
  return panel;
}

/** "Notify me": the browser's notification when it becomes your turn while this page is in the background
 *  (the browser asks the player's permission first; refused, the box stays unticked and says why). */
function notifyField() {
  const note = el("p", { class: "note", data: { testid: "notify-status" } });
  const box = el("input", { type: "checkbox", id: "notify", checked: notifyOn(), data: { testid: "notify" },
    onchange: async (e) => {
      const on = e.target.checked;
      let allowed = Notification.permission;
      if (on && allowed === "default") allowed = await Notification.requestPermission();
      const ok = !on || allowed === "granted";
      saveSetting("notify", on && ok ? "on" : "off");
      e.target.checked = on && ok;
      note.textContent = ok ? "" : "Your browser does not allow this page's notifications: allow them in its site settings.";
    } });
  return el("div", {}, el("div", { class: "field inline" }, box,
    el("label", { for: "notify", text: "A notification when it is your turn and this page is not in view" })), note);
}

const PACE_NAMES = [["slow", "slow"], ["normal", "normal"], ["fast", "fast"], ["instant", "at once"]];

export function settingsPanel() {
  const s = getState().match;
  const panel = el("section", { class: "panel settings", "aria-labelledby": "h-settings" }, el("h2", { id: "h-settings", class: "h3", text: "Settings" }));
  const paceSel = el("select", { id: "pace", data: { testid: "pace" }, onchange: (e) => saveSetting("pace", e.target.value) },
    ...PACE_NAMES.map(([v, t]) => el("option", { value: v, text: t, selected: setting("pace", "normal") === v })));
  panel.append(el("div", { class: "field inline" }, el("label", { for: "pace", text: "Opponent's moves shown" }), paceSel));
  const sound = el("input", { type: "checkbox", id: "sound", checked: soundOn(), data: { testid: "sound" },
    onchange: (e) => { saveSetting("sound", e.target.checked ? "on" : "off"); if (e.target.checked) beep(); } });
  panel.append(el("div", { class: "field inline" }, sound, el("label", { for: "sound", text: "A sound when it is your turn" })));
  if ("Notification" in window && s.seat >= 0) panel.append(notifyField());
  if (s.seat >= 0 && s.meta.rated) {  // (never in a rated match: nothing to allow, and the page says why)
    panel.append(el("p", { class: "note", data: { testid: "hints-status" }, text: cap(s.meta.hints.why_off) + "." }));
  } else if (s.seat >= 0 && s.meta.mode === "friend" && s.meta.hints) {
    const h = s.meta.hints;
    const mine = el("input", { type: "checkbox", id: "allow-hints", checked: h.allowed[s.seat], data: { testid: "allow-hints" },
      onchange: (e) => allowHints(e.target.checked) });
    panel.append(el("div", { class: "field inline" }, mine, el("label", { for: "allow-hints", text: "Allow hints in this match" })),
      el("p", { class: "note", data: { testid: "hints-status" }, text: h.on ? "Hints are on: you both allow them." :
        h.allowed[s.seat] ? "Hints stay off until your opponent allows them too." : "Hints are off." }));
  }
  return panel;
}
