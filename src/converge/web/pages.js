// The leaderboard and my finished matches: lists read once from the API.

import { appRoot, el, ratingText } from "./dom.js";
import { ERROR } from "./protocol.js";
import { resumePanel } from "./resume.js";
import { api } from "./transport.js";

function pageShell(title, testid, ...children) {
  document.title = title + " — Converge";
  appRoot().replaceChildren(el("div", { class: "page-list", data: { testid } },
    el("p", { class: "page-nav" }, el("a", { href: "/" }, "Play"), " · ",
      el("a", { href: "/leaderboard" }, "Leaderboard"), " · ", el("a", { href: "/history" }, "My matches")),
    el("h1", { text: title }), ...children));
}

function listTable(caption, headings, rows) {
  return el("table", { class: "list-table" },
    el("caption", { class: "sr-only", text: caption }),
    el("thead", {}, el("tr", {}, ...headings.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, ...rows));
}

export async function showLeaderboard() {
  let doc;
  try { doc = await api("GET", "/api/leaderboard"); } catch (e) { pageShell("Leaderboard", "leaderboard", el("p", { text: e.message })); return; }
  const rows = doc.players.map((p) => el("tr", { data: { testid: "leader-row" } },
    el("td", { text: String(p.rank) }), el("th", { scope: "row", text: p.name }),
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
function resultText(m) {
  const won = m.result === "won";
  if (m.reason === "resign") return won ? "Won (they resigned)" : "Lost (you resigned)";
  if (m.reason === "banned") return won ? "Won (they were banned)" : "Lost (banned)";
  if (m.reason === "absent") return won ? "Won (they never came)" : "Lost (you never came)";
  return (won ? "Won" : "Lost") + (m.reason === "time" ? " on time" : "");
}

export async function showHistory() {
  let doc;
  try {  // (who is there first: a visitor who is no player yet is told so, and the page asks nothing it would refuse)
    const me = await api("GET", "/api/me");
    doc = me.player ? await api("GET", "/api/me/history") : null;
  } catch (e) {
    doc = e.code === ERROR.NO_PLAYER ? null : e;
  }
  if (!doc || doc instanceof Error) {
    pageShell("My matches", "history", el("p", { text: doc ? doc.message : "Choose a name on the home page first: your matches are listed here once you have played." }),
      el("p", {}, el("a", { href: "/" }, "Go to the home page")), resumePanel(false));
    return;
  }
  const p = doc.player;
  const fmt = (t) => new Date(t * 1000).toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  const change = (m) => (m.rating_change === null ? "unrated" : (m.rating_change >= 0 ? "+" : "−") + Math.abs(m.rating_change) + " (" + m.rating_after + ")");
  const opp = (m) => (m.opponent.kind === "bot" ? m.opponent.display || "a bot" : m.opponent.name || "Anonymous");
  const rows = doc.matches.map((m) => el("tr", { data: { testid: "history-row", match: m.match_id } },
    el("td", { text: fmt(m.finished_at) }), el("th", { scope: "row" }, opp(m),
      m.event ? el("span", { class: "muted" }, " · ", el("a", { href: "/t/" + m.event.id, data: { testid: "history-event" } }, m.event.name)) : null),
    el("td", { class: m.result === "won" ? "won" : "lost", text: resultText(m) }),
    el("td", { class: "num", data: { testid: "history-change" }, text: change(m) }),
    el("td", { class: "links" }, el("a", { href: m.replay_url + "#replay", data: { testid: "replay-link" }, "aria-label": "Replay the match against " + opp(m) }, "Replay"),
      " · ", el("a", { href: m.replay_url + "#review", data: { testid: "review-link" }, "aria-label": "Review your play in the match against " + opp(m) }, "Review"))));
  const table = rows.length ? listTable("My finished matches, newest first", ["When", "Opponent", "Result", "Rating change", ""], rows) :
    el("p", { text: "No finished match yet." });
  pageShell("My matches", "history",
    el("p", { class: "me-line", data: { testid: "me" } }, el("strong", { text: p.name || "Anonymous" }),
      " · rating ", el("strong", { data: { testid: "me-rating" }, text: ratingText(p) }), " ±" + p.rd + " · " + p.games + " rated"),
    resumePanel(true),
    el("h2", { text: "Finished matches" }),
    table);
}
