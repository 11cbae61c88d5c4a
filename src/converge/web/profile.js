// A player's profile (/@/<name>): their rating and its history as a chart, their recent matches, the skillsets
// they play, the events they entered, the visitor's own matches against them, and for its owner the switch that
// hides it from everyone else. Read once from the API (docs/browser.md).

import { cap, el, profileUrl, ratingText, toast } from "./dom.js";
import { listTable, opponentNode, pageShell, resultText, settingsText } from "./pages.js";
import { api } from "./transport.js";

const SVG = "http://www.w3.org/2000/svg";
const day = (t) => new Date(t * 1000).toLocaleDateString([], { day: "numeric", month: "short", year: "numeric" });
const when = (t) => new Date(t * 1000).toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });

/** The profile's player's result, as a visitor reads it: "Won", "Lost on time", "Won (opponent resigned)"... */
function theirResult(m) {
  const won = m.result === "won";
  if (m.reason === "resign") return won ? "Won (opponent resigned)" : "Lost (resigned)";
  if (m.reason === "banned") return won ? "Won (opponent banned)" : "Lost (banned)";
  if (m.reason === "absent") return won ? "Won (opponent never came)" : "Lost (never came)";
  return (won ? "Won" : "Lost") + (m.reason === "time" ? " on time" : "");
}

/** The rating after each rated match, a line from the oldest to the newest, its highest and lowest marked at
 *  the left and the first and last days below. */
function ratingChart(points) {
  const w = 320;
  const h = 120;
  const left = 34;
  const right = 8;
  const top = 10;
  const bottom = 22;
  const values = points.map((p) => p.rating);
  const hi = Math.max(...values);
  const lo = Math.min(...values);
  const span = Math.max(hi - lo, 20);  // (a flat line sits in the middle, not on the frame)
  const mid = (hi + lo) / 2;
  const x = (i) => (points.length < 2 ? (left + w - right) / 2 : left + (i * (w - left - right)) / (points.length - 1));
  const y = (r) => top + (h - top - bottom) * (0.5 - (r - mid) / span);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 " + w + " " + h);
  svg.setAttribute("class", "rating-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("data-testid", "rating-chart");
  svg.setAttribute("aria-label", "Rating after each of " + points.length + " rated match" + (points.length === 1 ? "" : "es") +
    ": from " + values[0] + " to " + values[values.length - 1] + ", highest " + hi + ", lowest " + lo + ".");
  const add = (tag, attrs, text) => {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
    if (text !== undefined) n.textContent = text;
    svg.append(n);
    return n;
  };
  for (const r of hi === lo ? [hi] : [hi, lo]) {
    add("line", { x1: left, x2: w - right, y1: y(r), y2: y(r), class: "grid" });
    add("text", { x: left - 4, y: y(r) + 3.5, "text-anchor": "end", class: "label" }, String(r));
  }
  add("polyline", { points: points.map((p, i) => x(i).toFixed(1) + "," + y(p.rating).toFixed(1)).join(" "), class: "line" });
  add("circle", { cx: x(points.length - 1), cy: y(values[values.length - 1]), r: 3, class: "now" });
  const first = day(points[0].at);
  const last = day(points[points.length - 1].at);
  add("text", { x: left, y: h - 6, "text-anchor": "start", class: "label" }, first);
  if (last !== first) add("text", { x: w - right, y: h - 6, "text-anchor": "end", class: "label" }, last);
  return svg;
}

/** The owner's switch: hide the profile from everyone else, or show it again. */
function ownerPanel(doc, redraw) {
  const button = el("button", { type: "button", data: { testid: "profile-toggle" }, text: doc.hidden ? "Show my profile" : "Hide my profile" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const done = await api("PUT", "/api/me/profile", { hidden: !doc.hidden });
      toast(done.hidden ? "Your profile is hidden: only you see it." : "Your profile is shown to everyone.", "ok");
      await redraw();
    } catch (e) {
      toast(e.message);
      button.disabled = false;
    }
  });
  return el("section", { class: "panel profile-owner", data: { testid: "profile-owner" } },
    el("p", { data: { testid: "profile-visibility" }, text: doc.hidden ?
      "This is your profile. It is hidden: to everyone else, this page says that nobody has this name." :
      "This is your profile, as everyone sees it (your own matches against others are on My matches)." }),
    button);
}

function recentTable(doc) {
  const rows = doc.matches.map((m) => el("tr", { data: { testid: "profile-match", match: m.match_id } },
    el("td", { text: when(m.finished_at) }),
    el("th", { scope: "row" }, opponentNode(m, "profile-opponent"),
      m.event ? el("span", { class: "muted" }, " · ", el("a", { href: "/t/" + m.event.id }, m.event.name)) : null,
      el("span", { class: "settings", text: settingsText(m) + (m.rated ? " · rated" : " · unrated") })),
    el("td", { class: m.result === "won" ? "won" : "lost", text: theirResult(m) }),
    el("td", { class: "links" }, el("a", { href: m.replay_url + "#replay", data: { testid: "profile-replay" },
      "aria-label": "Replay " + doc.name + "'s match against " + (m.opponent.display || "Anonymous") }, "Replay"))));
  return el("div", { class: "table-scroll" },
    listTable(doc.name + "'s recent matches, newest first", ["When", "Opponent", "Result", ""], rows));
}

