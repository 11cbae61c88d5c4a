// Puzzles: "win this round" positions of finished matches, shown as the mover saw them at the table and played
// with the match page's own components (puzzle mode: the store's `match.puzzle`). The page keeps the mover's
// steps and sends them all, whole, after each complete play (a card and how to play it); the server judges them
// (the opponent's replies are its solver's) and answers the position that follows, and at the end the verdict:
// both ratings moving, the streak, the solution and why the other plays fail.

import { $, announce, appRoot, cap, el, toast } from "./dom.js";
import { ERROR } from "./protocol.js";
import * as store from "./store.js";
import { api } from "./transport.js";

const match = () => store.getState().match;
const puzzles = () => store.getState().puzzles;

export const INSTRUCTION = "Win this round: find the play that wins whatever they hold and however they reply.";

// ------------------------------------------------------------------ loading

/** Open the puzzle `id` (null: the next one for me, of the theme in the address's ?theme=, if any); #daily
 *  (the home page's link): today's, named so, when it still is `id`. */
export async function openPuzzle(id) {
  const theme = id ? "" : new URLSearchParams(location.search).get("theme") || "";
  store.puzzleThemeChosen(theme);
  loadSideData();
  const daily = id && location.hash === "#daily";
  if (daily) history.replaceState(null, "", location.pathname);
  if (daily) await load("/api/puzzles/daily", false, id);
  else if (id) await load("/api/puzzles/" + encodeURIComponent(id), false);
  else await load(nextPath(theme), true);
}

/** The next puzzle's address: of `theme` ("": any), never `skip` (the one on screen). */
function nextPath(theme, skip) {
  const q = new URLSearchParams();
  if (theme) q.set("theme", theme);
  if (skip) q.set("skip", skip);
  return "/api/puzzles/next" + (q.toString() ? "?" + q : "");
}

/** The themes and my dashboard (neither is needed to play: a failure leaves them out). */
async function loadSideData() {
  try { store.puzzleThemes((await api("GET", "/api/puzzles/themes")).themes); } catch (_) { /* no picker */ }
  refreshDashboard();
}

async function refreshDashboard() {
  try { store.puzzleDashboard(await api("GET", "/api/puzzles/dashboard")); } catch (_) { /* no dashboard */ }
}

/** Load a puzzle and show it; `address`: put its own address in the location bar (a puzzle chosen for me);
 *  `expected`: the puzzle's id, loaded by it when the path gave another (the daily puzzle of a new day). */
async function load(path, address, expected) {
  let doc;
  try {
    doc = await api("GET", path);
    if (expected && doc.id !== expected) doc = await api("GET", "/api/puzzles/" + encodeURIComponent(expected));
  } catch (e) {
    store.puzzleMissing(e.code === ERROR.NOT_FOUND ? missingText(path) : "The puzzle could not be loaded: " + e.message + ".");
    return;
  }
  if (address && location.pathname !== "/puzzles/" + doc.id) {
    history.pushState(null, "", "/puzzles/" + doc.id);
  }
  store.puzzleLoaded(doc);
  announce("Puzzle rated " + doc.rating + ". " + INSTRUCTION);
}

function missingText(path) {
  return path.startsWith("/api/puzzles/next") ? "There are no puzzles on this server yet." :
    "There is no such puzzle on this server.";
}

/** The next puzzle for me, of the chosen theme (in this page: no reload). */
export async function nextPuzzle(button) {
  if (button) button.disabled = true;
  const shown = match().puzzle;
  await load(nextPath(puzzles().theme, shown ? shown.doc.id : ""), true);
  if (button && button.isConnected) button.disabled = false;
}

/** The browser's Back and Forward between puzzles: load the one in the address. */
window.addEventListener("popstate", () => {
  if (location.pathname.startsWith("/puzzles")) location.reload();
});

// ------------------------------------------------------------------ playing

/** Make this browser a player (anonymous) before its first attempt, so that its attempts are rated; a refusal
 *  leaves it a visitor, whose attempts are judged and not rated. */
