// The card gallery (/cards): every card the server plays — the built-in decks and a designer's own (converge serve
// --deck-dir), marked as such — drawn with the table's own card, whole, grouped by skillset. Filters by set, by
// keyword and by words narrow them; the page's address keeps them (?set=&keyword=&decks=&q=), so that a filtered
// view can be linked and survives a reload. The page is drawn once; a filter only hides and shows what is there
// (the search box keeps its focus while a player types).

import { cardNode } from "./cards.js";
import { el, icon } from "./dom.js";
import { pageShell } from "./pages.js";
import * as store from "./store.js";
import { api } from "./transport.js";

const FILTERS = ["set", "keyword", "decks", "q"];
const gallery = () => store.getState().gallery;

/** The filters the address holds, those it names that this server has not (a set it does not play) left out. */
function addressFilters(doc) {
  const q = new URLSearchParams(location.search);
  const got = Object.fromEntries(FILTERS.map((k) => [k, (q.get(k) || "").trim().slice(0, 100)]));
  if (!doc.sets.includes(got.set)) got.set = "";
  if (!doc.keywords.includes(got.keyword)) got.keyword = "";
  if (!["builtin", "custom"].includes(got.decks)) got.decks = "";
  return got;
}

/** The page's address for these filters (the empty ones left out). */
function addressOf(filters) {
  const q = new URLSearchParams();
  for (const k of FILTERS) if (filters[k]) q.set(k, filters[k]);
  return "/cards" + (q.toString() ? "?" + q : "");
}

/** Whether the filters show this card of this skillset: of the set, of the keyword, of the decks asked for (built-in or
 *  custom), and with every word searched for somewhere in its text (its id, name, skillset, set, goal, effect). */
function shown(skillset, card, f) {
  if (f.set && skillset.set !== f.set) return false;
  if (f.keyword && card.keyword !== f.keyword) return false;
  if (f.decks && (f.decks === "custom") !== skillset.custom) return false;
  const text = [card.id, card.name, card.skillset, skillset.set, card.goal, card.effect].join(" ").toLowerCase();
  return f.q.toLowerCase().split(/\s+/).filter(Boolean).every((word) => text.includes(word));
}

export async function showGallery() {
  let doc;
  try {
    doc = await api("GET", "/api/cards");
  } catch (e) {
    pageShell("Cards", "gallery", el("p", { role: "alert", text: "The cards could not be loaded: " + e.message + "." }));
    return;
  }
  store.galleryLoaded(doc, addressFilters(doc));
  draw(doc);
  store.subscribe((change) => { if (change === "galleryFiltered") applyFilters(); });
  applyFilters();
}

function draw(doc) {
  const builtin = doc.skillsets.filter((s) => !s.custom);
  const custom = doc.skillsets.filter((s) => s.custom);
  const count = (list) => list.reduce((n, s) => n + s.cards.length, 0);
  const intro = "Every card this server plays: the " + builtin.length + " skillsets of the built-in decks (" + count(builtin) +
    " cards)" + (custom.length ? " and " + custom.length + " custom skillset" + (custom.length === 1 ? "" : "s") +
    " of its own (" + count(custom) + " cards)" : "") + ". Each skillset has one keyword effect; its six cards, ranked 1 " +
    "to 6, vary how strong it is and each has its own goal.";
  pageShell("Cards", "gallery",
    el("p", { class: "muted", text: intro }),
    filterForm(doc),
    el("p", { id: "gallery-count", class: "gallery-count", role: "status", data: { testid: "gallery-count" } }),
    el("p", { class: "gallery-none", hidden: true, data: { testid: "gallery-none" } }, "No card fits these filters. ",
      el("a", { href: "/cards", onclick: (e) => { e.preventDefault(); choose({ set: "", keyword: "", decks: "", q: "" }); } }, "Show every card")),
    ...doc.skillsets.map(skillsetSection));
  document.querySelector("[data-testid=gallery]").classList.add("gallery");
}

