// The match page (and the tutorial's): the table drawn from the store after every change it can see, with
// gentle movement of the cards (not when the reader asked for less motion), the keyboard focus kept on the
// decision, the connection's badge and the clocks ticking between messages.

import { $, appRoot, el, reducedMotion } from "./dom.js";
import { board, handZone, statusBar, tickClocks } from "./board.js";
import { focusQuietly, hideTip } from "./cards.js";
import { decisionStrip } from "./decision.js";
import { matchChat, openMatch, takeBack } from "./match.js";
import { reportButton } from "./report.js";
import { resignButton } from "./resign.js";
import { replayBar, replayKey } from "./replay.js";
import { reviewPanel } from "./review.js";
import { dashboardPanel, nextControls, openPuzzle, puzzleHead, showMissing } from "./puzzles.js";
import { currentObs, myDecision, puzzleFinal, viewerOf } from "./selectors.js";
import { logButton, logPanel, scorePanel, settingsPanel, sharePanel, turnPanel } from "./side.js";
import { setTurnSignals } from "./signals.js";
import { getState, subscribe } from "./store.js";
import { overBanner, roundSummary } from "./summaries.js";
import { openTutorial } from "./tutorial.js";

/** Changes that show nothing on the table (yet): a state waits in the queue until the page shows it (a round's
 *  summary stays up meanwhile), and the page keeps what it shows while it reconnects. */
const UNSEEN = new Set(["matchOpened", "stateQueued", "disconnected", "tokenRefused", "seatBanned", "seatLinked", "autoOpened",
                        "chatRoom", "chatLines", "chatLine", "chatSettings", "chatSenderMuted"]);  // (the chat draws itself)
/** Changes after which the focus goes to the decision even when it looks like the one it was on. */
const REFOCUS = new Set(["held", "letGo", "roundContinued", "tutorialLoaded", "tutorialStepped", "puzzleLoaded"]);
/** The puzzle page's own changes that leave the table as it is (its side panel is drawn again). */
const PUZZLE_SIDE = new Set(["puzzleDashboard", "puzzleThemes", "puzzleThemeChosen"]);

/** The match page: "Connecting…" until the server's welcome. */
export function showMatch(id) {
  mount();
  appRoot().replaceChildren(el("p", { class: "loading", text: "Connecting…" }));
  openMatch(id);
}

export async function showTutorial() {
  document.title = "Tutorial — Converge";
  mount();
  try {
    await openTutorial();
  } catch (e) {
    appRoot().replaceChildren(el("p", { text: "The tutorial could not be loaded: " + e.message }));
  }
}

/** The puzzles page: the puzzle `id`, or (null) the next one for me. */
export async function showPuzzle(id) {
  document.title = "Puzzle — Converge";
  mount();
  await openPuzzle(id);
}

function mount() {
  subscribe(onChange);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && getState().match.staged) { e.preventDefault(); takeBack(); return; }
    replayKey(e);
  });
  setInterval(tickClocks, 250);
}

function onChange(change, state) {
  showConnection(state.match.connection);
  if (UNSEEN.has(change)) return;
  if (change === "puzzleMissing") { showMissing(); return; }
  if (PUZZLE_SIDE.has(change)) { if (state.match.puzzle) redrawPuzzleSide(); else if (state.puzzles.missing) showMissing(); return; }
  if (change === "metaChanged" && state.match.queue.length) return;  // (shown with the queued states)
  render();
  focusDecision(REFOCUS.has(change));
  if (change === "tutorialFinished") {  // (on its first link: play a real match)
    const done = $("[data-testid=tutorial-complete] a");
    if (done) done.focus();
  }
}

const CONNECTION = {
  connected: ["connected", true], watching: ["watching", true], reconnecting: ["reconnecting…", false],
  elsewhere: ["open in another window: reload this page to play here", false],
};

/** The badge in the site's header: connected, watching, reconnecting... (hidden before the first welcome). */
function showConnection(connection) {
  if (!connection) return;
  const [text, ok] = CONNECTION[connection];
  const c = $("#conn");
  c.hidden = false;
  c.textContent = text;
  c.className = "conn " + (ok ? "ok" : "down");
}

function notFound() {
  appRoot().replaceChildren(el("div", { class: "panel" }, el("h2", { text: "No such match" }),
    el("p", { text: "This match does not exist on this server." }), el("a", { href: "/", text: "Start a new one" })));
}

