// Tournaments: the list of events (upcoming, running, finished) with a form to host one, and an event's page —
// its standings and rounds, joining and withdrawing, "your match is ready", and its host's controls. Read from
// the API and read again every few seconds while the event is on (docs/tournaments.md).

import { appRoot, el, toast } from "./dom.js";
import { clockSelect, playsetPicker, timeControl } from "./forms.js";
import { api } from "./transport.js";

const FORMATS = { swiss: "Swiss", arena: "Arena", round_robin: "Round robin" };
const STATUS = { upcoming: "Upcoming", running: "Running", paused: "Paused", finished: "Finished", cancelled: "Cancelled" };
const REFRESH_MS = 3000;

function shell(title, testid, ...children) {
  document.title = title + " — Converge";
  appRoot().replaceChildren(el("div", { class: "page-list", data: { testid } },
    el("p", { class: "page-nav" }, el("a", { href: "/" }, "Play"), " · ", el("a", { href: "/tournaments" }, "Tournaments"),
      " · ", el("a", { href: "/leaderboard" }, "Leaderboard"), " · ", el("a", { href: "/history" }, "My matches")),
    el("h1", { text: title }), ...children));
}

/** What an event is, in a line: "Swiss, 5 rounds · 5 minutes each · rated · up to 16 players". */
function settingsLine(e) {
  const what = e.format === "swiss" ? "Swiss, " + e.rounds + " rounds" : e.format === "arena" ? "Arena, " + e.minutes + " minutes" : "Round robin";
  const clock = e.clock_s ? Math.round(e.clock_s / 60) + " minutes each" : e.move_hours + " hours a move";
  const playset = Array.isArray(e.playset) ? e.playset.join(", ") : e.playset === "sets" ? "a set drawn each round" : "any playset, drawn each round";
  const starts = e.status === "upcoming" && e.starts_at ? ["starts " + new Date(e.starts_at * 1000).toLocaleString([], { dateStyle: "medium", timeStyle: "short" })] : [];
  return [what, clock, playset, e.rated ? "rated" : "unrated", "up to " + e.max_players + " players", ...starts].join(" · ");
}

/** What a player must know before joining: when a match is lost by not coming, and who may still join. */
function rulesLine(e) {
  const wait = e.no_show_s === null ?
    "Each move has its time from the moment the match is made: a player who lets it run out loses the match." :
    "Come to your match within " + (e.no_show_s >= 120 && e.no_show_s % 60 === 0 ? e.no_show_s / 60 + " minutes" : e.no_show_s + " seconds") +
    " of its pairing, or you lose it by forfeit" + (e.format === "arena" ? " and are paused until you press Back." :
      e.format === "swiss" ? " and are withdrawn until you join again." : ".");
  const late = e.format === "swiss" && e.status !== "finished" && e.status !== "cancelled" ?
    (e.joinable ? " Players may join until more than half the rounds have started, with no points for the rounds they missed." :
      " More than half the rounds have started: the event takes no more players.") : "";
  return wait + late;
}

/** Each player's games, a row each in the standings' order: a Swiss's or a round robin's by round ("W3": won
 *  against the player ranked 3; "*": by forfeit), an arena's points game by game (its last 30). */
