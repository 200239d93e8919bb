// One websocket to /api/ws: JSON messages, request ids echoed in replies,
// automatic reconnection with backoff. Protocol meaning lives in app.js.

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
    this.connect();
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // In a room (an invite link, or a reconnect) the page is /r/CODE: naming the room lets a server
    // of several workers serve this socket where the room lives (docs/scaling.md, "Workers").
    const room = location.pathname.match(/^\/r\/([A-Za-z0-9]+)\/?$/);
    const ws = new WebSocket(`${scheme}://${location.host}/api/ws${room ? `?room=${room[1]}` : ""}`);
    this.ws = ws;
    this.onStatus("connecting");
    ws.addEventListener("open", async () => {
      this.retry = 0;
      this.onStatus("online");
      await this.onOpen();
      for (const resolve of this.reopened.splice(0)) resolve();
    });
    ws.addEventListener("message", (event) => this.receive(event.data));
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      for (const { reject } of this.pending.values()) reject({ code: "disconnected", message: "Connection lost" });
      this.pending.clear();
      this.onStatus(this.stopped ? "stopped" : "offline");
      if (this.stopped) return;
      const delay = this.reopened.length ? 0 : Math.min(500 * 2 ** this.retry++, 8000);
      setTimeout(() => this.connect(), delay);
    });
  }

  /** Drop this connection and open a fresh one; resolves once `onOpen` has finished on it. */
  reopen() {
    return new Promise((resolve) => {
      this.reopened.push(resolve);
      this.ws.close();
    });
  }

  /** Close for good (e.g. the session moved to another tab). */
  stop() {
    this.stopped = true;
    this.ws.close();
  }

  receive(data) {
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
      return Promise.reject({ code: "disconnected", message: "Not connected — retrying…" });
    }
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ type, id, ...fields }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }
}
