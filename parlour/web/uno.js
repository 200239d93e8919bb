// UNO table: opponents with counts, discard and colour, draw pile, a sorted hand
// grouped by colour with the legal cards highlighted, and the UNO/Catch/challenge buttons.
// What is legal comes from the server (`view.legal`); the client never decides the rules.

import { cards, choose, el, fill } from "./ui.js";

const COLOURS = ["red", "yellow", "green", "blue"];
const SYMBOL = { skip: "⊘", reverse: "⇄", draw2: "+2", wild: "W", "wild-draw4": "+4" };
const NAME = { skip: "Skip", reverse: "Reverse", draw2: "Draw Two", wild: "Wild", "wild-draw4": "Wild Draw Four" };

const cardName = (card) =>
  card.type === "number" ? `${cap(card.color)} ${card.value}` : card.color === "wild" ? NAME[card.type] : `${cap(card.color)} ${NAME[card.type]}`;
const cap = (s) => s[0].toUpperCase() + s.slice(1);
// A card mid-sentence, as the server's game log words it ("red 7", "blue Draw Two", "Wild").
const cardWords = (card) => (card.color === "wild" ? NAME[card.type] : `${card.color} ${card.type === "number" ? card.value : NAME[card.type]}`);

// UNO! pressed before playing the second-last card: the play then carries `uno: true`.
// `lastRound`: the last round's end (winner, points), said under the round's number until the next
// one ends: the toast that said it went in seconds, as the next deal came.
// `lastPlay`: the play that put the top card there, so the pile says whose card it is.
const local = { armed: false, lastRound: null, lastPlay: null };

export function reset() {
  local.armed = false;
  local.lastRound = null;
  local.lastPlay = null;
}

/** After a reload: the last round's end and the top card's player come back from the log. */
export function resume(events) {
  for (const event of events) {
    if (event.type === "round_over") local.lastRound = event;
    notePlay(event);
  }
}

/** The top card's play; a new deal forgets it (card ids come back each round: the round's first card,
 * turned up from the deck, could be the one that won the last round). */
function notePlay(event) {
  if (event.type === "play") local.lastPlay = event;
  if (event.type === "deal" || event.type === "first_card") local.lastPlay = null;
}

function unoCard(card, attrs = {}) {
  const symbol = card.type === "number" ? String(card.value) : SYMBOL[card.type];
  return el(
    attrs.onclick ? "button" : "div",
    // A card that is not a button is an image to assistive tech: its label is read, not dropped.
    { role: attrs.onclick ? null : "img", ...attrs, class: `ucard ${card.color} ${card.type} ${attrs.class ?? ""}`, "aria-label": cardName(card), title: cardName(card) },
    el("span", { class: "uc-corner", "aria-hidden": "true" }, symbol),
    el("span", { class: "uc-oval", "aria-hidden": "true" }, el("span", { class: "uc-symbol" }, symbol)),
    el("span", { class: "uc-colour", "aria-hidden": "true" }, card.color === "wild" ? "" : card.color[0].toUpperCase()),
  );
}

const back = (label) => el("div", { class: "ucard back", "aria-hidden": "true" }, el("span", { class: "uc-oval" }, el("span", { class: "uc-symbol" }, label)));

