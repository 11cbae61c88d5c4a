// Small helpers every view shares: building elements, the skillset icons, the toast, the live region, words.
// No inline style or script anywhere (the page's Content-Security-Policy forbids them): handlers are attached
// with addEventListener, and looks come from style.css classes.

export const $ = (sel, root = document) => root.querySelector(sel);
/** The element the pages draw into. */
export const appRoot = () => $("#app");
export const STAR = "★";
const SVG = "http://www.w3.org/2000/svg";

export const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** Build an element: el("div", {class: "x", text: "hi", data: {action: 3}, onclick: fn}, child, ...). */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "data") for (const [k, v] of Object.entries(value)) { if (v !== undefined && v !== null) node.dataset[k] = String(v); }
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Icons: drawn here (no emoji font needed), one per effect keyword, plus the artifact and the guard.
const ICONS = {
  Convert: "M9 2h6v2h-1v4.6l5.6 9.2A2.1 2.1 0 0 1 17.8 21H6.2a2.1 2.1 0 0 1-1.8-3.2L10 8.6V4H9z",
  Assemble: "M10.3 2h3.4l.5 2.6 1.9.8 2.2-1.5 2.4 2.4-1.5 2.2.8 1.9 2.6.5v3.4l-2.6.5-.8 1.9 1.5 2.2-2.4 2.4-2.2-1.5-1.9.8-.5 2.6h-3.4l-.5-2.6-1.9-.8-2.2 1.5-2.4-2.4 1.5-2.2-.8-1.9L2 13.7v-3.4l2.6-.5.8-1.9-1.5-2.2 2.4-2.4 2.2 1.5 1.9-.8zM12 8.5a3.5 3.5 0 1 0 0 7a3.5 3.5 0 0 0 0-7z",
  Recall: "M1.5 5.5C4.5 4 8 4 11 6v14c-3-1.8-6.5-1.8-9.5-.5zM22.5 5.5C19.5 4 16 4 13 6v14c3-1.8 6.5-1.8 9.5-.5z",
  Guard: "M12 2l8 3v6c0 5.2-3.4 9.5-8 11-4.6-1.5-8-5.8-8-11V5z",
  Search: "M10 2a8 8 0 0 1 6.3 12.9l5.4 5.4-2 2-5.4-5.4A8 8 0 1 1 10 2zm0 3a5 5 0 1 0 0 10a5 5 0 0 0 0-10z",
  Trade: "M7 3l-5 5 5 5V9.5h9v-3H7zM17 11l5 5-5 5v-3.5H8v-3h9z",
  Expand: "M11 2h2v11.2l3.6-3.6L18 11l-6 6-6-6 1.4-1.4 3.6 3.6zM3 19h18v3H3z",
  Study: "M13.5 2.2A10 10 0 1 0 21.8 13.9 7.6 7.6 0 0 1 13.5 2.2z",  // (a crescent: the goal's star is not Study's)
  Heal: "M9 2h6v7h7v6h-7v7H9v-7H2V9h7z",
  artifact: "M7 3h10l5 6.5L12 22 2 9.5z",
  other: "M12 3a9 9 0 1 1 0 18a9 9 0 0 1 0-18z",
};

export function icon(name, cls) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", "icon " + (cls || ""));
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", ICONS[name] || ICONS.other);
  path.setAttribute("fill-rule", "evenodd");
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  return svg;
}

let toastTimer = null;
/** A message that fades after five seconds (role=alert: screen readers say it at once); `kind` "ok": a success,
 *  not a problem (its own colours). */
export function toast(message, kind) {
  const box = $("#toast");
  box.textContent = message;
  box.className = "toast" + (kind === "ok" ? " ok" : "");
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 5000);
}

/** Say something to screen readers (the polite live region). */
export function announce(text) {
  const box = $("#announce");
  if (!box || !text) return;
  box.textContent = "";
  setTimeout(() => { box.textContent = text; }, 30);
}

export const absolute = (path) => location.origin + path;
export const lower = (s) => String(s || "").toLowerCase();
export const cap = (s) => (s ? s.charAt(0).toUpperCase() + s.slice(1) : s);
/** A named player's profile page (the name as they chose it: the server finds it whatever its case). */
export const profileUrl = (name) => "/@/" + encodeURIComponent(name);
/** A rating as players read it: a ? marks one still uncertain. */
export const ratingText = (p) => p.rating + (p.provisional ? "?" : "");
