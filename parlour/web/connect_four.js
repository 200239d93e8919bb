// Connect Four table: one button per column (click, tap, or Tab + Enter), discs marked with the
// owner's initials as well as their colour, the winning four outlined.

import { el, initials, seatColour } from "./ui.js";

const STYLE = `
.c4-table { display: grid; gap: 0.75rem; justify-items: center; }
.c4-status { margin: 0; font-weight: 600; text-align: center; }
.c4-board { display: grid; grid-template-columns: repeat(var(--cols), 1fr); gap: 0.3rem; width: min(100%, 34rem, calc(70vh * var(--cols) / var(--rows)));
  background: #1b4f9c; padding: 0.45rem; border-radius: 12px; border: 1px solid var(--line, #345); }
.c4-col { display: grid; grid-template-rows: repeat(var(--rows), 1fr); gap: 0.3rem; padding: 0.15rem; border: 2px solid transparent; border-radius: 10px;
  background: transparent; color: inherit; font: inherit; cursor: default; min-width: 0; }
.c4-col:disabled { opacity: 1; cursor: default; } /* not your turn: the discs keep their colours */
.c4-col.playable { cursor: pointer; }
.c4-col.playable:hover { border-color: #ffe27a; background: rgba(255, 255, 255, 0.08); }
.c4-col:focus-visible { outline: 3px solid #fff; outline-offset: 1px; box-shadow: 0 0 0 6px #10161c; }
.c4-cell { aspect-ratio: 1; border-radius: 50%; background: #0c1620; display: grid; place-items: center; font-size: clamp(0.55rem, 2.6vw, 0.95rem); font-weight: 700; color: #10161c; }
.c4-cell.last { box-shadow: 0 0 0 3px #ffe27a; }
.c4-cell.win { box-shadow: 0 0 0 4px #fff, 0 0 0 7px #10161c; }
.c4-legend { display: flex; flex-wrap: wrap; gap: 0.75rem; justify-content: center; }
.c4-legend span { display: inline-flex; align-items: center; gap: 0.35rem; }
.c4-legend i { width: 1.1rem; height: 1.1rem; border-radius: 50%; display: inline-block; }
`;

let sheet = null;

/** The table's styles, as a constructed style sheet: the page's Content-Security-Policy blocks a
 * `<style>` element written by script, never a sheet built through CSSOM. */
function ensureStyle() {
  if (sheet) return;
  sheet = new CSSStyleSheet();
  sheet.replaceSync(STYLE);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

// The column last dropped in: focus goes back to it when the turn comes back (a keyboard player had to
// Tab through the columns again from the first after every move).
const local = { column: null };

export function reset() {
  local.column = null;
}

/** The game log's icon for each kind of entry (gamelog.js). */
export const LOG_ICONS = { drop: "▼", timeout: "…", game_over: "★" };

export function onEvent(event, names) {
  if (event.type === "drop") return { text: `${names(event.seat)} dropped in column ${event.column + 1}`, sound: "play", quiet: true };
  if (event.type === "timeout") return { text: `${names(event.seat)} ran out of time`, kind: "bad", outOfTime: true };
  if (event.type === "game_over" && event.reason === "opponent_left") return { text: `${names(1 - event.winners[0])} left` };
  return null;
}

function status(view, ctx) {
  if (view.over) {
    if (view.tie) return "The board is full: a tie.";
    const winner = view.winners[0];
    return winner === ctx.seat ? "Four in a row — you win!" : `${ctx.name(winner)} wins.`;
  }
  if (view.turn === ctx.seat && !ctx.readOnly) return "Your turn: pick a column.";
  return `${ctx.name(view.turn)} to play.`;
}

export function render(stage, view, ctx) {
  ensureStyle();
  const { width, height, cells } = view;
  const myTurn = !view.over && view.turn === ctx.seat && !ctx.readOnly; // not in a replay
  const winning = new Set(view.line.map(([c, r]) => `${c},${r}`));
  const last = view.last ? `${view.last[0]},${view.last[1]}` : null;
  const columns = [];
  const again = refocusColumn(view, myTurn);
  for (let c = 0; c < width; c += 1) {
    const full = cells[0][c] !== null;
    const playable = myTurn && !full;
    const discs = [];
    const stack = []; // the column's discs, bottom first, for its accessible name
    for (let i = height - 1; i >= 0 && cells[i][c] !== null; i -= 1) stack.push(cells[i][c] === ctx.seat ? "you" : ctx.name(cells[i][c]));
    for (let i = 0; i < height; i += 1) {
      const seat = cells[i][c];
      const row = height - 1 - i;
      const here = `${c},${row}`;
      discs.push(
        el(
          "span",
          {
            class: `c4-cell ${seat === null ? "" : "disc"} ${here === last ? "last" : ""} ${winning.has(here) ? "win" : ""}`,
            style: seat === null ? "" : `background: ${seatColour(ctx.colour(seat))}`,
            dataset: { seat: seat ?? "" },
          },
          seat === null ? "" : initials(ctx.name(seat)),
        ),
      );
    }
    columns.push(
      el(
        "button",
        {
          type: "button",
          class: `c4-col ${playable ? "playable" : ""}`,
          disabled: !playable,
          // Focus comes back here when it was lost with the last move (app.js keepFocus).
          dataset: c === again ? { column: c, refocus: "" } : { column: c },
          "aria-label": `Column ${c + 1}: ${stack.length ? `${stack.join(", ")} from the bottom` : "empty"}${full ? ", full" : `, ${height - stack.length} free`}`,
          onclick: () => {
            if (!playable) return;
            local.column = c;
            ctx.act({ type: "drop", column: c });
          },
        },
        discs,
      ),
    );
  }
  const seats = [0, 1].map((s) => el("span", {}, el("i", { style: `background: ${seatColour(ctx.colour(s))}` }), ctx.name(s), s === ctx.seat ? " (you)" : "", ctx.presence(s)));
  stage.append(
    el(
      "div",
      { class: "c4-table" },
      el("p", { class: "c4-status", role: "status" }, status(view, ctx)),
      el("div", { class: "c4-board", style: `--cols: ${width}; --rows: ${height}`, "data-testid": "c4-board" }, columns),
      el("div", { class: "c4-legend" }, seats),
    ),
  );
}

/** The playable column nearest the one last dropped in, on this player's turn (or none). */
function refocusColumn(view, myTurn) {
  if (!myTurn || local.column === null) return null;
  const free = [...Array(view.width).keys()].filter((c) => view.cells[0][c] === null);
  return free.sort((a, b) => Math.abs(a - local.column) - Math.abs(b - local.column))[0] ?? null;
}
