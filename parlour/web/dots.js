// Dots & Boxes board: an SVG that scales from 2×2 to 50×50 dots.
// Mouse: hover previews, click draws. Touch: first tap previews, second tap draws.
// Phones: a big board is drawn large enough to tap (and its frame pans); "Whole board" shows all of it,
// and a tap on it zooms back in around that spot.
// Keyboard: arrows move the cursor, Space turns it, Enter draws.

import { SIDEWAYS, el, fill, initials, seatColour, svg } from "./ui.js";

const GAP = 10; // user units between dots
const PAD = 4;

// `turn`: the lines and boxes of the last turn (a run of captures is one turn), marked in its player's colour.
const local = { cursor: { x: 0, y: 0, d: 0 }, armed: null, turn: { seat: null, lines: new Set(), boxes: new Set() }, whole: false };
let builds = 0;

export function reset() {
  local.cursor = { x: 0, y: 0, d: 0 };
  local.armed = null;
  local.turn = { seat: null, lines: new Set(), boxes: new Set() };
  local.whole = false;
}

export function onEvent(event, names) {
  if (event.type === "line") {
    if (event.seat !== local.turn.seat) local.turn = { seat: event.seat, lines: new Set(), boxes: new Set() };
    local.turn.lines.add(key(event));
  }
  if (event.type === "capture") local.turn.boxes.add(`${event.x},${event.y}`);
  if (event.type === "capture") return { text: `${names(event.seat)} took a box`, sound: "good", quiet: true };
  if (event.type === "timeout") return { text: `${names(event.seat)} ran out of time`, kind: "bad", outOfTime: true };
  return null;
}

/** The game log's icon for each kind of entry (gamelog.js). */
export const LOG_ICONS = { line: "─", capture: "■", timeout: "…", left: "←", game_over: "★" };

/** The board's line or box a log entry names, as a selector (gamelog.js marks it while pointed at). */
export function logPoint(entry) {
  const e = entry.event ?? {};
  if (entry.kind === "line") return `[data-drawn="${key(e)}"]`;
  if (entry.kind === "capture") return `[data-box="${e.x},${e.y}"]`;
  return null;
}

/** After a room snapshot (a reload, a spectator arriving mid-game): the last turn's marks, from the
 * events of the game log it carries. */
export function resume(events) {
  for (const event of events) onEvent(event, () => "");
}

const key = (l) => `${l.x},${l.y},${l.d}`;
const lineEnd = (x, y, d) => (d === 0 ? [x + 1, y] : [x, y + 1]);
const valid = ({ x, y, d }, w, h) => x >= 0 && y >= 0 && (d === 0 ? x < w - 1 && y < h : x < w && y < h - 1);

/** A seat that can move on this board: not a spectator's, nor a replay's (``ctx.readOnly``). */
const playing = (ctx) => ctx.seat !== null && !ctx.readOnly;

