// Converge — the browser client: ES modules, no build step, no inline code (the page's CSP forbids it).
//
// Everything this page shows of a match comes from the server's messages: the observation of this browser's
// seat (or the spectator's view), the table's extras (end-of-turn summaries, the choices that may be held and
// taken back) and public metadata. The seat token comes from the URL fragment (#token=...), which browsers never
// send to a server, and is kept in this browser's storage. docs/web-client.md describes the modules.

import { showSignIn, showUnsubscribe } from "./account.js";
import { watchInput } from "./cards.js";
import { showChallenges } from "./friends.js";
import { showGallery } from "./gallery.js";
import { showHome } from "./home.js";
import { showHistory, showLeaderboard } from "./pages.js";
import { showProfile } from "./profile.js";
import { installRules } from "./rules.js";
import { showMatch, showPuzzle, showTutorial } from "./table.js";
import { showTournament, showTournaments } from "./tournaments.js";

/** The name in a profile's address (a malformed escape is kept as it is: nobody has that name). */
function profileName(part) {
  try { return decodeURIComponent(part); } catch (_) { return part; }
}

function start() {
  installRules();
  watchInput();
  const m = /^\/m\/([A-Za-z0-9_-]{1,32})\/?$/.exec(location.pathname);
  const t = /^\/t\/([A-Za-z0-9_-]{1,32})\/?$/.exec(location.pathname);
  const who = /^\/@\/([^/]{1,200})\/?$/.exec(location.pathname);
  const puzzle = /^\/puzzles(?:\/([A-Za-z0-9_-]{1,32}))?\/?$/.exec(location.pathname);
  if (m) showMatch(m[1]);
  else if (t) showTournament(t[1]);
  else if (who) showProfile(profileName(who[1]));
  else if (puzzle) showPuzzle(puzzle[1] || null);
  else if (location.pathname === "/cards") showGallery();
  else if (location.pathname === "/tournaments") showTournaments();
  else if (location.pathname === "/challenges") showChallenges();
  else if (location.pathname === "/tutorial") showTutorial();
  else if (location.pathname === "/leaderboard") showLeaderboard();
  else if (location.pathname === "/history") showHistory();
  else if (location.pathname === "/signin") showSignIn();
  else if (location.pathname === "/unsubscribe") showUnsubscribe();
  else showHome();
}

start();
