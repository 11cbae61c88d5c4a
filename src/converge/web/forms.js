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

/** A clock <select> (its id is its test id too): no clock, or the given minutes each. */
export function clockSelect(id, minutes) {
  return el("select", { id, data: { testid: id } }, el("option", { value: "", text: "no clock" }),
    ...minutes.map((m) => el("option", { value: String(m * 60), text: m + " minutes each" })));
}