export function render(stage, view, ctx) {
  const { width: w, height: h } = view;
  const drawn = new Set(view.lines.map(([x, y, d]) => key({ x, y, d })));
  const myTurn = playing(ctx) && view.turn === ctx.seat && !view.over;
  // At tap size (48 px between dots) wider than its frame (a phone, a big board): it pans, and can be
  // shown whole. One up to a sixth too wide is drawn to fit instead (40 px between dots still takes a
  // thumb): 8 × 8 dots on a 390-px phone overflowed its frame by a few pixels, its last dots cut off
  // with nothing to say the board scrolls.
  // A phone on its side (styles.css, the same query) fits the board to the screen's height, so its
  // width is held to 68vh at that board's shape: a 12 × 12 board's lines came 22 px apart.
  const tapWidth = (48 / GAP) * ((w - 1) * GAP + 2 * PAD);
  const aspect = ((w - 1) * GAP + 2 * PAD) / ((h - 1) * GAP + 2 * PAD);
  const frame = (document.querySelector("#stage")?.clientWidth || window.innerWidth - 16) - 18; // less its padding and border
  const sideways = matchMedia(SIDEWAYS).matches;
  const zoomable = tapWidth * (5 / 6) > (sideways ? Math.min(frame, 0.68 * window.innerHeight * aspect) : frame);
  const whole = local.whole && zoomable;
  if (!valid(local.cursor, w, h)) local.cursor = { x: 0, y: 0, d: 0 };
  // The board element survives re-renders (ui.morph), and with it the keyboard focus and cursor.
  const cursor = document.activeElement?.classList?.contains("dots-board") ? key(local.cursor) : null;
  // A player's board holds every free line, covered while it is not their turn, so that a move
  // changes a few nodes instead of rebuilding thousands: the live board is brought up to date in place
  // and ui.morph leaves the children of a board with the same data-keep alone.
  const shape = `${w}x${h}:${view.players}:${playing(ctx) ? "play" : "watch"}`;
  const live = document.querySelector(`#stage .dots-board[data-keep="${shape}"]`);
  const marks = { drawn, turn: local.turn, armed: myTurn ? local.armed : null, cursor, wait: playing(ctx) && !myTurn };
  const kept = live !== null && update(live, view, marks, ctx);

  const board = svg("svg", {
    viewBox: `${-PAD} ${-PAD} ${(w - 1) * GAP + 2 * PAD} ${(h - 1) * GAP + 2 * PAD}`,
    class: `dots-board ${myTurn ? "mine" : ""}`,
    // As wide as the panel allows (and the screen's height); on a phone a big board keeps lines at
    // least 48 px apart (--min-board; a line's tap area is then 33.6 px square) and its frame scrolls, to pan.
    style: `--min-board: ${zoomable ? tapWidth : 0}px; --aspect: ${aspect}`,
    // A replay's board is a picture: its arrow keys step through the game.
    role: ctx.readOnly ? "img" : "application",
    tabindex: ctx.readOnly ? null : "0",
    "aria-label": `Dots and Boxes board, ${w} by ${h} dots.${myTurn ? " Your turn: arrows move, Space turns, Enter draws." : ctx.readOnly ? "" : view.over ? " The game is over." : " Waiting for the other player."}`,
    "data-testid": "dots-board",
    // A rebuilt board gets a key of its own, so morph patches its children in.
    "data-keep": kept ? shape : `${shape}:new:${++builds}`,
    // One listener for every line: a 50×50 board has 4,900 of them.
    onpointerup: (e) => {
      if (e.currentTarget.closest(".board-wrap.whole")) {
        zoomIn(e, ctx);
        return;
      }
      const line = e.target.closest("[data-line]");
      if (line && e.currentTarget.classList.contains("mine")) tap(e, line.dataset.line, ctx);
    },
    onkeydown: ctx.readOnly ? null : (e) => keyboard(e, e.currentTarget, view, drawn, ctx),
    onfocus: (e) => showCursor(e.currentTarget),
    onblur: () => showCursor(null),
  });
  if (!kept) build(board, view, marks, ctx);

  fill(
    stage,
    el(
      "div",
      { class: "dots-table" },
      scoreboard(view, ctx),
      zoomToggle(zoomable, ctx),
      el("div", { class: `board-wrap ${whole ? "whole" : ""}` }, board),
      // Where the keyboard cursor is, for screen readers (``keyboard``): a line has no focus of its own.
      el("p", { class: "visually-hidden", "aria-live": "polite", dataset: { testid: "dots-cursor" } }),
      el("p", { class: "muted hint", dataset: { testid: "dots-hint" } }, whole ? "Tap the board where you want to play to zoom in." : myTurn ? again(ctx) ?? yourTurnHint() : view.over ? "" : ctx.absent(view.turn) ? `Waiting for ${ctx.name(view.turn)} to come back…` : (tookAgain(view.turn, ctx) ?? `${ctx.name(view.turn)} is thinking…`)),
    ),
  );
  // Once morph has run (before the next paint): key the board in place so the next render can update
  // it. Had morph not paired the updated board with this one (the table around it changed), this
  // childless one is in its place: build it.
  queueMicrotask(() => {
    const placed = document.querySelector("#stage .dots-board");
    if (!placed) return;
    if (!placed.firstChild) build(placed, view, marks, ctx);
    placed.dataset.keep = shape;
    placed.shown = { lines: marks.drawn, boxes: new Set(view.captures.map(([x, y]) => `${x},${y}`)) };
  });
}