export function onEvent(event, names, seat) {
  const who = (s) => (s === seat ? "You" : names(s));
  notePlay(event);
  switch (event.type) {
    case "play":
      // A Wild that was the last card names no colour: the round is over.
      // "— UNO!" as in the log: a call made with the card had no toast of its own.
      // A plain play is on the pile, with its player's name, and in the log: no toast. Its toast held
      // the next one for a moment to read, so at a quick table the toasts trailed the play by a move.
      return {
        text: `${who(event.seat)} ${event.jump_in ? "jumped in with" : "played"} ${cardWords(event.card)}${event.card.color === "wild" && event.count ? ` → ${event.color}` : ""}${event.uno ? " — UNO!" : ""}`,
        sound: "play",
        quiet: event.seat === seat || !(event.uno || event.jump_in),
      };
    case "draw":
      return event.count && event.reason !== "draw"
        ? { text: `${who(event.seat)} drew ${event.count} (${DRAW_REASON[event.reason] ?? event.reason})`, sound: "draw" }
        : { text: "", sound: "draw", quiet: true };
    case "uno_called":
      return { text: `${who(event.seat)}: UNO!`, kind: "good", sound: "good" };
    case "uno_caught":
      return { text: `${who(event.seat)} caught ${names(event.target)} without UNO — +${event.penalty}`, kind: "bad", sound: "bad" };
    case "challenge":
      return {
        text: event.guilty
          ? `${who(event.seat)} challenged: ${names(event.offender)} was bluffing` // the draw's own toast says how many
          : `${who(event.seat)} challenged and lost: ${names(event.offender)} played fair`,
        // Good news for whoever won it (a caught bluff was red for the challenger too); others are told.
        kind: seat === (event.guilty ? event.seat : event.offender) ? "good" : seat === (event.guilty ? event.offender : event.seat) ? "bad" : "info",
        sound: "bad",
      };
    case "swap":
      return { text: `${who(event.seat)} swapped hands with ${names(event.target)}`, sound: "play", keep: true };
    case "rotate":
      return { text: "Zero! Every hand moves on", sound: "play", keep: true };
    case "skip":
      // Told to the one skipped (the pile shows the Skip, not whom it hit; a phone's log is shut).
      return { text: `${who(event.seat)} ${event.seat === seat ? "are" : "is"} skipped`, quiet: event.seat !== seat };
    case "round_over":
      local.lastRound = event;
      return { text: `${who(event.winner)} won round ${event.round} (+${event.points})`, kind: "good", sound: "good", keep: true };
    case "round_started":
      return { text: `Round ${event.round} — new hands dealt` };
    case "timeout":
      return { text: `${who(event.seat)} ran out of time`, kind: "bad", outOfTime: true };
    case "player_left":
      return { text: `${names(event.seat)} left; their cards went into the draw pile` };
    default:
      return null;
  }
}

const DRAW_REASON = {
  draw2: "Draw Two",
  wild_draw4: "Wild Draw Four",
  stack: "stacked penalty",
  challenge_lost: "lost the challenge",
  challenge_guilty: "caught bluffing",
  uno_penalty: "missed UNO",
  last_card: "for the winning card",
  timeout: "out of time",
};

/** The game log's icon for each kind of entry (gamelog.js). */
export const LOG_ICONS = {
  play: "▶", draw: "+", skip: "⊘", reverse: "⇄", pass: "→", uno_called: "!", uno_caught: "!", challenge: "?",
  accept: "✓", swap: "⇆", rotate: "↻", deal: "◆", first_card: "◆", dealer_draw: "◆", reshuffle: "◆",
  round_over: "★", round_break: "◆", round_started: "◆", game_over: "★", timeout: "…", player_left: "←",
};

/** A played card's colour beside its log entry (a Wild's: the colour named). */
export function logExtra(entry) {
  const card = entry.kind === "play" ? entry.event?.card : null;
  if (!card) return null;
  // A Wild's chip is in the colour named (its name on a rainbow was hard to read), a rainbow edge to it.
  const wild = card.color === "wild";
  return el("span", { class: `log-card ${wild ? `${entry.event.color} named` : card.color}`, "aria-hidden": "true" }, wild ? entry.event.color : card.color);
}

/** The results table's columns after the player's name: the points, what a match's last round added
 * (the totals alone hid what the final round was worth), and the cards each kept: none for a player who
 * left, whose cards went into the draw pile (a 0 there read as having gone out). */
export function resultColumns(view, score, log, left) {
  const last = view.target_score ? (log ?? []).findLast((entry) => entry.kind === "round_over")?.event : null;
  const round = last ? [[`Round ${last.round}`, (seat) => (seat === last.winner ? `+${last.points}` : "–")]] : [];
  return [["Points", score], ...round, ["Cards left", (seat) => (left?.has(seat) ? "–" : String(view.counts?.[seat] ?? "–"))]];
}

