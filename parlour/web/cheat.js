// Cheat table: sorted hand, pick 1–4 cards, announce, and a big Cheat button.

import { SIDEWAYS, answer, arrowKeys, cards, choose, el, fill } from "./ui.js";

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = [
  { sym: "♥", name: "hearts", red: true },
  { sym: "♦", name: "diamonds", red: true },
  { sym: "♠", name: "spades", red: false },
  { sym: "♣", name: "clubs", red: false },
];

const RANK_WORDS = ["Ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King"];
const rankWord = (rank, count = 1) => (count === 1 ? RANK_WORDS[rank] : `${RANK_WORDS[rank]}s`);
/** A claim: "3 × Kings", and "one 9" ("1 × 9" read as a sum). */
const claimWords = (rank, count) => (count === 1 ? `one ${RANK_WORDS[rank]}` : `${count} × ${rankWord(rank, count)}`);
/** What Place will do, in words: "Place 1 card as an Ace", "Place 3 as Kings". */
const placeWords = (rank, count) =>
  count === 1 ? `Place 1 card as ${["Ace", "8"].includes(RANK_WORDS[rank]) ? "an" : "a"} ${RANK_WORDS[rank]}` : `Place ${count} as ${rankWord(rank, count)}`;

// Local UI state that survives re-renders: the selected cards, the chosen rank
// and the last reveal (the `called` event), shown until the next reveal or, at the earliest,
// the first play that comes REVEAL_MS after it (bots play fast; people need time to read it).
// `focus` is the card that is the hand's one tab stop (the arrow keys move between the others).
// `pickedUp`: who took the pile at the last call, while nothing has been placed since (the empty
// pile's line said "No cards placed yet" twelve turns into a game). `revealOld`: cards were placed
// since the reveal, which then says it was the last call (under a new claim it read as its verdict).
const local = { selected: new Set(), rank: null, reveal: null, revealAt: 0, revealOld: false, bringReveal: false, focus: null, pickedUp: null };
const REVEAL_MS = 4000;
const HAND_ROW = 12; // cards a phone's hand row holds before it takes another row
const MAX_HAND_ROWS = 4; // past this (48 cards), the rows fan tighter: at 37 a third row's strips hid the 0 of a 10

export function reset() {
  local.selected.clear();
  local.rank = null;
  local.reveal = null;
  local.focus = null;
  local.pickedUp = null;
}

/** After a room snapshot (a reload, a spectator arriving): the last call's reveal, if nothing was
 * placed after it (a reload just after a call lost the revealed cards), and who took the pile. */
export function resume(events) {
  for (const event of events) {
    if (event.type === "called") Object.assign(local, { reveal: event, revealAt: Date.now(), revealOld: false });
    else if (event.type === "played") local.reveal = null;
    trackPile(event);
  }
}

function trackPile(event) {
  if (event.type === "called") local.pickedUp = event.picked_up_by;
  else if (event.type === "played" || (event.type === "left" && event.to_pile)) local.pickedUp = null;
}

function cardFace(card, attrs = {}) {
  const suit = SUITS[card.suit];
  const label = `${RANK_WORDS[card.rank]} of ${suit.name}`;
  return el(
    attrs.onclick ? "button" : "div",
    { role: attrs.onclick ? null : "img", ...attrs, class: `pcard ${suit.red ? "red" : "black"} ${attrs.class ?? ""}`, "aria-label": label, title: label },
    el("span", { class: "pc-rank" }, RANKS[card.rank]),
    el("span", { class: "pc-suit", "aria-hidden": "true" }, suit.sym),
  );
}

/** A call refused for want of a play to call, just after another player's call took that play: the
 * caller lost the race ("there is no play to challenge" read as if they had tapped at nothing). */
export function refusal(error, action, names) {
  if (action?.type !== "call" || error.code !== "nothing_to_call" || !local.reveal) return null;
  if (Date.now() - local.revealAt > REVEAL_MS) return null;
  return `Too late: ${names(local.reveal.caller)} called Cheat first.`;
}

