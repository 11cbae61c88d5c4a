// Signing in on other devices by an emailed link (no password): the home page's account box — ask for a link,
// or, signed in, sign out here, sign out everywhere, delete the account; and, for any player, download their
// data — the page the link opens
// (/signin#token=...), which spends the link's token and signs this browser in to the player who asked for it
// (asking first when this browser's own player would be left behind), and a key to the player's seat in a
// match they play from another device.

import { appRoot, cap, el, toast } from "./dom.js";
import { ERROR } from "./protocol.js";
import { forgetToken, saveToken } from "./storage.js";
import { api } from "./transport.js";

/** A key to this browser's player's seat in match `id`, kept like a seat token in place of any this browser
 *  kept, or null: they play none (a player signed in on several devices plays their matches on each). */
export async function seatKey(id) {
  try {
    const doc = await api("POST", "/api/matches/" + id + "/seat");
    forgetToken(id);
    saveToken(id, doc.token);
    return doc.token;
  } catch (_) { return null; }  // (not a player, or not of this match — signed out, say: the page watches)
}

/** The file an archive is saved as: converge-export-<name>.json (as the server names it). */
export function archiveName(name, id) {
  const safe = String(name || "").replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "");
  return "converge-export-" + (safe || id) + ".json";
}

/** "Download my data": everything the server holds about this browser's player, saved as a JSON file. */
function myData() {
  const said = el("p", { class: "note", role: "status", data: { testid: "download-data-status" } });
  const button = el("button", { type: "button", class: "quiet", data: { testid: "download-data" }, onclick: async () => {
    button.disabled = true;
    said.textContent = "Gathering your data…";
    try {
      const doc = await api("GET", "/api/me/export");
      const name = archiveName((doc.tables.converge_players[0] || {}).name, doc.player_id);
      const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 1)], { type: "application/json" }));
      const link = el("a", { href: url, download: name, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      said.textContent = "Saved as " + name + ".";
    } catch (err) { said.textContent = cap(err.message) + "."; }
    button.disabled = false;
  } }, "Download my data");
  return el("details", { class: "rename", data: { testid: "my-data" } }, el("summary", { text: "My data" }),
    el("p", { text: "A copy of everything this server keeps about you, as one file (JSON): your account, names, " +
                    "matches and ratings, friends, chat, reports, puzzles and events. Other players' addresses and " +
                    "private choices are not in it, nor what a match in progress still hides." }),
    el("p", { class: "row" }, button), said);
}

/** The account part of the "You" panel; ``changed(me)`` redraws the panel after a change. */
export function accountBox(me, changed) {
  const box = el("div", { class: "account", data: { testid: "account" } });
  if (me.email) {
    const action = (path, method, said) => async (e) => {
      e.currentTarget.disabled = true;
      try {
        changed(await api(method, path));
        toast(said, "ok");
      } catch (err) { toast(cap(err.message) + "."); e.currentTarget.disabled = false; }
    };
    const confirm = el("button", { type: "button", class: "danger", data: { testid: "delete-account" },
      onclick: action("/api/me", "DELETE", "Your account is deleted.") }, "Delete my account");
    const mails = el("input", { type: "checkbox", id: "turn-mails", checked: !!me.turn_mails, data: { testid: "turn-mails" },
      onchange: async (e) => {
        const on = e.target.checked;
        try {
          await api("PUT", "/api/me/mails", { turn_mails: on });
          toast(on ? "You will be mailed when it is your turn in a turn-based match." : "No more turn mails.", "ok");
        } catch (err) { toast(cap(err.message) + "."); e.target.checked = !on; }
      } });
    box.append(
      el("p", { data: { testid: "signed-in" } }, "Signed in as ", el("strong", { text: me.email }),
        ": sign in with it on any device, and your name, rating and matches are there."),
      el("div", { class: "field inline" }, mails,
        el("label", { for: "turn-mails", text: "Mail me when it is my turn in a turn-based match (one mail a turn, at most)" })),
      el("p", { class: "row" },
        el("button", { type: "button", class: "quiet", data: { testid: "sign-out" },
          onclick: action("/api/auth/signout", "POST", "This browser is signed out.") }, "Sign out"),
        el("button", { type: "button", class: "quiet", data: { testid: "sign-out-everywhere" },
          onclick: action("/api/auth/signout-everywhere", "POST", "Every device is signed out.") }, "Sign out everywhere")),
      myData(),
      el("details", { class: "rename" }, el("summary", { text: "Delete my account" }),
        el("p", { text: "Your address, your name and the names you had go, and every device is signed out. Your " +
                        "finished matches stay in your opponents' lists, played by \"Anonymous\"." }), confirm));
    return box;
  }
  const input = el("input", { id: "sign-in-email", type: "email", maxlength: "254", autocomplete: "email",
                              placeholder: "you@example.org", "aria-describedby": "sign-in-status", data: { testid: "sign-in-email" } });
  const status = el("p", { id: "sign-in-status", class: "note", role: "status", data: { testid: "sign-in-status" } });
  const send = el("button", { type: "submit", data: { testid: "sign-in-send" } }, "Mail me a sign-in link");
  const form = el("form", { class: "row", onsubmit: async (e) => {
    e.preventDefault();
    send.disabled = true;
    try {
      const doc = await api("POST", "/api/auth/email", { email: input.value });
      status.textContent = "A link is on its way to " + input.value.trim() + ". Open it on the device to sign in: it works once, within " +
        doc.minutes + " minutes.";
    } catch (err) { status.textContent = cap(err.message) + "."; }
    send.disabled = false;
  } }, el("label", { for: "sign-in-email", class: "sr-only", text: "Your mail address" }), input, send);
  box.append(el("details", { class: "rename", data: { testid: "sign-in" } },
    el("summary", { text: me.player ? "Play on other devices too" : "Played here before? Sign in" }),
    el("p", { text: me.player ? "Give a mail address: the link we mail signs in any device to you, with your name, rating and matches." :
                                "The link we mail to your address signs this browser in to your name, rating and matches." }),
    form, status));
  if (me.player) box.append(myData());
  return box;
}

