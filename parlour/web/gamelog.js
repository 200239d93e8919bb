// The game log: every event that matters, in words and icons. The server writes the entries (so a
// reload shows them again); this module only draws them, beside the table or in a phone drawer.

import { roomEnd } from "./catalog.js";
import { $, el, markOverflowY, morph, seatColour } from "./ui.js";

// `pinned`: the log shows its newest entry, as it does until the reader scrolls up (scroll events).
const local = { unread: 0, open: false, back: null, seen: null, pinned: true };

// The last entry this browser has drawn, in its localStorage so that a reload remembers it, and a tab
// closed and opened again (sessionStorage went with the tab):
// after a reconnection the entries past it are the ones that happened while the viewer was away.
const SEEN = "parlour.logSeen";

function remember(code, entry) {
  const seen = entry ? JSON.stringify({ code, n: entry.n, text: entry.text }) : null;
  if (seen === local.seen) return;
  local.seen = seen;
  try {
    if (seen) localStorage.setItem(SEEN, seen);
    else localStorage.removeItem(SEEN);
  } catch {
    // Storage is off: this page still remembers (local.seen), a reload will not.
  }
}

function recall() {
  try {
    return JSON.parse(local.seen ?? localStorage.getItem(SEEN) ?? "null");
  } catch {
    return null;
  }
}

// The seats an entry's event may name; the viewer's name is only rewritten when their seat is one.
const SEAT_KEYS = ["seat", "target", "caller", "placer", "picked_up_by", "winner", "offender", "dealer", "first"];
// A third-person verb after the viewer's name, in the second person.
const VERBS = { is: "are", was: "were", wins: "win", deals: "deal", picks: "pick", starts: "start" };

/**
 * The entry's line as the viewer at `seat` (named `name`) reads it: "You played …", "… on you",
 * "your Wild Draw Four". The server writes every line in the third person, because one log is
 * shared by every player and spectator.
 */
export function personal(entry, seat, name) {
  const event = entry.event ?? {};
  if (seat === null || !name || !(SEAT_KEYS.some((k) => event[k] === seat) || event.winners?.includes(seat))) return entry.text;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const mention = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}('s)?(?![\\p{L}\\p{N}])( (\\w+))?`, "gu");
  const text = entry.text.replace(mention, (_, possessive, gap, word, at) => {
    const you = possessive ? "your" : "you";
    const after = gap ? ` ${(!possessive && VERBS[word]) || word}` : "";
    // A sentence's first word: the text's, or one after "Cheat! " (a call's verdict).
    const first = at === 0 || /[.!?]\s+$/.test(entry.text.slice(0, at));
    return (first ? you[0].toUpperCase() + you.slice(1) : you) + after;
  });
  return text.startsWith("You ") ? text.replace(/ and wins$/, " and win") : text;
}

/**
 * A new room snapshot of room `code`. When it resumes a game this tab has drawn before (the entry last
 * drawn is in it, same number and words) and more entries follow that one, the log marks them
 * "while you were away"; when nothing happened meanwhile, it marks nothing.
 */
export function resetLog(entries, resumed, code) {
  const seen = resumed ? recall() : null;
  const at = seen?.code === code ? entries.findIndex((e) => e.n === seen.n && e.text === seen.text) : -1;
  local.back = at >= 0 && at < entries.length - 1 ? seen.n : null;
  // What happened meanwhile counts as unread (the phone's Log button says how much), and is returned.
  const missed = local.back === null ? [] : entries.slice(at + 1);
  local.unread = local.open ? 0 : missed.length;
  return missed;
}

/** Entries arrived with a game message: count them as unread while the phone drawer is closed. */
export function noteEntries(entries) {
  if (!local.open) local.unread += entries.length;
}

/** One entry: the game's icon for its kind (its table module's `LOG_ICONS`: plain symbols every font
 * has, no emoji, which may render as a box; the words carry the meaning), its words as the viewer reads
 * them, and whatever the table module adds to it (`logExtra`: UNO's colour chip, Cheat's "Show cards"). */
function item(entry, ctx, table) {
  // What the entry is about on the table (the table module's `logPoint`: a Dots line or box), marked
  // there while a pointer rests on the entry: "the line from (2, 3) to (3, 3)" is found at a glance.
  const about = table?.logPoint?.(entry);
  const point = (on) => () => document.querySelectorAll(`#stage ${about}`).forEach((node) => node.classList.toggle("pointed", on));
  return el(
    "li",
    {
      class: `log-entry ${entry.kind} ${about ? "points" : ""}`,
      dataset: { id: `log-${entry.n}`, kind: entry.kind },
      onpointerenter: about ? point(true) : null,
      onpointerleave: about ? point(false) : null,
    },
    el("span", { class: "log-icon", "aria-hidden": "true", style: entry.seat === null ? null : `--seat:${seatColour(ctx.colour(entry.seat))}` }, table?.LOG_ICONS?.[entry.kind] ?? "•"),
    el("span", { class: "log-text" }, kicked(entry, ctx, personal(entry, ctx.seat, ctx.seat === null ? null : ctx.name(ctx.seat)))),
    entry.by_bot ? el("span", { class: "badge bot log-bot", title: "A bot made this move while the player was away" }, "bot") : null,
    table?.logExtra?.(entry, ctx) ?? null,
  );
}

