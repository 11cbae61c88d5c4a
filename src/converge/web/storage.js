// What this browser remembers: seat tokens, invite links, settings. Storage may be disabled (private modes,
// policies): then every write is a no-op and every read finds nothing, and the page still works.

// Seat tokens: per tab first (so that two tabs of one browser can hold both seats), then per browser.
const tokenKey = (id) => "converge.token." + id;

export function saveToken(id, token) {
  try {
    sessionStorage.setItem(tokenKey(id), token);
    if (!localStorage.getItem(tokenKey(id))) localStorage.setItem(tokenKey(id), token);
    localStorage.setItem("converge.at." + id, String(Date.now()));
  } catch (_) { /* storage disabled: the token lives in this page only */ }
}

/** The matches this browser holds a seat in and has not seen end, newest first: [{id, token}]. */
export function heldMatches() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith("converge.token.")) continue;
      const id = key.slice("converge.token.".length);
      if (localStorage.getItem("converge.over." + id)) continue;
      out.push({ id, token: localStorage.getItem(key), at: Number(localStorage.getItem("converge.at." + id) || 0) });
    }
  } catch (_) { return []; }
  return out.sort((a, b) => b.at - a.at);
}

/** A held match is over (or gone): it is no longer listed in progress (its token stays, for its rematch). */
export function markOver(id) { try { localStorage.setItem("converge.over." + id, "1"); } catch (_) { /* */ } }

export function loadToken(id) {
  try { return sessionStorage.getItem(tokenKey(id)) || localStorage.getItem(tokenKey(id)); } catch (_) { return null; }
}

export function forgetToken(id) {
  try { sessionStorage.removeItem(tokenKey(id)); localStorage.removeItem(tokenKey(id)); } catch (_) { /* */ }
}

export function saveInvite(id, url) { try { localStorage.setItem("converge.invite." + id, url); } catch (_) { /* */ } }
export function loadInvite(id) { try { return localStorage.getItem("converge.invite." + id); } catch (_) { return null; } }

export function setting(name, fallback) {
  try { const v = localStorage.getItem("converge." + name); return v === null ? fallback : v; } catch (_) { return fallback; }
}
export function saveSetting(name, value) { try { localStorage.setItem("converge." + name, String(value)); } catch (_) { /* */ } }

/** How long each of the other player's moves stays on screen before the next, in ms (the "pace" setting). */
export const PACES = { slow: 1600, normal: 900, fast: 350, instant: 0 };
export const pace = () => (PACES[setting("pace", "normal")] ?? 900);
export const soundOn = () => setting("sound", "off") === "on";
/** The browser's notification of "your turn" while the page is in the background: asked for, and allowed. */
export const notifyOn = () => setting("notify", "off") === "on" && "Notification" in window && Notification.permission === "granted";
