// One websocket to /api/ws: JSON messages, request ids echoed in replies,
// automatic reconnection with backoff. Protocol meaning lives in app.js.

// A connection that dropped without a close (a phone out of signal, a sleeping laptop's Wi-Fi) looks open
// for minutes: after QUIET_MS with nothing heard the page pings, and a ping unanswered for PONG_MS means
// the socket is dead, so the page says so and connects again.
const CHECK_MS = 2000;
const QUIET_MS = 8000;
const PONG_MS = 4000;
/** Stands in for a socket given up on until the next one opens: what the old one still says is ignored. */
const DEAD = { readyState: WebSocket.CLOSED, close() {}, send() {} };

export class Connection {
  constructor({ onMessage, onOpen, onStatus }) {
    this.onMessage = onMessage;
    this.onOpen = onOpen;
    this.onStatus = onStatus;
    this.nextId = 1;
    this.pending = new Map();
    this.retry = 0;
    this.reopened = [];
    this.stopped = false;
    this.heard = 0; // when the last message arrived (performance.now())
    this.pinged = 0; // when the unanswered ping went, else 0
    this.timer = null; // the pending reconnect
    this.connect();
    setInterval(() => this.check(), CHECK_MS);
    // The browser knows at once when the device goes offline; back online, there is no reason to wait.
    addEventListener("offline", () => this.lost(this.ws));
    addEventListener("online", () => {
      if (!this.stopped && this.ws.readyState >= WebSocket.CLOSING) this.connect();
    });
  }

  connect() {
    clearTimeout(this.timer);
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // In a room (an invite link, or a reconnect) the page is /r/CODE: naming the room lets a server
    // of several workers serve this socket where the room lives (docs/scaling.md, "Workers").
    const room = location.pathname.match(/^\/r\/([A-Za-z0-9]+)\/?$/);
    const ws = new WebSocket(`${scheme}://${location.host}/api/ws${room ? `?room=${room[1]}` : ""}`);
    this.ws = ws;
    this.onStatus("connecting");
    ws.addEventListener("open", async () => {
      this.retry = 0;
      this.heard = performance.now();
      this.pinged = 0;
      this.onStatus("online");
      await this.onOpen();
      for (const resolve of this.reopened.splice(0)) resolve();
    });
    ws.addEventListener("message", (event) => this.receive(event.data));
    ws.addEventListener("close", () => this.lost(ws));
  }

  /** `ws` is gone (closed, or found dead): fail what waits on it and connect again. */
  lost(ws) {
    if (this.ws !== ws || ws === DEAD) return;
    this.ws = DEAD;
    if (ws.readyState < WebSocket.CLOSING) ws.close();
    // Sent, perhaps applied, never answered: not the same as "nothing was sent" (request, below).
    for (const { reject } of this.pending.values()) reject({ code: "connection_lost", message: "Connection lost before the server answered." });
    this.pending.clear();
    this.onStatus(this.stopped ? "stopped" : "offline");
    if (this.stopped) return;
    const delay = this.reopened.length ? 0 : Math.min(500 * 2 ** this.retry++, 8000);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Ping a quiet connection; give up on one that leaves the ping unanswered. Timers of a hidden tab may
   * run late, so only a ping sent and unanswered for PONG_MS counts, never silence alone. */
  check() {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const now = performance.now();
    if (this.pinged) {
      if (now - this.pinged > PONG_MS) this.lost(this.ws);
    } else if (now - this.heard > QUIET_MS) {
      this.pinged = now;
      this.ws.send(JSON.stringify({ type: "ping" }));
    }
  }

  /** Drop this connection and open a fresh one; resolves once `onOpen` has finished on it. */
  reopen() {
    return new Promise((resolve) => {
      this.reopened.push(resolve);
      if (this.ws === DEAD) this.connect();
      else this.ws.close();
    });
  }

  /** Close for good (e.g. the session moved to another tab). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws === DEAD) this.onStatus("stopped");
    else this.ws.close();
  }

  receive(data) {
    this.heard = performance.now();
    this.pinged = 0;
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    const waiter = msg.id !== undefined && this.pending.get(msg.id);
    if (waiter) {
      this.pending.delete(msg.id);
      if (msg.type === "error") waiter.reject(msg);
      else waiter.resolve(msg);
    }
    this.onMessage(msg);
  }

  /** Send and wait for the reply carrying the same id; rejects with the error message. */
  request(type, fields = {}) {
    if (this.ws.readyState !== WebSocket.OPEN) {
      return Promise.reject({ code: "disconnected", message: "Not connected: nothing was sent. Reconnecting…" });
    }
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ type, id, ...fields }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }
}
