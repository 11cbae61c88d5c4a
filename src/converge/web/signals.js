// Signs that it is your turn outside the table: the tab's title, the favicon's red dot, an optional two-note
// sound (Web Audio), and "Your turn" read by screen readers.

import { $, announce } from "./dom.js";
import { myDecision, playerName } from "./selectors.js";
import { notifyOn, soundOn } from "./storage.js";
import { getState } from "./store.js";

let lastFavicon = "";
let myTurnBefore = false;  // (the sound and the announcement come once, when the turn becomes mine)

export function setTurnSignals(obs) {
  const s = getState().match;
  const mine = !!(obs && myDecision(obs)) && !s.tutorial && !s.puzzle;
  const over = s.meta && s.meta.status === "over";
  document.title = mine ? "● Your turn — Converge" : s.tutorial ? "Tutorial — Converge" : s.puzzle ? "Puzzle — Converge" :
    over ? "Match over — Converge" : "Converge — match";
  const href = mine ? "/static/favicon-turn.svg" : "/static/favicon.svg";
  if (href !== lastFavicon) {
    const link = $("#favicon");
    if (link) link.setAttribute("href", href);
    lastFavicon = href;
  }
  if (mine && !myTurnBefore) {
    if (soundOn()) beep();
    if (document.hidden && notifyOn()) notify(s);
    announce("Your turn: " + (obs.decision.prompt || "").replace(/^player \d+: /, ""));
  }
  myTurnBefore = mine;
}

/** The browser's notification of your turn: who it is against, never a card (one per match: a new one replaces
 *  the last); clicking it brings the page back. */
function notify(s) {
  try {
    const name = s.meta && s.seat >= 0 ? playerName(1 - s.seat) : "your opponent";
    const other = /^(The|Your|A) /.test(name) ? name[0].toLowerCase() + name.slice(1) : name;  // (mid-sentence)
    const n = new Notification("Your turn — Converge", { body: "It is your turn in your match against " + other + ".",
                                                          tag: "converge-" + (s.meta ? s.meta.id : "match"), icon: "/static/favicon-turn.svg" });
    n.onclick = () => { window.focus(); n.close(); };
  } catch (_) { /* not allowed here */ }
}

let audio = null;
export function beep() {
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const t = audio.currentTime;
    for (const [freq, at] of [[660, 0], [880, 0.14]]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t + at);
      gain.gain.exponentialRampToValueAtTime(0.12, t + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + at + 0.18);
      osc.connect(gain).connect(audio.destination);
      osc.start(t + at);
      osc.stop(t + at + 0.2);
    }
  } catch (_) { /* no sound here */ }
}
