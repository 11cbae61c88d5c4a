// Reporting the other player to the server's hosts: the status line's button (for a seat, when the other seat
// is a person), and the dialog that asks why (the reasons are the server's: REPORT_REASONS) with a note.

import { el, toast } from "./dom.js";
import { ERROR, REPORT_REASONS } from "./protocol.js";
import { playerName } from "./selectors.js";
import { getState } from "./store.js";
import { api } from "./transport.js";

/** The dialog, made once per page and reused (its content is written when it opens). */
function dialog() {
  let d = document.querySelector("#report-dialog");
  if (d) return d;
  d = el("dialog", { id: "report-dialog", class: "confirm", "aria-labelledby": "report-title", data: { testid: "report-dialog" } });
  document.body.append(d);
  return d;
}

async function send(d, form) {
  const s = getState().match;
  const reason = form.querySelector("input[name=reason]:checked");
  if (!reason) { toast("Say why you report them."); return; }
  const note = form.querySelector("textarea").value.trim();
  try {
    const done = await api("POST", "/api/matches/" + s.id + "/report", { reason: reason.value, note: note || null }, s.token);
    d.close();
    toast(done.new ? "Thank you: the hosts of this server will look at it." : "You reported this already: the hosts have it.");
  } catch (e) {
    toast(e.code === ERROR.NO_PLAYER ? "Choose a name (or play anonymously) on the home page first, then report." : e.message);
  }
}

function ask() {
  const other = playerName(1 - getState().match.seat);
  const d = dialog();
  const reasons = Object.entries(REPORT_REASONS).map(([code, text]) =>
    el("label", { class: "report-reason" },
      el("input", { type: "radio", name: "reason", value: code, required: true, data: { testid: "report-" + code } }),
      " " + text[0].toUpperCase() + text.slice(1)));
  const note = el("textarea", { id: "report-note", maxlength: "500", rows: "3", data: { testid: "report-note" },
                                placeholder: "What happened (optional)" });
  const cancel = el("button", { type: "button", class: "choice", data: { testid: "report-cancel" }, onclick: () => d.close() }, "Cancel");
  const form = el("form", { method: "dialog" },
    el("h2", { id: "report-title", text: "Report " + other + "?" }),
    el("p", { text: "The hosts of this server read reports and may rename or ban a player. " + other + " is not told who reported them." }),
    el("fieldset", {}, el("legend", { text: "Why?" }), ...reasons),
    el("label", { for: "report-note", text: "Note for the hosts" }), note,
    el("div", { class: "choices" }, cancel,
      el("button", { type: "submit", class: "quiet danger", data: { testid: "report-send" } }, "Send the report")));
  form.addEventListener("submit", (ev) => { ev.preventDefault(); send(d, form); });
  d.replaceChildren(form);
  d.showModal();
  cancel.focus();
}

/** The button, for a seat whose opponent is a person (bots are not reported). */
export function reportButton() {
  const s = getState().match;
  const other = s.meta && s.meta.seats[1 - s.seat];
  if (!other || other.kind !== "human") return null;
  return el("button", { type: "button", class: "quiet report-button", data: { testid: "report" }, onclick: ask }, "Report");
}
