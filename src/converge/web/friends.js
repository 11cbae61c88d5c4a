// Friends and challenges: the home page's "Friends" panel (the players I follow, online first, with a link
// to watch what they play) and "Challenges" panel (challenges to me with Accept and Decline, mine with
// Cancel, a form to challenge a player). Both read the server again every few seconds while they are on the
// page; a challenge of mine accepted meanwhile offers its match. /challenges shows the same panels.

import { appRoot, cap, el, ratingText, toast } from "./dom.js";
import { clockSelect, perMove, playsetPicker, timeControl } from "./forms.js";
import { api } from "./transport.js";

const REFRESH_MS = 4000;

/** Go to a challenge's match, holding this player's seat (a key for this device). */
async function play(matchId) {
  try {
    const key = await api("POST", "/api/matches/" + matchId + "/seat");
    location.assign("/m/" + matchId + "#token=" + key.token);
  } catch (e) { toast(e.message); }
}

/** Read again every few seconds, while `node` is on the page. */
function keepFresh(node, draw) {
  const tick = async () => {
    if (!node.isConnected) return;
    await draw();
    setTimeout(tick, REFRESH_MS);
  };
  setTimeout(tick, REFRESH_MS);
}

/** A challenge's match in words: "Catalysts of Change · 5 minutes each · rated". */
function settingsText(c) {
  const time = c.move_hours ? perMove(c.move_hours) : c.clock ? Math.round(c.clock / 60) + " minutes each" : "no clock";
  return c.playset.map(cap).join(", ") + " · " + time + " · " + (c.rated ? "rated" : "unrated");
}

/** "expires in 9 min", "expires in 23 h". */
function expiresText(c) {
  const s = Math.max(0, c.expires_at - Date.now() / 1000);
  return "expires in " + (s >= 3600 ? Math.round(s / 3600) + " h" : Math.max(1, Math.round(s / 60)) + " min");
}

/** The Friends panel: follow a player by name; each friend, online first, a link to their profile and to
 *  watch their match. `challenge(name)`: fills the challenge form with a friend's name. */
export function friendsPanel(challenge) {
  const list = el("ul", { class: "lobby-list friends", "aria-live": "polite", data: { testid: "friends-list" } },
    el("li", { class: "muted", text: "Loading…" }));
  const name = el("input", { id: "follow-name", placeholder: "a player's name", maxlength: "64", data: { testid: "follow-name" } });
  const unfollow = async (who) => {
    try { await api("DELETE", "/api/me/follows/" + encodeURIComponent(who)); } catch (e) { toast(e.message); }
    await draw();
  };
  const row = (f) => el("li", { class: "friend", data: { testid: "friend", name: f.name, online: f.online } },
    el("span", { class: "dot" + (f.online ? " online" : ""), title: f.online ? "online" : "offline",
                 "aria-label": f.online ? "online" : "offline" }),
    el("a", { href: f.profile, class: "friend-name" }, f.name), el("span", { class: "note", text: ratingText(f) }),
    ...f.playing.slice(0, 1).map((m) => el("a", { href: m.url, data: { testid: "watch-friend" } }, "watch")),
    el("span", { class: "friend-actions" },
      el("button", { type: "button", class: "quiet", data: { testid: "challenge-friend" }, onclick: () => challenge(f.name) }, "Challenge"),
      el("button", { type: "button", class: "quiet", "aria-label": "Unfollow " + f.name, onclick: () => unfollow(f.name) }, "Unfollow")));
  async function draw() {
    let doc;
    try { doc = await api("GET", "/api/me/follows"); } catch (e) { list.replaceChildren(el("li", { class: "muted", text: e.message })); return; }
    if (!doc.friends.length) list.replaceChildren(el("li", { class: "muted", text: "You follow nobody yet: follow a player by their name." }));
    else list.replaceChildren(...doc.friends.map(row));
  }
  const follow = el("button", { type: "button", data: { testid: "follow" }, onclick: async () => {
    if (!name.value.trim()) return;
    try {
      await api("POST", "/api/me/follows", { name: name.value.trim() });
      name.value = "";
    } catch (e) { toast(e.message); }
    await draw();
  } }, "Follow");
  const node = el("section", { class: "panel", "aria-labelledby": "h-friends", data: { testid: "friends-panel" } },
    el("h2", { id: "h-friends", text: "Friends" }),
    el("p", { text: "The players you follow. A green dot: online now (here, or playing lately)." }),
    list,
    el("div", { class: "row" }, el("label", { for: "follow-name", class: "sr-only", text: "Player to follow" }), name, follow));
  draw();
  keepFresh(node, draw);
  return node;
}

