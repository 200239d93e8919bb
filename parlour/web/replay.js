// The replay page (/g/<id>): a finished game, move by move, drawn by the game's own table module
// in read-only mode. Steps come from GET /api/games/<id>/replay in chunks (never every view at once);
// the chunk shrinks when views are big (a 50×50 Dots board), and the chunks ahead are fetched while
// one watches. Keys: ←/→ one move, Home/End first/last, space play/pause.

import "./theme.js";
import { GAMES, TABLES, loadCatalog, title } from "./catalog.js";
import { renderLog, toggleLog } from "./gamelog.js";
import { profileHeaders } from "./identity.js";
import { gone, resultText, when } from "./stats.js";
import { $, el, fill, morph } from "./ui.js";

await loadCatalog();

const MAX_CHUNK = 50; // the server's bound
const CHUNK_BYTES = 250_000; // aim for replies about this big
const KEEP = 400; // steps kept in memory around the current one

const gameId = location.pathname.match(/^\/g\/([A-Za-z0-9]+)\/?$/)?.[1] ?? "";

const R = {
  info: null, // the first reply: game, players, result, total, log
  total: 0,
  n: 0, // the step on screen (or being fetched)
  shown: null, // the step drawn last
  seat: null, // a seat number or "spectator"; null until the server picked the default
  all: false, // every hand
  steps: new Map(), // n → step, for the current viewer
  pending: new Map(), // first step → its fetch
  generation: 0, // bumps when the viewer changes: replies for an old viewer are dropped
  chunk: MAX_CHUNK,
  playing: false,
  timer: null,
  logFrom: 0, // the slice of the game's log the list shows
  logTo: 0,
  shownEntry: null, // the log's last line up to the move shown (null at the deal)
};

// --- Fetching ---------------------------------------------------------------------

async function fetchFrom(first) {
  if (R.pending.has(first)) return R.pending.get(first);
  const params = new URLSearchParams({ step: String(first), count: String(R.chunk) });
  const viewer = R.all ? "all" : R.seat;
  if (viewer !== null) params.set("seat", String(viewer));
  if (R.info === null) params.set("log", "1");
  const generation = R.generation;
  const request = (async () => {
    const reply = await fetch(`/api/games/${encodeURIComponent(gameId)}/replay?${params}`, {
      headers: profileHeaders(), // a private game's players prove who they are
    });
    const text = await reply.text();
    const body = JSON.parse(text);
    if (!reply.ok) throw Object.assign(new Error(body.message ?? "the replay could not be loaded"), { status: reply.status });
    if (generation !== R.generation) return body;
    for (const step of body.steps) R.steps.set(step.n, step);
    const perStep = text.length / Math.max(1, body.steps.length);
    R.chunk = Math.max(5, Math.min(MAX_CHUNK, Math.floor(CHUNK_BYTES / perStep)));
    return body;
  })();
  R.pending.set(first, request);
  request.finally(() => R.pending.delete(first)).catch(() => {});
  return request;
}

/** The chunk after `n`, fetched while step `n` is watched, so autoplay never waits. */
function prefetch(n) {
  const ahead = Math.min(R.total - 1, n + Math.ceil(R.chunk / 2));
  for (let k = n + 1; k <= ahead; k++) {
    if (!R.steps.has(k)) {
      fetchFrom(k).catch(() => {});
      return;
    }
  }
}

function forget(n) {
  if (R.steps.size <= KEEP) return;
  for (const k of R.steps.keys()) if (Math.abs(k - n) > KEEP / 2) R.steps.delete(k);
}

// --- Showing a step -----------------------------------------------------------------

const names = (seat) => R.info.players.find((p) => p.seat === seat)?.name ?? `Seat ${seat + 1}`;
const viewedSeat = () => (typeof R.seat === "number" ? R.seat : null);

function context() {
  return {
    // A game with nothing hidden shows one view to all: its "you" is the viewer's own seat, if they
    // played (a stranger's replay of Connect Four said "Ada (you)" and "you win!", the default view
    // being seat 0's).
    seat: R.info.secret_fields?.length ? viewedSeat() : (R.info.you ?? null),
    // "You" is the viewer's own seat, if they played: a visitor viewing Bo's hand read "Played by you".
    you: R.info.you ?? null,
    name: names,
    colour: (seat) => R.info.players.find((p) => p.seat === seat)?.colour ?? seat,
    readOnly: true, // the tables show the viewed seat's hand and offer no move
    act: () => {}, // nothing is sent
    presence: () => null,
    absent: () => false,
    rerender: () => R.shown && draw(R.shown, true),
  };
}

async function go(n) {
  n = Math.max(0, Math.min(R.total - 1, n));
  R.n = n;
  showPosition(n);
  let step = R.steps.get(n);
  if (!step) {
    try {
      await fetchFrom(n);
    } catch (err) {
      showError(err);
      return;
    }
    if (R.n !== n) return; // the viewer moved on while this was loading
    step = R.steps.get(n);
    if (!step) return;
  }
  draw(step, false);
  prefetch(n);
  forget(n);
}