/** A game's rules write "Dan left" (UNO: "Dan left; their cards went back…") whatever made Dan go; a
 * seat the host kicked reads "Dan was kicked", as its seat chip and the results say. */
function kicked(entry, ctx, text) {
  if (entry.seat === null || !ctx.kicked?.(entry.seat)) return text;
  const left = `${ctx.name(entry.seat)} left`;
  return text === left || text.startsWith(`${left};`) ? `${ctx.name(entry.seat)} was kicked${text.slice(left.length)}` : text;
}

/** Draw the log of `room` (the current or last game) into the side panel; `table` is the game's table module. */
export function renderLog(room, ctx, table) {
  const shown = room.play ?? room.results?.play;
  const entries = room.play ? room.log ?? [] : room.results?.log ?? [];
  const list = $("#game-log");
  const atBottom = local.pinned;
  const items = [];
  for (const entry of entries) {
    items.push(item(entry, ctx, table));
    if (entry.n === local.back && entry !== entries.at(-1)) items.push(el("li", { class: "log-back", dataset: { id: "back" } }, "— while you were away —"));
  }
  // A game the room ended (every player gone) has no last line of its own, as a rules' end has ("★ Ada
  // wins"): the log just stopped at the last one to leave.
  const outcome = room.play ? (room.state === "finished" ? room.outcome : null) : room.results?.outcome;
  const ended = outcome ? roomEnd(outcome.reason) : null;
  if (ended) items.push(el("li", { class: "log-end", dataset: { id: "end", testid: "log-end" } }, `— ${ended} —`));
  morph(list, items.length ? items : el("li", { class: "muted", dataset: { id: "empty" } }, "Moves will show here."));
  if (room.play) remember(room.code, entries.at(-1));
  $("#log-panel").hidden = !shown; // shown first: a hidden list cannot scroll, and would open at its top
  if (atBottom) list.scrollTop = list.scrollHeight;
  markOverflowY(list); // its oldest line in view was cut mid-line, with nothing to say more lay above
  const toggle = $("#log-toggle");
  toggle.hidden = !shown;
  // A long match's count ran into the thousands: past 99 the badge says only that there is more.
  const count = local.unread > 99 ? "99+" : String(local.unread);
  morph(toggle, "Log", local.unread && !local.open ? el("span", { class: "unread", "aria-label": `${count} new` }, count) : null);
  toggle.setAttribute("aria-expanded", String(local.open));
}

/** The phone drawer: open or close it (on wide screens the log is always beside the table). */
export function toggleLog() {
  local.open = !local.open;
  local.unread = 0;
  $("#log-panel").classList.toggle("open", local.open);
  $("#log-toggle").setAttribute("aria-expanded", String(local.open)); // a replay draws no log to set it
  const list = $("#game-log");
  list.scrollTop = list.scrollHeight;
}

/** Close the phone drawer if it is open (it lies over the hand); whether it was. */
export function closeLog() {
  if (!local.open) return false;
  toggleLog();
  return true;
}

const atEnd = (list) => list.scrollHeight - list.scrollTop - list.clientHeight < 40;
$("#game-log").addEventListener("scroll", (e) => {
  if (e.target.clientHeight) local.pinned = atEnd(e.target);
  markOverflowY(e.target);
});

/** A room's log, pinned, stays at its newest entry when its panel changes height: at a game's end the
 * players' panel above it grew (a spectator seated) and the last moves slid out of sight below. (Not a
 * replay's, which shows the move it is at, never the end: a spoiler.) */
export function keepLogPinned() {
  new ResizeObserver(() => {
    const list = $("#game-log");
    if (local.pinned && !atEnd(list)) list.scrollTop = list.scrollHeight;
    markOverflowY(list);
  }).observe($("#game-log"));
}

// The drawer covers the bottom of the screen, the hand and its buttons: its Close button, Escape and a
// tap anywhere outside it close it (only the Log button did, back at the top of the page).
$("#log-close")?.addEventListener("click", () => {
  closeLog();
  $("#log-toggle").focus({ preventScroll: true });
});
addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !document.querySelector("dialog[open]") && closeLog()) $("#log-toggle").focus({ preventScroll: true });
});
addEventListener(
  "pointerdown",
  (e) => {
    if (local.open && !e.target.closest?.("#log-panel, #log-toggle")) closeLog();
  },
  { capture: true },
);
