// The decision strip, above the hand and never over it: what to decide and the choices (the cards to choose are
// highlighted where they lie), a held choice's Take back, the hint; or what the page waits for.

import { cap, el } from "./dom.js";
import { cardNode, cardRow } from "./cards.js";
import { act, askHint, takeBack } from "./match.js";
import { allowed, currentStep, hintOptions, hintVerdict, isCardAction, isDone, lastMove, legalCards, myDecision, named, playerName, suggested, viewerOf } from "./selectors.js";
import { copyField } from "./side.js";
import { loadInvite } from "./storage.js";
import { getState } from "./store.js";
import { puzzleResult } from "./puzzles.js";
import { coach } from "./tutorial.js";

function choiceButton(a) {
  const done = isDone(a);
  const ok = allowed(a.id);
  const hinted = suggested(a.id);
  const b = el("button", {
    type: "button", class: (done ? "quiet" : "choice") + (hinted ? " suggested" : ""),
    disabled: !ok, "aria-disabled": ok ? null : "true",
    data: { action: a.id, testid: "action", focus: "choice:" + a.id },
    onclick: () => act(a.id),
  }, done ? "Done — skip the rest of this effect" : cap(a.label));
  if (hinted) b.append(el("span", { class: "badge inline-badge", text: "hint" }));
  return b;
}

const WAITING_FOR = { select: "choose a card", mode: "choose how to play it", faction: "choose a faction",
                      skillset: "choose a skillset", target: "choose a target", second: "choose a card" };

function waitingText(d) {
  const s = getState().match;
  const name = s.tutorial ? "your opponent" : playerName(d.player);
  return "Waiting for " + name + " to " + (WAITING_FOR[d.kind] || "decide") + "…";
}

/** The latest end of turn in a line, until the next play (the side panel has its table). */
function turnLine() {
  const s = getState().match;
  const t = s.lastTurn;
  if (!t || !s.turnFresh) return null;
  return el("p", { class: "turn-line", data: { testid: "turn-line" } },
    el("strong", { text: "End of turn " + t.turn + ": " }), named(t.lines.slice(1).join(" ")), " ",
    el("a", { href: "#turn-panel", class: "details" }, "Points per goal"));
}

/** What the other player just did (since this viewer's last play), with the cards it touched by name: those
 *  are marked on the board too. */
function lastMoveLine(obs) {
  const s = getState().match;
  const m = lastMove(obs);
  if (!m || s.tutorial && !m.events.length) return null;
  const cards = m.cards.map((id) => s.cards[id]).filter(Boolean);
  const name = viewerOf() >= 0 && (s.tutorial || s.puzzle) ? "Their move" : playerName(m.player) + "'s move";
  return el("p", { class: "last-move", data: { testid: "last-move" }, title: "Tap to read it all",
                   onclick: (e) => e.currentTarget.classList.toggle("open") },
    el("strong", { text: name + ": " }), named(m.events.map((e) => e.text).join(" ")),
    cards.length ? el("span", { class: "card-names" }, " (" + cards.map((c) => c.id + " is " + c.name).join("; ") + ")") : null);
}

/** A friend match whose friend has not come yet: the invite link to send, with its copy button. */
function friendWaiting() {
  const s = getState().match;
  if (s.tutorial || s.seat < 0 || s.meta.mode !== "friend" || s.meta.seq > 0 || s.meta.status !== "active") return null;
  const other = s.meta.seats[1 - s.seat];
  const invite = loadInvite(s.id);
  if (!invite || other.connected) return null;
  return el("div", { class: "waiting-friend", data: { testid: "waiting-friend" }, role: "status" },
    el("p", { class: "prompt" }, el("strong", { text: "Waiting for your friend. " }),
      "Send them this link: it holds their seat, so keep it private. The match begins when they open it."),
    copyField("Invite link", invite, "invite-link-now"));
}

