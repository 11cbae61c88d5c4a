// The home page: who I am, quick match and the open tables (lobby.js), then a match against a bot, with a friend
// (an invite link), or watched.

import { absolute, appRoot, el, toast } from "./dom.js";
import { clockSelect, playsetPicker, timeControl } from "./forms.js";
import { peoplePanels } from "./friends.js";
import { connectLobby, lobbyChat, lobbyPanel, playerPanel, quickPanel } from "./lobby.js";
import { dailyCard } from "./puzzles.js";
import { resumePanel } from "./resume.js";
import { saveInvite, saveToken } from "./storage.js";
import { playerKnown } from "./store.js";
import { api } from "./transport.js";

/** Create a match and go to it, holding its seat (the invite of a friend match is kept for the share panel). */
async function create(body, button) {
  button.disabled = true;
  try {
    const doc = await api("POST", "/api/matches", body);
    saveToken(doc.match_id, doc.token);
    if (doc.invite_url) saveInvite(doc.match_id, absolute(doc.invite_url));
    location.assign("/m/" + doc.match_id);
  } catch (e) {
    toast(e.message);
    button.disabled = false;
  }
}

/** A level as the bot list offers it: "Hard bot · rating 2495", "Expert bot · not rated yet". */
function botChoice(options, b) {
  const r = options.bot_ratings[b];
  return options.bot_names[b] + (r === null || r === undefined ? " · not rated yet" : " · rating " + r);
}

export async function showHome() {
  document.title = "Converge";
  let options, me, daily;
  try {
    [options, me, daily] = await Promise.all([api("GET", "/api/options"), api("GET", "/api/me"), dailyCard()]);
  } catch (e) {
    appRoot().replaceChildren(el("p", { text: "The server cannot be reached: " + e.message }));
    connectLobby();
    return;
  }
  playerKnown(me.player, me.tables);
  const botPick = playsetPicker(options, "bot");
  const level = el("select", { id: "bot-level", "aria-describedby": "bot-ratings", data: { testid: "bot-level" } },
    ...options.bots.map((b) => el("option", { value: b, text: botChoice(options, b), selected: b === options.default_bot })));
  const unrated = options.bots.filter((b) => options.bot_ratings[b] === null).map((b) => options.bot_names[b]);
  // Who starts round 1 is drawn at random whatever the seat: the seat only names the player in the record.
  const seat = el("select", { id: "bot-seat", "aria-describedby": "bot-seat-note", data: { testid: "bot-seat" } },
    el("option", { value: "0", text: "Player 1" }), el("option", { value: "1", text: "Player 2" }),
    el("option", { value: "random", text: "Either, drawn at random" }));
  const botButton = el("button", { class: "primary", type: "button", data: { testid: "create-bot" },
    onclick: () => create({ opponent: "bot", bot: level.value, playset: botPick.value(),
                            seat: seat.value === "random" ? "random" : Number(seat.value) }, botButton) },
    "Play against the bot");

  const friendPick = playsetPicker(options, "friend");
  const clock = clockSelect("friend-clock", [3, 5, 10, 20], [1, 3, 7]);
  const friendButton = el("button", { class: "primary", type: "button", data: { testid: "create-friend" },
    onclick: () => create({ opponent: "friend", playset: friendPick.value(), ...timeControl(clock) }, friendButton) },
    "Create a match and an invite link");

  const watchInput = el("input", { id: "watch-id", placeholder: "a match link or id", data: { testid: "watch-input" } });
  const watchButton = el("button", { type: "button", onclick: () => {
    const m = /([A-Za-z0-9_-]{6,32})\s*$/.exec(watchInput.value.replace(/#.*$/, ""));
    if (m) location.assign("/m/" + m[1]); else toast("That is not a match link.");
  } }, "Watch");

  appRoot().replaceChildren(el("div", { class: "home", data: { testid: "home" } },
    resumePanel(!!me.player),
    el("section", { class: "panel intro" },
      el("h1", { text: "Converge" }),
      el("p", { text: "Each turn the artifact holder plays a card, then the other player plays one: discard it " +
        "for its effect, declare it as a shared goal, or add it to a faction. Goals are scored at the end of " +
        "every turn; outscore the other player while you hold the artifact to win the round. First to two " +
        "rounds wins." }),
      el("p", { class: "row" },
        el("a", { class: "button-link primary", href: "/tutorial", data: { testid: "start-tutorial" } }, "New here? Play the tutorial"),
        el("a", { href: "/rules", data: { testid: "rules-page-link" } }, "Read the rules"),
        el("a", { href: "/cards", data: { testid: "home-cards" } }, "Every card"),
        el("a", { href: "/tournaments", data: { testid: "home-tournaments" } }, "Tournaments"))),
    playerPanel(me),
    daily,
    ...peoplePanels(options, me),
    quickPanel(),
    lobbyPanel(options),
    lobbyChat(),
    el("section", { class: "panel", "aria-labelledby": "h-bot" },
      el("h2", { id: "h-bot", text: "Play against a bot" }),
      el("p", { text: "Choose the bot's level and the playset. Hints are on, and the match is not rated." }),
      el("div", { class: "field" }, el("label", { for: "bot-level", text: "Bot" }), level),
      el("p", { id: "bot-ratings", class: "note", data: { testid: "bot-ratings" }, text: "A bot's rating is fixed, measured in " +
        "matches between bots on the same scale as yours." + (unrated.length ? " " + unrated.join(", ") +
        (unrated.length === 1 ? " has no rating yet: its strength has" : " have no rating yet: their strength has") +
        " not been measured." : "") }),
      botPick.node,
      el("div", { class: "field" }, el("label", { for: "bot-seat", text: "You are" }), seat),
      el("p", { id: "bot-seat-note", class: "note", data: { testid: "bot-seat-note" }, text: "Who holds the artifact first " +
        "is drawn at random either way; the seat only names you Player 1 or Player 2 in the match's record and replay." }),
      botButton),
    el("section", { class: "panel", "aria-labelledby": "h-friend" },
      el("h2", { id: "h-friend", text: "Play with a friend" }),
      el("p", { text: "You get a private invite link to send; whoever opens it takes the other seat. Hints are off unless you both allow them." }),
      friendPick.node,
      el("div", { class: "field" }, el("label", { for: "friend-clock", text: "Clock" }), clock),
      friendButton),
    el("section", { class: "panel", "aria-labelledby": "h-watch" },
      el("h2", { id: "h-watch", text: "Watch a match" }),
      el("p", { text: "Spectators see what both players see of the table, never a hand." }),
      el("div", { class: "row" }, el("label", { for: "watch-id", class: "sr-only", text: "Match link" }), watchInput, watchButton))));
  connectLobby();
}