/** Your turn goes on because your last line closed a box: said, or it read as a plain "Your turn". */
function again(ctx) {
  const taken = boxesTaken(ctx.seat);
  return taken ? `You took ${taken}: draw another line.` : null;
}

/** Another player's extra turn, said as their own is ("is thinking…" told the others nothing of it). */
function tookAgain(seat, ctx) {
  const taken = boxesTaken(seat);
  return taken ? `${ctx.name(seat)} took ${taken} and goes again…` : null;
}

/** The boxes `seat` has taken in the turn still going on, in words ("a box", "3 boxes"), or null. */
function boxesTaken(seat) {
  const n = local.turn.seat === seat ? local.turn.boxes.size : 0;
  return n === 0 ? null : n === 1 ? "a box" : `${n} boxes`;
}

/** How to draw, for the pointer this screen has; the keys were told to screen readers only. */
const yourTurnHint = () =>
  matchMedia("(hover: none)").matches ? "Your turn — tap a line twice to draw it." : "Your turn — click a line. Keys: arrows move, Space turns, Enter draws.";

/** On a phone, a board bigger than the screen at tap size can be shown whole (styles.css hides this elsewhere). */
function zoomToggle(zoomable, ctx) {
  // Always there (hidden when the board fits), so the board keeps its place among its siblings and
  // ui.morph keeps the board element too.
  const hidden = !zoomable;
  const toggle = () => {
    local.whole = !local.whole;
    ctx.rerender();
  };
  return el("button", { class: "small zoom-toggle", hidden, "aria-pressed": String(local.whole), onclick: toggle }, local.whole ? "Zoom in" : "Whole board");
}

/** A tap on the whole board: back to tap size, the frame scrolled so the tapped spot is in its middle. */
function zoomIn(event, ctx) {
  const at = event.currentTarget.getBoundingClientRect();
  const fx = (event.clientX - at.left) / at.width;
  const fy = (event.clientY - at.top) / at.height;
  local.whole = false;
  ctx.rerender();
  const wrap = document.querySelector("#stage .board-wrap");
  const board = wrap?.querySelector(".dots-board")?.getBoundingClientRect();
  if (!board) return;
  wrap.scrollLeft = fx * board.width - wrap.clientWidth / 2;
  wrap.scrollTop = fy * board.height - wrap.clientHeight / 2;
}

/** Every child of a board: hatch patterns, captured boxes, lines (drawn, or free for a player), dots. */
function build(board, view, marks, ctx) {
  const { width: w, height: h } = view;
  board.append(patterns(view.players, ctx));
  for (const capture of view.captures) board.append(...box(capture, ctx, marks.turn));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      for (const d of [0, 1]) {
        if (!valid({ x, y, d }, w, h)) continue;
        const k = key({ x, y, d });
        if (marks.drawn.has(k)) board.append(drawnLine(k, marks.turn, ctx));
        else if (playing(ctx)) board.append(freeLine(k, marks));
      }
    }
  }
  const r = Math.max(0.6, Math.min(1.1, 8 / Math.max(w, h)));
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) board.append(svg("circle", { cx: x * GAP, cy: y * GAP, r, class: "dot" }));
  if (marks.wait) board.append(cover(w, h));
}

/** Over the whole board while a player waits for their turn: free lines neither preview nor take clicks. */
function cover(w, h) {
  return svg("rect", { x: -PAD, y: -PAD, width: (w - 1) * GAP + 2 * PAD, height: (h - 1) * GAP + 2 * PAD, class: "wait" });
}

/** Bring a live board up to date with `view`, in place: lines and boxes drawn since are added, and
 * those gone since (a replay stepping back) are taken away; false if the board has no record yet. */