function crosstable(e) {
  const rank = Object.fromEntries(e.standings.map((r) => [r.player, r.rank]));
  const games = {};
  for (const r of e.pairings) {
    for (const g of r.games) {
      for (const [me, them, first] of [[g.first, g.second, true], [g.second, g.first, false]]) {
        if (me !== null) (games[me] ||= []).push({ round: r.round, them, g, won: g.outcome === (first ? "first" : "second") });
      }
    }
  }
  const arena = e.format === "arena";
  const cell = (x) => {
    if (x.them === null) return ["bye", "Bye", "won"];
    if (x.g.outcome === "pending") return ["…" + rank[x.them], "Playing the player ranked " + rank[x.them], ""];
    const how = x.g.outcome === "drawn" ? "D" : x.won ? "W" : "L";
    const text = how + (arena ? "" : rank[x.them]) + (x.g.forfeit ? "*" : "");
    const said = { W: "Won", L: "Lost", D: "Drawn" }[how] + " against the player ranked " + rank[x.them] + (x.g.forfeit ? ", by forfeit" : "");
    return [text, said, how === "W" ? "won" : how === "L" ? "lost" : ""];
  };
  const columns = arena ? Math.min(30, Math.max(0, ...Object.values(games).map((l) => l.length))) : e.pairings.length;
  const rows = e.standings.map((r) => {
    const mine = (games[r.player] || []);
    const shown = arena ? mine.slice(-columns) : e.pairings.map((p) => mine.find((x) => x.round === p.round));
    return el("tr", { data: { testid: "cross-row" }, class: e.you && e.you.player === r.player ? "me" : null },
      el("td", { text: String(r.rank) }), el("th", { scope: "row", text: r.name }),
      ...Array.from({ length: columns }, (_, i) => {
        const x = shown[i];
        if (!x) return el("td", { class: "num muted", text: "–" });
        const [text, title, cls] = cell(x);
        return el("td", { class: "num " + cls, title, text });
      }));
  });
  const rounds = Array.from({ length: columns }, (_, i) => el("th", { scope: "col", class: "num", text: arena ? "" : "R" + e.pairings[i].round }));
  return el("div", { class: "table-scroll" }, el("table", { class: "list-table cross", data: { testid: "crosstable" } },
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "#" }), el("th", { scope: "col", text: "Player" }), ...rounds)),
    el("tbody", {}, ...rows)));
}

export async function showTournaments() {
  let doc;
  try { doc = await api("GET", "/api/tournaments"); } catch (e) { shell("Tournaments", "tournaments", el("p", { text: e.message })); return; }
  const section = (title, items, empty) => [el("h2", { text: title }), items.length ?
    el("ul", { class: "event-list" }, ...items.map((e) => el("li", { data: { testid: "event-row" } },
      el("a", { href: "/t/" + e.id, text: e.name }), " ", el("span", { class: "muted", text: settingsLine(e) + " · " + e.players + (e.players === 1 ? " player" : " players") })))) :
    el("p", { class: "muted", text: empty })];
  shell("Tournaments", "tournaments",
    el("p", { class: "muted", text: "Events bring players together: a Swiss pairs players of equal score each round, an arena pairs whoever is free for a set time, a round robin has everyone meet everyone." }),
    ...section("Running", doc.running, "No event is running now."),
    ...section("Upcoming", doc.upcoming, "No event is announced."),
    ...section("Finished", doc.finished, "No event has finished yet."),
    await hostForm());
}