async function ensurePlayer() {
  const p = match().puzzle;
  if (p.doc.me || p.actions.length || (puzzles().dashboard && puzzles().dashboard.me)) return;
  try {
    const me = await api("GET", "/api/me");
    if (!me.player) await api("PUT", "/api/me", { name: null });
  } catch (_) { /* judged, not rated */ }
}

/** The mover's complete play (a held card and its follow-up: two steps; or one): sent with every step before it. */
export async function puzzleAct(actions) {
  const s = match();
  if (s.pending || !s.puzzle || s.puzzle.status !== "playing") return;
  const all = [...s.puzzle.actions, ...actions];
  const id = s.puzzle.doc.id;
  store.puzzleSent();
  let answer;
  try {
    await ensurePlayer();
    answer = await api("POST", "/api/puzzles/" + encodeURIComponent(id) + "/attempt", { actions: all });
  } catch (e) {
    store.puzzleRefused();
    toast(e.code === ERROR.RATE_LIMITED ? "Too many tries at once: wait a moment, then play again." : cap(e.message) + ".");
    return;
  }
  if (match().puzzle.doc.id !== id) return;  // (another puzzle was opened meanwhile)
  const seen = s.obs.events.length;
  const replies = answer.state.observation.events.slice(seen)
    .filter((e) => e.player !== null && e.player !== s.seat && e.text).map((e) => e.text);
  const d = answer.state.observation.decision;
  if (answer.status === "playing") {
    announce((replies.length ? "Their reply: " + replies.join(" ") + " " : "") +
      "Your turn: " + (d && d.prompt ? d.prompt.replace(/^player \d+: /, "") : "play on") + ".");
  }
  store.puzzleAnswered(all, answer);
  if (answer.status !== "playing") {
    announce(verdictText(answer.result, answer.status === "solved"));
    refreshDashboard();
  }
}

// ------------------------------------------------------------------ the views

const themeTags = (themes) => el("ul", { class: "puzzle-themes", "aria-label": "Themes" },
  ...themes.map((t) => el("li", { class: "tag theme-tag", data: { theme: t.key }, text: t.name })));

/** "7 December 2026" from "2026-12-07" (the day as the server names it, in no time zone). */
function dayText(day) {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
}

/** The puzzle's heading, above the table: its rating and themes, and what to do. */
export function puzzleHead() {
  const p = match().puzzle;
  const d = p.doc;
  const plays = d.plays === 1 ? "The solution is one play of yours" : "The solution takes " + d.plays + " plays of yours";
  return el("section", { class: "puzzle-head", "aria-labelledby": "h-puzzle", data: { testid: "puzzle-head", puzzle: d.id } },
    el("div", { class: "puzzle-title" },
      el("h1", { id: "h-puzzle" }, d.daily ? "Daily puzzle" : "Puzzle",
        el("span", { class: "puzzle-rating", data: { testid: "puzzle-rating" } }, " · rated " + d.rating)),
      d.daily ? el("span", { class: "note", text: dayText(d.daily) }) : null,
      themeTags(d.themes)),
    el("p", { class: "puzzle-instruction", data: { testid: "puzzle-instruction" } }, INSTRUCTION),
    el("p", { class: "note" }, plays + " (a card, and how you play it, is one play); they reply in between. ",
      d.tried ? el("strong", { data: { testid: "puzzle-tried" }, text: "You have tried this puzzle before: this attempt is not rated." }) :
        d.me || p.actions.length || p.status !== "playing" ? "" :
          "Your first play makes you an anonymous player here, so that your puzzle rating is kept."));
}

const signed = (n) => (n > 0 ? "+" + n : n < 0 ? "−" + Math.abs(n) : "±0");

/** "1500 → 1512 (+12)". */
function moved(r) {
  return el("span", { class: "moved" }, el("strong", { text: String(r.before) }), " → ",
    el("strong", { text: String(r.after) }), " (" + signed(r.after - r.before) + ")");
}

