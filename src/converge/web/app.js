// Converge — the browser client. Plain JavaScript, no build step, no inline code (the page's CSP forbids it).
//
// Everything this page shows of a match comes from the server's messages: the observation of this
// browser's seat (or the spectator's view) and public metadata. The seat token comes from the URL
// fragment (#token=...), which browsers never send to a server, and is kept in this browser's storage.
"use strict";

(() => {
  // ------------------------------------------------------------------ helpers

  const $ = (sel, root = document) => root.querySelector(sel);
  const app = () => $("#app");
  const STAR = "★";

  /** Build an element: el("div", {class: "x", text: "hi", data: {action: 3}, onclick: fn}, child, ...). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key === "data") for (const [k, v] of Object.entries(value)) node.dataset[k] = String(v);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (value === true) node.setAttribute(key, "");
      else node.setAttribute(key, String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  let toastTimer = null;
  function toast(message) {
    const box = $("#toast");
    box.textContent = message;
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, 5000);
  }

  class ApiError extends Error {
    constructor(code, message, status) { super(message); this.code = code; this.status = status; }
  }

  async function api(method, path, body, token) {
    const headers = { "Accept": "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers["Authorization"] = "Bearer " + token;
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body),
                                    cache: "no-store", credentials: "omit" });
    let doc = null;
    try { doc = await res.json(); } catch (_) { doc = null; }
    if (!res.ok) {
      const err = (doc && doc.error) || { code: "http", message: "the server answered " + res.status };
      throw new ApiError(err.code, err.message, res.status);
    }
    return doc;
  }

  // Seat tokens: per tab first (so that two tabs of one browser can hold both seats), then per browser.
  const tokenKey = (id) => "converge.token." + id;
  function saveToken(id, token) {
    try {
      sessionStorage.setItem(tokenKey(id), token);
      if (!localStorage.getItem(tokenKey(id))) localStorage.setItem(tokenKey(id), token);
    } catch (_) { /* storage disabled: the token lives in this page only */ }
  }
  function loadToken(id) {
    try { return sessionStorage.getItem(tokenKey(id)) || localStorage.getItem(tokenKey(id)); } catch (_) { return null; }
  }
  function forgetToken(id) {
    try { sessionStorage.removeItem(tokenKey(id)); localStorage.removeItem(tokenKey(id)); } catch (_) { /* */ }
  }
  function saveInvite(id, url) { try { localStorage.setItem("converge.invite." + id, url); } catch (_) { /* */ } }
  function loadInvite(id) { try { return localStorage.getItem("converge.invite." + id); } catch (_) { return null; } }

  const absolute = (path) => location.origin + path;
  const lower = (s) => String(s || "").toLowerCase();

  // ------------------------------------------------------------------ rules (a small Markdown renderer)

  function inline(text) {
    const out = [];
    const re = /(`[^`]+`|\*\*[^*]+\*\*|\*[^*\s][^*]*\*|\[[^\]]+\]\([^)]+\))/g;
    let last = 0;
    for (const m of text.matchAll(re)) {
      if (m.index > last) out.push(text.slice(last, m.index));
      const t = m[0];
      if (t.startsWith("`")) out.push(el("code", { text: t.slice(1, -1) }));
      else if (t.startsWith("**")) out.push(el("strong", {}, ...inline(t.slice(2, -2))));
      else if (t.startsWith("*")) out.push(el("em", {}, ...inline(t.slice(1, -1))));
      else out.push(t.slice(1, t.indexOf("]")));  // links inside the rules point to files: show the text
      last = m.index + t.length;
    }
    if (last < text.length) out.push(text.slice(last));
    return out;
  }

  function markdown(src) {
    const root = document.createDocumentFragment();
    const lines = src.replace(/\r/g, "").split("\n");
    let i = 0;
    let para = [];
    const flush = () => {
      if (para.length) root.append(el("p", {}, ...inline(para.join(" "))));
      para = [];
    };
    while (i < lines.length) {
      const line = lines[i];
      const heading = /^(#{1,4})\s+(.*)$/.exec(line);
      if (heading) {
        flush();
        root.append(el("h" + Math.min(4, heading[1].length + 1), {}, ...inline(heading[2])));
        i += 1;
      } else if (line.startsWith("```")) {
        flush();
        const body = [];
        i += 1;
        while (i < lines.length && !lines[i].startsWith("```")) { body.push(lines[i]); i += 1; }
        root.append(el("pre", {}, el("code", { text: body.join("\n") })));
        i += 1;
      } else if (line.startsWith("|")) {
        flush();
        const rows = [];
        while (i < lines.length && lines[i].startsWith("|")) { rows.push(lines[i]); i += 1; }
        const cells = (r) => r.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
        const table = el("table");
        rows.forEach((r, k) => {
          if (k === 1 && /^[\s|:-]+$/.test(r)) return;
          table.append(el("tr", {}, ...cells(r).map((c) => el(k === 0 ? "th" : "td", {}, ...inline(c)))));
        });
        root.append(table);
      } else if (/^\s*([-*]|\d+\.)\s+/.test(line)) {
        flush();
        const ordered = /^\s*\d+\./.test(line);
        const list = el(ordered ? "ol" : "ul");
        while (i < lines.length && (/^\s*([-*]|\d+\.)\s+/.test(lines[i]) || /^\s{2,}\S/.test(lines[i]))) {
          const item = /^\s*([-*]|\d+\.)\s+(.*)$/.exec(lines[i]);
          if (item) list.append(el("li", {}, ...inline(item[2])));
          else if (list.lastChild) list.lastChild.append(" ", ...inline(lines[i].trim()));
          i += 1;
        }
        root.append(list);
      } else if (!line.trim()) {
        flush();
        i += 1;
      } else {
        para.push(line.trim());
        i += 1;
      }
    }
    flush();
    return root;
  }

  let rulesLoaded = false;
  async function openRules() {
    const dialog = $("#rules");
    if (!rulesLoaded) {
      try {
        const doc = await api("GET", "/api/rules");
        const body = $("#rules-body");
        body.textContent = "";
        body.append(markdown(doc.markdown));
        rulesLoaded = true;
      } catch (e) {
        toast("The rules could not be loaded: " + e.message);
      }
    }
    if (!dialog.open) dialog.showModal();
  }

  // ------------------------------------------------------------------ home: create a match

  function playsetPicker(options, prefix) {
    const custom = el("div", { class: "row", hidden: true });
    const selects = [0, 1, 2].map((k) => {
      const s = el("select", { "aria-label": "skillset " + (k + 1), data: { testid: prefix + "-skillset-" + k } },
        ...options.skillsets.map((sk) => el("option", { value: sk.key, text: sk.name })));
      s.selectedIndex = k;
      return s;
    });
    custom.append(...selects);
    const setNames = { catalysts: "Catalysts of Change", engines: "Engines of Progress", sparks: "Sparks of Hope" };
    const choice = el("select", { id: prefix + "-playset", data: { testid: prefix + "-playset" },
                                  onchange: () => { custom.hidden = choice.value !== "custom"; } },
      el("option", { value: "random", text: "A random playset" }),
      ...Object.entries(options.sets).map(([key, names]) => el("option", { value: key,
        text: (setNames[key] || key) + " (" + names.join(", ") + ")" })),
      el("option", { value: "custom", text: "Choose three skillsets…" }));
    const node = el("div", { class: "field" }, el("label", { for: prefix + "-playset", text: "Playset" }), choice, custom);
    const value = () => (choice.value === "custom" ? selects.map((s) => s.value) : choice.value);
    return { node, value };
  }

  async function create(body, button) {
    button.disabled = true;
    try {
      const doc = await api("POST", "/api/matches", body);
      saveToken(doc.match_id, doc.token);
      if (doc.invite_url) saveInvite(doc.match_id, absolute(doc.invite_url));
      location.assign("/m/" + doc.match_id);
    } catch (e) {
      toast(e.message);
      button.disabled = false;
    }
  }

  async function home() {
    document.title = "Converge";
    let options;
    try {
      options = await api("GET", "/api/options");
    } catch (e) {
      app().replaceChildren(el("p", { text: "The server cannot be reached: " + e.message }));
      return;
    }
    const botPick = playsetPicker(options, "bot");
    const level = el("select", { id: "bot-level", data: { testid: "bot-level" } },
      ...options.bots.map((b) => el("option", { value: b, text: b, selected: b === options.default_bot })));
    const seat = el("select", { id: "bot-seat", data: { testid: "bot-seat" } },
      el("option", { value: "0", text: "seat 0" }), el("option", { value: "1", text: "seat 1" }),
      el("option", { value: "random", text: "either" }));
    const botButton = el("button", { class: "primary", type: "button", data: { testid: "create-bot" },
      onclick: () => create({ opponent: "bot", bot: level.value, playset: botPick.value(),
                              seat: seat.value === "random" ? "random" : Number(seat.value) }, botButton) },
      "Play against the bot");

    const friendPick = playsetPicker(options, "friend");
    const clock = el("select", { id: "friend-clock", data: { testid: "friend-clock" } },
      el("option", { value: "", text: "no clock" }),
      ...[3, 5, 10, 20].map((m) => el("option", { value: String(m * 60), text: m + " minutes each" })));
    const friendButton = el("button", { class: "primary", type: "button", data: { testid: "create-friend" },
      onclick: () => create({ opponent: "friend", playset: friendPick.value(),
                              clock: clock.value ? Number(clock.value) : null }, friendButton) },
      "Create a match and an invite link");

    const watchInput = el("input", { id: "watch-id", placeholder: "a match link or id", data: { testid: "watch-input" } });
    const watchButton = el("button", { type: "button", onclick: () => {
      const m = /([A-Za-z0-9_-]{6,32})\s*$/.exec(watchInput.value.replace(/#.*$/, ""));
      if (m) location.assign("/m/" + m[1]); else toast("That is not a match link.");
    } }, "Watch");

    app().replaceChildren(el("div", { class: "home", data: { testid: "home" } },
      el("section", { class: "panel intro" },
        el("h1", { text: "Converge" }),
        el("p", { text: "Each turn the artifact holder plays a card, then the other player plays one: discard it " +
          "for its effect, declare it as a shared goal, or add it to a faction. Goals are scored at the end of " +
          "every turn; outscore the other player while you hold the artifact to win the round. First to two " +
          "rounds wins." }),
        el("button", { type: "button", class: "link-button", onclick: openRules }, "Read the full rules")),
      el("section", { class: "panel" },
        el("h2", { text: "Play against a bot" }),
        el("p", { text: "Choose the bot's level and the playset." }),
        el("div", { class: "field" }, el("label", { for: "bot-level", text: "Bot" }), level),
        botPick.node,
        el("div", { class: "field" }, el("label", { for: "bot-seat", text: "Your seat" }), seat),
        botButton),
      el("section", { class: "panel" },
        el("h2", { text: "Play with a friend" }),
        el("p", { text: "You get a private invite link to send; whoever opens it takes the other seat." }),
        friendPick.node,
        el("div", { class: "field" }, el("label", { for: "friend-clock", text: "Clock" }), clock),
        friendButton),
      el("section", { class: "panel" },
        el("h2", { text: "Watch a match" }),
        el("p", { text: "Spectators see what both players see of the table, never a hand." }),
        el("div", { class: "row" }, watchInput, watchButton))));
  }

  // ------------------------------------------------------------------ a match

  const S = {
    id: null, token: null, seat: -1, ws: null, meta: null, obs: null, seq: 0, cards: {}, colors: {},
    pending: false, retry: 0, stop: false, receivedAt: 0, replay: null, connected: false,
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
      ws.send(JSON.stringify(S.token ? { type: "hello", token: S.token } : { type: "hello" }));
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
        S.pending = false;
        S.connected = true;
        S.retry = 0;
        S.receivedAt = performance.now();
        setConn(S.seat >= 0 ? "connected" : "watching", true);
        render();
        break;
      case "state": {
        const events = (S.obs ? S.obs.events.slice(0, msg.events_from) : []).concat(msg.observation.events);
        S.obs = Object.assign({}, msg.observation, { events });
        S.meta = msg.match;
        S.seq = msg.seq;
        S.pending = false;
        S.receivedAt = performance.now();
        render();
        break;
      }
      case "ack":
        S.seq = Math.max(S.seq, msg.seq);
        break;
      case "meta":
        S.meta = msg.match;
        S.receivedAt = performance.now();
        render();
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
        if (msg.code === "not_found") { S.stop = true; notFound(); return; }
        if (msg.code === "replaced") { S.stop = true; return; }  // the close (4409) says it on the page
        if (msg.code !== "unauthorized") toast(msg.message);
        render();
        break;
      default:
        break;
    }
  }

  function notFound() {
    app().replaceChildren(el("div", { class: "panel" }, el("h2", { text: "No such match" }),
      el("p", { text: "This match does not exist on this server." }), el("a", { href: "/", text: "Start a new one" })));
  }

  function act(actionId) {
    if (S.pending || S.replay) return;
    if (send({ type: "action", action: actionId, seq: S.seq })) {
      S.pending = true;
      render();
    }
  }

  // --- naming, from this browser's point of view

  const me = () => (S.seat >= 0 ? S.seat : 0);
  function who(player, viewer) {
    if (player === null || player === undefined || player < 0) return "nobody";
    if (viewer >= 0) return player === viewer ? "you" : "them";
    return "player " + player;
  }
  function seatName(p) {
    const seat = S.meta && S.meta.seats[p];
    const label = seat && seat.kind === "bot" ? "bot (" + seat.bot + ")" : seat && seat.replaced ?
      "bot standing in (" + seat.bot + ")" : "player " + p;
    if (S.seat >= 0) return (p === S.seat ? "You" : "Them") + " — " + label;
    return label.charAt(0).toUpperCase() + label.slice(1);
  }
  function colorClass(skillset) { return "col-" + lower(S.colors[skillset] || "grey"); }

  // --- cards

  function legalCards(obs) {
    const out = {};
    const d = obs.decision;
    if (!d || !d.legal_actions || S.replay || S.pending || !S.meta || S.meta.status !== "active") return out;
    for (const a of d.legal_actions) if (a.id < 18) out[a.action] = a;
    return out;
  }

  function cardNode(id, legal, opts) {
    const o = opts || {};
    const card = S.cards[id] || { id, name: id, skillset: "", rank: "?", goal: "", stars: 0, effect: "" };
    const inPlay = o.inPlay;
    const skill = inPlay ? inPlay.skillset : card.skillset;
    const rank = inPlay ? inPlay.rank : card.rank;
    const playable = legal && legal[id];
    const tag = playable ? "button" : "div";
    const attrs = {
      class: "card " + colorClass(skill) + (playable ? " playable" : "") + (o.small ? " small" : "") +
        (o.chosen ? " chosen" : ""),
      data: { card: id, testid: playable ? "playable-card" : "card" },
      title: card.text || id,
    };
    if (playable) {
      attrs.type = "button";
      attrs.onclick = () => act(playable.id);
      attrs.data.action = playable.id;
      attrs["aria-label"] = playable.label;
    }
    const node = el(tag, attrs,
      el("div", { class: "top" }, el("span", { class: "cid", text: id }), el("span", { class: "rank", text: String(rank) })),
      el("div", { class: "name", text: card.name }));
    if (inPlay && inPlay.converted) {
      node.append(el("div", { class: "was", text: "now " + skill + " " + rank + " (printed " +
        inPlay.printed_skillset + " " + inPlay.printed_rank + (inPlay.until_end_of_turn ? ", until end of turn" : "") + ")" }));
    }
    if (!o.small) {
      node.append(el("div", { class: "goal", text: "Goal: " + card.goal + " " + STAR.repeat(card.stars) }),
        el("div", { class: "effect", text: card.effect }));
    }
    if (inPlay && inPlay.guarded_by !== null && inPlay.guarded_by !== undefined) {
      node.append(el("span", { class: "guard", title: "guarded by " + who(inPlay.guarded_by, S.seat), text: "🛡" }));
    }
    return node;
  }

  function cardRow(ids, legal, opts, emptyText) {
    if (!ids.length) return el("div", { class: "cards" }, el("span", { class: "empty", text: emptyText || "none" }));
    return el("div", { class: "cards" }, ...ids.map((id) => cardNode(id, legal, opts)));
  }

  function factionRow(faction, legal, emptyText) {
    if (!faction.length) return el("div", { class: "cards" }, el("span", { class: "empty", text: emptyText }));
    return el("div", { class: "cards" }, ...faction.map((c) => cardNode(c.id, legal, { inPlay: c })));
  }

  // --- panels

  function fmtClock(ms) {
    if (ms === null || ms === undefined) return "–";
    const s = Math.max(0, Math.ceil(ms / 1000));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  function clockLeft(p) {
    const c = S.meta && S.meta.clock;
    if (!c) return null;
    let left = c.left_ms[p];
    if (c.running === p && !S.replay) left -= performance.now() - S.receivedAt;
    return left;
  }

  function statusBar(obs) {
    const viewer = S.replay ? S.replay.view : S.seat;
    const wins = obs.round_wins;
    const bar = el("div", { class: "status", data: { testid: "status" } },
      el("span", {}, ...obs.playset.map((s) => el("span", { class: "chip " + colorClass(s), text: s }))),
      el("span", { class: "big", text: "Round " + obs.round }),
      el("span", { data: { testid: "round-wins" }, text: viewer >= 0 ?
        "rounds: you " + wins[viewer] + " – " + wins[1 - viewer] + " them" :
        "rounds: P0 " + wins[0] + " – " + wins[1] + " P1" }),
      el("span", {}, "artifact: ", el("span", { class: "artifact", text: who(obs.artifact_holder, viewer) })),
      el("span", { data: { testid: "scores" }, text: viewer >= 0 ?
        "points: you " + obs.scores[viewer] + " – " + obs.scores[1 - viewer] + " them" :
        "points: P0 " + obs.scores[0] + " – " + obs.scores[1] + " P1" }));
    if (S.meta && S.meta.clock) {
      for (const p of [0, 1]) {
        const left = clockLeft(p);
        bar.append(el("span", { class: "clock" + (S.meta.clock.running === p ? " running" : "") +
          (left !== null && left < 30000 ? " low" : ""), data: { clock: p },
          text: (viewer >= 0 ? who(p, viewer) : "P" + p) + " " + fmtClock(left) }));
      }
    }
    return bar;
  }

  function scorePanel(obs) {
    const viewer = S.replay ? S.replay.view : S.seat;
    const mine = viewer >= 0 ? viewer : 0;
    const table = el("table", { class: "score", data: { testid: "score-table" } },
      el("tr", {}, el("th", { text: "Goal" }), el("th", { text: "" }), el("th", { text: "scores" })));
    for (const item of obs.score_breakdown) {
      const w = item.winners;
      const text = w.length === 2 ? "both" : w.length === 1 ? who(w[0], viewer) : "nobody";
      const cls = w.length === 2 ? "who-both" : !w.length ? "who-nobody" : viewer < 0 ? "" :
        w[0] === viewer ? "who-you" : "who-them";
      table.append(el("tr", { data: { goal: item.goal } },
        el("td", {}, el("strong", { text: item.goal + " " }), item.text, el("div", { class: "empty", text: item.why })),
        el("td", { class: "stars", text: STAR.repeat(item.stars) }),
        el("td", { class: cls, text: text })));
    }
    if (!obs.score_breakdown.length) {
      table.append(el("tr", {}, el("td", { colspan: 3, class: "empty", text: "No goal declared yet." })));
    }
    table.append(el("tr", { class: "total" }, el("td", { text: "Total" }), el("td", {}),
      el("td", { text: viewer >= 0 ? "you " + obs.scores[mine] + " : " + obs.scores[1 - mine] + " them" :
        obs.scores[0] + " : " + obs.scores[1] })));
    return el("section", { class: "panel" }, el("h3", { text: "Score per goal" }), table);
  }

  function logPanel(obs) {
    const items = obs.events.slice(-60).reverse();
    return el("section", { class: "panel" }, el("h3", { text: "What happened" }),
      el("ul", { class: "log", data: { testid: "log" } },
        ...items.map((e) => el("li", { text: e.text }))));
  }

  function copyField(label, url, testid) {
    const input = el("input", { readonly: true, value: url, data: { testid }, onfocus: (e) => e.target.select() });
    const button = el("button", { type: "button", onclick: async () => {
      input.select();
      try { await navigator.clipboard.writeText(url); toast("Copied."); } catch (_) { toast("Select the link and copy it."); }
    } }, "Copy");
    return el("div", { class: "field invite" }, el("span", { class: "label", text: label }), el("div", { class: "row" }, input, button));
  }

  function sharePanel() {
    const panel = el("section", { class: "panel" }, el("h3", { text: "Share" }));
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

  function decisionPanel(obs) {
    const d = obs.decision;
    const viewer = S.seat;
    if (!S.meta || S.meta.status !== "active" || !d) return null;
    if (!d.legal_actions || d.player !== viewer) {
      const seat = S.meta.seats[d.player];
      const name = viewer >= 0 ? (seat.kind === "bot" || seat.replaced ? "the bot" : "your opponent") : "player " + d.player;
      const what = { select: "choose a card", mode: "choose how to play it", faction: "choose a faction",
                     skillset: "choose a skillset", target: "choose a target", second: "choose a card" }[d.kind] || "decide";
      return el("section", { class: "decision waiting", data: { testid: "waiting" } },
        el("div", { class: "prompt", text: "Waiting for " + name + " to " + what + "…" }),
        d.card ? el("div", {}, "Playing: ", cardNode(d.card, null, { small: true })) : null);
    }
    const legal = legalCards(obs);
    const prompt = d.prompt.replace(/^player \d+: /, "");
    const panel = el("section", { class: "decision", data: { testid: "decision", kind: d.kind } },
      el("div", { class: "prompt", data: { testid: "prompt" }, text: prompt.charAt(0).toUpperCase() + prompt.slice(1) }));
    if (d.card) panel.append(el("div", { class: "row" }, "Playing: ", cardNode(d.card, null, { small: true, chosen: true }),
      d.studied ? el("span", {}, " studying ", cardNode(d.studied, null, { small: true })) : null));
    if (d.revealed) panel.append(el("div", { class: "revealed" }, el("span", { class: "label", text: "Revealed:" }),
      cardRow(d.revealed, legal, { small: false })));
    panel.append(el("div", { class: "choices" }, ...d.legal_actions.map((a) => el("button", {
      type: "button", class: a.id >= 18 ? "primary" : "", disabled: S.pending, data: { action: a.id, testid: "action" },
      onclick: () => act(a.id) }, a.label))));
    return panel;
  }

  function overBanner() {
    const result = S.meta.result;
    if (!result || S.replay) return null;
    const mine = S.seat >= 0;
    const won = mine && result.winner === S.seat;
    const how = result.reason === "time" ? " on time" : "";
    const text = mine ? (won ? "You won the match" + how + "!" : "You lost the match" + how + ".") :
      "Player " + result.winner + " won the match" + how + ".";
    const banner = el("section", { class: "banner" + (mine && !won ? " lost" : ""), data: { testid: "match-over" } },
      el("span", { class: "big", text }));
    if (S.meta.rematch_id) {
      banner.append(el("a", { href: "/m/" + S.meta.rematch_id, data: { testid: "rematch-link" } }, "Go to the rematch"));
    } else if (mine) {
      banner.append(el("button", { type: "button", class: "primary", data: { testid: "rematch" },
        onclick: () => send({ type: "rematch" }) }, "Rematch"));
    }
    banner.append(
      el("button", { type: "button", data: { testid: "replay" }, onclick: () => startReplay() }, "Replay step by step"),
      el("a", { href: "/api/matches/" + S.id + "/record", download: "converge-" + S.id + ".json" }, "Download the record"),
      el("a", { href: "/" }, "New match"));
    return banner;
  }

  function board(obs, interactive) {
    const viewer = S.replay ? S.replay.view : S.seat;
    const bottom = viewer >= 0 ? viewer : 0;
    const top = 1 - bottom;
    const legal = interactive ? legalCards(obs) : {};
    const name = (p) => (S.replay ? (viewer >= 0 ? (p === viewer ? "You" : "Them") : "Player " + p) : seatName(p));
    const hand = obs.hand;
    const topZone = el("section", { class: "zone", data: { testid: "zone-them" } },
      el("div", { class: "zone-head" }, el("h3", { text: name(top) }),
        el("span", { class: "note", text: "hand: " + obs.hand_sizes[top] + " card" + (obs.hand_sizes[top] === 1 ? "" : "s") +
          (obs.artifact_holder === top ? " · holds the artifact" : "") }),
        el("span", { class: "row" }, ...Array.from({ length: obs.hand_sizes[top] }, () => el("span", { class: "card back" })))),
      factionRow(obs.factions[top], legal, "empty faction"));
    if (viewer < 0 || obs.known_opponent_hand.length) {
      if (viewer >= 0) topZone.append(el("div", { class: "note empty", text: "You know they hold: " + obs.known_opponent_hand.join(", ") }));
    }
    const discard = obs.discard.slice().reverse();
    const middle = el("div", { class: "middle" },
      el("section", { class: "zone", data: { testid: "zone-goals" } },
        el("div", { class: "zone-head" }, el("h3", { text: "Goals" })), cardRow(obs.goals, legal, {}, "no goal yet")),
      el("section", { class: "zone", data: { testid: "zone-discard" } },
        el("div", { class: "zone-head" }, el("h3", { text: "Discard" }), el("span", { class: "note", text: obs.discard.length + " (top first)" })),
        cardRow(discard, legal, { small: true }, "empty")),
      el("section", { class: "zone" },
        el("div", { class: "zone-head" }, el("h3", { text: "Deck" })),
        el("div", { class: "pile" }, el("span", { class: "card back" }), el("span", { class: "count", data: { testid: "deck-size" }, text: String(obs.deck_size) })),
        obs.known_deck.length ? el("div", { class: "empty", text: "You know: " + obs.known_deck.map((k) => k.id + " (" + (k.from_top + 1) + " from top)").join(", ") }) : null,
        el("div", { class: "note" }, "Artifact: ", el("span", { class: "artifact", text: who(obs.artifact_holder, viewer) }))));
    const bottomZone = el("section", { class: "zone mine", data: { testid: "zone-you" } },
      el("div", { class: "zone-head" }, el("h3", { text: viewer >= 0 ? name(bottom) + " — faction" : name(bottom) }),
        el("span", { class: "note", text: [viewer < 0 ? "hand: " + obs.hand_sizes[bottom] + " card" +
          (obs.hand_sizes[bottom] === 1 ? "" : "s") : "", obs.artifact_holder === bottom ? "holds the artifact" : ""]
          .filter(Boolean).join(" · ") }),
        viewer < 0 ? el("span", { class: "row" }, ...Array.from({ length: obs.hand_sizes[bottom] },
          () => el("span", { class: "card back" }))) : null),
      factionRow(obs.factions[bottom], legal, "empty faction"));
    const parts = [topZone, middle, bottomZone];
    if (hand) {
      parts.push(el("section", { class: "zone mine", data: { testid: "zone-hand" } },
        el("div", { class: "zone-head" }, el("h3", { text: "Your hand" })), cardRow(hand, legal, {}, "no cards")));
    }
    return el("div", { class: "board" }, ...parts);
  }

  function render() {
    if (!S.obs || !S.meta) return;
    const obs = S.replay ? S.replay.data.observation : S.obs;
    document.title = "Converge — " + (S.meta.status === "over" ? "match over" :
      obs.decision && obs.decision.player === S.seat ? "your move" : "match");
    const interactive = !S.replay && S.seat >= 0;
    const side = el("div", { class: "side" }, scorePanel(obs));
    if (!S.replay) side.append(sharePanel());
    side.append(logPanel(obs));
    const boardCol = el("div", { class: "board" }, board(obs, interactive));
    if (!S.replay) {
      const d = decisionPanel(obs);
      if (d) boardCol.append(d);
    }
    app().replaceChildren(
      el("div", { class: "match", data: { testid: "match", seat: S.seat, status: S.meta.status, seq: S.seq,
                                          pending: S.pending ? 1 : 0 } },
        overBanner(),
        S.replay ? replayBar() : null,
        statusBar(obs),
        el("div", { class: "layout" }, boardCol, side)));
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

  function startReplay() { loadReplay(0, S.seat); }

  function replayBar() {
    const r = S.replay;
    const go = (k) => loadReplay(Math.max(0, Math.min(r.total, k)), r.view);
    const range = el("input", { type: "range", min: 0, max: r.total, value: r.step, "aria-label": "step",
      onchange: (e) => go(Number(e.target.value)) });
    const views = el("select", { "aria-label": "whose view", onchange: (e) => loadReplay(r.step, Number(e.target.value)) },
      ...[[0, "player 0's view"], [1, "player 1's view"], [-1, "spectator's view"]].map(([v, t]) =>
        el("option", { value: String(v), text: t + (v === S.seat ? " (you)" : ""), selected: v === r.view })));
    const move = r.data.move ? "player " + r.data.move.player + ": " + r.data.move.action : "the deal";
    return el("section", { class: "replaybar", data: { testid: "replaybar" } },
      el("strong", { text: "Replay" }),
      el("button", { type: "button", data: { testid: "replay-first" }, disabled: r.step === 0, onclick: () => go(0) }, "« first"),
      el("button", { type: "button", data: { testid: "replay-prev" }, disabled: r.step === 0, onclick: () => go(r.step - 1) }, "◀"),
      el("button", { type: "button", data: { testid: "replay-next" }, disabled: r.step === r.total, onclick: () => go(r.step + 1) }, "▶"),
      el("button", { type: "button", data: { testid: "replay-last" }, disabled: r.step === r.total, onclick: () => go(r.total) }, "last »"),
      range,
      el("span", { class: "move", data: { testid: "replay-step" }, text: "step " + r.step + " / " + r.total + " — " + move }),
      views,
      el("button", { type: "button", data: { testid: "replay-exit" }, onclick: () => { S.replay = null; render(); } }, "Back to the match"));
  }

  document.addEventListener("keydown", (e) => {
    if (!S.replay || e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowRight" && S.replay.step < S.replay.total) loadReplay(S.replay.step + 1, S.replay.view);
    if (e.key === "ArrowLeft" && S.replay.step > 0) loadReplay(S.replay.step - 1, S.replay.view);
  });

  // Clocks tick between messages.
  setInterval(() => {
    if (!S.meta || !S.meta.clock || S.replay) return;
    for (const node of document.querySelectorAll("[data-clock]")) {
      const p = Number(node.dataset.clock);
      const viewer = S.seat;
      node.textContent = (viewer >= 0 ? who(p, viewer) : "P" + p) + " " + fmtClock(clockLeft(p));
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
    app().replaceChildren(el("p", { class: "loading", text: "Connecting…" }));
    connect();
  }

  // ------------------------------------------------------------------ start

  function start() {
    $("#rules-open").addEventListener("click", openRules);
    $("#rules-close").addEventListener("click", () => $("#rules").close());
    const m = /^\/m\/([A-Za-z0-9_-]{1,32})\/?$/.exec(location.pathname);
    if (m) {
      matchView(m[1]);
    } else {
      home();
      if (location.pathname === "/rules") openRules();
    }
  }

  start();
})();