/** Remember what a call revealed; returns a toast for it. */
export function onEvent(event, names, seat = null) {
  trackPile(event);
  if (event.type === "called") {
    local.reveal = event;
    local.revealAt = Date.now();
    local.revealOld = false;
    local.bringReveal = true;
    const who = names(event.picked_up_by);
    const verdict = event.truthful ? `${names(event.placer)} told the truth` : `${names(event.placer)} was cheating`;
    // Bad news for whoever picks up the pile (a cheater caught read it in green), good for a caller who
    // caught one; the others are told.
    const kind = seat !== null && seat === event.picked_up_by ? "bad" : seat !== null && seat === event.caller ? "good" : "info";
    // A phone held sideways scrolls the reveal into sight past the top bar, where the toast then lay
    // over the pile and the next rank for seconds: the reveal in sight says it all (not while typing
    // in the chat, when it is not brought into sight).
    const shown = matchMedia(SIDEWAYS).matches && document.activeElement?.id !== "chat-input";
    return { text: `${names(event.caller)} called Cheat! ${verdict} — ${who} picks up ${event.pile_count}.`, kind, sound: "bad", keep: true, quiet: shown };
  }
  if (event.type === "played") {
    if (Date.now() - local.revealAt >= REVEAL_MS) local.reveal = null;
    else local.revealOld = true;
    // The table says it ("Just placed by Bo: 2 × Sevens"), as the log does: no toast to trail the play.
    return { text: `${names(event.seat)} placed ${claimWords(event.rank, event.count)}`, sound: "play", quiet: true };
  }
  if (event.type === "left") return { text: `${names(event.seat)}'s ${cards(event.to_pile)} went onto the pile` };
  if (event.type === "timed_out") return { text: `${names(event.seat)} ran out of time`, kind: "bad", outOfTime: true };
  return null;
}

export function render(stage, view, ctx) {
  const mine = view.hand ?? null;
  const myTurn = view.turn === ctx.seat && mine !== null && !ctx.readOnly;
  const ids = new Set((mine ?? []).map((c) => c.id));
  for (const id of local.selected) if (!ids.has(id) || !myTurn) local.selected.delete(id);
  if (!view.ranks.includes(local.rank)) local.rank = view.ranks[0] ?? null;

  const play = view.last_play;
  const table = el(
    "div",
    { class: "cheat-table" },
    seatsRow(view, ctx),
    el(
      "div",
      { class: "cheat-centre" },
      el(
        "div",
        { class: "pile", "aria-label": `Pile: ${cards(view.pile_size)}` },
        el("div", { class: `pcard ${view.pile_size ? "back" : "empty"}`, "aria-hidden": "true" }),
        el("strong", { class: "pile-count", dataset: { testid: "pile-size" } }, String(view.pile_size)),
        el("span", { class: "muted" }, "on the pile"),
      ),
      el(
        "div",
        { class: "claim" },
        play
          ? el("p", { class: "just-placed", dataset: { testid: "just-placed" } },
            // "you" on your own page, as the toasts and the log say it.
            el("span", { class: "muted" }, "Just placed by ", play.seat === ctx.you ? "you" : ctx.name(play.seat), ": "),
            el("strong", {}, claimWords(play.rank, play.count)),
          )
          : el("p", { class: "just-placed muted" }, local.pickedUp === null ? "No cards placed yet" : `${local.pickedUp === ctx.you ? "You" : ctx.name(local.pickedUp)} picked up the pile`),
        lastCard(view, ctx),
        view.over ? null : el("p", { class: "next-rank" },
          el("span", { class: "muted" }, "Next: "),
          el("strong", {}, view.ranks.length === 13 ? "any rank" : view.ranks.map((r) => rankWord(r)).join(" or ")),
        ),
      ),
      revealBox(ctx),
    ),
  );

  if (mine) table.append(handArea(view, mine, myTurn, ctx));
  fill(stage, table);
  if (local.bringReveal) {
    local.bringReveal = false;
    // A call's reveal comes into sight (on a short screen it was under the hand's bar, and only a toast
    // said what the call found), unless the player is typing in the chat.
    if (!ctx.readOnly && document.activeElement?.id !== "chat-input") {
      requestAnimationFrame(() => {
        const reveal = document.querySelector('#stage [data-testid="reveal"]');
        if (!reveal) return;
        // Clear of the dock as tall as it is now: a hand of three rows stands higher than the
        // stylesheet's margin, and the verdict stayed under it.
        const dock = document.querySelector('#stage [data-testid="dock"]');
        const docked = dock && getComputedStyle(dock).position === "sticky" ? dock.getBoundingClientRect().height : 0;
        if (docked) reveal.style.scrollMarginBottom = `${docked + 16}px`;
        reveal.scrollIntoView({ block: "nearest" });
      });
    }
  }
}

