// The wire: the HTTP API and the two WebSockets (a match's, the lobby's), with their reconnection. Nothing here
// knows what the messages mean; the controllers (match.js, lobby.js) do.

import { MATCH_TO_SERVER } from "./protocol.js";

/** A refusal of the HTTP API: `code` is one of protocol.js's ERROR, `status` the HTTP status. */
export class ApiError extends Error {
  constructor(code, message, status) { super(message); this.code = code; this.status = status; }
}

/** One HTTP call to the API: the answer's JSON, or an ApiError with the server's code and message. */
export async function api(method, path, body, token) {
  const headers = { "Accept": "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["Authorization"] = "Bearer " + token;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body),
                                  cache: "no-store", credentials: "same-origin" });
  let doc = null;
  try { doc = await res.json(); } catch (_) { doc = null; }
  if (!res.ok) {
    const err = (doc && doc.error) || { code: "http", message: "the server answered " + res.status };
    throw new ApiError(err.code, err.message, res.status);
  }
  return doc;
}

/** The delay before the n-th reconnection in a row (from 0): 0.3 s, doubling, at most 5 s. */
const retryDelay = (n) => Math.min(5000, 300 * 2 ** n);

/**
 * A WebSocket to this server that says hello when it opens and opens again after a drop, waiting longer each
 * time, until the owner says not to. `hello()`: the first message; `message(msg)`: each parsed message;
 * `closed(event)`: told of each close, returns false when this close must not be followed by another try.
 */
export class Socket {
  constructor(path, { hello, message, closed }) {
    this.path = path;
    this.handlers = { hello, message, closed };
    this.ws = null;
    this.retries = 0;
    this.stopped = false;
  }

  open() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(proto + "//" + location.host + this.path);
    this.ws = ws;
    ws.addEventListener("open", () => ws.send(JSON.stringify(this.handlers.hello())));
    ws.addEventListener("message", (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (_) { return; }
      this.handlers.message(msg);
    });
    ws.addEventListener("close", (ev) => {
      if (this.ws !== ws) return;  // a socket this one replaced
      if (this.handlers.closed(ev) === false || this.stopped) return;
      setTimeout(() => this.open(), retryDelay(this.retries));
      this.retries += 1;
    });
  }

  /** The server welcomed this connection: the next drop starts the delays afresh. */
  welcomed() { this.retries = 0; }

  /** When this connection closes, do not open another (this page moves on, or another window plays). */
  stayClosed() { this.stopped = true; }

  /** Close this connection and open a new one at once (who the page is changed: a name was chosen). */
  reopen() {
    const old = this.ws;
    this.ws = null;
    if (old) old.close();
    this.stopped = false;
    this.open();
  }

  /** Send a message when the socket is open; false when it is not (the caller says so). */
  send(doc) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(doc));
      return true;
    }
    return false;
  }
}

/** A match's socket, as a seat (with its token) or a spectator (without). The page asks for no separate
 *  acknowledgements ("acks": false): the state after its action acknowledges it (see sendActions). */
export function matchSocket(matchId, token, handlers) {
  const hello = () => (token() ? { type: MATCH_TO_SERVER.HELLO, token: token(), acks: false } : { type: MATCH_TO_SERVER.HELLO });
  return new Socket("/ws/" + matchId, { ...handlers, hello });
}

/** Send actions one after the other, numbered from `seq` (the number of actions seen): a held choice and the
 *  one that completes it are `seq` and `seq + 1`. Each comes back acknowledged by one state message. Returns
 *  how many were sent (fewer than asked when the socket closed). */
export function sendActions(socket, actions, seq) {
  let sent = 0;
  for (const action of actions) {
    if (!socket.send({ type: MATCH_TO_SERVER.ACTION, action, seq: seq + sent })) break;
    sent += 1;
  }
  return sent;
}