function draw(step, again) {
  const table = TABLES[R.info.game];
  const ctx = context();
  if (!again) {
    // One move on: the table animates it as it would live. Anything else: start clean.
    if (R.shown === null || step.n !== R.shown.n + 1) table.reset();
    for (const event of step.events) table.onEvent(event, names, ctx.seat);
  }
  const seat = ctx.seat;
  const view = R.all && seat !== null ? { ...step.view, ...(step.hands?.[seat] ?? {}) } : step.view;
  const host = el("div", { class: "table-host replay-table", inert: true });
  table.render(host, view, ctx);
  morph($("#stage"), host);
  $("#stage").dataset.step = step.n; // which move is drawn (the slider moves before it is fetched)
  R.shown = step;
  fill($("#caption"), caption(step));
  drawHands(step);
  markLog(step.n);
}

/** Step 0's name: a card game's deal; a board game (nothing hidden, nothing dealt) just starts. */
const startWord = () => (R.info.secret_fields?.length ? "Deal" : "Start");

function caption(step) {
  const lines = step.log.map((e) => e.text);
  if (step.kind === "deal") return [`The ${startWord().toLowerCase()}`, ...lines].join(" — ");
  if (lines.length) return lines.join(" · ");
  const who = step.actor === null ? "Somebody" : names(step.actor);
  return { timeout: `${who} ran out of time`, leave: `${who} left`, action: `${who} moved` }[step.kind] ?? step.kind;
}

function drawHands(step) {
  const box = $("#hands");
  if (!R.all || !step.hands) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const field = R.info.secret_fields?.[0];
  const card = TABLES[R.info.game].card;
  morph(
    box,
    el("h2", {}, "Every hand"),
    el(
      "ul",
      { class: "hand-list" },
      R.info.players.map((p) => {
        const items = step.hands[String(p.seat)]?.[field] ?? [];
        return el(
          "li",
          { class: `hand-row ${p.seat === viewedSeat() ? "me" : ""}`, dataset: { id: `hand-${p.seat}`, testid: "hand-row" } },
          el("span", { class: "hand-name" }, `${p.name} (${items.length})`),
          el("span", { class: "hand-cards" }, items.map((item) => (card ? card(item) : el("code", {}, JSON.stringify(item))))),
        );
      }),
    ),
  );
}

function showPosition(n) {
  $("#slider").value = String(n);
  fill($("#position"), n === 0 ? `${startWord()} · ${R.total - 1} moves` : `Move ${n} of ${R.total - 1}`);
  $("#first").disabled = $("#prev").disabled = n === 0;
  $("#last").disabled = $("#next").disabled = n === R.total - 1;
}

function showError(err) {
  const box = $("#replay-error");
  box.hidden = false;
  box.textContent =
    err.status === 404 ? "This game is not available: it is unknown, still being played, or from a private room you did not play in." : `The replay could not be loaded: ${err.message}`;
}

// --- The game log: a window of it around the current move ------------------------------
// A 50×50 game writes ~7,000 lines; the list holds at most LOG_WINDOW of them, drawn again only when
// the replay moves near the window's edge, so a step changes the classes of a few lines.

const LOG_WINDOW = 240;
const LOG_MARGIN = 40;

function drawLog() {
  R.logFrom = R.logTo = 0;
  $("#game-log").addEventListener("click", (e) => {
    const item = e.target.closest("li[data-id^='log-']");
    if (!item) return;
    const entry = R.info.log[Number(item.dataset.id.slice(4))];
    if (entry) {
      pause();
      go(entry.step);
      if ($("#log-panel").classList.contains("open")) toggleLog(); // a phone's drawer: the board, at that move
    }
  });
}