/** A last card placed wins once the next player plays, unless someone calls first: said to everyone,
 * since the table otherwise just went on ("Dave to play") with that player at 0 cards. */
function lastCard(view, ctx) {
  const play = view.last_play;
  if (view.over || !play?.callable || view.hand_sizes[play.seat] !== 0) return null;
  const who = ctx.name(play.seat);
  const next = view.turn === ctx.you ? "you play" : `${ctx.name(view.turn)} plays`;
  const many = play.count > 1; // the last cards may go down together
  const text =
    play.seat === ctx.you
      ? `Your last ${many ? "cards are" : "card is"} down: you win when ${next}, unless someone calls Cheat! first.`
      : `${who} placed their last ${many ? `${play.count} cards` : "card"}: call Cheat! now, or ${who} wins when ${next}.`;
  return el("p", { class: "alert last-card", role: "status", dataset: { testid: "last-card" } }, text);
}

function seatsRow(view, ctx) {
  return el(
    "ol",
    { class: "seats", "aria-label": "Players at the table" },
    view.hand_sizes.map((size, seat) =>
      el(
        "li",
        {
          class: `seat ${view.turn === seat ? "turn" : ""} ${view.active.includes(seat) ? "" : "gone"} ${seat === ctx.seat ? "me" : ""}`,
          "aria-current": view.turn === seat ? "true" : null,
        },
        el("span", { class: "seat-name" }, ctx.name(seat)),
        seat === ctx.you ? el("span", { class: "badge you" }, "you") : null,
        ctx.presence(seat),
        el("span", { class: "count cards", role: "img", "aria-label": cards(size) }, String(size)),
        view.turn === seat ? el("span", { class: "badge turn" }, "to play") : null,
      ),
    ),
  );
}

/** "You called Cheat on Bo's 3 × Aces": the call in the viewer's words ("You" on their own page, as the
 * toast and the log say it), its claim said again (the table's "Just placed by …" went with the pile). */
function callWords(call, ctx, first = true) {
  const who = call.caller === ctx.you ? (first ? "You" : "you") : ctx.name(call.caller);
  const whose = call.placer === ctx.you ? "your" : `${ctx.name(call.placer)}'s`;
  return `${who} called Cheat on ${whose} ${claimWords(call.rank, call.cards.length)}`;
}

function revealBox(ctx) {
  const call = local.reveal;
  if (!call) return null;
  const who = (seat, first) => (seat === ctx.you ? (first ? "You" : "you") : ctx.name(seat));
  return el(
    "div",
    { class: `reveal ${call.truthful ? "truth" : "lie"} ${local.revealOld ? "earlier" : ""}`, role: "status", dataset: { testid: "reveal" } },
    el("p", {}, local.revealOld ? "Last call: " : "", callWords(call, ctx, !local.revealOld)),
    el("div", { class: "reveal-cards" }, call.cards.map((c) => cardFace(c, { class: c.rank === call.rank ? "" : "liar" }))),
    el("p", {}, el("strong", {}, call.truthful ? "Truth ✓" : "Lie ✗"), ` ${who(call.picked_up_by, true)} picked up ${cards(call.pile_count)}.`),
  );
}

