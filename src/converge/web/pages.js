// The leaderboard and my finished matches (with their filters): lists read from the API.

import { appRoot, cap, el, profileUrl, ratingText } from "./dom.js";
import { clockText } from "./forms.js";
import { ERROR } from "./protocol.js";
import { resumePanel } from "./resume.js";
import { api } from "./transport.js";

/** A list page: the links between the pages, its title, what it shows. */
export function pageShell(title, testid, ...children) {
  document.title = title + " — Converge";
  appRoot().replaceChildren(el("div", { class: "page-list", data: { testid } },
    el("p", { class: "page-nav" }, el("a", { href: "/" }, "Play"), " · ",
      el("a", { href: "/leaderboard" }, "Leaderboard"), " · ", el("a", { href: "/history" }, "My matches")),
    el("h1", { text: title }), ...children));
}

export function listTable(caption, headings, rows) {
  return el("table", { class: "list-table" },
    el("caption", { class: "sr-only", text: caption }),
    el("thead", {}, el("tr", {}, ...headings.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, ...rows));
}

export async function showLeaderboard() {
  let doc;
  try { doc = await api("GET", "/api/leaderboard"); } catch (e) { pageShell("Leaderboard", "leaderboard", el("p", { text: e.message })); return; }
  const rows = doc.players.map((p) => el("tr", { data: { testid: "leader-row" } },
    el("td", { text: String(p.rank) }),
    el("th", { scope: "row" }, el("a", { href: profileUrl(p.name), data: { testid: "leader-link" } }, p.name)),
    el("td", { class: "num", text: ratingText(p) }), el("td", { class: "num", text: "±" + p.rd }),
    el("td", { class: "num", text: String(p.games) })));
  const table = rows.length ? listTable("Players by rating", ["#", "Player", "Rating", "Uncertainty", "Rated matches"], rows) :
    el("p", { text: "Nobody has finished a rated match yet." });
  pageShell("Leaderboard", "leaderboard",
    el("p", { class: "muted", text: "Glicko-2 ratings: a newcomer starts at 1500 ± 350; a ? marks a rating still uncertain. Anonymous players are rated but not listed." }),
    table,
    el("h2", { text: "The bots" }),
    el("p", { class: "muted", data: { testid: "bot-ratings" }, text: "Their ratings are fixed, measured in matches between bots: " +
      doc.bots.filter((b) => b.rating !== null).map((b) => b.display + " " + b.rating).join(", ") + "." +
      doc.bots.filter((b) => b.rating === null).map((b) => " " + b.display + " has no rating yet: its strength has not " +
        "been measured, so quick match never offers it.").join("") }));
}

/** A finished match's result as its player reads it: "Won", "Lost on time", "Won (they resigned)"... */
export function resultText(m) {
  const won = m.result === "won";
  if (m.reason === "resign") return won ? "Won (they resigned)" : "Lost (you resigned)";
  if (m.reason === "banned") return won ? "Won (they were banned)" : "Lost (banned)";
  if (m.reason === "absent") return won ? "Won (they never came)" : "Lost (you never came)";
  return (won ? "Won" : "Lost") + (m.reason === "time" ? " on time" : "");
}

/** An opponent as a history reads them: a named player's name opens their profile. */
export function opponentNode(m, testid) {
  const o = m.opponent;
  if (o.kind === "bot") return o.display || "a bot";
  if (!o.name) return "Anonymous";
  return el("a", { href: profileUrl(o.name), data: { testid } }, o.name);
}

/** What a match was played with, in a line: "Alchemist, Mechanist, Archivist · 10 min each". */
export function settingsText(m) {
  return m.playset.map(cap).join(", ") + " · " + clockText(m);
}

const dateOf = (t) => new Date(t * 1000).toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
/** Local midnight of a "YYYY-MM-DD" day, in Unix seconds (the API's); `after`: of the next day. */
function dayStart(day, after) {
  const [y, mo, d] = day.split("-").map(Number);
  return Math.floor(new Date(y, mo - 1, d + (after ? 1 : 0)).getTime() / 1000);
}

/** The history's filters as the page's address holds them (?opponent=&result=&rated=&playset=&from=&to=), and as
 *  the API takes them (its dates in Unix seconds, the day's bounds in this browser's time zone). */
function historyFilters() {
  const q = new URLSearchParams(location.search);
  const page = {};
  for (const k of ["opponent", "result", "rated", "playset", "from", "to"]) {
    const v = (q.get(k) || "").trim();
    if (v) page[k] = v;
  }
  const query = new URLSearchParams();
  for (const k of ["opponent", "result", "rated", "playset"]) if (page[k]) query.set(k, page[k]);
  if (page.from && DAY_RE.test(page.from)) query.set("since", String(dayStart(page.from, false)));
  if (page.to && DAY_RE.test(page.to)) query.set("until", String(dayStart(page.to, true)));
  return { page, query: query.toString() };
}

function filterForm(filters, skillsets) {
  const f = filters.page;
  const field = (id, label, control) => el("div", { class: "field" }, el("label", { for: id, text: label }), control);
  const select = (id, name, options) => {
    const s = el("select", { id, name, data: { testid: id } }, ...options.map(([v, t]) => el("option", { value: v, text: t })));
    s.value = f[name] || "";
    return s;
  };
  const opponent = el("input", { id: "filter-opponent", name: "opponent", maxlength: "64", value: f.opponent || "",
                                 placeholder: "a name or a bot", data: { testid: "filter-opponent" } });
  const from = el("input", { id: "filter-from", name: "from", type: "date", value: f.from || "", data: { testid: "filter-from" } });
  const to = el("input", { id: "filter-to", name: "to", type: "date", value: f.to || "", data: { testid: "filter-to" } });
  const submit = (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(ev.currentTarget)) if (String(v).trim()) q.set(k, String(v).trim());
    location.assign("/history" + (q.toString() ? "?" + q : ""));
  };
  const any = Object.keys(f).length > 0;
  return el("form", { class: "panel history-filters", data: { testid: "history-filters" }, onsubmit: submit },
    el("div", { class: "filter-grid" },
      field("filter-opponent", "Opponent", opponent),
      field("filter-result", "Result", select("filter-result", "result", [["", "Won or lost"], ["won", "Won"], ["lost", "Lost"]])),
      field("filter-rated", "Rated", select("filter-rated", "rated", [["", "Rated or not"], ["true", "Rated"], ["false", "Unrated"]])),
      field("filter-playset", "Skillset", select("filter-playset", "playset", [["", "Any skillset"], ...skillsets.map((k) => [k.key, k.name])])),
      field("filter-from", "From", from), field("filter-to", "To", to)),
    el("div", { class: "row" }, el("button", { type: "submit", class: "primary", data: { testid: "filter-apply" }, text: "Show these matches" }),
      any ? el("a", { href: "/history", data: { testid: "filter-clear" } }, "Show all my matches") : null));
}