/** Players tied on points (a round's losers all score 0): fewer cards left ranks higher. */
export const resultTiebreak = (view) => (seat) => view.counts?.[seat] ?? Infinity;

/** Under a match's results, every round: who went out and for how much (the table's column is the last
 * round's only). */
export function resultNotes(view, ctx) {
  if (!view.rounds || view.rounds.length < 2) return null;
  // Each round unbroken: "2:" had ended one line and "Bo +60" begun the next.
  const rounds = view.rounds.flatMap((r, i) => [i ? " · " : "", el("span", { class: "nowrap" }, `${i + 1}: ${ctx.name(r.winner)} +${r.points}`)]);
  return el("p", { class: "muted", dataset: { testid: "rounds" } }, "Rounds — ", rounds);
}

export function render(stage, view, ctx) {
  const legal = ctx.readOnly ? [] : (view.legal ?? []); // a replay shows the hand, offers no move
  const has = (type) => legal.some((a) => a.type === type);
  const playsFor = (id) => legal.filter((a) => a.type === "play" && a.card === id);
  const myTurn = view.turn === ctx.seat && ctx.seat !== null && !ctx.readOnly;
  const pending = view.pending;

  const drawPile = el(
    has("draw") ? "button" : "div",
    { class: "pile-btn", role: has("draw") ? null : "img", onclick: has("draw") ? () => ctx.act({ type: "draw" }) : null, "aria-label": `Draw pile, ${cards(view.draw_pile)}${has("draw") ? ": draw a card" : ""}`, dataset: { testid: "draw" } },
    back("UNO"),
    el("span", { class: "pile-count" }, `${view.draw_pile}`),
  );
  const discard = el(
    "div",
    { class: "discard" },
    // Keyed by card id: a new top card is a new element, which slides onto the pile (styles.css).
    unoCard(view.top, { class: "top", "aria-roledescription": "top card", dataset: { testid: "top", id: `top-${view.top.id}` } }),
    el("span", { class: `colour-chip ${view.color}`, dataset: { testid: "colour" } }, `Colour: ${view.color}`),
    playedBy(view, ctx),
  );

  const challenge = pending.challenge;
  const alerts = [
    pending.draw_stack && !challenge ? el("p", { class: "alert" }, `+${pending.draw_stack} pending for ${ctx.name(view.turn)}`) : null,
    challenge && has("challenge")
      ? el(
          "p",
          // The decision is this player's: the question takes the focus when it comes (app.js keepFocus).
          { class: "alert", tabindex: "-1", dataset: { prompt: "challenge" } },
          `${ctx.name(challenge.offender)} played Wild Draw Four — challenge it, or accept the +${pending.draw_stack}?`,
        )
      : challenge
        // "You" on the player's own page (it read their own name).
        ? el("p", { class: "alert" }, `${challenge.offender === ctx.you ? "You" : ctx.name(challenge.offender)} played Wild Draw Four — ${ctx.name(challenge.challenger)} may challenge`)
        : null,
    // Forced play leaves no pass: the card drawn must be played.
    pending.drawn_card_playable && myTurn ? el("p", { class: "alert" }, has("pass") ? "You drew a playable card: play it or pass." : "You drew a playable card: play it (forced play).") : null,
  ];

  const controls = el(
    "div",
    { class: "controls" },
    has("challenge") ? el("button", { class: "big danger", onclick: () => ctx.act({ type: "challenge" }) }, "Challenge!") : null,
    has("accept") ? el("button", { class: "big", onclick: () => ctx.act({ type: "accept" }) }, `Accept +${pending.draw_stack}`) : null,
    // Nothing in the hand plays: a keyboard player's turn starts on Draw (it started on the hand, with
    // Draw a dozen Tabs away).
    has("draw")
      ? el("button", { class: "big", onclick: () => ctx.act({ type: "draw" }), dataset: myTurn && !has("play") ? { fromHand: "" } : {} }, pending.draw_stack ? `Draw ${pending.draw_stack}` : "Draw")
      : null,
    has("pass") ? el("button", { class: "big", onclick: () => ctx.act({ type: "pass" }), dataset: { testid: "pass" } }, "Keep & pass") : null,
    // In the dock, where a phone's thumb is; never given the focus: the winner's Enter on their last
    // card must not deal the next round too.
    has("deal") ? el("button", { class: "big primary", onclick: () => ctx.act({ type: "deal" }), dataset: { testid: "deal" } }, `Deal round ${view.round + 1}`) : null,
    // Not while answering a Wild Draw Four, when it could do nothing: on a phone its row had pushed the
    // question under the dock at a table of four.
    ctx.seat !== null && view.dealing == null && !has("challenge") ? unoButton(view, has, playsFor, ctx) : null,
  );

  // The round's winner, between rounds, has no cards: a dock with nothing in it was an empty band on a phone.
  const idle = view.dealing != null && !view.hand?.length;
  const hand = view.hand && !idle ? handArea(view, ctx, playsFor, myTurn, hint(view, has, playsFor, myTurn, ctx)) : null;
  fill(
    stage,
    el(
      "div",
      { class: "uno-table" },
      opponents(view, ctx, legal),
      el(
        "div",
        { class: "uno-centre" },
        el("div", { class: "direction", role: "img", "aria-label": view.direction === 1 ? "Play goes clockwise" : "Play goes counter-clockwise" }, view.direction === 1 ? "↻" : "↺"),
        drawPile,
        discard,
        el(
          "div",
          { class: "match muted" },
          `Round ${view.round}`,
          view.target_score ? ` · first to ${view.target_score}` : " · one round",
          lastRound(view, ctx),
        ),
      ),
      view.dealing != null ? roundBreak(view, ctx, has) : alerts,
      // The dock: buttons and hand, kept at the bottom of a phone's screen (styles.css).
      hand || has("deal") ? el("div", { class: `dock ${myTurn ? "my-turn" : ""}`, dataset: { testid: "dock" } }, controls, hand) : null,
    ),
  );
}