/** The results' column: the cards each kept. A player whose last cards went down just as another's
 * claim stood (that play is what made it stand) kept none and still lost: said, or the table showed two
 * players on 0 under one winner. A player who left has none: their cards went onto the pile. */
export function resultColumns(view, score, log, left) {
  const cardsLeft = (seat) => {
    if (left?.has(seat)) return "–";
    const kept = score(seat);
    return kept === "0" && view.winner !== null && seat !== view.winner ? "0 (went down as the winner's stood)" : kept;
  };
  return [["Cards left", cardsLeft]];
}

/** How the game was won, under the results: the table's last warning ("call Cheat! now, or Bo wins when
 * Cy plays") was gone by then, and "★ Bo wins!" alone did not say why. The last cards stood either
 * because nobody called Cheat on them before the next play, or because a call found them true. */
export function resultNotes(view, ctx, log) {
  if (view.winner === null || view.winner === undefined) return null;
  const name = (seat, first) => (seat === ctx.you ? (first ? "You" : "you") : ctx.name(seat));
  const whose = view.winner === ctx.you ? "your" : `${ctx.name(view.winner)}'s`;
  const last = (log ?? []).findLast((entry) => entry.kind === "called" || entry.kind === "played")?.event;
  const how =
    last?.caller !== undefined
      ? `${name(last.caller, true)} called Cheat on ${whose} last cards, and they were what was claimed.`
      : `Nobody called Cheat on ${whose} last cards${last ? ` before ${name(last.seat)} placed` : ""}: they stood.`;
  return el("p", { class: "muted", dataset: { testid: "how-won" } }, how);
}

/** The results rank fewer cards left first. */
export const FEWER_IS_BETTER = true;

/** The game log's icon for each kind of entry (gamelog.js). */
export const LOG_ICONS = { dealt: "◆", played: "▼", called: "◉", picked_up: "▲", timed_out: "…", left: "←", game_over: "★" };

/** A call's log entry offers its revealed cards again. */
export function logExtra(entry, ctx) {
  if (entry.kind !== "called" || !entry.event?.cards) return null;
  return el("button", { class: "small", onclick: () => showReveal(entry.event, ctx), "aria-label": "Show the revealed cards" }, "Show cards");
}

/** Reopen a reveal from its game-log entry (the public `called` event): the cards, in a dialog. */
function showReveal(call, ctx) {
  const { rank, cards, truthful } = call;
  const body = el(
    "div",
    { class: `reveal ${truthful ? "truth" : "lie"}`, dataset: { testid: "reveal-again" } },
    // In the table's words (it had read "Bo called Cheat on Ada, who claimed Aces" on Ada's own page).
    el("p", {}, `${callWords(call, ctx)}:`),
    el("div", { class: "reveal-cards" }, cards.map((c) => cardFace(c, { class: c.rank === rank ? "" : "liar" }))),
    el("p", {}, el("strong", {}, truthful ? "Truth ✓" : "Lie ✗")),
  );
  return choose("Revealed cards", body, [{ label: "Close", value: "close", class: "primary" }]);
}

