// The rules in a dialog (rendered on the server: /api/rules), with the glossary's keyword icons drawn here.

import { $, el, icon, toast } from "./dom.js";
import { api } from "./transport.js";

let rulesLoaded = false;

async function openRules() {
  const dialog = $("#rules");
  if (!rulesLoaded) {
    try {
      const doc = await api("GET", "/api/rules");
      const parsed = new DOMParser().parseFromString(doc.html, "text/html");
      const body = $("#rules-body");
      body.replaceChildren(...Array.from(parsed.body.childNodes).map((n) => document.importNode(n, true)));
      for (const span of body.querySelectorAll(".kw-icon[data-keyword]")) span.replaceChildren(icon(span.dataset.keyword));
      body.append(el("p", { class: "page-nav" }, "For developers: ",
        el("a", { href: "/rules/developer", target: "_blank", rel: "noopener" }, "the developer rulebook"),
        " (every ruling with its code and test)."));
      rulesLoaded = true;
    } catch (e) {
      toast("The rules could not be loaded: " + e.message);
    }
  }
  if (!dialog.open) dialog.showModal();
}

/** The header's Rules button and the dialog's Close. */
export function installRules() {
  $("#rules-open").addEventListener("click", openRules);
  $("#rules-close").addEventListener("click", () => $("#rules").close());
}