function verdictText(result, solved) {
  let text = solved ? "Solved." : "Not quite.";
  if (result && result.rated && result.me) text += " Your puzzle rating: " + result.me.before + " to " + result.me.after + ".";
  return text;
}

function streakText(n, solved) {
  if (!solved) return "Your streak starts again from 0.";
  return "Streak: " + n + (n === 1 ? " puzzle" : " puzzles") + " solved in a row.";
}

/** Once the puzzle is over: the verdict, both ratings moving, the streak, the solution, why the other plays fail,
 *  the next puzzle. Shown in the decision strip, where the decision was. */
export function puzzleResult() {
  const p = match().puzzle;
  const r = p.result || {};
  const solved = p.status === "solved";
  const box = el("div", { class: "puzzle-result " + (solved ? "good" : "bad"), data: { testid: "puzzle-result", status: p.status } });
  box.append(el("h2", { class: "summary-title", tabindex: "-1", data: { testid: "puzzle-verdict", focus: "puzzle-verdict" },
    text: solved ? "Solved!" : "Not quite" }));
  const ratings = el("ul", { class: "puzzle-ratings", data: { testid: "puzzle-ratings" } });
  if (!r.rated) {  // (tried before: the server shows the first attempt's changes)
    ratings.append(el("li", { data: { testid: "not-rated" }, text: !r.me ?
      "Not rated: you are not a player on this server yet (choose a name, or stay anonymous, on the home page)." :
      "Not rated: you had tried this puzzle before. Your first attempt moved the ratings:" }));
  }
  if (r.me) ratings.append(el("li", { data: { testid: "my-rating-change" } }, "Your puzzle rating: ", moved(r.me)));
  if (r.puzzle) ratings.append(el("li", { data: { testid: "puzzle-rating-change" } }, "This puzzle's rating: ", moved(r.puzzle)));
  if (r.rated) ratings.append(el("li", { data: { testid: "streak" }, text: streakText(r.streak, solved) }));
  box.append(ratings);
  if (r.explanation) box.append(el("p", { class: "lines", data: { testid: "puzzle-explanation" }, text: r.explanation }));
  if (p.stale) {
    box.append(el("p", { class: "note", text: "The round is over: the table shows it before your last play, and " +
      "“What happened” says how it ended." }));
  }
  if (r.solution && r.solution.length) {
    box.append(el("h3", { text: "The solution" }),
      el("ol", { class: "puzzle-solution", data: { testid: "puzzle-solution" } }, ...r.solution.map((w) => el("li", { text: cap(w) }))));
  }
  if (r.why && r.why.length) {
    box.append(el("h3", { text: "Why the other plays fail" }),
      el("ul", { class: "puzzle-why", data: { testid: "puzzle-why" } },
        ...r.why.map((w) => el("li", {}, el("strong", { text: cap(w.label) + ": " }), w.text + "."))));
  }
  box.append(nextControls());
  return box;
}

/** The theme of the next puzzle and the button that opens it. */
export function nextControls() {
  const pz = puzzles();
  const pick = el("select", { id: "puzzle-theme", data: { testid: "puzzle-theme" },
    onchange: (e) => store.puzzleThemeChosen(e.target.value) },
    el("option", { value: "", text: "Any theme", selected: !pz.theme }),
    ...pz.themes.map((t) => el("option", { value: t.key, selected: pz.theme === t.key,
      text: t.name + " (" + t.count + (t.count === 1 ? " puzzle)" : " puzzles)") })));
  const next = el("button", { type: "button", class: "primary", data: { testid: "next-puzzle", focus: "next-puzzle" },
    onclick: () => nextPuzzle(next) }, "Next puzzle");
  return el("div", { class: "row puzzle-next" },
    el("label", { for: "puzzle-theme", text: "Theme" }), pick, next);
}