function filterForm(doc) {
  const f = gallery().filters;
  const field = (id, label, control) => el("div", { class: "field" }, el("label", { for: id, text: label }), control);
  const select = (name, options) => {
    const s = el("select", { id: "gallery-" + name, name, data: { testid: "gallery-" + name },
                             onchange: () => choose({ [name]: s.value }) },
      ...options.map(([v, t]) => el("option", { value: v, text: t })));
    s.value = f[name];
    return s;
  };
  const search = el("input", { id: "gallery-q", name: "q", role: "searchbox", maxlength: "100", value: f.q, autocomplete: "off",
                               placeholder: "a name, a goal, an effect…", data: { testid: "gallery-q" },
                               oninput: () => choose({ q: search.value.trim() }) });
  const custom = doc.skillsets.some((s) => s.custom);
  return el("form", { class: "panel gallery-filters", role: "search", "aria-label": "Filter the cards",
                      onsubmit: (e) => e.preventDefault() },
    el("div", { class: "filter-grid" },
      field("gallery-q", "Search", search),
      field("gallery-set", "Set", select("set", [["", "All sets"], ...doc.sets.map((s) => [s, s])])),
      field("gallery-keyword", "Keyword", select("keyword", [["", "Every keyword"], ...doc.keywords.map((k) => [k, k])])),
      custom ? field("gallery-decks", "Decks", select("decks", [["", "All decks"], ["builtin", "Built-in decks"],
                                                                ["custom", "Custom decks"]])) : null));
}

/** The filters changed: the page's address says them (replaced, not added: typing is not a page of history). */
function choose(changes) {
  store.galleryFiltered(changes);
  history.replaceState(null, "", addressOf(gallery().filters));
}

function skillsetSection(s) {
  const id = "gallery-h-" + s.key;
  return el("section", { class: "gallery-skillset col-" + s.color, "aria-labelledby": id,
                         data: { testid: "gallery-skillset", skillset: s.key, custom: s.custom ? "1" : "0" } },
    el("h2", { id, class: "gallery-head" }, icon(s.cards[0] ? s.cards[0].keyword : "other"),
      el("span", { class: "gallery-name", text: s.name }),
      el("span", { class: "gallery-meta", text: [s.set, s.keyword].filter(Boolean).join(" · ") }),
      s.custom ? el("span", { class: "tag custom-tag", data: { testid: "custom-tag" }, text: "custom deck" }) : null),
    s.custom ? el("p", { class: "note", text: "A deck of this server's own, from its deck folder: not one of the built-in decks." }) : null,
    el("ul", { class: "cards gallery-cards", "aria-label": "The " + s.name + " cards" },
      ...s.cards.map((c) => el("li", { data: { card: c.id } }, cardNode(c.id, null, { size: "full" })))));
}

/** Show the cards the filters keep (and the skillsets that keep one), and say how many. */
function applyFilters() {
  const { doc, filters } = gallery();
  const form = document.querySelector(".gallery-filters");
  if (!doc || !form) return;
  for (const name of ["set", "keyword", "decks"]) {  // (the controls say the filters: a link's, or after "Show every card")
    const control = form.querySelector("#gallery-" + name);
    if (control && control.value !== filters[name]) control.value = filters[name];
  }
  const search = form.querySelector("#gallery-q");
  if (search.value.trim() !== filters.q) search.value = filters.q;
  let shownCount = 0;
  let total = 0;
  for (const s of doc.skillsets) {
    const section = document.querySelector(`[data-testid=gallery-skillset][data-skillset="${s.key}"]`);
    let any = false;
    for (const c of s.cards) {
      const keep = shown(s, c, filters);
      section.querySelector(`li[data-card="${c.id}"]`).hidden = !keep;
      any = any || keep;
      shownCount += keep ? 1 : 0;
      total += 1;
    }
    section.hidden = !any;
  }
  const filtered = FILTERS.some((k) => filters[k]);
  document.querySelector("#gallery-count").textContent = filtered ? shownCount + " of " + total + " cards" : total + " cards";
  document.querySelector("[data-testid=gallery-none]").hidden = shownCount > 0;
}
