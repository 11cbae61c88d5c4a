// The review of a finished match for this browser's seat: each of its decisions judged by the strong bot from
// what the seat could see then (the server makes it once, when asked, and keeps it), the chance to win the round
// turn by turn, and practice: each marked decision shown again as the seat saw it, to choose again.

import { el, toast } from "./dom.js";
import { loadReplay } from "./replay.js";
import { getState, reviewClosed, reviewPicked, reviewPractised, reviewShown } from "./store.js";
import { api } from "./transport.js";

const POLL_MS = 1000;
const SVG = "http://www.w3.org/2000/svg";
const PLURAL = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };
const STEP = { select: "which card to play", mode: "how to play it", target: "the target", skillset: "the skillset",
               faction: "the faction", second: "the second card" };
let polling = null;

const path = () => "/api/matches/" + getState().match.id + "/review";

/** Ask for this seat's review (made once by the server) and show it, following it until it is made. */
export async function startReview() {
  const s = getState().match;
  try {
    show(await api("POST", path(), undefined, s.token));
  } catch (e) {
    toast(e.message);
  }
}

function show(got) {
  reviewShown(got);
  clearTimeout(polling);
  if (got.status === "running") polling = setTimeout(follow, POLL_MS);
}

async function follow() {
  const s = getState().match;
  if (!s.review) return;  // (closed meanwhile)
  try {
    show(await api("GET", path(), undefined, s.token));
  } catch (e) {
    toast(e.message);
  }
}

/** "ALC3 Salt Reader (Alchemist 3)" for "play ALC3 ...": an option as said after "you chose". */
const said = (label) => (label.startsWith("play ") ? label.slice(5) : label);
// The figures are the server's whole points (converge.bots.review): rounded once, and agreeing with each other
// (the best option's points less an option's are the points it loses), so the page rounds nothing again.
const pct = (choice) => choice.points + "%";
const points = (n) => n + (n === 1 ? " point" : " points");
const marked = (doc) => doc.decisions.filter((d) => d.mark);

/** Where a decision was, in words: "Round 1, turn 3, how to play ALC4". */
function place(d) {
  const what = d.kind === "select" ? STEP.select : (STEP[d.kind] || d.kind) + (d.before.length ? " (" + d.before.join(", then ") + ")" : "");
  return "Round " + d.round + ", turn " + d.turn + ": " + what;
}

function verdict(d) {
  const line = "You chose " + said(d.played.label) + " (" + pct(d.played) + ")";
  if (d.played.action === d.best.action) return line + ", the best choice.";
  return line + "; best was " + said(d.best.label) + " (" + pct(d.best) + "), " + points(d.lost_points) + " more.";
}

function totals(doc) {
  const parts = Object.entries(doc.counts).reverse().map(([m, n]) => n + " " + (n === 1 ? m : PLURAL[m]));
  return parts.join(", ") + " in " + doc.decisions.length + " decisions with a choice.";
}

/** The chance to win the round after each turn's last decision, a line per round, the marked turns dotted. */
function chart(doc) {
  const turns = [];
  for (const d of doc.decisions) {
    const last = turns[turns.length - 1];
    if (last && last.round === d.round && last.turn === d.turn) { last.chance = d.played.chance; last.shown = pct(d.played); last.mark = d.mark || last.mark; }
    else turns.push({ round: d.round, turn: d.turn, chance: d.played.chance, shown: pct(d.played), mark: d.mark });
  }
  const w = 320;
  const h = 90;
  const x = (i) => (turns.length < 2 ? w / 2 : 8 + (i * (w - 16)) / (turns.length - 1));
  const y = (c) => h - 6 - c * (h - 12);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 " + w + " " + h);
  svg.setAttribute("class", "review-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "Your chance to win the round after each of your turns: " +
    turns.map((t) => "round " + t.round + " turn " + t.turn + " " + t.shown).join(", "));
  const add = (tag, attrs) => {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
    svg.append(n);
    return n;
  };
  add("line", { x1: 0, x2: w, y1: y(0.5), y2: y(0.5), class: "half" });
  let line = [];  // the current round's points
  turns.forEach((t, i) => {
    if (i && turns[i - 1].round !== t.round) {
      add("polyline", { points: line.join(" "), class: "round" });
      add("line", { x1: (x(i - 1) + x(i)) / 2, x2: (x(i - 1) + x(i)) / 2, y1: 0, y2: h, class: "between" });
      line = [];
    }
    line.push(x(i).toFixed(1) + "," + y(t.chance).toFixed(1));
  });
  if (line.length) add("polyline", { points: line.join(" "), class: "round" });
  turns.forEach((t, i) => { if (t.mark) add("circle", { cx: x(i), cy: y(t.chance), r: 3.5, class: "mark " + t.mark }); });
  return svg;
}