/** Whose card is on top ("Played by Bo"): a play's toast no longer says it. The round's first card
 * came from the deck and names nobody; its line is kept empty, so the pile does not jump. */
function playedBy(view, ctx) {
  const play = local.lastPlay?.card.id === view.top.id ? local.lastPlay : null;
  const who = play && (play.seat === ctx.you ? "you" : ctx.name(play.seat));
  const text = !play ? "\u00a0" : play.jump_in ? `${cap(who)} jumped in` : `Played by ${who}`;
  return el("span", { class: "played-by muted", dataset: { testid: "played-by" } }, text);
}

/** "Round 2 went to Ada: +150 points", under the round now played (a match's rounds). */
function lastRound(view, ctx) {
  const last = local.lastRound;
  if (!last || last.round !== view.round - 1 || view.over) return null;
  return el("span", { class: "last-round", dataset: { testid: "last-round" } }, `Round ${last.round} went to ${roundWords(last, ctx)}`);
}

/** "Ada: +35 points (Bo 6, Cy 29)": whose cards the points came from, when more than one hand gave
 * them (the log said it, the table only the sum). */
function roundWords(last, ctx) {
  const name = (seat) => (seat === ctx.you ? "you" : ctx.name(seat));
  const from = (last.held ?? []).map((points, seat) => [seat, points]).filter(([seat, points]) => seat !== last.winner && points > 0);
  const parts = from.length > 1 ? ` (${from.map(([seat, points]) => `${name(seat)} ${points}`).join(", ")})` : "";
  return `${name(last.winner)}: +${last.points} points${parts}`;
}

/** Between rounds: how the round ended, on its last card, until the next dealer deals (or the pause
 * runs out). The next deal had come in the same message as the last card, which nobody then saw. */
