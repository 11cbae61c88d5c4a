// Converge — the browser client: ES modules, no build step, no inline code (the page's CSP forbids it).
//
// Everything this page shows of a match comes from the server's messages: the observation of this
// browser's seat (or the spectator's view), the table's extras (end-of-turn summaries, the choices that
// may be held and taken back) and public metadata. The seat token comes from the URL fragment
// (#token=...), which browsers never send to a server, and is kept in this browser's storage.
//
// The home page, the lobby, the lists and the rules are modules of their own; the match page is still here.

import { $, STAR, absolute, announce, appRoot as app, cap, el, icon, lower, reducedMotion, toast } from "./dom.js";
import { showHome } from "./home.js";
import { showHistory, showLeaderboard } from "./pages.js";
import { installRules } from "./rules.js";
import { forgetToken, loadInvite, loadToken, pace, saveSetting, saveToken, setting, soundOn } from "./storage.js";
import { api } from "./transport.js";

// ------------------------------------------------------------------ a match: state

const S = {
  id: null, token: null, seat: -1, ws: null, meta: null, obs: null, seq: 0, cards: {}, colors: {},
  pending: false, retry: 0, stop: false, receivedAt: 0, replay: null, connected: false,
  next: {},            // action id -> the choice it opens (it may be held and taken back)
  staged: null,        // {action, follow}: a choice held in this page, not sent yet
  queue: [],           // states received and not shown yet (the opponent's moves, one at a time)
  pumping: false,
  roundView: null,     // the summary of a round that just ended, shown until the player continues
  rounds: [],          // the summaries of the finished rounds
  lastTurn: null,      // the summary of the latest end of turn
  turnFresh: false,    // the latest end of turn happened since the last play
  hint: null,          // {seq, options} or {seq, loading: true}
  tutorial: null,      // {script, step, done}
  decisionKey: null,   // the decision focus was last put on
  myTurnBefore: false,
};


function setConn(text, ok) {
  const c = $("#conn");
  c.hidden = false;
  c.textContent = text;
  c.className = "conn " + (ok ? "ok" : "down");
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(proto + "//" + location.host + "/ws/" + S.id);
  S.ws = ws;
  ws.addEventListener("open", () => {
    // acks: false — the page needs no acknowledgement of its own: the state after a move carries it
    ws.send(JSON.stringify(S.token ? { type: "hello", token: S.token, acks: false } : { type: "hello" }));
  });
  ws.addEventListener("message", (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (_) { return; }
    onMessage(msg);
  });
  ws.addEventListener("close", (ev) => {
    if (S.ws !== ws) return;
    S.connected = false;
    S.pending = false;
    if (ev.code === 4401) {  // the token holds no seat here: watch instead
      forgetToken(S.id);
      S.token = null;
      toast("This link does not hold a seat in this match; you are watching.");
    }
    if (ev.code === 4409) {  // this seat connected again elsewhere (another tab or device): that one plays
      S.stop = true;        // (reconnecting here would in turn close that one, and so on)
      setConn("open in another window: reload this page to play here", false);
      return;
    }
    if (ev.code === 4404 || S.stop) {
      if (ev.code === 4404) notFound();
      return;
    }
    setConn("reconnecting…", false);
    const delay = Math.min(5000, 300 * 2 ** S.retry);
    S.retry += 1;
    setTimeout(connect, delay);
  });
}

function send(doc) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) {
    S.ws.send(JSON.stringify(doc));
    return true;
  }
  toast("Not connected; reconnecting…");
  return false;
}

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      S.seat = msg.seat;
      S.meta = msg.match;
      S.cards = Object.fromEntries(msg.cards.map((c) => [c.id, c]));
      S.colors = msg.colors;
      S.obs = msg.observation;
      S.seq = msg.seq;
      S.next = msg.next || {};
      S.rounds = msg.rounds || [];
      S.lastTurn = msg.last_turn || null;
      S.queue = [];
      S.staged = null;
      S.pending = false;
      S.pendingCount = 0;
      S.connected = true;
      S.retry = 0;
      S.receivedAt = performance.now();
      setConn(S.seat >= 0 ? "connected" : "watching", true);
      if (S.meta.status === "over" && S.rounds.length) S.roundView = S.rounds[S.rounds.length - 1];
      render();
      if (S.autoReplay && S.meta.status === "over") { S.autoReplay = false; startReplay(); }
      if (S.seat >= 0 && S.token && !S.linked) { S.linked = true; linkSeat(); }
      break;
    case "state":
      S.queue.push(msg);
      pump();
      break;
    case "ack":
      break;
    case "meta":
      S.meta = msg.match;
      S.receivedAt = performance.now();
      if (!S.queue.length) render();
      break;
    case "hint":
      if (S.hint && S.hint.seq === msg.seq) { S.hint = { seq: msg.seq, options: msg.options }; render(); }
      break;
    case "rematch":
      if (S.token) {
        saveToken(msg.match_id, S.token);
        S.stop = true;
        location.assign("/m/" + msg.match_id);
      } else {
        if (S.meta) S.meta.rematch_id = msg.match_id;
        render();
      }
      break;
    case "error":
      S.pending = false;
      S.pendingCount = 0;
      S.staged = null;
      if (S.hint && S.hint.loading) S.hint = null;
      if (msg.code === "not_found") { S.stop = true; notFound(); return; }
      if (msg.code === "replaced") { S.stop = true; return; }  // the close (4409) says it on the page
      if (msg.code !== "unauthorized") toast(msg.message);
      render();
      break;
    default:
      break;
  }
}

/** Whether a state holds a move of the other player (or of a bot): shown for a moment before the next. */
function othersMove(obs, events) {
  return events.some((e) => e.player !== null && e.player !== S.seat && ["play", "pass", "move", "convert", "guard"].includes(e.kind));
}

