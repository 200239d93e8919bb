// The game log: every event that matters, in words and icons. The server writes the entries (so a
// reload shows them again); this module only draws them, beside the table or in a phone drawer.

import { showReveal } from "./cheat.js";
import { $, el, morph, seatColour } from "./ui.js";
import { cardName } from "./uno.js";

// Plain symbols every font has (no emoji, which may render as a box); the words carry the meaning.
const ICONS = {
  play: "▶", draw: "+", skip: "⊘", reverse: "⇄", pass: "→", uno: "!", catch: "!", challenge: "?",
  accept: "✓", swap: "⇆", rotate: "↻", deal: "◆", win: "★", timeout: "…", leave: "←",
  place: "▼", reveal: "◉", pickup: "▲", line: "─", box: "■",
};

const local = { unread: 0, open: false, back: null };

/** A new room snapshot: remember where the history stood, to mark "while you were away". */
export function resetLog(entries, resumed) {
  local.back = resumed && entries.length ? entries[entries.length - 1].n : null;
  local.unread = 0;
}

/** Entries arrived with a game message: count them as unread while the phone drawer is closed. */
export function noteEntries(entries) {
  if (!local.open) local.unread += entries.length;
}

function part(p, ctx) {
  if (typeof p === "string") return p;
  if (p.seat !== undefined) {
    return el("strong", { class: "log-seat", style: `--seat:${seatColour(p.seat)}` }, p.seat === ctx.seat ? "You" : ctx.name(p.seat));
  }
  if (p.card) return el("span", { class: `log-card ${p.card.color}` }, cardName(p.card));
  if (p.color) return el("span", { class: `log-colour ${p.color}` }, p.color);
  if (p.rank) return el("strong", {}, p.rank);
  return "";
}

function item(entry, ctx) {
  return el(
    "li",
    { class: `log-entry ${entry.kind}`, dataset: { id: `log-${entry.n}`, kind: entry.kind } },
    el("span", { class: "log-icon", "aria-hidden": "true" }, ICONS[entry.icon] ?? "•"),
    el("span", { class: "log-text" }, entry.text.map((p) => part(p, ctx))),
    entry.reveal ? el("button", { class: "small", onclick: () => showReveal(entry, ctx), "aria-label": "Show the revealed cards" }, "Show cards") : null,
  );
}

/** Draw the log of `room` (the current or last game) into the side panel. */
export function renderLog(room, ctx) {
  const shown = room.play ?? room.results?.play;
  const entries = room.play ? room.log ?? [] : room.results?.log ?? [];
  const list = $("#game-log");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  const items = [];
  for (const entry of entries) {
    items.push(item(entry, ctx));
    if (entry.n === local.back) items.push(el("li", { class: "log-back", dataset: { id: "back" } }, "— while you were away —"));
  }
  morph(list, items.length ? items : el("li", { class: "muted", dataset: { id: "empty" } }, "Moves will show here."));
  if (atBottom) list.scrollTop = list.scrollHeight;
  $("#log-panel").hidden = !shown;
  const toggle = $("#log-toggle");
  toggle.hidden = !shown;
  morph(toggle, "Log", local.unread && !local.open ? el("span", { class: "unread", "aria-label": `${local.unread} new` }, String(local.unread)) : null);
  toggle.setAttribute("aria-expanded", String(local.open));
}

/** The phone drawer: open or close it (on wide screens the log is always beside the table). */
export function toggleLog() {
  local.open = !local.open;
  local.unread = 0;
  $("#log-panel").classList.toggle("open", local.open);
  const list = $("#game-log");
  list.scrollTop = list.scrollHeight;
}