async function hostForm() {
  const options = await api("GET", "/api/options");
  const name = el("input", { id: "event-name", data: { testid: "event-name" }, maxlength: "64", required: true });
  const format = el("select", { id: "event-format", data: { testid: "event-format" } },
    ...Object.entries(FORMATS).map(([k, v]) => el("option", { value: k, text: v })));
  const rounds = el("input", { id: "event-rounds", data: { testid: "event-rounds" }, type: "number", min: "1", max: "15", value: "5" });
  const minutes = el("input", { id: "event-minutes", data: { testid: "event-minutes" }, type: "number", min: "5", max: "720", value: "60" });
  const clock = clockSelect("event-clock", [3, 5, 10], [1, 3]);
  clock.querySelector("option[value='']").remove();
  const playset = playsetPicker(options, "event");
  playset.node.querySelector("option[value='random']").textContent = "A random playset, drawn each round";
  const rated = el("input", { id: "event-rated", type: "checkbox", data: { testid: "event-rated" } });
  const priv = el("input", { id: "event-private", type: "checkbox", data: { testid: "event-private" } });
  const cap = el("input", { id: "event-cap", data: { testid: "event-cap" }, type: "number", min: "2", max: "256", value: "16" });
  const starts = el("input", { id: "event-starts", data: { testid: "event-starts" }, type: "datetime-local" });
  const error = el("p", { class: "form-error", role: "alert", data: { testid: "event-error" } });
  const roundsField = el("div", { class: "field" }, el("label", { for: "event-rounds", text: "Rounds" }), rounds);
  const minutesField = el("div", { class: "field", hidden: true }, el("label", { for: "event-minutes", text: "Minutes" }), minutes);
  format.addEventListener("change", () => { roundsField.hidden = format.value !== "swiss"; minutesField.hidden = format.value !== "arena"; });
  const submit = async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const body = { name: name.value, format: format.value, rated: rated.checked, private: priv.checked,
                   max_players: Number(cap.value), ...timeControl(clock),
                   playset: playset.value() === "random" ? "all" : playset.value() };
    if (format.value === "swiss") body.rounds = Number(rounds.value);
    if (format.value === "arena") body.minutes = Number(minutes.value);
    if (starts.value) body.starts_at = Math.round(new Date(starts.value).getTime() / 1000);  // (the browser's local time)
    try {
      const made = await api("POST", "/api/tournaments", body);
      location.assign(made.url);
    } catch (e) { error.textContent = e.message; }
  };
  return el("form", { class: "panel", data: { testid: "host-form" }, onsubmit: submit },
    el("h2", { text: "Host an event" }),
    el("div", { class: "field" }, el("label", { for: "event-name", text: "Name" }), name),
    el("div", { class: "field" }, el("label", { for: "event-format", text: "Format" }), format),
    roundsField, minutesField,
    el("div", { class: "field" }, el("label", { for: "event-clock", text: "Clock" }), clock),
    playset.node,
    el("div", { class: "field" }, el("label", { for: "event-cap", text: "Most players" }), cap),
    el("div", { class: "field" }, el("label", { for: "event-starts", text: "Starts at (leave empty to start it yourself)" }), starts),
    el("div", { class: "field inline" }, rated, el("label", { for: "event-rated", text: "Rated" })),
    el("div", { class: "field inline" }, priv, el("label", { for: "event-private", text: "A club's event: joined by its link only" })),
    error,
    el("button", { type: "submit", class: "primary", data: { testid: "host-event" }, text: "Host it" }),
    el("p", { class: "muted", text: "With a start time it starts by itself then (and is cancelled if fewer than two players have joined by then); either way you may start it earlier from its page." }));
}