function update(board, view, marks, ctx) {
  const shown = board.shown;
  if (!shown) return false;
  const boxes = new Set(view.captures.map(([x, y]) => `${x},${y}`));
  for (const k of shown.lines) {
    if (marks.drawn.has(k)) continue;
    const line = board.querySelector(`[data-drawn="${k}"]`);
    if (playing(ctx)) line?.replaceWith(freeLine(k, marks));
    else line?.remove();
  }
  for (const b of shown.boxes) {
    if (boxes.has(b)) continue;
    const colour = board.querySelector(`[data-box="${b}"]`); // then its hatch and its label
    colour?.nextSibling?.nextSibling?.remove();
    colour?.nextSibling?.remove();
    colour?.remove();
  }
  const firstDot = board.querySelector("circle");
  for (const k of marks.drawn) {
    if (shown.lines.has(k)) continue;
    const free = board.querySelector(`g[data-line="${k}"]`);
    if (free) free.replaceWith(drawnLine(k, marks.turn, ctx));
    else board.insertBefore(drawnLine(k, marks.turn, ctx), firstDot);
  }
  const firstLine = board.querySelector("line.drawn, g.free") ?? firstDot;
  for (const capture of view.captures) {
    if (!shown.boxes.has(`${capture[0]},${capture[1]}`)) for (const node of box(capture, ctx, marks.turn)) board.insertBefore(node, firstLine);
  }
  markTurn(board, marks.turn, ctx);
  for (const [name, k] of [["armed", marks.armed], ["cursor", marks.cursor]]) {
    for (const node of board.querySelectorAll(`.${name}`)) node.classList.remove(name);
    if (k !== null) board.querySelector(`[data-line="${k}"], [data-drawn="${k}"]`)?.classList.add(name);
  }
  const wait = board.querySelector(".wait");
  if (wait && !marks.wait) wait.remove();
  else if (!wait && marks.wait) board.append(cover(view.width, view.height));
  board.shown = { lines: marks.drawn, boxes };
  return true;
}

function drawnLine(k, turn, ctx) {
  const [x, y, d] = k.split(",").map(Number);
  const [x2, y2] = lineEnd(x, y, d);
  const last = turn.lines.has(k);
  return svg("line", { x1: x * GAP, y1: y * GAP, x2: x2 * GAP, y2: y2 * GAP, class: `drawn ${last ? "last" : ""}`, style: last ? `--seat:${seatColour(ctx.colour(turn.seat))}` : null, "data-drawn": k });
}

/** Mark every line and box of the last turn on a live board (and unmark the turn before). */
function markTurn(board, turn, ctx) {
  for (const node of board.querySelectorAll(".last")) {
    node.classList.remove("last");
    node.style.removeProperty("--seat");
  }
  const colour = turn.seat === null ? null : seatColour(ctx.colour(turn.seat));
  for (const k of turn.lines) board.querySelector(`[data-drawn="${k}"]`)?.classList.add("last");
  for (const b of turn.boxes) board.querySelector(`[data-box="${b}"]`)?.classList.add("last");
  for (const node of board.querySelectorAll(".last")) node.style.setProperty("--seat", colour);
}

/** A free line: a wide transparent hit area around a preview line that shows on hover / tap / cursor. */
function freeLine(k, marks) {
  const [x, y, d] = k.split(",").map(Number);
  const [x2, y2] = lineEnd(x, y, d);
  // 7 × 7 units: at a phone's 48 px between dots (--min-board) a tap target is 33.6 px square.
  const hit = d === 0 ? { x: x * GAP + 1.5, y: y * GAP - 3.5, width: GAP - 3, height: 7 } : { x: x * GAP - 3.5, y: y * GAP + 1.5, width: 7, height: GAP - 3 };
  return svg(
    "g",
    { class: `free ${k === marks.armed ? "armed" : ""} ${k === marks.cursor ? "cursor" : ""}`, "data-line": k },
    svg("rect", { ...hit, class: "hit" }),
    svg("line", { x1: x * GAP, y1: y * GAP, x2: x2 * GAP, y2: y2 * GAP, class: "preview" }),
  );
}