function roundBreak(view, ctx, has) {
  const last = local.lastRound?.round === view.round ? local.lastRound : null;
  const dealer = view.dealing === ctx.you ? "You deal" : `${ctx.name(view.dealing)} deals`;
  // The dealer's decision: the panel takes the focus once (app.js keepFocus), read out, and the next Tab
  // reaches Deal in the dock (a keyboard dealer had tabbed through the log, the chat and the header).
  const asks = has("deal") ? { tabindex: "-1", "data-prompt": `deal-${view.round}` } : {};
  return el(
    "section",
    { class: "round-break", "aria-label": `Round ${view.round} is over`, ...asks, dataset: { testid: "round-break" } },
    el("p", { class: "rb-head" }, last ? `★ Round ${view.round} went to ${roundWords(last, ctx)}` : `Round ${view.round} is over`),
    el(
      "p",
      { class: "muted" },
      `${dealer} round ${view.round + 1}`,
      // The pause's clock; a replay has none.
      ctx.pause?.localDeadline ? [" in ", el("span", { class: "timer-text", dataset: { deadline: ctx.pause.localDeadline } }, ""), " s"] : null,
      has("deal") ? ", or deal now." : ".",
    ),
  );
}

/** UNO!: call it right after playing down to one card, or press it first to arm the next play. */
function unoButton(view, has, playsFor, ctx) {
  const canArm = view.hand?.length === 2 && view.hand.some((c) => playsFor(c.id).length);
  if (!canArm) local.armed = false;
  const callNow = has("call_uno");
  return el(
    "button",
    {
      class: `uno-btn ${local.armed ? "armed" : ""}`,
      disabled: !callNow && !canArm,
      "aria-pressed": callNow ? null : String(local.armed),
      "aria-label": callNow ? "Call UNO" : local.armed ? "UNO! is armed: your next card calls it" : "Arm UNO! before playing your second-last card",
      title: callNow ? "Call UNO now" : "Press before playing your second-last card",
      dataset: { testid: "uno" },
      onclick: () => {
        if (callNow) ctx.act({ type: "call_uno" });
        else if (!local.armed) {
          // Armed, it stays armed: "UNO! UNO!", tapped twice, had switched the call off again, and the
          // card went without it. (Calling with two cards costs nothing: the card played leaves one.)
          local.armed = true;
          ctx.rerender();
        }
      },
    },
    local.armed ? "UNO! ✓" : "UNO!",
  );
}

function opponents(view, ctx, legal) {
  // Clockwise from the player after you (you come last); spectators see seat order.
  const start = ctx.seat === null ? 0 : ctx.seat + 1;
  const seats = Array.from({ length: view.players }, (_, i) => (start + i) % view.players);
  return el(
    "ol",
    // More than four chips stand in narrower columns, where a score's "pts" gives way (styles.css).
    { class: `seats ${view.players > 4 ? "crowded" : ""}`, "aria-label": "Players" },
    seats.map((seat) => {
      const catchable = legal.some((a) => a.type === "catch" && a.target === seat);
      return el(
        "li",
        {
          class: `seat ${view.turn === seat ? "turn" : ""} ${view.active[seat] ? "" : "gone"} ${seat === ctx.seat ? "me" : ""}`,
          "aria-current": view.turn === seat ? "true" : null,
        },
        el("span", { class: "seat-name" }, ctx.name(seat)),
        seat === ctx.you ? el("span", { class: "badge you" }, "you") : null,
        ctx.presence(seat),
        el("span", { class: "count cards", role: "img", "aria-label": cards(view.counts[seat]) }, String(view.counts[seat])),
        view.uno_called[seat] && view.counts[seat] ? el("span", { class: "badge uno" }, "UNO") : null, // not on an emptied hand
        view.turn === seat ? el("span", { class: "badge turn" }, "to play") : null,
        view.dealing === seat ? el("span", { class: "badge deals" }, "deals next") : null,
        view.target_score ? el("span", { class: "muted score", title: "Score" }, String(view.scores[seat]), el("span", { class: "unit" }, " pts")) : null,
        catchable ? el("button", { class: "small danger", onclick: () => ctx.act({ type: "catch", target: seat }), dataset: { testid: "catch" } }, "Catch!") : null,
      );
    }),
  );
}