function handArea(view, hand, myTurn, ctx) {
  const count = local.selected.size;
  const rankPicker =
    view.ranks.length > 1 && myTurn
      ? el(
        "label",
        { class: "rank-pick" },
        "Announce as ",
        el(
          "select",
          { onchange: (e) => (local.rank = Number(e.target.value)), "aria-label": "Announced rank" },
          view.ranks.map((r) => el("option", { value: r, selected: r === local.rank }, RANK_WORDS[r])),
        ),
      )
      : null;
  const place = el(
    "button",
    {
      class: "primary big",
      disabled: !myTurn || count < 1 || count > 4,
      dataset: { testid: "place" },
      onclick: () => {
        ctx.act({ type: "play", cards: [...local.selected], rank: local.rank });
        local.selected.clear();
      },
    },
    // The rank to announce, when there is one only (else the picker beside it says).
    !myTurn ? "Wait for your turn" : count ? placeWords(local.rank, count) : view.ranks.length === 1 ? `Select cards for ${rankWord(view.ranks[0], 2)}` : "Select cards to place",
  );
  // The claim a call would test, on the button itself: on a small phone the dock covers the table's
  // "Just placed by …" line.
  const play = view.last_play;
  const claim = view.can_call && play ? `${ctx.name(play.seat)}'s ${claimWords(play.rank, play.count)}` : null;
  const cheat = el(
    "button",
    {
      class: "cheat-btn",
      disabled: !view.can_call,
      dataset: { testid: "cheat" },
      onclick: () => ctx.act({ type: "call" }),
      "aria-label": claim ? `Call Cheat on ${claim}` : "Call Cheat on the last play",
    },
    el("span", {}, "Cheat!"),
    claim ? el("small", { class: "cheat-on", dataset: { testid: "cheat-on" } }, `on ${claim}`) : null,
  );
  // A replay's view of another seat says whose hand it is.
  const owner = ctx.seat === ctx.you ? "Your hand" : `${ctx.name(ctx.seat)}'s hand`;
  // One tab stop for the whole hand (a roving tabindex): a hand of 30 cards is not 30 presses of Tab.
  if (!hand.some((c) => c.id === local.focus)) local.focus = hand[0]?.id ?? null;
  // On a phone a long hand takes rows of up to HAND_ROW cards, each fanned to the width (styles.css):
  // in one row, 17 cards showed a strip each, too narrow for a 10.
  const rows = Math.min(MAX_HAND_ROWS, Math.ceil(hand.length / HAND_ROW));
  const cols = Math.ceil(hand.length / Math.max(1, rows));
  const faces = hand.map((card) =>
    cardFace(card, {
      class: local.selected.has(card.id) ? "selected" : "",
      "aria-pressed": String(local.selected.has(card.id)),
      disabled: !myTurn,
      tabindex: card.id === local.focus ? "0" : "-1",
      dataset: { id: card.id },
      onfocus: () => (local.focus = card.id),
      onclick: () => {
        if (local.selected.has(card.id)) local.selected.delete(card.id);
        else if (local.selected.size < 4) local.selected.add(card.id);
        // A fifth did nothing, unexplained (a phone hides the hint "Select 1–4 cards").
        else answer("You place 4 cards at most: tap a selected one to put it back first.");
        ctx.rerender();
      },
    }),
  );
  return el(
    "div",
    { class: `hand-area dock ${myTurn ? "my-turn" : ""}`, dataset: { testid: "dock" } },
    // Cheat! stands apart from Place, so a hurried thumb does not call instead of playing.
    el("div", { class: "controls" }, rankPicker, place, el("span", { class: "spacer" }), cheat),
    el("p", { class: "muted hint" }, myTurn ? "Select 1–4 cards, then place them." : `${owner}: ${cards(hand.length)}`),
    ctx.readOnly ? null : el("p", { id: "hand-keys", class: "visually-hidden" }, "The arrow keys move between your cards; Space selects one."),
    // Off turn every card is disabled: the hand itself takes focus, so a keyboard can scroll it (an empty
    // hand has nothing to scroll).
    el("div", { class: `hand ${rows > 1 ? "rows" : ""}`, style: `--n: ${hand.length}; --cols-1: ${cols - 1}`, role: "group", tabindex: myTurn || !hand.length ? null : "0", "aria-label": owner, "aria-describedby": ctx.readOnly ? null : "hand-keys", dataset: { testid: "hand" }, onkeydown: arrowKeys }, faces),
  );
}

/** A card as the hand shows it (the replay page's "all hands" too). */
export { cardFace as card };