/** The number of log entries written up to step `n` (entries are in step order). */
function entriesUpTo(n) {
  const log = R.info.log;
  let lo = 0;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (log[mid].step <= n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Entries up to step `n` are history, the step's own are current, later ones are still to come. */
function markLog(n) {
  const log = R.info.log;
  const count = entriesUpTo(n);
  const nearEdge = (count < R.logFrom + LOG_MARGIN && R.logFrom > 0) || (count > R.logTo - LOG_MARGIN && R.logTo < log.length);
  if (R.logTo === 0 || nearEdge) {
    R.logFrom = Math.max(0, Math.min(count - LOG_WINDOW / 2, log.length - LOG_WINDOW));
    R.logTo = Math.min(log.length, R.logFrom + LOG_WINDOW);
    // In the viewer's own words ("You played …") only for the seat they played, whichever seat is shown.
    renderLog({ play: {}, log: log.slice(R.logFrom, R.logTo) }, { ...context(), seat: R.info.you ?? null }, TABLES[R.info.game]);
  }
  const list = $("#game-log");
  R.shownEntry = null;
  [...list.children].forEach((item, i) => {
    const entry = log[R.logFrom + i];
    if (!entry) return;
    item.classList.toggle("future", entry.step > n);
    item.classList.toggle("current", entry.step === n);
    if (entry.step <= n) R.shownEntry = item;
  });
  scrollToShown();
}

/** Bring the log's line for the move shown to the middle of the list (the deal: its top). Never its
 * end: a replay's last lines say who won. */
function scrollToShown() {
  const list = $("#game-log");
  if (!list.clientHeight) return; // a phone's closed drawer: done when it opens
  const target = R.shownEntry;
  list.scrollTop = target ? target.offsetTop - list.offsetTop - list.clientHeight / 2 : 0;
}

// --- Controls ---------------------------------------------------------------------

function play() {
  if (R.n >= R.total - 1) go(0);
  R.playing = true;
  $("#play").textContent = "❚❚ Pause";
  $("#play").setAttribute("aria-pressed", "true");
  R.timer = setTimeout(tick, Number($("#speed").value));
}

function pause() {
  R.playing = false;
  clearTimeout(R.timer);
  $("#play").textContent = "▶ Play";
  $("#play").setAttribute("aria-pressed", "false");
}

async function tick() {
  if (!R.playing) return;
  if (R.n >= R.total - 1) {
    pause();
    return;
  }
  await go(R.n + 1);
  if (R.playing) R.timer = setTimeout(tick, Number($("#speed").value));
}

const step = (delta) => {
  pause();
  go(R.n + delta);
};

function changeViewer() {
  R.generation++;
  R.steps = new Map();
  R.pending = new Map();
  R.shown = null;
  go(R.n);
}

function wireControls() {
  $("#first").onclick = () => step(-R.total);
  $("#prev").onclick = () => step(-1);
  $("#next").onclick = () => step(1);
  $("#last").onclick = () => step(R.total);
  $("#play").onclick = () => (R.playing ? pause() : play());
  $("#slider").addEventListener("input", (e) => {
    pause();
    go(Number(e.target.value));
  });
  $("#seat").addEventListener("change", (e) => {
    R.seat = e.target.value === "spectator" ? "spectator" : Number(e.target.value);
    changeViewer();
  });
  $("#all-hands").addEventListener("change", (e) => {
    R.all = e.target.checked;
    changeViewer();
  });
  $("#log-toggle").onclick = () => {
    toggleLog(); // which shows a live table's newest lines
    scrollToShown();
  };
  document.addEventListener("keydown", (e) => {
    const target = e.target;
    if (e.altKey || e.ctrlKey || e.metaKey || target.closest?.("select, textarea, dialog")) return;
    // A focused control keeps its own keys: the slider its arrows, Home and End; a button or a
    // checkbox its space and Enter. Everything else steps the replay.
    if (target.matches?.("input") && !["range", "checkbox"].includes(target.type)) return;
    if (target.type === "range" && e.key !== " ") return;
    if ((target.closest?.("button") || target.type === "checkbox") && (e.key === " " || e.key === "Enter")) return;
    const keys = { ArrowRight: () => step(1), ArrowLeft: () => step(-1), Home: () => step(-R.total), End: () => step(R.total), " ": () => (R.playing ? pause() : play()) };
    const action = keys[e.key];
    if (!action) return;
    e.preventDefault();
    action();
  });
}

/** The players, the result and the date, worded as the player's profile words them. */
function describeResult(info) {
  const ended = info.ended_at ? ` · ${when(info.ended_at)}` : "";
  const players = info.players.map((p) => (gone(p) ? `${p.name} (${gone(p)})` : p.name)).join(", ");
  return `${players} · ${resultText(info, GAMES[info.game])}${ended}`;
}

async function start() {
  let first;
  try {
    first = await fetchFrom(0);
  } catch (err) {
    // Nothing to replay: no controls, no empty board, and a way on.
    showError(err);
    $(".room-body").hidden = true;
    fill($("#replay-title"), err.status === 404 ? "Game not found" : "Replay");
    $("#replay-error").append(" ", el("a", { href: "/" }, "Back to the lobby"));
    document.body.dataset.ready = "1";
    return;
  }
  R.info = first;
  R.total = first.total;
  R.seat = first.seat;
  document.title = `Replay: ${title(first.game)} — Parlour`;
  fill($("#replay-title"), `Replay: ${title(first.game)}`);
  fill($("#replay-result"), describeResult(first));
  $("#slider").max = String(R.total - 1);
  fill(
    $("#seat"),
    first.players.map((p) => el("option", { value: String(p.seat), selected: p.seat === R.seat }, `${p.name}${p.seat === first.you ? " (you)" : ""}`)),
    el("option", { value: "spectator", selected: R.seat === "spectator" }, "Spectator"),
  );
  // A game with nothing hidden looks the same from every seat: no "View of", no "All hands".
  $("#seat").closest("label").hidden = !first.secret_fields?.length;
  $("#all-hands-label").hidden = !first.secret_fields?.length;
  $("#log-toggle").hidden = false;
  drawLog();
  wireControls();
  await go(0);
  document.body.dataset.ready = "1"; // lets tests see the page is drawn
}

start();
