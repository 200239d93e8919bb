// Per-game room settings: one schema drives the create form, the host's
// settings editor in the waiting room and the read-only summary.

import { el } from "./ui.js";

const TIMER = {
  key: "turn_timer",
  label: "Turn timer",
  type: "select",
  default: 0,
  options: [[0, "off"], [15, "15 s"], [30, "30 s"], [60, "1 min"], [120, "2 min"]],
};

export const GAMES = {
  uno: {
    label: "UNO",
    rules:
      "Match the top card by colour, number or symbol, or play a Wild and name a colour. Can't play? Draw. " +
      "Call UNO when you are down to one card — anyone may catch you if you forget. Empty your hand to win the round.",
    min: 2,
    max: 10,
    capacity: 4,
    fields: [
      {
        key: "target_score",
        label: "Target score (0 = one round)",
        type: "number",
        default: 500,
        min: 0,
        max: 5000,
        step: 50,
        summary: (v) => (Number(v) === 0 ? "One round" : `First to ${v} points`),
      },
      { key: "uno_penalty", label: "Missed-UNO penalty (cards)", type: "number", default: 2, min: 0, max: 10, summary: (v) => `Missed UNO: +${v}` },
      TIMER,
      { key: "challenge_wild_draw4", label: "Challenge Wild Draw Four", type: "check", default: true },
      { key: "stacking", label: "Stack Draw Two / Draw Four", type: "check", default: false },
      { key: "jump_in", label: "Jump-in with an identical card", type: "check", default: false },
      { key: "seven_swap", label: "Seven swaps hands", type: "check", default: false },
      { key: "zero_rotate", label: "Zero rotates hands", type: "check", default: false },
      { key: "forced_play", label: "Forced play", type: "check", default: false },
      { key: "draw_until_playable", label: "Draw until playable", type: "check", default: false },
    ],
  },
  cheat: {
    label: "Cheat",
    rules:
      "On your turn place 1–4 cards face down and announce them as the next rank — truthfully or not. " +
      "Anyone may call Cheat on the last play: the cards are shown, and a liar picks up the pile (else the caller does). " +
      "Get rid of all your cards to win.",
    min: 3,
    max: 10,
    capacity: 4,
    fields: [
      { key: "decks", label: "Decks", type: "select", default: "auto", options: [["auto", "automatic"], [1, "1 deck"], [2, "2 decks"]] },
      {
        key: "rank_sequence",
        label: "Rank sequence",
        type: "select",
        default: "ascending",
        options: [["ascending", "ascending (A, 2, 3…)"], ["up_or_down", "one up or one down"], ["any", "any rank"]],
      },
      TIMER,
    ],
  },
  dots: {
    label: "Dots & Boxes",
    rules:
      "Take turns drawing a line between two neighbouring dots. Draw the fourth side of a box to claim it and move again. " +
      "When the board is full, most boxes wins.",
    min: 2,
    max: 8,
    capacity: 2,
    fields: [
      { key: "width", label: "Width (dots)", type: "number", default: 4, min: 2, max: 50 },
      { key: "height", label: "Height (dots)", type: "number", default: 4, min: 2, max: 50 },
      TIMER,
    ],
  },
};

/** Inputs for a game's settings, pre-filled from `values` (or the defaults). */
export function settingsFields(game, values = {}) {
  return GAMES[game].fields.map((f) => {
    const value = values[f.key] ?? f.default;
    const name = `s.${f.key}`;
    if (f.type === "check") {
      return el("label", { class: "check" }, el("input", { type: "checkbox", name, checked: Boolean(value) }), " ", f.label);
    }
    const input =
      f.type === "select"
        ? el("select", { name }, f.options.map(([v, text]) => el("option", { value: v, selected: String(v) === String(value) }, text)))
        : el("input", { type: "number", name, value, min: f.min, max: f.max, step: f.step ?? 1, required: true });
    return el("label", {}, f.label, " ", input);
  });
}

/** Read the settings inputs of `form` back into a settings object with proper types. */
export function readSettings(form, game) {
  const out = {};
  for (const f of GAMES[game].fields) {
    const input = form.elements[`s.${f.key}`];
    if (f.type === "check") out[f.key] = input.checked;
    else if (f.type === "number") out[f.key] = Number(input.value);
    else out[f.key] = /^\d+$/.test(input.value) ? Number(input.value) : input.value;
  }
  return out;
}

/** Capacity input for a game. */
export function capacityField(game, value) {
  const g = GAMES[game];
  return el("label", {}, "Seats ", el("input", { type: "number", name: "capacity", min: g.min, max: g.max, value: value ?? g.capacity, required: true }));
}

/** A one-line human summary of the settings, for everyone in the waiting room. */
export function describeSettings(game, settings = {}) {
  const parts = [];
  for (const f of GAMES[game].fields) {
    const value = settings[f.key] ?? f.default;
    if (f.type === "check") {
      if (value) parts.push(f.label);
    } else if (f.type === "select") {
      const option = f.options.find(([v]) => String(v) === String(value));
      parts.push(`${f.label}: ${option ? option[1] : value}`);
    } else {
      parts.push(f.summary ? f.summary(value) : `${f.label}: ${value}`);
    }
  }
  return parts.join(" · ");
}