export async function showHistory() {
  let doc;
  const filters = historyFilters();
  let refused = null;
  try {  // (who is there first: a visitor who is no player yet is told so, and the page asks nothing it would refuse)
    const me = await api("GET", "/api/me");
    if (me.player) {
      try {
        doc = await api("GET", "/api/me/history" + (filters.query ? "?" + filters.query : ""));
      } catch (e) {  // (a filter the server refused, from an address typed by hand: say so, show them all)
        if (e.code !== ERROR.MALFORMED) throw e;
        refused = e.message;
        doc = await api("GET", "/api/me/history");
      }
    } else {
      doc = null;
    }
  } catch (e) {
    doc = e.code === ERROR.NO_PLAYER ? null : e;
  }
  if (!doc || doc instanceof Error) {
    pageShell("My matches", "history", el("p", { text: doc ? doc.message : "Choose a name on the home page first: your matches are listed here once you have played." }),
      el("p", {}, el("a", { href: "/" }, "Go to the home page")), resumePanel(false));
    return;
  }
  let skillsets = [];
  try { skillsets = (await api("GET", "/api/options")).skillsets; } catch (_) { /* the form offers no skillset */ }
  const p = doc.player;
  const change = (m) => (m.rating_change === null ? "unrated" : (m.rating_change >= 0 ? "+" : "−") + Math.abs(m.rating_change) + " (" + m.rating_after + ")");
  const opp = (m) => (m.opponent.kind === "bot" ? m.opponent.display || "a bot" : m.opponent.name || "Anonymous");
  const rows = doc.matches.map((m) => el("tr", { data: { testid: "history-row", match: m.match_id } },
    el("td", { text: dateOf(m.finished_at) }), el("th", { scope: "row" }, opponentNode(m, "history-opponent"),
      m.event ? el("span", { class: "muted" }, " · ", el("a", { href: "/t/" + m.event.id, data: { testid: "history-event" } }, m.event.name)) : null,
      el("span", { class: "settings", data: { testid: "history-settings" }, text: settingsText(m) })),
    el("td", { class: m.result === "won" ? "won" : "lost", text: resultText(m) }),
    el("td", { class: "num change", data: { testid: "history-change" }, text: change(m) }),
    el("td", { class: "links" }, el("a", { href: m.replay_url + "#replay", data: { testid: "replay-link" }, "aria-label": "Replay the match against " + opp(m) }, "Replay"),
      " · ", el("a", { href: m.replay_url + "#review", data: { testid: "review-link" }, "aria-label": "Review your play in the match against " + opp(m) }, "Review"))));
  const filtered = filters.query && !refused;
  const table = rows.length ? el("div", { class: "table-scroll" }, listTable("My finished matches, newest first", ["When", "Opponent", "Result", "Rating change", ""], rows)) :
    el("p", { data: { testid: "history-empty" }, text: filtered ? "No finished match fits these filters." : "No finished match yet." });
  pageShell("My matches", "history",
    el("p", { class: "me-line", data: { testid: "me" } }, el("strong", {}, p.name ? el("a", { href: profileUrl(p.name), data: { testid: "my-profile" } }, p.name) : "Anonymous"),
      " · rating ", el("strong", { data: { testid: "me-rating" }, text: ratingText(p) }), " ±" + p.rd + " · " + p.games + " rated"),
    resumePanel(true),
    el("h2", { text: "Finished matches" }),
    filterForm(filters, skillsets),
    refused ? el("p", { class: "form-error", role: "alert", data: { testid: "filter-error" }, text: "These filters could not be used (" + refused + "): all your matches are shown." }) : null,
    table,
    doc.matches.length >= 50 ? el("p", { class: "muted", text: "The 50 newest are shown: filter to find older ones." }) : null);
}