function decisionItem(d, k) {
  return el("li", { class: "reviewed " + (d.mark || "fine"), data: { testid: "reviewed", mark: d.mark, index: d.index } },
    el("span", { class: "where", text: place(d) }),
    el("span", { class: "what", text: verdict(d) }),
    d.mark ? el("strong", { class: "mark-word", text: d.mark[0].toUpperCase() + d.mark.slice(1) }) : null,
    k >= 0 ? el("button", { type: "button", class: "quiet", data: { testid: "practise-one" }, onclick: () => practise(k) }, "Practise") : null);
}

function summaryView(r) {
  const doc = r.doc;
  const bad = marked(doc);
  const t = doc.thresholds;
  return [
    el("p", { class: "lines", text: "Each of your decisions, judged by the strong bot from what you could see then — never the cards revealed later. A mark is the chance to win the round you gave up against the best option: an inaccuracy from " +
      points(Math.round(100 * t.inaccuracy)) + ", a mistake from " + Math.round(100 * t.mistake) + ", a blunder from " + Math.round(100 * t.blunder) + "." }),
    el("p", { data: { testid: "review-totals" }, text: totals(doc) + (doc.complete ? "" : " The review ran out of time before your last decisions.") }),
    chart(doc),
    bad.length ? el("ol", { class: "review-list", data: { testid: "review-marked" } }, ...bad.map((d, k) => decisionItem(d, k))) :
      el("p", { text: "No decision lost enough to be marked: well played." }),
    el("div", { class: "choices" },
      bad.length ? el("button", { type: "button", class: "choice", data: { testid: "practise" }, onclick: () => practise(0) }, "Practise your mistakes") : null,
      el("button", { type: "button", class: "quiet", data: { testid: "review-close" }, onclick: close }, "Back to the match")),
  ];
}

function practise(k) {
  const s = getState().match;
  const d = marked(s.review.doc)[k];
  reviewPractised(k);
  loadReplay(d.index, s.seat);  // the board as this seat saw it then
}

function close() {
  clearTimeout(polling);
  reviewClosed();
}

/** Choose again at the k-th marked decision: the options in the order of the menu (the best is not first). */
function practiceView(r) {
  const bad = marked(r.doc);
  const k = r.practise;
  const d = bad[k];
  const options = [...d.choices].sort((a, b) => a.action - b.action);
  const picked = r.picked === null ? null : d.choices.find((c) => c.action === r.picked);
  const answer = picked ? (picked.action === d.best.action ? said(picked.label) + ": " + pct(picked) + " to win the round — the best choice." :
    said(picked.label) + ": " + pct(picked) + " to win the round — " + points(d.best.points - picked.points) + " below the best, " + said(d.best.label) + " (" + pct(d.best) + ").") : null;
  return [
    el("p", { class: "lines", data: { testid: "practice-where" }, text: "Practice " + (k + 1) + " of " + bad.length + ". " + place(d) + ". What would you choose now?" }),
    el("div", { class: "choices", data: { testid: "practice-options" } }, ...options.map((c) =>
      el("button", { type: "button", class: "choice" + (picked && c.action === picked.action ? " picked" : ""), disabled: !!picked,
                     data: { testid: "practice-option", action: c.action }, onclick: () => reviewPicked(c.action) }, said(c.label)))),
    answer ? el("p", { class: "lines", role: "status", data: { testid: "practice-answer" } }, answer,
      " In the match you chose " + said(d.played.label) + " (" + pct(d.played) + ").") : null,
    el("div", { class: "choices" },
      picked ? el("button", { type: "button", class: "quiet", data: { testid: "practice-again" }, onclick: () => reviewPicked(null) }, "Try again") : null,
      k + 1 < bad.length ? el("button", { type: "button", class: picked ? "choice" : "quiet", data: { testid: "practice-next" }, onclick: () => practise(k + 1) }, "Next") : null,
      el("button", { type: "button", class: "quiet", data: { testid: "practice-done" }, onclick: () => reviewPractised(null) }, "Back to the review")),
  ];
}

/** The review's panel above the table (the table shows the practised position, or the match's end). */
export function reviewPanel() {
  const r = getState().match.review;
  let body;
  if (r.status === "running" || r.status === "none") {
    body = [el("p", { class: "lines", "aria-busy": "true", text: "Reviewing your decisions: the strong bot searches each one from what you could see then. This takes up to a minute." }),
      el("div", { class: "choices" }, el("button", { type: "button", class: "quiet", onclick: close }, "Back to the match"))];
  } else if (r.status === "failed") {
    body = [el("p", { class: "lines", text: "The review could not be made." }),
      el("div", { class: "choices" }, el("button", { type: "button", class: "choice", onclick: startReview }, "Try again"),
        el("button", { type: "button", class: "quiet", onclick: close }, "Back to the match"))];
  } else {
    body = r.practise === null ? summaryView(r) : practiceView(r);
  }
  return el("section", { class: "review", "aria-labelledby": "review-title", data: { testid: "review", status: r.status } },
    el("h2", { id: "review-title", text: "Review of your play" }), ...body);
}
