// The controls the home page's forms share: the playset picker and the clock.

import { el } from "./dom.js";

const SET_NAMES = { catalysts: "Catalysts of Change", engines: "Engines of Progress", sparks: "Sparks of Hope" };

/** A playset: random, one of the sets, or three skillsets chosen one by one. `value()`: what the API takes. */
export function playsetPicker(options, prefix) {
  const custom = el("div", { class: "row", hidden: true });
  const selects = [0, 1, 2].map((k) => {
    const s = el("select", { "aria-label": "skillset " + (k + 1), data: { testid: prefix + "-skillset-" + k } },
      ...options.skillsets.map((sk) => el("option", { value: sk.key, text: sk.name })));
    s.selectedIndex = k;
    return s;
  });
  custom.append(...selects);
  const choice = el("select", { id: prefix + "-playset", data: { testid: prefix + "-playset" },
                                onchange: () => { custom.hidden = choice.value !== "custom"; } },
    el("option", { value: "random", text: "A random playset" }),
    ...Object.entries(options.sets).map(([key, names]) => el("option", { value: key,
      text: (SET_NAMES[key] || key) + " (" + names.join(", ") + ")" })),
    el("option", { value: "custom", text: "Choose three skillsets…" }));
  const node = el("div", { class: "field" }, el("label", { for: prefix + "-playset", text: "Playset" }), choice, custom);
  const value = () => (choice.value === "custom" ? selects.map((s) => s.value) : choice.value);
  return { node, value };
}

/** A clock <select> (its id is its test id too): no clock, or the given minutes each; with ``days``, also a
 *  turn-based match of so many days a move ("move:<hours>"). */
export function clockSelect(id, minutes, days = []) {
  return el("select", { id, data: { testid: id } }, el("option", { value: "", text: "no clock" }),
    ...minutes.map((m) => el("option", { value: String(m * 60), text: m + " minutes each" })),
    ...days.map((d) => el("option", { value: "move:" + d * 24, text: perMove(d * 24) + " (play at your pace)" })));
}

/** A clock <select>'s choice as a new match's settings: {clock, move_hours}. */
export function timeControl(select) {
  const v = select.value;
  if (v.startsWith("move:")) return { clock: null, move_hours: Number(v.slice(5)) };
  return { clock: v ? Number(v) : null, move_hours: null };
}

/** A match's or a table's clock in words: "10 min each", "1 day a move", "no clock". */
export function clockText(t) {
  return t.move_hours ? perMove(t.move_hours) : t.clock_s ? Math.round(t.clock_s / 60) + " min each" : "no clock";
}

/** "1 day a move", "3 days a move", "12 hours a move". */
export function perMove(hours) {
  if (hours % 24 === 0) return hours / 24 + (hours === 24 ? " day" : " days") + " a move";
  return hours + (hours === 1 ? " hour" : " hours") + " a move";
}

/** A span of time for a turn-based deadline: "2 days 5 h", "5 h 10 min", "12 min", "under a minute". */
export function timeLeftText(ms) {
  const min = Math.floor(Math.max(0, ms) / 60000);
  if (min < 1) return "under a minute";
  const d = Math.floor(min / 1440), h = Math.floor((min % 1440) / 60), m = min % 60;
  if (d) return d + (d === 1 ? " day" : " days") + (h ? " " + h + " h" : "");
  return h ? h + " h" + (m ? " " + m + " min" : "") : m + " min";
}
