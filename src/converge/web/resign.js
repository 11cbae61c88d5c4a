// Resigning: the status line's button, and the dialog that asks first (what resigning means: the other player
// wins; in a rated match it is a loss and both ratings move). The server ends the match as a time loss does.

import { el } from "./dom.js";
import { resign } from "./match.js";
import { playerName } from "./selectors.js";
import { getState } from "./store.js";

/** The dialog, made once per page and reused (its text is written when it opens). */
function dialog() {
  let d = document.querySelector("#resign-dialog");
  if (d) return d;
  d = el("dialog", { id: "resign-dialog", class: "confirm", "aria-labelledby": "resign-title", data: { testid: "resign-dialog" } });
  document.body.append(d);
  return d;
}

function ask() {
  const s = getState().match;
  const other = playerName(1 - s.seat);
  const d = dialog();
  const keep = el("button", { type: "button", class: "choice", data: { testid: "resign-cancel" }, onclick: () => d.close() }, "Keep playing");
  d.replaceChildren(
    el("h2", { id: "resign-title", text: "Resign this match?" }),
    el("p", { text: other + " wins the match at once." + (s.meta.rated ?
      " It is a rated match: it counts as a loss, and both ratings change." : "") }),
    el("div", { class: "choices" },
      keep,
      el("button", { type: "button", class: "quiet danger", data: { testid: "resign-confirm" },
        onclick: () => { d.close(); resign(); } }, "Resign")));
  d.showModal();
  keep.focus();
}

export function resignButton() {
  return el("button", { type: "button", class: "quiet resign-button", data: { testid: "resign" }, onclick: ask }, "Resign");
}