/** The page of the link at the end of a "your turn" mail: no more such mails, without signing in. */
export async function showUnsubscribe() {
  document.title = "No more turn mails — Converge";
  const args = new URLSearchParams(location.hash.slice(1));
  const said = el("p", { role: "status", data: { testid: "unsubscribe-result" }, text: "One moment…" });
  appRoot().replaceChildren(el("div", { class: "page-list", data: { testid: "unsubscribe-page" } },
    el("h1", { text: "Turn mails" }), said, el("p", {}, el("a", { href: "/" }, "Go to the home page"))));
  try {
    await api("POST", "/api/unsubscribe", { player: args.get("p") || "", token: args.get("t") || "" });
    said.textContent = "Done: you get no more mails when it is your turn. You can ask for them again on the home page.";
  } catch (err) {
    said.textContent = cap(err.message) + ".";
  }
}

/** The page a mailed link opens: spend its token (from the fragment, which browsers never send), then home.
 *  When this browser's own player has no address and would be left behind, it asks first: the token (kept in
 *  this page only) is spent once the player says so. */
export async function showSignIn() {
  document.title = "Sign in — Converge";
  const token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
  history.replaceState(null, "", "/signin");  // (the token is not kept in the address bar or history)
  const said = el("p", { role: "status", data: { testid: "sign-in-result" }, text: "Signing in…" });
  const choice = el("p", { class: "row", hidden: true });
  appRoot().replaceChildren(el("div", { class: "page-list", data: { testid: "sign-in-page" } },
    el("h1", { text: "Sign in" }), said, choice,
    el("p", {}, el("a", { href: "/", data: { testid: "home-link" } }, "Go to the home page"))));
  const signIn = async (leave) => {
    choice.hidden = true;
    try {
      const me = await api("POST", "/api/auth/verify", leave ? { token, leave } : { token });
      said.textContent = "You are signed in" + (me.player && me.player.name ? " as " + me.player.name : "") + " on this device.";
    } catch (err) {
      said.textContent = cap(err.message) + ".";
      if (err.code !== ERROR.WOULD_LEAVE) return;
      said.textContent += " To keep both, give this browser's player a mail address first (Play on other devices too, on the home page).";
      choice.replaceChildren(
        el("button", { type: "button", class: "danger", data: { testid: "sign-in-anyway" }, onclick: () => signIn(true) },
          "Sign in here anyway"),
        el("a", { href: "/", class: "button-link", data: { testid: "sign-in-keep" } }, "Keep playing as before"));
      choice.hidden = false;
    }
  };
  await signIn(false);
}