function render() {
  const s = getState().match;
  if (s.missing) { notFound(); return; }
  if (!s.obs || !s.meta) return;
  const obs = currentObs();
  const before = cardRects();
  const key = focusKey();
  hideTip();
  const viewer = viewerOf();
  const interactive = !s.replay && viewer >= 0 && (s.seat >= 0 || s.tutorial);
  const summary = s.replay ? null : s.roundView;
  const final = s.puzzle ? puzzleFinal() : null;  // (a puzzle's round that ended: its final board)
  const parts = board(obs, interactive && !summary && !final, summary || final);
  const strip = summary ? roundSummary(summary) : s.replay ? null : decisionStrip(obs);
  // The strip and the hand share a tray, which stays in the window while a card is to be chosen from the hand
  // (a tall board pushed the hand below a laptop's window on some deals).
  const handGone = summary || final || (s.puzzle && s.puzzle.stale);  // (a puzzle's hand before its last step)
  const tray = el("div", { class: "tray" }, strip, handGone ? null : handZone(obs, interactive));
  const table = el("div", { class: "table", data: { testid: "table" } },
    parts.topZone, parts.middle, parts.bottomZone, tray);
  const side = el("div", { class: "side" });
  side.append(logPanel(obs, summary ? summary.round : final ? final.round : null));  // (first: beside the table at 1280×800 without scrolling)
  const turn = s.replay || summary ? null : turnPanel(obs);  // (a round's summary has the table itself)
  if (turn) side.append(turn);
  if (!summary) side.append(scorePanel(obs));  // (a round's summary has its own table of the points per goal)
  if (s.puzzle) side.append(el("div", { id: "puzzle-side" }, dashboardPanel()));
  else if (!s.replay && !s.tutorial) side.append(matchChat(), settingsPanel(), sharePanel());
  const matchEnd = summary && summary.match_winner !== null && summary.match_winner !== undefined;
  appRoot().replaceChildren(
    el("div", { class: "match", data: { testid: "match", seat: s.tutorial ? 0 : s.seat, status: s.tutorial ? "tutorial" : s.meta.status,
                                        puzzle: s.puzzle ? s.puzzle.status : null,
                                        seq: s.seq, pending: s.pending ? 1 : 0, shown: s.queue.length ? 0 : 1,
                                        summary: summary ? (matchEnd ? "match" : "round") : "" } },
      s.puzzle ? puzzleHead() : s.tutorial ? null : overBanner(),
      s.review ? reviewPanel() : s.replay ? replayBar() : null,
      statusLine(summary || final ? { ...obs, scores: (summary || final).scores, artifact_holder: (summary || final).holder,
        round: (summary || final).round } : obs),
      el("div", { class: "layout" }, table, side)));
  animateFrom(before);
  setTurnSignals(obs);
  const again = key ? document.querySelector("#app [data-focus='" + key + "']") : null;
  if (again && !again.disabled) focusQuietly(again);
}

/** The status line, with the log's button (on a phone) and, for a seat of a match in progress, Resign. */
function statusLine(obs) {
  const s = getState().match;
  const bar = statusBar(obs);
  const tools = el("span", { class: "status-tools" }, logButton());
  if (!s.tutorial && !s.puzzle && !s.replay && s.seat >= 0 && s.meta.status === "active") tools.append(resignButton());
  const report = !s.tutorial && !s.puzzle && !s.replay && s.seat >= 0 ? reportButton() : null;
  if (report) tools.append(report);
  bar.append(tools);
  return bar;
}

/** The puzzle page's side panel (my dashboard) drawn again, and the theme picker with it; the table stays. */
function redrawPuzzleSide() {
  const side = $("#puzzle-side");
  if (side) side.replaceChildren(dashboardPanel());
  const pick = $("#decision .puzzle-next");
  if (pick && !pick.contains(document.activeElement)) pick.replaceWith(nextControls());
}

// ------------------------------------------------------------------ movement of the cards (FLIP)

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

// ------------------------------------------------------------------ the keyboard focus

/** What has the focus, as the page names it (data-focus), to put it back on the same control after a render. */
function focusKey() {
  const a = document.activeElement;
  return a && a.dataset ? a.dataset.focus || null : null;
}

let decisionKey = null;  // the decision the focus was last put on

/** Put the keyboard focus on the decision when a new one opens: the first choice (a card or a button), or the
 *  summary's button. `force`: even when it is the decision the focus was last put on. */
function focusDecision(force) {
  const s = getState().match;
  const tut = s.tutorial ? ":" + s.tutorial.step + (s.tutorial.done ? "done" : "") : "";
  const over = s.puzzle && s.puzzle.status !== "playing";
  const key = over ? "puzzle:" + s.puzzle.doc.id + ":" + s.puzzle.status : s.roundView ? "round:" + s.roundView.round + tut : s.staged ? "staged:" + s.seq + tut :
    myDecision(currentObs()) ? "decision:" + s.seq + tut : s.tutorial ? "tutorial" + tut : null;
  if (!key || (!force && key === decisionKey)) return;
  decisionKey = key;
  if (document.activeElement && document.activeElement.id === "chat-input") return;  // (a line being typed)
  const target = $("#decision [data-testid=puzzle-verdict]") || $("#decision [data-testid=continue]") || $("#decision [data-testid=coach-next]") ||
    $("#app [data-testid=playable-card]") || $("#decision button.choice:not([disabled])") || $("#decision button:not([disabled])");
  if (target) focusQuietly(target);
}