/** My puzzles, beside the table: rating, streak, best streak, and per theme how many I tried and solved. */
export function dashboardPanel() {
  const dash = puzzles().dashboard;
  const panel = el("section", { class: "panel puzzle-dashboard", "aria-labelledby": "h-puzzle-dash", data: { testid: "puzzle-dashboard" } },
    el("h2", { id: "h-puzzle-dash", class: "h3", text: "Your puzzles" }));
  const me = dash && dash.me;
  if (!me) {
    panel.append(el("p", { text: "No puzzle tried yet: your puzzle rating starts at your first attempt." }));
    return panel;
  }
  panel.append(el("dl", { class: "puzzle-stats" },
    el("div", {}, el("dt", { text: "Rating" }), el("dd", { data: { testid: "dash-rating" }, text: me.rating + (me.provisional ? "?" : "") })),
    el("div", {}, el("dt", { text: "Streak" }), el("dd", { data: { testid: "dash-streak" }, text: String(me.streak) })),
    el("div", {}, el("dt", { text: "Best streak" }), el("dd", { data: { testid: "dash-best" }, text: String(me.best_streak) })),
    el("div", {}, el("dt", { text: "Solved" }), el("dd", { data: { testid: "dash-solved" }, text: me.solved + " of " + me.tried }))));
  if (me.provisional) panel.append(el("p", { class: "note", text: "A ? marks a rating still uncertain: it settles as you solve more." }));
  const rows = (dash.themes || []).filter((t) => t.tried > 0);
  if (rows.length) {
    panel.append(el("table", { class: "score puzzle-theme-table", data: { testid: "dash-themes" } },
      el("caption", { class: "sr-only", text: "Puzzles tried and solved, by theme" }),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Theme" }), el("th", { scope: "col", text: "Solved" }),
        el("th", { scope: "col", text: "Tried" }))),
      el("tbody", {}, ...rows.map((t) => el("tr", { data: { theme: t.key } },
        el("th", { scope: "row" }, el("a", { href: "/puzzles?theme=" + encodeURIComponent(t.key), title: "A puzzle of this theme" }, t.name)),
        el("td", { text: String(t.solved) }), el("td", { text: String(t.tried) }))))));
  }
  const recent = (dash.recent || []).slice(0, 5);
  if (recent.length) {
    panel.append(el("h3", { text: "Recent" }), el("ul", { class: "puzzle-recent" },
      ...recent.map((a) => el("li", {}, el("a", { href: "/puzzles/" + a.id }, a.solved ? "Solved" : "Not solved"),
        " · " + a.themes.map((t) => t.name).join(", ")))));
  }
  return panel;
}

/** No puzzle to show: why, with the theme picker and my dashboard. */
export function showMissing() {
  document.title = "Puzzles — Converge";
  appRoot().replaceChildren(el("div", { class: "page-list puzzle-missing", data: { testid: "puzzle-missing" } },
    el("h1", { text: "Puzzles" }),
    el("p", { role: "status", text: puzzles().missing }),
    nextControls(),
    dashboardPanel()));
  const next = $("[data-testid=next-puzzle]");
  if (next) next.focus();
}

// ------------------------------------------------------------------ the home page's card

/** The daily puzzle on the home page: its rating and themes, and a link to it (nothing when there is none). */
export async function dailyCard() {
  const box = el("section", { class: "panel daily-puzzle", "aria-labelledby": "h-daily", data: { testid: "daily-puzzle" } },
    el("h2", { id: "h-daily", text: "Daily puzzle" }));
  try {
    const d = await api("GET", "/api/puzzles/daily");
    box.append(el("p", {}, "Rated " + d.rating + ". " + INSTRUCTION),
      themeTags(d.themes),
      el("p", { class: "row" },
        el("a", { class: "button-link primary", href: "/puzzles/" + d.id + "#daily", data: { testid: "daily-link" } }, "Solve the daily puzzle"),
        el("a", { href: "/puzzles", data: { testid: "home-puzzles" } }, "More puzzles")));
  } catch (_) {
    box.append(el("p", {}, "No daily puzzle today. ", el("a", { href: "/puzzles" }, "Try the puzzles")));
  }
  return box;
}