/** The Challenges panel: to me (Accept, Decline), mine (Cancel), mine accepted (Play), and the form. */
export function challengesPanel(options) {
  const incoming = el("ul", { class: "lobby-list", "aria-live": "polite", data: { testid: "incoming-challenges" } });
  const outgoing = el("ul", { class: "lobby-list", "aria-live": "polite", data: { testid: "outgoing-challenges" } });
  const name = el("input", { id: "challenge-name", placeholder: "a player's name", maxlength: "64", data: { testid: "challenge-name" } });
  const pick = playsetPicker(options, "challenge");
  const clock = clockSelect("challenge-clock", [3, 5, 10, 20], [1, 3, 7]);
  const rated = el("input", { type: "checkbox", id: "challenge-rated", data: { testid: "challenge-rated" } });
  const onlyFriends = el("input", { type: "checkbox", id: "friends-only", data: { testid: "friends-only" }, onchange: async () => {
    try { await api("PUT", "/api/me/challenges", { friends_only: onlyFriends.checked }); } catch (e) { toast(e.message); onlyFriends.checked = !onlyFriends.checked; }
  } });
  const shown = new URLSearchParams(location.hash.slice(1)).get("id");  // (a mail's link: its challenge first)
  const act = async (id, what) => {
    try {
      const doc = await api("POST", "/api/challenges/" + id + "/" + what);
      if (what === "accept") { await play(doc.match_id); return; }
    } catch (e) { toast(e.message); }
    await draw();
  };
  const button = (text, testid, onclick, cls) => el("button", { type: "button", class: cls, data: { testid }, onclick }, text);
  const incomingRow = (c) => el("li", { class: "challenge" + (c.id === shown ? " shown" : ""), data: { testid: "incoming-challenge", id: c.id } },
    el("span", {}, el("strong", { text: c.challenger }), " challenges you"),
    el("span", { class: "note", text: settingsText(c) + " · " + expiresText(c) }),
    el("span", { class: "row" }, button("Accept", "accept-challenge", () => act(c.id, "accept"), "primary"),
      button("Decline", "decline-challenge", () => act(c.id, "decline"), "quiet")));
  const outgoingRow = (c) => el("li", { class: "challenge", data: { testid: "outgoing-challenge", id: c.id } },
    el("span", {}, "You challenged ", el("strong", { text: c.challenged })),
    el("span", { class: "note", text: settingsText(c) + " · " + expiresText(c) }),
    el("span", { class: "row" }, button("Cancel", "cancel-challenge", () => act(c.id, "cancel"), "quiet")));
  const answeredRow = (c) => el("li", { class: "challenge", data: { testid: "answered-challenge", id: c.id } },
    c.status === "accepted"
      ? el("span", { class: "row" }, "Your challenge to ", el("strong", { text: c.challenged }), " was accepted: ",
        button("Play", "play-challenge", () => play(c.match_id), "primary"))
      : el("span", { class: "note", text: "Your challenge to " + c.challenged + " was " + c.status + "." }));
  let seenAnswered = null;  // (answers given before the page opened are not news: only the accepted ones show)
  async function draw() {
    let doc;
    try { doc = await api("GET", "/api/challenges"); } catch (e) { incoming.replaceChildren(el("li", { class: "muted", text: e.message })); return; }
    if (seenAnswered === null) {  // (the first look)
      onlyFriends.checked = doc.friends_only;
      seenAnswered = new Set(doc.answered.filter((c) => c.status !== "accepted").map((c) => c.id));
    }
    const news = doc.answered.filter((c) => !seenAnswered.has(c.id) && (c.status !== "accepted" || c.match_id));
    incoming.replaceChildren(...(doc.incoming.length ? doc.incoming.map(incomingRow)
      : [el("li", { class: "muted", text: "No challenge to you right now." })]));
    outgoing.replaceChildren(...news.slice(0, 3).map(answeredRow), ...doc.outgoing.map(outgoingRow));
  }
  const send = el("button", { type: "button", class: "primary", data: { testid: "send-challenge" }, onclick: async () => {
    if (!name.value.trim()) { toast("Whom do you challenge? Type their name."); return; }
    send.disabled = true;
    try {
      await api("POST", "/api/challenges", { name: name.value.trim(), playset: pick.value(), ...timeControl(clock), rated: rated.checked });
      name.value = "";
    } catch (e) { toast(e.message); }
    send.disabled = false;
    await draw();
  } }, "Send the challenge");
  const form = el("details", { class: "open-table", data: { testid: "challenge-form" } },
    el("summary", { data: { testid: "challenge-form-open" }, text: "Challenge a player" }),
    el("div", { class: "field" }, el("label", { for: "challenge-name", text: "Player" }), name),
    pick.node,
    el("div", { class: "field" }, el("label", { for: "challenge-clock", text: "Clock" }), clock),
    el("div", { class: "check" }, rated, el("label", { for: "challenge-rated", text: "Rated" })),
    send);
  const node = el("section", { class: "panel", "aria-labelledby": "h-challenges", data: { testid: "challenges-panel" } },
    el("h2", { id: "h-challenges", text: "Challenges" }),
    incoming, outgoing, form,
    el("div", { class: "check" }, onlyFriends, el("label", { for: "friends-only", text: "Take challenges only from the players I follow" })));
  draw();
  keepFresh(node, draw);
  /** Open the form with a player's name in it (the friends list's Challenge button). */
  node.challenge = (who) => { name.value = who; form.open = true; name.focus(); };
  return node;
}

/** Both panels for a named player, or a word to choose a name first. */
export function peoplePanels(options, me) {
  if (!me.player || !me.player.name) {
    return [el("section", { class: "panel", data: { testid: "friends-panel" } }, el("h2", { text: "Friends and challenges" }),
      el("p", { text: "Choose a name to follow players and challenge them to a match." }))];
  }
  const challenges = challengesPanel(options);
  return [challenges, friendsPanel((who) => challenges.challenge(who))];
}

/** /challenges (a challenge mail's link): the same panels on a page of their own. */
export async function showChallenges() {
  document.title = "Challenges — Converge";
  let options, me;
  try {
    [options, me] = await Promise.all([api("GET", "/api/options"), api("GET", "/api/me")]);
  } catch (e) {
    appRoot().replaceChildren(el("p", { text: "The server cannot be reached: " + e.message }));
    return;
  }
  const panels = peoplePanels(options, me);
  appRoot().replaceChildren(el("div", { class: "home", data: { testid: "challenges-page" } },
    el("p", { class: "page-nav" }, el("a", { href: "/" }, "Play"), " · ", el("a", { href: "/tournaments" }, "Tournaments")),
    ...panels));
  const who = new URLSearchParams(location.hash.slice(1)).get("name");  // (from a profile's "Challenge" link)
  if (who && panels[0].challenge) panels[0].challenge(who);
}