/** Show queued states one at a time: the opponent's moves stay on screen for a readable moment. */
async function pump() {
  if (S.pumping) return;
  S.pumping = true;
  try {
    while (S.queue.length && !S.roundView) {
      const msg = S.queue.shift();
      const fresh = msg.observation.events;
      applyState(msg);
      render(fresh);
      const wait = othersMove(msg.observation, fresh) && S.queue.length ? pace() : 0;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  } finally {
    S.pumping = false;
  }
}

function applyState(msg) {
  const events = (S.obs ? S.obs.events.slice(0, msg.events_from) : []).concat(msg.observation.events);
  S.obs = Object.assign({}, msg.observation, { events });
  S.meta = msg.match;
  S.seq = msg.seq;
  S.next = msg.next || {};
  S.receivedAt = performance.now();
  const fresh = msg.observation.events;
  if (fresh.some((e) => e.kind === "play" || e.kind === "pass")) S.turnFresh = false;
  for (const t of msg.turns || []) {
    S.lastTurn = t;
    S.turnFresh = true;
    if (t.round_end) {
      S.rounds.push(t);
      S.roundView = t;
    }
  }
  if (S.pendingCount > 0) {
    S.pendingCount -= 1;
    if (S.pendingCount === 0) { S.pending = false; S.staged = null; }
  }
  if (S.hint && S.hint.seq !== S.seq) S.hint = null;
  const others = fresh.filter((e) => e.player !== S.seat && e.player !== null && e.text).map((e) => e.text);
  if (others.length && S.seat >= 0) announce(others.join(" "));
}

function notFound() {
  app().replaceChildren(el("div", { class: "panel" }, el("h2", { text: "No such match" }),
    el("p", { text: "This match does not exist on this server." }), el("a", { href: "/", text: "Start a new one" })));
}

// --- acting: one choice, or a held choice and the one that completes it

function act(actionId) {
  if (S.pending || S.replay || S.roundView) return;
  const follow = S.next[String(actionId)];
  if (follow && !S.staged) {  // hold it: nothing happens before the next choice, so it can be taken back
    const legal = (S.obs.decision.legal_actions || []).find((a) => a.id === actionId);
    S.staged = { action: actionId, follow, card: legal && actionId < 18 ? legal.action : null };
    render();
    focusDecision(true);
    return;
  }
  const actions = S.staged ? [S.staged.action, actionId] : [actionId];
  if (S.tutorial) { tutorialAct(actions); return; }
  let seq = S.seq;
  for (const a of actions) {
    if (!send({ type: "action", action: a, seq })) return;
    seq += 1;
  }
  S.pending = true;
  S.pendingCount = actions.length;
  render();
}

function takeBack() {
  if (!S.staged || S.pending) return;
  S.staged = null;
  render();
  focusDecision(true);
  announce("Taken back.");
}

function askHint() {
  if (!S.obs || S.pending) return;
  S.hint = { seq: S.seq, loading: true };
  if (!send({ type: "hint" })) S.hint = null;
  render();
}

// --- naming, from this browser's point of view

function viewerOf() { return S.replay ? S.replay.view : S.tutorial ? 0 : S.seat; }
function who(player, viewer) {
  if (player === null || player === undefined || player < 0) return "nobody";
  if (viewer >= 0) return player === viewer ? "you" : "them";
  return "player " + player;
}
function seatName(p) {
  if (S.tutorial) return p === 0 ? "You" : "Them — tutorial";
  const seat = S.meta && S.meta.seats[p];
  const label = seat && seat.kind === "bot" ? "bot (" + seat.bot + ")" : seat && seat.replaced ?
    "bot standing in (" + seat.bot + ")" : "player " + p;
  const viewer = viewerOf();
  if (viewer >= 0) return (p === viewer ? "You" : "Them — " + label);
  return cap(label);
}
function colorClass(skillset) { return "col-" + lower(S.colors[skillset] || "grey"); }
function keywordOf(skillset) {
  for (const c of Object.values(S.cards)) if (c.skillset === skillset) return c.keyword;
  return "other";
}

// --- cards

/** The legal actions of this page's decision, by the card they choose ({} when it is not ours). */
function legalCards(obs) {
  const out = {};
  if (!myDecision(obs)) return out;
  if (S.staged) return out;
  for (const a of obs.decision.legal_actions) if (a.id < 18 && allowed(a.id)) out[a.action] = a;
  return out;
}

function myDecision(obs) {
  const d = obs && obs.decision;
  if (!d || !d.legal_actions || S.replay || S.roundView || S.queue.length || !S.meta) return false;
  if (!S.tutorial && (S.meta.status !== "active" || S.pending)) return false;
  if (S.tutorial && (S.tutorial.done || currentStep().expect === null)) return false;
  return d.player === viewerOf();
}

/** In the tutorial only the move the instruction asks for may be made. */
function allowed(actionId) {
  if (!S.tutorial) return true;
  const steps = S.tutorial.script.steps;
  const step = S.staged ? steps[S.tutorial.step + 1] : currentStep();
  return !!step && step.expect === actionId;
}

function cardText(card, inPlay) {
  const skill = inPlay ? inPlay.skillset : card.skillset;
  const rank = inPlay ? inPlay.rank : card.rank;
  let text = card.id + " " + card.name + ", " + skill + " " + rank;
  if (inPlay && inPlay.converted) text += " (printed " + inPlay.printed_skillset + " " + inPlay.printed_rank + ")";
  text += ". Goal: " + card.goal + ", " + card.stars + " star" + (card.stars === 1 ? "" : "s") + ". " + card.effect;
  if (inPlay && inPlay.guarded_by !== null && inPlay.guarded_by !== undefined) text += " Guarded by " + who(inPlay.guarded_by, viewerOf()) + ".";
  return text;
}

/**
 * A card. opts.size: "full" (hand), "goal" (goal area: the goal first), "mini" (factions, piles).
 * A card that is a legal choice is a button; the others are images with a full description.
 */
function cardNode(id, legal, opts) {
  const o = opts || {};
  const card = S.cards[id] || { id, name: id, skillset: "", rank: "?", goal: "", stars: 0, effect: "", keyword: "", text: id };
  const inPlay = o.inPlay;
  const skill = inPlay ? inPlay.skillset : card.skillset;
  const rank = inPlay ? inPlay.rank : card.rank;
  const playable = legal && legal[id];
  const staged = S.staged && S.staged.card === id;
  const suggested = S.hint && S.hint.options && S.hint.options.length && playable && S.hint.options[0].action === playable.id;
  const size = o.size || "full";
  const full = cardText(card, inPlay);
  const attrs = {
    class: ["card", "size-" + size, colorClass(skill), playable ? "playable" : "", staged ? "chosen" : "",
            inPlay && inPlay.converted ? "converted" : "", suggested ? "suggested" : ""].join(" ").replace(/\s+/g, " ").trim(),
    data: { card: id, testid: playable ? "playable-card" : "card", full },
  };
  let node;
  if (playable) {
    node = el("button", Object.assign(attrs, { type: "button", "aria-label": cap(playable.label) + ". " + full,
      onclick: (e) => { if (longPressed(e)) return; act(playable.id); } }));
    node.dataset.action = playable.id;
    node.dataset.focus = "card:" + id;
  } else {
    node = el("div", Object.assign(attrs, { role: "img", "aria-label": (staged ? "Chosen: " : "") + full }));
  }
  const top = el("span", { class: "top" },
    el("span", { class: "rank", text: String(rank) }),
    el("span", { class: "skill" }, icon(keywordOf(skill)), el("span", { class: "skill-name", text: skill })),
    el("span", { class: "cid", text: id }));
  node.append(top);
  if (size === "chip") {
    // a one-line mention (the card being played): rank, icon and id
  } else if (size === "mini") {
    if (inPlay && inPlay.converted) node.append(el("span", { class: "was", text: "was " + inPlay.printed_rank }));
  } else if (size === "goal") {
    node.append(el("span", { class: "goal big" }, el("span", { class: "stars", text: STAR.repeat(card.stars) }), " ", card.goal));
  } else {
    node.append(el("span", { class: "name", text: card.name }),
      el("span", { class: "goal" }, el("span", { class: "stars", text: STAR.repeat(card.stars) }), " ", card.goal),
      el("span", { class: "effect" }, icon(card.keyword, "kw"), " ", card.effect));
  }
  if (inPlay && inPlay.guarded_by !== null && inPlay.guarded_by !== undefined) {
    node.append(el("span", { class: "guard", title: "guarded by " + who(inPlay.guarded_by, viewerOf()) }, icon("Guard"),
      el("span", { class: "sr-only", text: "guarded" })));
  }
  if (playable) node.append(el("span", { class: "badge", "aria-hidden": "true", text: suggested ? "hint" : "choose" }));
  if (staged) node.append(el("span", { class: "badge chosen-badge", "aria-hidden": "true", text: "chosen" }));
  attachTip(node);
  return node;
}

// Full card text: a tip on hover and when the keyboard moves to a card, and on a long press (touch).
let keyboardUsed = false;
let autoFocusing = false;
document.addEventListener("keydown", () => { keyboardUsed = true; }, true);
document.addEventListener("pointerdown", () => { keyboardUsed = false; }, true);
let pressTimer = null;
let pressedLong = false;
function longPressed(e) {
  if (pressedLong) { pressedLong = false; e.preventDefault(); return true; }
  return false;
}
function attachTip(node) {
  node.addEventListener("mouseenter", () => showTip(node));
  node.addEventListener("mouseleave", hideTip);
  node.addEventListener("focus", () => { if (keyboardUsed && !autoFocusing) showTip(node); });
  node.addEventListener("blur", hideTip);
  node.addEventListener("pointerdown", (e) => {
    if (e.pointerType !== "touch") return;
    clearTimeout(pressTimer);
    pressTimer = setTimeout(() => { pressedLong = true; showTip(node); }, 500);
  });
  for (const ev of ["pointerup", "pointercancel", "pointerleave"]) node.addEventListener(ev, () => clearTimeout(pressTimer));
  node.addEventListener("contextmenu", (e) => { if (pressedLong) e.preventDefault(); });
}
/** The tip sits at the top of the window (over the site's header), away from the cards and the strip;
 *  no inline style positions it (the CSP forbids them). */
function showTip(node) {
  const tip = $("#cardtip");
  if (!tip || !node.isConnected) return;
  tip.textContent = node.dataset.full;
  tip.hidden = false;
}
function hideTip() { const tip = $("#cardtip"); if (tip) tip.hidden = true; }

function cardRow(ids, legal, opts, emptyText, label) {
  if (!ids.length) return el("p", { class: "cards empty", text: emptyText || "none" });
  return el("ul", { class: "cards", "aria-label": label }, ...ids.map((id) => el("li", {}, cardNode(id, legal, opts))));
}

function factionRow(faction, legal, emptyText, label) {
  if (!faction.length) return el("p", { class: "cards empty", text: emptyText });
  return el("ul", { class: "cards", "aria-label": label },
    ...faction.map((c) => el("li", {}, cardNode(c.id, legal, { inPlay: c, size: "mini" }))));
}

// --- status, clocks, summaries

function fmtClock(ms) {
  if (ms === null || ms === undefined) return "–";
  const s = Math.max(0, Math.ceil(ms / 1000));
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

function clockOf() { return S.replay ? S.replay.data.clock : S.meta && S.meta.clock; }

function clockLeft(p) {
  const c = clockOf();
  if (!c) return null;
  let left = c.left_ms[p];
  if (left === null || left === undefined) return null;
  if (c.running === p && !S.replay) left -= performance.now() - S.receivedAt;
  return left;
}

/** Players in the order this viewer reads them: you first, then them (player 0 first for spectators). */
function order(viewer) { return viewer >= 0 ? [viewer, 1 - viewer] : [0, 1]; }

function pair(values, viewer, sep) {
  const [a, b] = order(viewer);
  return viewer >= 0 ? "you " + values[a] + sep + values[b] + " them" : "P0 " + values[0] + sep + values[1] + " P1";
}

function statusBar(obs) {
  const viewer = viewerOf();
  const bar = el("div", { class: "status", data: { testid: "status" } },
    el("span", { class: "big", text: "Round " + obs.round }),
    el("span", { class: "stat", data: { testid: "round-wins" } }, el("span", { class: "k", text: "Rounds " }), pair(obs.round_wins, viewer, " – ")),
    el("span", { class: "stat", data: { testid: "scores" } }, el("span", { class: "k", text: "Points " }), pair(obs.scores, viewer, " – ")),
    el("span", { class: "stat artifact-stat" }, icon("artifact", "artifact-icon"), el("span", { class: "k", text: "Artifact: " }),
      el("strong", { class: "artifact", data: { testid: "artifact-holder" }, text: who(obs.artifact_holder, viewer) })));
  const clock = clockOf();
  if (clock) {
    const clocks = el("span", { class: "clocks", data: { testid: "clocks" } });
    for (const p of order(viewer)) {
      const left = clockLeft(p);
      const running = clock.running === p;
      clocks.append(el("span", { class: "clock" + (running ? " running" : "") + (left !== null && left < 30000 ? " low" : ""),
        data: { clock: p }, text: clockText(p, viewer, left, running) }));
    }
    bar.append(clocks);
  }
  return bar;
}
function clockText(p, viewer, left, running) {
  return (running ? "▶ " : "") + (viewer >= 0 ? who(p, viewer) : "P" + p) + " " + fmtClock(left);
}

function goalTable(goals, viewer, testid) {
  const table = el("table", { class: "score", data: { testid } },
    el("caption", { class: "sr-only", text: "Points per goal" }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Goal" }), el("th", { scope: "col", text: "Stars" }),
      el("th", { scope: "col", text: "Scored by" }))));
  const body = el("tbody");
  for (const item of goals) {
    const w = item.winners;
    const text = w.length === 2 ? "both" : w.length === 1 ? who(w[0], viewer) : "nobody";
    const cls = w.length === 2 ? "who-both" : !w.length ? "who-nobody" : viewer < 0 ? "" :
      w[0] === viewer ? "who-you" : "who-them";
    body.append(el("tr", { data: { goal: item.goal } },
      el("td", {}, el("strong", { text: item.goal + " " }), item.text, el("span", { class: "why", text: item.why })),
      el("td", { class: "stars", "aria-label": item.stars + " star" + (item.stars === 1 ? "" : "s"), text: STAR.repeat(item.stars) }),
      el("td", { class: cls, text })));
  }
  if (!goals.length) body.append(el("tr", {}, el("td", { colspan: 3, class: "empty", text: "No goal declared yet." })));
  table.append(body);
  return table;
}

function scorePanel(obs) {
  const viewer = viewerOf();
  return el("section", { class: "panel", "aria-labelledby": "h-score" }, el("h2", { id: "h-score", class: "h3", text: "Score per goal" }),
    goalTable(obs.score_breakdown, viewer, "score-table"),
    el("p", { class: "total", data: { testid: "score-total" } }, el("strong", { text: "Total " }), pair(obs.scores, viewer, " : ")));
}

function turnPanel() {
  const t = S.lastTurn;
  if (!t) return null;
  const viewer = viewerOf();
  return el("section", { id: "turn-panel", class: "panel turn-panel", "aria-labelledby": "h-turn", data: { testid: "turn-summary" } },
    el("h2", { id: "h-turn", class: "h3", text: "End of turn " + t.turn + " (round " + t.round + ")" }),
    el("p", { class: "lines" }, t.lines.join(" ")),
    goalTable(t.goals, viewer, "turn-goals"));
}

function logPanel(obs) {
  const items = obs.events.slice(-60).reverse();
  return el("section", { class: "panel", "aria-labelledby": "h-log" }, el("h2", { id: "h-log", class: "h3", text: "What happened" }),
    el("ol", { class: "log", reversed: true, data: { testid: "log" } },
      ...items.map((e) => el("li", { text: e.text }))));
}

function copyField(label, url, testid) {
  const id = "copy-" + testid;
  const input = el("input", { id, readonly: true, value: url, data: { testid }, onfocus: (e) => e.target.select() });
  const button = el("button", { type: "button", onclick: async () => {
    input.select();
    try { await navigator.clipboard.writeText(url); toast("Copied."); } catch (_) { toast("Select the link and copy it."); }
  } }, "Copy");
  return el("div", { class: "field invite" }, el("label", { for: id, text: label }), el("div", { class: "row" }, input, button));
}

function sharePanel() {
  const panel = el("section", { class: "panel", "aria-labelledby": "h-share" }, el("h2", { id: "h-share", class: "h3", text: "Share" }));
  const invite = loadInvite(S.id);
  if (S.seat >= 0 && S.meta.mode === "friend" && invite) {
    const other = S.meta.seats[1 - S.seat];
    const status = other.connected ? "Your friend is here." : S.meta.seq === 0 ?
      "Send this link to your friend: it holds their seat (keep it private)." : "Your friend is away.";
    panel.append(el("p", { text: status }), copyField("Invite link", invite, "invite-link"));
  } else if (S.meta.mode === "friend" && S.seat >= 0) {
    const other = S.meta.seats[1 - S.seat];
    panel.append(el("p", { text: other.connected ? "Your opponent is here." : "Your opponent is away." }));
  }
  panel.append(copyField("Spectator link", absolute("/m/" + S.id), "watch-link"));
  return panel;
}

function settingsPanel() {
  const panel = el("section", { class: "panel settings", "aria-labelledby": "h-settings" }, el("h2", { id: "h-settings", class: "h3", text: "Settings" }));
  const paceSel = el("select", { id: "pace", data: { testid: "pace" }, onchange: (e) => saveSetting("pace", e.target.value) },
    ...[["slow", "slow"], ["normal", "normal"], ["fast", "fast"], ["instant", "at once"]].map(([v, t]) =>
      el("option", { value: v, text: t, selected: setting("pace", "normal") === v })));
  panel.append(el("div", { class: "field inline" }, el("label", { for: "pace", text: "Opponent's moves shown" }), paceSel));
  const sound = el("input", { type: "checkbox", id: "sound", checked: soundOn(), data: { testid: "sound" },
    onchange: (e) => { saveSetting("sound", e.target.checked ? "on" : "off"); if (e.target.checked) beep(); } });
  panel.append(el("div", { class: "field inline" }, sound, el("label", { for: "sound", text: "A sound when it is your turn" })));
  if (S.seat >= 0 && S.meta.mode === "friend" && S.meta.hints) {
    const h = S.meta.hints;
    const mine = el("input", { type: "checkbox", id: "allow-hints", checked: h.allowed[S.seat], data: { testid: "allow-hints" },
      onchange: (e) => send({ type: "hints", allow: e.target.checked }) });
    panel.append(el("div", { class: "field inline" }, mine, el("label", { for: "allow-hints", text: "Allow hints in this match" })),
      el("p", { class: "note", data: { testid: "hints-status" }, text: h.on ? "Hints are on: you both allow them." :
        h.allowed[S.seat] ? "Hints stay off until your opponent allows them too." : "Hints are off." }));
  }
  return panel;
}

// --- the decision strip: above the hand, never over it

function choiceButton(a, primary) {
  const isDone = a.label.startsWith("done");
  const ok = allowed(a.id);
  const suggested = S.hint && S.hint.options && S.hint.options.length && S.hint.options[0].action === a.id;
  const b = el("button", {
    type: "button", class: (isDone ? "quiet" : primary ? "choice" : "choice") + (suggested ? " suggested" : ""),
    disabled: !ok, "aria-disabled": ok ? null : "true",
    data: { action: a.id, testid: "action", focus: "choice:" + a.id },
    onclick: () => act(a.id),
  }, isDone ? "Done — skip the rest of this effect" : cap(a.label));
  if (suggested) b.append(el("span", { class: "badge inline-badge", text: "hint" }));
  return b;
}

function waitingText(d) {
  const viewer = viewerOf();
  const seat = S.meta && S.meta.seats[d.player];
  const name = S.tutorial ? "your opponent" : viewer >= 0 ? (seat && (seat.kind === "bot" || seat.replaced) ? "the bot" : "your opponent") : "player " + d.player;
  const what = { select: "choose a card", mode: "choose how to play it", faction: "choose a faction",
                 skillset: "choose a skillset", target: "choose a target", second: "choose a card" }[d.kind] || "decide";
  return "Waiting for " + name + " to " + what + "…";
}

function turnLine() {
  const t = S.lastTurn;
  if (!t || !S.turnFresh) return null;
  return el("p", { class: "turn-line", data: { testid: "turn-line" } },
    el("strong", { text: "End of turn " + t.turn + ": " }), t.lines.slice(1).join(" "), " ",
    el("a", { href: "#turn-panel", class: "details" }, "Points per goal"));
}

function decisionStrip(obs) {
  const d = obs.decision;
  const strip = el("section", { id: "decision", class: "decision", "aria-label": "Your decision", data: { testid: "decision-strip" } });
  const line = turnLine();
  if (line) strip.append(line);
  if (S.tutorial) strip.append(coach());
  if (!d || (!S.tutorial && S.meta.status !== "active")) {
    strip.append(el("p", { id: "prompt", class: "prompt", text: "The match is over." }));
    return strip;
  }
  if (S.tutorial && !myDecision(obs) && currentStep().player === 0) return strip;  // a pause: the coach speaks
  if (!myDecision(obs)) {
    const text = S.pending ? "Sending…" : S.queue.length ? "The opponent is playing…" : waitingText(d);
    strip.classList.add("waiting");
    strip.append(el("p", { id: "prompt", class: "prompt", data: { testid: "waiting" }, text }));
    if (d.card) strip.append(el("div", { class: "row playing" }, "Playing: ", cardNode(d.card, null, { size: "chip" })));
    return strip;
  }
  strip.dataset.testid = "decision";
  strip.dataset.kind = S.staged ? S.staged.follow.kind : d.kind;
  strip.dataset.legal = (S.staged ? S.staged.follow.choices : d.legal_actions).filter((a) => allowed(a.id)).map((a) => a.id).join(",");
  if (S.staged) strip.dataset.staged = S.staged.action;
  const legal = legalCards(obs);
  let promptText;
  let choices;
  if (S.staged) {
    const card = d.legal_actions.find((a) => a.id === S.staged.action);
    promptText = cap(S.staged.follow.prompt.replace(/ \(.*\)$/, "")) + (card ? " — " + card.action : "");
    choices = S.staged.follow.choices;
  } else {
    promptText = cap(d.prompt.replace(/^player \d+: /, "").replace(/ \((discard|mine).*\)$/, ""));
    choices = d.legal_actions.filter((a) => a.id >= 18);
  }
  const head = el("div", { class: "prompt-row" },
    el("p", { id: "prompt", class: "prompt", data: { testid: "prompt" } }, el("span", { class: "your-turn", text: "Your turn" }), " ", promptText));
  strip.append(head);
  const row = el("div", { class: "choices", role: "group", "aria-label": "Choices" });
  if (d.card) head.append(el("span", { class: "playing" }, "Playing ", cardNode(d.card, null, { size: "chip" }),
    d.studied ? el("span", { class: "playing" }, " studying ", cardNode(d.studied, null, { size: "chip" })) : null,
    d.pending ? el("span", { class: "playing" }, " with ", cardNode(d.pending, null, { size: "chip" })) : null));
  if (d.revealed) row.append(el("span", { class: "playing" }, "Revealed: ", cardRow(d.revealed, legal, { size: "mini" }, "", "Revealed cards")));
  const main = choices.filter((a) => !a.label.startsWith("done"));
  const done = choices.filter((a) => a.label.startsWith("done"));
  row.append(...main.map((a) => choiceButton(a, true)));
  if (S.staged) {
    row.append(el("button", { type: "button", class: "quiet take-back", data: { testid: "take-back", focus: "take-back" },
      onclick: takeBack, "aria-keyshortcuts": "Escape" }, "Take back"));
  }
  row.append(...done.map((a) => choiceButton(a, false)));
  if (!S.tutorial && S.meta.hints && S.meta.hints.on && S.seat >= 0 && !S.staged) {
    head.append(el("button", { type: "button", class: "quiet hint-button", data: { testid: "hint", focus: "hint" },
      disabled: S.hint && S.hint.loading, onclick: askHint }, S.hint && S.hint.loading ? "Thinking…" : "Hint"));
  }
  strip.append(row);
  if (S.hint && S.hint.options && !S.staged) strip.append(hintBox(S.hint.options));
  return strip;
}

function hintBox(options) {
  return el("div", { class: "hint-box", data: { testid: "hint-box" }, role: "status" },
    el("p", {}, el("strong", { text: "Hint: " }), cap(options[0].label) + " (about " + Math.round(options[0].win_chance * 100) +
      "% to win this round). Estimated from what you can see, never from hidden cards."),
    el("ul", { class: "hint-options" }, ...options.slice(0, 6).map((o) => el("li", {},
      el("span", { class: "bar-wrap" }, el("meter", { min: 0, max: 1, value: o.win_chance, "aria-label": o.label })),
      " " + Math.round(o.win_chance * 100) + "% — " + o.label))));
}

// --- the round and match summaries

function roundLine(r, viewer) {
  const reason = r.round_end.reason === "hands_empty" ? "both hands were empty; " + (viewer >= 0 ? (r.round_end.winner === viewer ? "you" : "they") : "player " + r.round_end.winner) + " held the artifact" :
    (viewer >= 0 ? (r.round_end.winner === viewer ? "you" : "they") : "player " + r.round_end.winner) + " held the artifact and scored more";
  return "Round " + r.round + ": " + (viewer >= 0 ? (r.round_end.winner === viewer ? "you won" : "they won") : "player " + r.round_end.winner + " won") +
    " — " + reason + " (" + pair(r.scores, viewer, " to ") + ")";
}

function roundSummary(r) {
  const viewer = viewerOf();
  const over = r.match_winner !== null && r.match_winner !== undefined;
  const won = viewer >= 0 && r.round_end.winner === viewer;
  const title = over ? (viewer >= 0 ? (r.match_winner === viewer ? "You won the match!" : "You lost the match.") : "Player " + r.match_winner + " won the match.") :
    (viewer >= 0 ? (won ? "You won round " + r.round + "!" : "They won round " + r.round + ".") : "Player " + r.round_end.winner + " won round " + r.round + ".");
  const box = el("section", { id: "decision", class: "decision summary " + (won ? "good" : "bad"), "aria-labelledby": "summary-title",
    data: { testid: over ? "match-summary" : "round-summary" } },
    el("h2", { id: "summary-title", class: "summary-title", text: over ? "Match summary" : title }),
    el("p", { class: "lines" }, r.lines.join(" ")),
    r.goals.length ? goalTable(r.goals, viewer, "summary-goals") : null);
  if (over) {
    box.append(el("ol", { class: "rounds", data: { testid: "rounds" } }, ...S.rounds.map((x) => el("li", { text: roundLine(x, viewer) }))));
  }
  if (!over && !S.tutorial) {
    box.append(el("div", { class: "choices" }, el("button", { type: "button", class: "choice", data: { testid: "continue", focus: "continue" },
      onclick: continueRound }, "Continue to round " + (r.round + 1))));
  }
  if (over && !S.tutorial) box.append(overActions());
  if (S.tutorial) box.append(coach());
  return box;
}

function continueRound() {
  S.roundView = null;
  S.turnFresh = false;
  render();
  focusDecision(true);
  pump();
}

function overActions() {
  const row = el("div", { class: "choices" });
  const mine = S.seat >= 0;
  if (S.meta.rematch_id) {
    row.append(el("a", { class: "button-link", href: "/m/" + S.meta.rematch_id, data: { testid: "rematch-link" } }, "Go to the rematch"));
  } else if (mine) {
    row.append(el("button", { type: "button", class: "choice", data: { testid: "rematch" },
      onclick: () => send({ type: "rematch" }) }, "Rematch"));
  }
  row.append(
    el("button", { type: "button", class: "quiet", data: { testid: "replay" }, onclick: () => startReplay() }, "Replay step by step"),
    el("a", { class: "button-link quiet", href: "/api/matches/" + S.id + "/record", download: "converge-" + S.id + ".json" }, "Download the record"),
    el("a", { class: "button-link quiet", href: "/" }, "New match"),
    mine ? el("a", { class: "button-link quiet", href: "/history", data: { testid: "my-history" } }, "My matches") : null);
  return row;
}

function overBanner() {
  const result = S.meta.result;
  if (!result || S.replay) return null;
  const mine = S.seat >= 0;
  const won = mine && result.winner === S.seat;
  const how = result.reason === "time" ? " on time" : "";
  const text = mine ? (won ? "You won the match" + how + "!" : "You lost the match" + how + ".") :
    "Player " + result.winner + " won the match" + how + ".";
  return el("section", { class: "banner" + (mine && !won ? " lost" : ""), data: { testid: "match-over" } },
    el("span", { class: "big", text }),
    S.roundView ? null : overActions());
}

// --- the table

function board(obs, interactive, summary) {
  const viewer = viewerOf();
  const bottom = viewer >= 0 ? viewer : 0;
  const top = 1 - bottom;
  const legal = interactive ? legalCards(obs) : {};
  const factions = summary ? summary.board.factions : obs.factions;
  const goals = summary ? summary.board.goals : obs.goals;
  const holder = summary ? summary.holder : obs.artifact_holder;
  const handNote = (p) => summary ? "" : obs.hand_sizes[p] + " card" + (obs.hand_sizes[p] === 1 ? "" : "s") + " in hand";
  const artifactTag = (p) => holder === p ? el("span", { class: "tag artifact-tag" }, icon("artifact", "artifact-icon"), "artifact") : null;
  const themName = seatName(top);
  const topZone = el("section", { class: "zone them", "aria-label": themName + ": faction", data: { testid: "zone-them" } },
    el("div", { class: "zone-head" }, el("h2", { class: "h3", text: themName }), artifactTag(top),
      el("span", { class: "note", text: handNote(top) }),
      summary ? null : el("span", { class: "backs", "aria-hidden": "true" }, ...Array.from({ length: obs.hand_sizes[top] }, () => el("span", { class: "back" })))),
    factionRow(factions[top], legal, "No card in this faction yet.", themName + "'s faction"));
  if (!summary && viewer >= 0 && obs.known_opponent_hand.length) {
    topZone.append(el("p", { class: "note", text: "You know they hold: " + obs.known_opponent_hand.join(", ") }));
  }
  const discard = summary ? [] : obs.discard.slice().reverse();
  const discardTargets = discard.some((id) => legal[id]);
  const goalZone = el("section", { class: "zone goals", "aria-labelledby": "h-goals", data: { testid: "zone-goals" } },
    el("div", { class: "zone-head" }, el("h2", { id: "h-goals", class: "h3", text: "Goals" }),
      el("span", { class: "note", text: "scored at the end of every turn" })),
    cardRow(goals, legal, { size: "goal" }, "No goal yet: declare a card to make one.", "Goals"));
  const pile = summary ? el("section", { class: "zone pile final", data: { testid: "zone-final" } },
    el("p", { class: "note", text: summary.match_winner !== null && summary.match_winner !== undefined ?
      "The board as the match ended." : "The board as round " + summary.round + " ended. The next round is dealt afresh." })) :
    el("section", { class: "zone pile" + (discardTargets ? " open" : ""), "aria-label": "Deck and discard pile", data: { testid: "zone-discard" } },
    el("div", { class: "zone-head" }, el("h2", { class: "h3", text: "Discard" }), el("span", { class: "note", text: discard.length + ", top first" })),
    summary ? null : (discardTargets ? cardRow(discard, legal, { size: "mini" }, "empty", "Discard pile") :
      cardRow(discard.slice(0, 1), legal, { size: "mini" }, "empty", "Discard pile, top card")),
    summary ? null : el("p", { class: "deck" }, el("span", { class: "back", "aria-hidden": "true" }),
      el("span", {}, "Deck: ", el("strong", { data: { testid: "deck-size" }, text: String(obs.deck_size) }))),
    !summary && obs.known_deck.length ? el("p", { class: "note", text: "You know: " + obs.known_deck.map((k) => k.id + " (" + (k.from_top + 1) + " from top)").join(", ") }) : null);
  const middle = el("div", { class: "middle" }, goalZone, pile);
  const youName = seatName(bottom);
  const bottomZone = el("section", { class: "zone you", "aria-label": youName + ": faction", data: { testid: "zone-you" } },
    el("div", { class: "zone-head" }, el("h2", { class: "h3", text: viewer >= 0 ? "Your faction" : youName }), artifactTag(bottom),
      viewer < 0 ? el("span", { class: "note", text: handNote(bottom) }) : null),
    factionRow(factions[bottom], legal, "No card in your faction yet.", viewer >= 0 ? "Your faction" : youName + "'s faction"));
  return { topZone, middle, bottomZone };
}

function handZone(obs, interactive) {
  if (!obs.hand) return null;
  const legal = interactive ? legalCards(obs) : {};
  return el("section", { class: "zone hand", "aria-labelledby": "h-hand", data: { testid: "zone-hand" } },
    el("h2", { id: "h-hand", class: "sr-only", text: "Your hand" }),
    cardRow(obs.hand, legal, { size: "full" }, "Your hand is empty.", "Your hand"));
}

// --- rendering, with gentle movement of the cards (not when the reader asked for less motion)

function cardRects() {
  const out = new Map();
  for (const node of document.querySelectorAll("#app [data-card]")) {
    const r = node.getBoundingClientRect();
    if (!out.has(node.dataset.card)) out.set(node.dataset.card, r);
  }
  return out;
}

function animateFrom(before) {
  if (reducedMotion() || !before.size) return;
  for (const node of document.querySelectorAll("#app [data-card]")) {
    const old = before.get(node.dataset.card);
    const r = node.getBoundingClientRect();
    if (!old) {
      node.animate([{ opacity: 0, transform: "scale(.85)" }, { opacity: 1, transform: "none" }], { duration: 260, easing: "ease-out" });
      continue;
    }
    const dx = old.left - r.left;
    const dy = old.top - r.top;
    if (Math.abs(dx) < 2 && Math.abs(dy) < 2) continue;
    node.animate([{ transform: "translate(" + dx + "px," + dy + "px)" }, { transform: "none" }], { duration: 380, easing: "cubic-bezier(.2,.7,.2,1)" });
  }
}

function focusKey() {
  const a = document.activeElement;
  return a && a.dataset ? a.dataset.focus || null : null;
}

/** Put the keyboard focus on the decision: the first choice (a card or a button), or the summary's button. */
function focusDecision(force) {
  const obs = currentObs();
  const tut = S.tutorial ? ":" + S.tutorial.step + (S.tutorial.done ? "done" : "") : "";
  const key = S.roundView ? "round:" + S.roundView.round + tut : S.staged ? "staged:" + S.seq + tut :
    myDecision(obs) ? "decision:" + S.seq + tut : S.tutorial ? "tutorial" + tut : null;
  if (!key || (!force && key === S.decisionKey)) return;
  S.decisionKey = key;
  const target = $("#decision [data-testid=continue]") || $("#decision [data-testid=coach-next]") ||
    $("#app [data-testid=playable-card]") || $("#decision button.choice:not([disabled])") || $("#decision button:not([disabled])");
  if (target) {
    autoFocusing = true;
    target.focus({ preventScroll: true });
    autoFocusing = false;
  }
}

function currentObs() {
  if (S.replay) return S.replay.data.observation;
  return S.obs;
}

let lastFavicon = "";
function setTurnSignals(obs) {
  const mine = !!(obs && myDecision(obs)) && !S.tutorial;
  const over = S.meta && S.meta.status === "over";
  document.title = mine ? "● Your turn — Converge" : S.tutorial ? "Tutorial — Converge" :
    over ? "Match over — Converge" : "Converge — match";
  const href = mine ? "/static/favicon-turn.svg" : "/static/favicon.svg";
  if (href !== lastFavicon) {
    const link = $("#favicon");
    if (link) link.setAttribute("href", href);
    lastFavicon = href;
  }
  if (mine && !S.myTurnBefore) {
    if (soundOn()) beep();
    announce("Your turn: " + (obs.decision.prompt || "").replace(/^player \d+: /, ""));
  }
  S.myTurnBefore = mine;
}

let audio = null;
function beep() {
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

function render() {
  if (!S.obs || !S.meta) return;
  const obs = currentObs();
  const before = cardRects();
  const key = focusKey();
  hideTip();
  const viewer = viewerOf();
  const interactive = !S.replay && viewer >= 0 && (S.seat >= 0 || S.tutorial);
  const summary = S.replay ? null : S.roundView;
  const parts = board(obs, interactive && !summary, summary);
  const strip = summary ? roundSummary(summary) : S.replay ? null : decisionStrip(obs);
  const table = el("div", { class: "table", data: { testid: "table" } },
    parts.topZone, parts.middle, parts.bottomZone, strip, summary ? null : handZone(obs, interactive));
  const side = el("div", { class: "side" });
  const turn = S.replay ? null : turnPanel();
  if (turn) side.append(turn);
  side.append(scorePanel(summary ? { score_breakdown: summary.goals, scores: summary.scores } : obs));
  if (!S.replay && !S.tutorial) side.append(settingsPanel(), sharePanel());
  side.append(logPanel(obs));
  app().replaceChildren(
    el("div", { class: "match", data: { testid: "match", seat: S.tutorial ? 0 : S.seat, status: S.tutorial ? "tutorial" : S.meta.status,
                                        seq: S.seq, pending: S.pending ? 1 : 0, shown: S.queue.length ? 0 : 1,
                                        summary: summary ? (summary.match_winner !== null && summary.match_winner !== undefined ? "match" : "round") : "" } },
      S.tutorial ? null : overBanner(),
      S.replay ? replayBar() : null,
      statusBar(summary ? Object.assign({}, obs, { scores: summary.scores, artifact_holder: summary.holder, round: summary.round }) : obs),
      el("div", { class: "layout" }, table, side)));
  animateFrom(before);
  setTurnSignals(obs);
  const again = key ? document.querySelector("#app [data-focus='" + key + "']") : null;
  if (again && !again.disabled) {
    autoFocusing = true;
    again.focus({ preventScroll: true });
    autoFocusing = false;
  }
  focusDecision(false);
}

// --- replay of a finished match

async function loadReplay(step, view) {
  try {
    const data = await api("GET", "/api/matches/" + S.id + "/replay?step=" + step + "&view=" + view, undefined, S.token);
    S.replay = { step: data.step, total: data.total, view, data };
    render();
  } catch (e) {
    toast(e.message);
  }
}

function startReplay() { S.roundView = null; loadReplay(0, S.seat); }

function replayBar() {
  const r = S.replay;
  const go = (k) => loadReplay(Math.max(0, Math.min(r.total, k)), r.view);
  const range = el("input", { type: "range", min: 0, max: r.total, value: r.step, "aria-label": "step",
    onchange: (e) => go(Number(e.target.value)) });
  const views = el("select", { "aria-label": "whose view", onchange: (e) => loadReplay(r.step, Number(e.target.value)) },
    ...[[0, "player 0's view"], [1, "player 1's view"], [-1, "spectator's view"]].map(([v, t]) =>
      el("option", { value: String(v), text: t + (v === S.seat ? " (you)" : ""), selected: v === r.view })));
  const move = r.data.move ? "player " + r.data.move.player + ": " + r.data.move.action : "the deal";
  const turn = r.data.turns && r.data.turns.length ? r.data.turns[r.data.turns.length - 1] : null;
  return el("section", { class: "replaybar", data: { testid: "replaybar" } },
    el("strong", { text: "Replay" }),
    el("button", { type: "button", data: { testid: "replay-first" }, disabled: r.step === 0, onclick: () => go(0), "aria-label": "first step" }, "« first"),
    el("button", { type: "button", data: { testid: "replay-prev" }, disabled: r.step === 0, onclick: () => go(r.step - 1), "aria-label": "previous step" }, "◀"),
    el("button", { type: "button", data: { testid: "replay-next" }, disabled: r.step === r.total, onclick: () => go(r.step + 1), "aria-label": "next step" }, "▶"),
    el("button", { type: "button", data: { testid: "replay-last" }, disabled: r.step === r.total, onclick: () => go(r.total), "aria-label": "last step" }, "last »"),
    range,
    el("span", { class: "move", data: { testid: "replay-step" }, text: "step " + r.step + " / " + r.total + " — " + move }),
    views,
    turn ? el("p", { class: "turn-line", data: { testid: "replay-turn" } }, turn.lines.join(" ")) : null,
    S.meta.rematch_id ? el("a", { href: "/m/" + S.meta.rematch_id, data: { testid: "rematch-link" } }, "Go to the rematch") : null,
    el("button", { type: "button", data: { testid: "replay-exit" }, onclick: () => { S.replay = null; render(); } }, "Back to the match"));
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && S.staged) { e.preventDefault(); takeBack(); return; }
  if (!S.replay || e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
  if (e.key === "ArrowRight" && S.replay.step < S.replay.total) loadReplay(S.replay.step + 1, S.replay.view);
  if (e.key === "ArrowLeft" && S.replay.step > 0) loadReplay(S.replay.step - 1, S.replay.view);
});

// Clocks tick between messages.
setInterval(() => {
  if (!S.meta || !S.meta.clock || S.replay || S.tutorial) return;
  const viewer = viewerOf();
  for (const node of document.querySelectorAll("[data-clock]")) {
    const p = Number(node.dataset.clock);
    node.textContent = clockText(p, viewer, clockLeft(p), S.meta.clock.running === p);
  }
}, 250);

function matchView(id) {
  S.id = id;
  const frag = new URLSearchParams(location.hash.slice(1));
  const fromLink = frag.get("token");
  if (fromLink) {
    saveToken(id, fromLink);
    history.replaceState(null, "", location.pathname);  // keep the token out of sight (and of screenshots)
  }
  S.token = fromLink || loadToken(id);
  S.autoReplay = frag.has("replay");
  if (S.autoReplay) history.replaceState(null, "", location.pathname);
  app().replaceChildren(el("p", { class: "loading", text: "Connecting…" }));
  connect();
}

/** Tell the server that this browser's player plays this seat (a match reached by an invite link), so
 *  that it appears in their history; nothing happens for a visitor without a name. */
async function linkSeat() {
  try {
    const me = await api("GET", "/api/me");
    if (me.player) await api("POST", "/api/matches/" + S.id + "/players", {}, S.token);
  } catch (_) { /* not essential */ }
}

// ------------------------------------------------------------------ the tutorial (played in this page)

function currentStep() { return S.tutorial.script.steps[S.tutorial.step] || { expect: null, text: "" }; }

function coach() {
  const t = S.tutorial;
  if (t.done) {
    return el("div", { class: "coach done", data: { testid: "tutorial-complete" } },
      el("p", { class: "coach-text", data: { testid: "coach-text" } }, el("strong", { text: "Tutorial complete. " }),
        "You know how to play a card three ways, how goals score and how the artifact moves."),
      el("p", { class: "row" }, el("a", { class: "button-link primary", href: "/" }, "Play a real match"),
        el("a", { href: "/rules" }, "Read the rules")));
  }
  const step = S.staged ? t.script.steps[t.step + 1] : currentStep();  // a card held: what to do with it
  const box = el("div", { class: "coach", role: "note", "aria-label": "Tutorial" },
    el("p", { class: "coach-text", data: { testid: "coach-text", step: t.step } }, el("span", { class: "coach-tag", text: "Tutorial" }), " ", step.text));
  const last = t.step === t.script.steps.length - 1;
  if (step.expect === null && !t.waiting) {
    box.append(el("button", { type: "button", class: "choice", data: { testid: "coach-next", focus: "coach-next" },
      onclick: tutorialNext }, last ? "Finish" : "Next"));
  }
  return box;
}

function tutorialApply(state) {
  S.obs = state.observation;
  S.seq = state.seq;
  S.next = state.next || {};
  const fresh = state.observation.events.slice(S.tutorial.seen);
  S.tutorial.seen = state.observation.events.length;
  if (fresh.some((e) => e.kind === "play" || e.kind === "pass")) S.turnFresh = false;
  for (const t of state.turns || []) {
    S.lastTurn = t;
    S.turnFresh = true;
    if (t.round_end) { S.rounds.push(t); S.roundView = t; }
  }
  const others = fresh.filter((e) => e.player === 1 && e.text).map((e) => e.text);
  if (others.length) announce(others.join(" "));
}

/** Move on from the current step; the opponent's scripted moves follow by themselves, at a readable pace. */
async function tutorialAdvance() {
  const t = S.tutorial;
  t.step += 1;
  S.staged = null;
  render();
  focusDecision(true);
  announce(currentStep().text);
  while (!t.done && t.step < t.script.steps.length && currentStep().player === 1 && currentStep().expect !== null) {
    t.waiting = true;
    await new Promise((resolve) => setTimeout(resolve, Math.max(pace(), 250)));
    tutorialApply(currentStep().state);
    t.step += 1;
    t.waiting = false;
    render();
    focusDecision(true);
    announce(currentStep().text);
  }
}

function tutorialAct(actions) {
  for (const a of actions) {
    const step = currentStep();
    if (step.expect !== a) { toast("In this tutorial, follow the instruction above the hand."); S.staged = null; render(); return; }
    tutorialApply(step.state);
    if (a !== actions[actions.length - 1]) S.tutorial.step += 1;
  }
  tutorialAdvance();
}

function tutorialNext() {
  const t = S.tutorial;
  if (t.step >= t.script.steps.length - 1) {
    t.done = true;
    render();
    const done = $("[data-testid=tutorial-complete] a");
    if (done) done.focus();
    announce("Tutorial complete.");
    return;
  }
  tutorialAdvance();
}

async function tutorialView() {
  document.title = "Tutorial — Converge";
  let script;
  try {
    script = await api("GET", "/api/tutorial");
  } catch (e) {
    app().replaceChildren(el("p", { text: "The tutorial could not be loaded: " + e.message }));
    return;
  }
  S.seat = script.seat;
  S.cards = Object.fromEntries(script.cards.map((c) => [c.id, c]));
  S.colors = script.colors;
  S.meta = { status: "active", seats: [{ kind: "human" }, { kind: "bot", bot: "tutorial" }], mode: "tutorial", clock: null, hints: null };
  S.tutorial = { script, step: 0, seen: script.start.observation.events.length, done: false, waiting: false };
  S.obs = script.start.observation;
  S.next = script.start.next;
  S.seq = 0;
  render();
  focusDecision(true);
}

// ------------------------------------------------------------------ start

function start() {
  installRules();
  window.addEventListener("scroll", hideTip, { passive: true });
  const m = /^\/m\/([A-Za-z0-9_-]{1,32})\/?$/.exec(location.pathname);
  if (m) {
    matchView(m[1]);
  } else if (location.pathname === "/tutorial") {
    tutorialView();
  } else if (location.pathname === "/leaderboard") {
    showLeaderboard();
  } else if (location.pathname === "/history") {
    showHistory();
  } else {
    showHome();
  }
}

start();