/** One line telling this player what they can do now (a replay's view of another seat: whose hand). */
function hint(view, has, playsFor, myTurn, ctx) {
  if (ctx.seat !== ctx.you) return `${ctx.name(ctx.seat)}'s hand: ${cards(view.hand.length)}`;
  if (view.dealing != null) return view.hand.length ? `Round over: your ${cards(view.hand.length)} counted for the winner.` : "Round over: you went out!";
  const playable = view.hand.some((c) => playsFor(c.id).length);
  const stack = view.pending.draw_stack;
  if (!myTurn) return playable ? "Jump in! You hold an identical card." : `Your hand: ${cards(view.hand.length)}`;
  // What each answer costs, as the rule has it: the bluffer draws instead, or the challenger draws 2 more.
  if (has("challenge")) return `Challenge: if it was a bluff they draw ${stack}, if not you draw ${stack + 2}. Or accept the +${stack}.`;
  if (stack) return playable ? `Stack a draw card, or take the +${stack}.` : `Take the +${stack}.`;
  if (has("pass")) return "Play the card you drew, or keep it and pass.";
  if (playable) return "Your turn — highlighted cards can be played.";
  return view.settings?.draw_until_playable ? "Your turn — no card fits: draw until one does." : "Your turn — no card fits: draw one.";
}

function handArea(view, ctx, playsFor, myTurn, hintText) {
  const groups = new Map();
  for (const card of view.hand) {
    if (!groups.has(card.color)) groups.set(card.color, []);
    groups.get(card.color).push(card);
  }
  return el(
    "div",
    { class: "hand-area" },
    // Kept on a phone (styles.css): between rounds, what your cards counted; facing a Wild Draw Four, what
    // each answer costs (a phone showed only the two buttons).
    el("p", { class: `muted hint ${view.dealing != null || view.legal?.some((a) => a.type === "challenge") ? "kept" : ""}`, dataset: { testid: "hint" } }, hintText),
    el(
      "div",
      // With no card to play every card is disabled: the hand itself takes focus, so a keyboard can scroll it
      // (an empty hand, a round's winner's, has nothing to scroll).
      { class: `hand uno-hand ${myTurn ? "my-turn" : ""}`, style: `--n: ${view.hand.length}; --g: ${groups.size}`, role: "group", tabindex: view.hand.length && !view.hand.some((c) => playsFor(c.id).length) ? "0" : null, "aria-label": ctx.seat === ctx.you ? "Your hand" : `${ctx.name(ctx.seat)}'s hand`, dataset: { testid: "hand" } },
      [...groups].map(([colour, cards]) =>
        el(
          "div",
          { class: "hand-group", "aria-label": `${colour} cards` },
          cards.map((card) => {
            const plays = playsFor(card.id);
            return unoCard(card, {
              class: plays.length ? "playable" : "",
              dataset: { id: card.id },
              disabled: !plays.length,
              onclick: () => play(card, plays, view, ctx),
            });
          }),
        ),
      ),
    ),
  );
}

const CANCEL = { label: "Cancel", value: "cancel", class: "cancel" };

/** Ask what a play needs (a Wild's colour, a Seven Swap target), then send it. */
async function play(card, plays, view, ctx) {
  if (!plays.length) return;
  const action = { type: "play", card: card.id };
  if (local.armed && view.hand.length === 2) action.uno = true;
  if (card.color === "wild" && view.hand.length === 1) {
    action.color = plays[0].color; // the last card ends the round: no colour to ask for
  } else if (card.color === "wild") {
    const colour = await choose("Choose a colour", null, [
      ...COLOURS.map((c) => ({ label: cap(c), value: c, class: `colour-pick ${c}` })),
      CANCEL,
    ], { turn: true });
    if (!COLOURS.includes(colour)) return;
    action.color = colour;
  }
  const targets = plays.map((a) => a.target).filter((t) => t !== undefined);
  if (targets.length) {
    const target = await choose("Swap hands with…", null, [
      ...targets.map((t) => ({ label: `${ctx.name(t)} (${cards(view.counts[t])})`, value: String(t) })),
      CANCEL,
    ], { turn: true });
    if (!target || target === CANCEL.value) return;
    action.target = Number(target);
  }
  local.armed = false;
  ctx.act(action);
}

/** A card as the hands show it (the replay page's "all hands" too). */
export { unoCard as card };