/** A captured box: its owner's colour, hatch and initials. */
function box([x, y, seat], ctx, turn) {
  const last = turn.boxes.has(`${x},${y}`);
  return [
    svg("rect", { x: x * GAP, y: y * GAP, width: GAP, height: GAP, fill: seatColour(ctx.colour(seat)), "fill-opacity": 0.55, "data-box": `${x},${y}`, class: last ? "box last" : "box", style: last ? `--seat:${seatColour(ctx.colour(turn.seat))}` : null }),
    svg("rect", { x: x * GAP, y: y * GAP, width: GAP, height: GAP, fill: `url(#pat-${seat})` }),
    svg("text", { x: x * GAP + GAP / 2, y: y * GAP + GAP / 2, class: "box-label", "text-anchor": "middle", "dominant-baseline": "central" }, initials(ctx.name(seat))),
  ];
}

/** Mark the keyboard cursor's line on `board` (or clear it when the board lost focus). */
function showCursor(board) {
  for (const node of document.querySelectorAll(".dots-board .cursor")) node.classList.remove("cursor");
  const k = key(local.cursor);
  board?.querySelector(`[data-line="${k}"], [data-drawn="${k}"]`)?.classList.add("cursor");
}

/** Say `words` in the table's polite live region (the cursor's line, a refused Enter). */
function say(words) {
  const status = document.querySelector('#stage [data-testid="dots-cursor"]');
  if (status) status.textContent = words;
}

const lineWords = ({ x, y, d }) => {
  const [x2, y2] = lineEnd(x, y, d);
  return `${d === 0 ? "Horizontal" : "Vertical"} line from (${x}, ${y}) to (${x2}, ${y2})`;
};

function tap(event, k, ctx) {
  if (event.pointerType === "touch" && local.armed !== k) {
    local.armed = k;
    ctx.rerender();
    return;
  }
  local.armed = null;
  const [x, y, d] = k.split(",").map(Number);
  ctx.act({ type: "line", x, y, d });
}

function keyboard(event, board, view, drawn, ctx) {
  const c = { ...local.cursor };
  const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  if (moves[event.key]) {
    c.x += moves[event.key][0];
    c.y += moves[event.key][1];
  } else if (event.key === " ") {
    c.d = 1 - c.d;
  } else if (event.key === "Enter") {
    if (drawn.has(key(c))) say(`${lineWords(c)} is already drawn.`);
    else if (!board.classList.contains("mine")) say("It's not your turn.");
    else ctx.act({ type: "line", ...c });
    event.preventDefault();
    return;
  } else {
    return;
  }
  event.preventDefault();
  if (valid(c, view.width, view.height)) {
    local.cursor = c;
    showCursor(board);
    say(`${lineWords(c)}, ${drawn.has(key(c)) ? "drawn" : "free"}`);
  }
}

function scoreboard(view, ctx) {
  return el(
    "ol",
    { class: "seats", "aria-label": "Scores" },
    view.scores.map((score, seat) =>
      el(
        "li",
        {
          class: `seat ${view.turn === seat ? "turn" : ""} ${view.active.includes(seat) ? "" : "gone"} ${seat === ctx.seat ? "me" : ""}`,
          style: `--seat:${seatColour(ctx.colour(seat))}`,
          "aria-current": view.turn === seat ? "true" : null,
        },
        el("span", { class: "swatch", "aria-hidden": "true" }, initials(ctx.name(seat))),
        el("span", { class: "seat-name" }, ctx.name(seat)),
        seat === ctx.seat ? el("span", { class: "badge you" }, "you") : null,
        ctx.presence(seat),
        el("span", { class: "count", "aria-label": `${score} boxes` }, String(score)),
        view.turn === seat ? el("span", { class: "badge turn" }, "to play") : null,
      ),
    ),
  );
}

/** One hatch pattern per seat, so boxes differ by texture as well as colour (each goes with its player's
 * colour, from game to game). */
function patterns(players, ctx) {
  const defs = svg("defs");
  const angles = [45, -45, 0, 90, 30, -30, 60, -60];
  for (let seat = 0; seat < players; seat++) {
    defs.append(
      svg(
        "pattern",
        { id: `pat-${seat}`, width: 2.5, height: 2.5, patternUnits: "userSpaceOnUse", patternTransform: `rotate(${angles[ctx.colour(seat) % angles.length]})` },
        svg("line", { x1: 0, y1: 0, x2: 0, y2: 2.5, class: "hatch" }),
      ),
    );
  }
  return defs;
}
