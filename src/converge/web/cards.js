// Cards: full in the hand, goal cards, small cards in the factions and piles, a one-line chip; and the tip that
// shows a card's whole text on hover, when the keyboard moves to it, and on a long press.

import { $, STAR, cap, el, icon } from "./dom.js";
import { act } from "./match.js";
import { colorClass, keywordOf, suggested, touchedCards, viewerOf, who } from "./selectors.js";
import { getState } from "./store.js";

export function cardText(card, inPlay) {
  const skill = inPlay ? inPlay.skillset : card.skillset;
  const rank = inPlay ? inPlay.rank : card.rank;
  let text = card.id + " " + card.name + ", " + skill + " " + rank;
  if (inPlay && inPlay.converted) text += " (printed " + inPlay.printed_skillset + " " + inPlay.printed_rank + ")";
  text += ". Goal: " + card.goal + ", " + card.stars + " star" + (card.stars === 1 ? "" : "s") + ". " + card.effect;
  if (inPlay && inPlay.guarded_by !== null && inPlay.guarded_by !== undefined) text += " Guarded by " + who(inPlay.guarded_by, viewerOf()) + ".";
  return text;
}

/**
 * A card. opts.size: "full" (hand), "goal" (goal area: the goal first), "mini" (factions, piles), "chip" (the
 * card being played). A card that is a legal choice is a button; the others are images with a full description.
 */
export function cardNode(id, legal, opts) {
  const s = getState().match;
  const o = opts || {};
  const card = s.cards[id] || { id, name: id, skillset: "", rank: "?", goal: "", stars: 0, effect: "", keyword: "", text: id };
  const inPlay = o.inPlay;
  const skill = inPlay ? inPlay.skillset : card.skillset;
  const rank = inPlay ? inPlay.rank : card.rank;
  const playable = legal && legal[id];
  const staged = s.staged && s.staged.card === id;
  const hinted = playable && suggested(playable.id);
  const size = o.size || "full";
  const touched = size !== "full" && size !== "chip" && touchedCards().has(id);
  const full = cardText(card, inPlay) + (touched ? (viewerOf() >= 0 ? " Their last move." : " The last move.") : "");
  const attrs = {
    class: ["card", "size-" + size, colorClass(skill), playable ? "playable" : "", staged ? "chosen" : "",
            inPlay && inPlay.converted ? "converted" : "", hinted ? "suggested" : "", touched ? "touched" : ""].join(" ").replace(/\s+/g, " ").trim(),
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
  node.append(el("span", { class: "top" },
    el("span", { class: "rank", text: String(rank) }),
    el("span", { class: "skill" }, icon(keywordOf(skill)), el("span", { class: "skill-name", text: skill })),
    el("span", { class: "cid", text: id })));
  if (size === "mini") {
    if (inPlay && inPlay.converted) node.append(el("span", { class: "was", text: wasText(inPlay) }));
  } else if (size === "goal") {
    node.append(el("span", { class: "goal big" }, el("span", { class: "stars", text: STAR.repeat(card.stars) }), " ", card.goal));
  } else if (size !== "chip") {  // (a chip is one line: rank, icon and id)
    node.append(el("span", { class: "name", text: card.name }),
      el("span", { class: "goal" }, el("span", { class: "stars", text: STAR.repeat(card.stars) }), " ", card.goal),
      el("span", { class: "effect" }, icon(card.keyword, "kw"), " ", card.effect));
  }
  if (inPlay && inPlay.guarded_by !== null && inPlay.guarded_by !== undefined) {
    node.append(el("span", { class: "guard", title: "guarded by " + who(inPlay.guarded_by, viewerOf()) }, icon("Guard"),
      el("span", { class: "sr-only", text: "guarded" })));
  }
  if (touched) node.append(el("span", { class: "moved-mark", "aria-hidden": "true", data: { testid: "touched" }, text: size === "mini" ? "last" : viewerOf() >= 0 ? "their move" : "last move" }));
  if (playable) node.append(el("span", { class: "badge", "aria-hidden": "true", text: hinted ? "hint" : "choose" }));
  if (staged) node.append(el("span", { class: "badge chosen-badge", "aria-hidden": "true", text: "chosen" }));
  attachTip(node);
  return node;
}

/** What a conversion changed, in words, under a small card: its printed skillset and rank ("was Archivist 6";
 *  "was rank 6" when only the rank changed, "was Archivist" when only the skillset did). */
function wasText(inPlay) {
  const rank = inPlay.rank !== inPlay.printed_rank;
  const skill = inPlay.skillset !== inPlay.printed_skillset;
  return "was " + (skill && rank ? inPlay.printed_skillset + " " + inPlay.printed_rank : skill ? inPlay.printed_skillset :
    "rank " + inPlay.printed_rank);
}

export function cardRow(ids, legal, opts, emptyText, label) {
  if (!ids.length) return el("p", { class: "cards empty", text: emptyText || "none" });
  return el("ul", { class: "cards", "aria-label": label }, ...ids.map((id) => el("li", {}, cardNode(id, legal, opts))));
}

export function factionRow(faction, legal, emptyText, label) {
  if (!faction.length) return el("p", { class: "cards empty", text: emptyText });
  return el("ul", { class: "cards", "aria-label": label },
    ...faction.map((c) => el("li", {}, cardNode(c.id, legal, { inPlay: c, size: "mini" }))));
}

// ------------------------------------------------------------------ the tip

// Whether the keyboard (not a pointer) was used last: a focused card shows its tip only then, and never when
// the page itself moved the focus (focusQuietly).
let keyboardUsed = false;
let autoFocusing = false;
let pressTimer = null;
let pressedLong = false;

/** Follow which of keyboard and pointer was used last (once, when a page with cards starts). */
export function watchInput() {
  document.addEventListener("keydown", () => { keyboardUsed = true; }, true);
  document.addEventListener("pointerdown", () => { keyboardUsed = false; hideTip(); }, true);  // (a click closes it)
  window.addEventListener("scroll", hideTip, { passive: true });
}

/** Put the focus on a node without showing its tip (the page moved it, the player did not). */
export function focusQuietly(node) {
  autoFocusing = true;
  node.focus({ preventScroll: true });
  autoFocusing = false;
}

/** A long press shows the tip; the click that ends it chooses nothing. */
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

/** The tip sits beside the card it explains (below it, or above it in the lower half of the window), as a
 *  sibling of the card in its list item; no inline style positions it (the CSP forbids them): classes do. */
function showTip(node) {
  const tip = $("#cardtip");
  const host = node.parentElement;
  if (!tip || !node.isConnected || !host) return;
  const r = node.getBoundingClientRect();
  // beside the card's left edge when the tip fits to its right, else by its right edge, else centred on it
  // (a card mid-way across a phone): never past the window's edge, where the page would scroll sideways
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  const width = Math.min(17 * rem, 0.92 * window.innerWidth);
  const side = r.left + width <= window.innerWidth ? "" : r.right - width >= 0 ? " to-left" : " centred";
  tip.className = "cardtip" + (r.top > window.innerHeight / 2 ? " above" : " below") + side;
  tip.textContent = node.dataset.full;
  host.classList.add("tip-host");
  host.append(tip);
  tip.hidden = false;
}

/** Hide the tip (and put it back where the page keeps it, out of the table that is about to be redrawn). */
export function hideTip() {
  const tip = $("#cardtip");
  if (!tip) return;
  tip.hidden = true;
  if (tip.parentElement !== document.body) document.body.append(tip);
}