export function decisionStrip(obs) {
  const s = getState().match;
  const d = obs.decision;
  const strip = el("section", { id: "decision", class: "decision", "aria-label": "Your decision", data: { testid: "decision-strip" } });
  const friend = s.replay ? null : friendWaiting();
  if (friend) strip.append(friend);
  const moved = s.replay ? null : lastMoveLine(obs);
  if (moved) strip.append(moved);
  const line = turnLine();
  if (line) strip.append(line);
  if (s.tutorial) strip.append(coach());
  if (s.puzzle && s.puzzle.status !== "playing") {  // (the puzzle is over: its verdict, where the decision was)
    strip.classList.add("puzzle-over");
    strip.append(puzzleResult());
    return strip;
  }
  if (!d || (!s.tutorial && s.meta.status !== "active")) {
    strip.append(el("p", { id: "prompt", class: "prompt", text: "The match is over." }));
    return strip;
  }
  if (s.tutorial && !myDecision(obs) && currentStep().player === 0) return strip;  // a pause: the coach speaks
  if (!myDecision(obs)) {
    const text = s.pending && s.puzzle ? "Checking your play against every hand they could hold…" : s.pending ? "Sending…" : s.queue.length ? playerName(d.player) + " is playing…" : waitingText(d);
    strip.classList.add("waiting");
    strip.append(el("p", { id: "prompt", class: "prompt", data: { testid: "waiting" }, text }));
    if (d.card) strip.append(el("div", { class: "row playing" }, "Playing: ", cardNode(d.card, null, { size: "chip" })));
    return strip;
  }
  const staged = s.staged;
  strip.dataset.testid = "decision";
  strip.dataset.kind = staged ? staged.follow.kind : d.kind;
  strip.dataset.legal = (staged ? staged.follow.choices : d.legal_actions).filter((a) => allowed(a.id)).map((a) => a.id).join(",");
  if (staged) strip.dataset.staged = staged.action;
  const legal = legalCards(obs);
  let promptText;
  let choices;
  if (staged) {
    const card = d.legal_actions.find((a) => a.id === staged.action);
    promptText = cap(staged.follow.prompt.replace(/ \(.*\)$/, "")) + (card ? " — " + card.action : "");
    choices = staged.follow.choices;
  } else {
    promptText = cap(d.prompt.replace(/^player \d+: /, "").replace(/ \((discard|mine).*\)$/, ""));
    choices = d.legal_actions.filter((a) => !isCardAction(a.id));  // the cards are chosen where they lie
  }
  const head = el("div", { class: "prompt-row" },
    el("p", { id: "prompt", class: "prompt", data: { testid: "prompt" } }, el("span", { class: "your-turn", text: "Your turn" }), " ", promptText));
  strip.append(head);
  const row = el("div", { class: "choices", role: "group", "aria-label": "Choices" });
  if (d.card) head.append(el("span", { class: "playing" }, "Playing ", cardNode(d.card, null, { size: "chip" }),
    d.studied ? el("span", { class: "playing" }, " studying ", cardNode(d.studied, null, { size: "chip" })) : null,
    d.pending ? el("span", { class: "playing" }, " with ", cardNode(d.pending, null, { size: "chip" })) : null));
  // The cards to pick from a search or from the discard pile, with their text as in the hand (the pile itself
  // shows its top card): a choice among them is read, not hovered.
  if (d.revealed) row.append(pickRow(d.revealed, legal, "Revealed cards to choose from"));
  const fromPile = obs.discard.slice().reverse().filter((id) => legal[id]);
  if (fromPile.length) row.append(pickRow(fromPile, legal, "Cards of the discard pile to choose from"));
  row.append(...choices.filter((a) => !isDone(a)).map(choiceButton));
  const picks = row.querySelector(".picks");  // ("Done" beside the cards to pick, where there is room)
  if (picks) picks.append(...choices.filter(isDone).map(choiceButton));
  if (staged) {
    row.append(el("button", { type: "button", class: "quiet take-back", data: { testid: "take-back", focus: "take-back" },
      onclick: takeBack, "aria-keyshortcuts": "Escape" }, "Take back"));
  }
  if (!picks) row.append(...choices.filter(isDone).map(choiceButton));  // "Done" comes last, after Take back
  const hinted = hintOptions();
  if (!s.tutorial && s.meta.hints && s.meta.hints.on && s.seat >= 0 && !(staged && s.hint && s.hint.options)) {
    head.append(el("button", { type: "button", class: "quiet hint-button", data: { testid: "hint", focus: "hint" },
      disabled: s.hint && s.hint.loading, onclick: askHint }, s.hint && s.hint.loading ? "Thinking…" : "Hint"));
  }
  strip.append(row);
  if (hinted) strip.append(hintBox(hinted, hintVerdict()));
  else if (staged && s.hint && s.hint.options) {
    strip.append(el("p", { class: "hint-box note", data: { testid: "hint-box" }, role: "status",
      text: "The hint's search did not try this card enough to judge how to play it." }));
  }
  return strip;
}

/** Up to this many cards to pick show their text (a row of them fits a laptop's strip, three rows a phone's);
 *  more (a long discard pile) are small cards, their text in the tip, so that every choice stays in the window. */
const PICKS_WITH_TEXT = 6;

function pickRow(ids, legal, label) {
  return el("div", { class: "picks", data: { testid: "picks" } },
    cardRow(ids, legal, { size: ids.length <= PICKS_WITH_TEXT ? "full" : "mini" }, "", label));
}

/** What a hint says of one option beside it (converge.bots.hint.note: the same words): its chance, and "about
 *  equal" to the best, or what an endgame worked out exactly proves of it. */
function note(o) {
  const said = Math.round(o.win_chance * 100) + "%";
  if (o.sure > 0) return said + ", wins in every case";
  if (o.sure < 0) return said + ", loses in every case";
  return said + (o.equal ? ", about equal to the best" : "");
}

/** The hint: its sentence as the server words it for every door (the best option, or those about equal to it,
 *  with the chance in words), then the options with their chances. */
function hintBox(options, verdict) {
  return el("div", { class: "hint-box", data: { testid: "hint-box" }, role: "status" },
    el("p", {}, el("strong", { text: "Hint: " }), verdict + " The hint sees what you see, never hidden cards."),
    el("ul", { class: "hint-options" }, ...options.slice(0, 6).map((o) => el("li", { title: o.label, class: o.equal ? "equal" : "" },
      el("span", { class: "bar-wrap" }, el("meter", { min: 0, max: 1, value: o.win_chance, "aria-label": o.label })),
      " " + note(o) + " — " + o.label))));
}