/** An event's page: `/t/<id>`, or `/t/<id>#link=<token>` for a club's event. */
export async function showTournament(id) {
  const link = new URLSearchParams(location.hash.slice(1)).get("link");
  const path = "/api/tournaments/" + id + (link ? "?link=" + encodeURIComponent(link) : "");
  let timer = null;
  const act = async (what, body) => {
    try { await api("POST", "/api/tournaments/" + id + "/" + what, body); } catch (e) { toast(e.message); }
    await draw();
  };
  const play = async (matchId) => {
    try {
      const key = await api("POST", "/api/matches/" + matchId + "/seat");
      location.assign("/m/" + matchId + "#token=" + key.token);
    } catch (e) { toast(e.message); }
  };
  async function draw() {
    clearTimeout(timer);
    let e;
    try { e = await api("GET", path); } catch (err) { shell("Tournament", "tournament", el("p", { text: err.message })); return; }
    const you = e.you;
    const controls = [];
    if (!you || you.status === "withdrawn") {
      if (e.joinable) controls.push(el("button", { class: "primary", data: { testid: "join" }, text: "Join", onclick: () => act("join", { link }) }));
    } else if (e.status !== "finished" && e.status !== "cancelled") {
      if (e.format === "arena") {
        controls.push(you.status === "paused" ?
          el("button", { data: { testid: "come-back" }, text: "Back: pair me again", onclick: () => act("break", { paused: false }) }) :
          el("button", { data: { testid: "take-break" }, text: "Pause: no new games for me", onclick: () => act("break", { paused: true }) }));
      }
      controls.push(el("button", { data: { testid: "withdraw" }, text: "Withdraw", onclick: () => act("withdraw") }));
    }
    if (you && you.match_id) {
      controls.unshift(el("button", { class: "primary", data: { testid: "play-event-match" }, text: "Your match is ready: play",
                                      onclick: () => play(you.match_id) }));
    }
    if (e.host) {
      if (e.status === "upcoming") controls.push(el("button", { data: { testid: "start" }, text: "Start now", onclick: () => act("start") }));
      if (e.status === "running") controls.push(el("button", { data: { testid: "pause" }, text: "Pause", onclick: () => act("pause", { paused: true }) }));
      if (e.status === "paused") controls.push(el("button", { data: { testid: "resume" }, text: "Resume", onclick: () => act("pause", { paused: false }) }));
      if (e.status !== "finished" && e.status !== "cancelled") controls.push(el("button", { data: { testid: "cancel" }, text: "Cancel the event", onclick: () => act("cancel") }));
    }
    const swiss = e.format === "swiss";
    const heads = ["#", "Player", "Points", "Played", ...(swiss ? ["Buchholz", "S-B"] : [])];
    const standing = e.standings.map((r) => el("tr", { data: { testid: "standing-row" }, class: you && you.player === r.player ? "me" : null },
      el("td", { text: String(r.rank) }), el("th", { scope: "row", text: r.name + (r.withdrawn ? " (withdrew)" : "") }),
      el("td", { class: "num", data: { testid: "standing-points" }, text: String(r.points) }), el("td", { class: "num", text: String(r.played) }),
      ...(swiss ? [el("td", { class: "num", text: String(r.buchholz) }), el("td", { class: "num", text: String(r.sonneborn_berger) })] : [])));
    const names = Object.fromEntries(e.standings.map((r) => [r.player, r.name]));
    const result = (g) => (g.second === null ? "bye" : g.outcome === "pending" ? "playing" : g.outcome === "first" ? "1–0" : g.outcome === "second" ? "0–1" : "½–½") + (g.forfeit ? " (forfeit)" : "");
    const rounds = e.pairings.slice().reverse().map((r) => el("section", { class: "event-round", data: { testid: "event-round" } },
      el("h3", { text: (e.format === "arena" ? "Wave " : "Round ") + r.round }),
      el("ul", { class: "event-games" }, ...r.games.map((g) => el("li", {},
        names[g.first] + (g.second === null ? "" : " – " + names[g.second]) + " · " + result(g),
        g.match_id ? [" · ", el("a", { href: "/m/" + g.match_id + (g.outcome === "pending" ? "" : "#replay"), text: g.outcome === "pending" ? "watch" : "replay" })] : [])))));
    shell(e.name, "tournament",
      el("p", { class: "muted", data: { testid: "event-settings" }, text: STATUS[e.status] + (e.round ? " · round " + e.round : "") + " · " + settingsLine(e) }),
      el("p", { class: "muted", data: { testid: "event-rules" }, text: rulesLine(e) }),
      el("div", { class: "row event-controls" }, ...controls),
      el("h2", { text: "Standings" }),
      e.standings.length ? el("table", { class: "list-table", data: { testid: "standings" } },
        el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { scope: "col", text: h })))), el("tbody", {}, ...standing)) :
        el("p", { class: "muted", text: "Nobody has joined yet." }),
      swiss && e.standings.length ? el("p", { class: "muted", text: "Ties are broken by Buchholz (the points of everyone you met), then S-B, Sonneborn–Berger (the points of the players you beat)." }) : null,
      ...(e.pairings.length && e.standings.length ? [el("h2", { text: "Crosstable" }), crosstable(e),
        el("p", { class: "muted", text: e.format === "arena" ? "Each player's last games, the newest last: W won, L lost; * by forfeit." :
          "W3: won against the player ranked 3, L lost, D drawn; * by forfeit; bye: a point without a game." })] : []),
      ...(rounds.length ? [el("h2", { text: "Rounds" }), ...rounds] : []));
    if (e.status === "upcoming" || e.status === "running" || e.status === "paused") timer = setTimeout(draw, REFRESH_MS);
  }
  await draw();
}