function headToHead(doc) {
  const h = doc.head_to_head;
  const total = h.won + h.lost;
  const said = total ? "You won " + h.won + " and lost " + h.lost + " of your " + (total === 1 ? "match" : total + " matches") + " against " + doc.name + "." :
    "You have not finished a match against " + doc.name + " yet.";
  const rows = h.matches.map((m) => el("tr", { data: { testid: "h2h-match", match: m.match_id } },
    el("td", { text: when(m.finished_at) }),
    el("th", { scope: "row", class: "settings-cell" }, settingsText(m)),
    el("td", { class: m.result === "won" ? "won" : "lost", text: resultText(m) }),
    el("td", { class: "links" }, el("a", { href: m.replay_url + "#replay", "aria-label": "Replay your match of " + when(m.finished_at) }, "Replay"))));
  return [el("h2", { text: "You against " + doc.name }),
    el("p", { data: { testid: "h2h" }, text: said }),
    rows.length ? el("div", { class: "table-scroll" }, listTable("Your last matches against " + doc.name, ["When", "Played with", "Your result", ""], rows)) : null];
}

function skillsetTable(doc) {
  const rows = doc.skillsets.map((s) => el("tr", { data: { testid: "profile-skillset" } },
    el("th", { scope: "row", text: cap(s.skillset) }),
    el("td", { class: "num", text: String(s.played) }), el("td", { class: "num", text: String(s.won) }),
    el("td", { class: "num", text: Math.round((100 * s.won) / s.played) + "%" })));
  const table = listTable("The skillsets of " + doc.name + "'s matches, the most played first", ["Skillset", "Played", "Won", "Won %"], rows);
  table.classList.add("narrow");
  return table;
}

const STATUS = { upcoming: "upcoming", running: "running", paused: "paused", finished: "finished", cancelled: "cancelled" };

/** A player's profile: `/@/<name>`. */
export async function showProfile(name) {
  async function draw() {
    let doc;
    try {
      doc = await api("GET", "/api/players/" + encodeURIComponent(name));
    } catch (e) {
      pageShell(name, "profile", el("p", { data: { testid: "profile-missing" }, text: e.status === 404 ? "Nobody with that name has a profile to show." : e.message }),
        el("p", {}, el("a", { href: "/leaderboard" }, "See the leaderboard")));
      return;
    }
    if (doc.name !== name) history.replaceState(null, "", profileUrl(doc.name));  // (the name as its player wrote it)
    const since = new Date(doc.member_since * 1000).toLocaleDateString([], { month: "long", year: "numeric" });
    pageShell(doc.name, "profile",
      el("p", { class: "me-line", data: { testid: "profile-summary" } }, "Rating ", el("strong", { data: { testid: "profile-rating" }, text: ratingText(doc) }),
        " ±" + doc.rd + " · " + doc.games + " rated match" + (doc.games === 1 ? "" : "es") + " · playing since " + since),
      doc.own ? ownerPanel(doc, draw) : null,
      doc.head_to_head ? el("p", { class: "row" }, el("a", { class: "button-link", data: { testid: "profile-challenge" },
        href: "/challenges#name=" + encodeURIComponent(doc.name) }, "Challenge " + doc.name)) : null,
      el("h2", { text: "Rating" }),
      doc.ratings.length ? el("div", { class: "chart-box" }, ratingChart(doc.ratings)) :
        el("p", { class: "muted", text: "No rated match yet: everyone starts at 1500." }),
      ...(doc.head_to_head ? headToHead(doc) : []),
      el("h2", { text: "Recent matches" }),
      doc.matches.length ? recentTable(doc) : el("p", { class: "muted", text: "No finished match to show yet." }),
      el("p", { class: "muted", text: "Matches at public tables, quick matches, challenges, open events and against bots; private tables and club events stay the players' own." }),
      el("h2", { text: "Skillsets" }),
      doc.skillsets.length ? skillsetTable(doc) : el("p", { class: "muted", text: "No skillset played yet." }),
      el("h2", { text: "Tournaments" }),
      doc.tournaments.length ? el("ul", { class: "event-list" }, ...doc.tournaments.map((t) => el("li", { data: { testid: "profile-event" } },
        el("a", { href: "/t/" + t.id, text: t.name }), " ", el("span", { class: "muted", text: STATUS[t.status] || t.status })))) :
        el("p", { class: "muted", text: "No tournament open to all entered yet." }));
  }
  await draw();
}
