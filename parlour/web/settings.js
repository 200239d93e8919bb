// Room settings, built from each game's schema in the catalog (GET /api/catalog): the create form,
// the host's settings editor in the waiting room and the read-only summary. Ranges, defaults and
// labels are the server's; nothing here knows a game.

import { GAMES } from "./catalog.js";
import { el } from "./ui.js";

const shown = (game) => GAMES[game].settings.filter((f) => !f.hidden);
/** Whether a setting changes anything with these settings: the one it `needs` is on (true, not 0). */
const matters = (game, f, settings) => {
  if (!f.needs) return true;
  const needed = GAMES[game].settings.find((g) => g.key === f.needs);
  return Boolean(settings[f.needs] ?? needed?.default);
};
const asSelect = (f) => f.type === "choice" || (f.type === "int" && f.options);

let helpIds = 0;
/** A field with its explanation under it, read out with its control (`aria-describedby`): a label such
 * as "Forced play" does not say what the rule does. */
function withHelp(field, input, help) {
  if (!help) return field;
  const id = `setting-help-${++helpIds}`;
  input.setAttribute("aria-describedby", id);
  return el("div", { class: "setting" }, field, el("p", { class: "setting-help", id }, help));
}

/** Inputs for a game's settings, pre-filled from `values`, else the defaults: for a new room (`fresh`)
 * what a room made by a person starts with (`initial`, UNO's pause between rounds), for a room's own
 * settings what leaving one out means. */
export function settingsFields(game, values = {}, fresh = false) {
  const fields = shown(game).map((f) => {
    const value = values[f.key] ?? (fresh ? f.initial : undefined) ?? f.default;
    const name = `s.${f.key}`;
    if (f.type === "bool") {
      const box = el("input", { type: "checkbox", name, checked: Boolean(value) });
      return withHelp(el("label", { class: "check" }, box, " ", f.label), box, f.help);
    }
    // A value the presets do not name (set over the wire) stays on offer, so saving keeps it.
    const options = asSelect(f) && !f.options.some(([v]) => String(v) === String(value)) ? [...f.options, [value, String(value)]] : f.options;
    const input = asSelect(f)
      ? el("select", { name }, options.map(([v, text]) => el("option", { value: v, selected: String(v) === String(value) }, text)))
      : el("input", { type: "number", name, value, min: f.off ? 0 : f.min, max: f.max, step: f.step ?? 1, required: true });
    return withHelp(el("label", {}, f.label, " ", input), input, f.help);
  });
  // A setting that changes nothing while the one it needs is off is hidden until it is on (UNO's pause
  // between rounds, in a game of one round).
  const inputOf = (key) => fields[shown(game).findIndex((f) => f.key === key)]?.querySelector("input, select");
  shown(game).forEach((f, i) => {
    const needed = f.needs && inputOf(f.needs);
    if (!needed) return;
    const show = () => {
      fields[i].hidden = needed.type === "checkbox" ? !needed.checked : Number(needed.value) === 0;
    };
    needed.addEventListener("change", show);
    show();
  });
  return fields;
}

/** Read the settings inputs of `form` back into a settings object with the schema's types. */
export function readSettings(form, game) {
  const out = {};
  for (const f of shown(game)) {
    const input = form.elements[`s.${f.key}`];
    if (f.type === "bool") out[f.key] = input.checked;
    else if (f.type === "int") out[f.key] = Number(input.value);
    else out[f.key] = f.options.find(([v]) => String(v) === input.value)?.[0] ?? input.value;
  }
  return out;
}

/** Capacity input for a game: its seat range from the catalog. */
export function capacityField(game, value) {
  const g = GAMES[game];
  return el("label", {}, "Seats ", el("input", { type: "number", name: "capacity", min: g.min_players, max: g.max_players, value: value ?? g.default_capacity, required: true }));
}

/** The room's delay before a bot may catch a human (games with catches only: UNO's missed call). */
export function catchDelayField(game, value) {
  if (!GAMES[game].has_catches) return null;
  const input = el("input", { type: "number", name: "bot_catch_delay", min: 0, max: 30, step: 0.5, value: value ?? 2, required: true });
  return withHelp(el("label", {}, "Bot catch delay (s) ", input), input, "How long bots wait after a play before catching a missed UNO; people may catch at once.");
}

/** The catch delay the form holds, or undefined for a game without catches. */
export function readCatchDelay(form) {
  const input = form.elements.bot_catch_delay;
  return input ? Number(input.value) : undefined;
}

/** A one-line human summary of the settings, for everyone in the waiting room. */
export function describeSettings(game, settings = {}, catchDelay = undefined) {
  const parts = [];
  for (const f of shown(game)) {
    const value = settings[f.key] ?? f.default;
    if (!matters(game, f, settings)) continue;
    if (f.type === "bool") {
      if (value) parts.push(f.label);
    } else {
      const option = (f.options ?? []).find(([v]) => String(v) === String(value));
      parts.push(`${f.label}: ${option ? option[1] : value}`);
    }
  }
  if (GAMES[game].has_catches && catchDelay !== undefined) parts.push(`Bots catch after ${catchDelay} s`);
  return parts.join(" · ");
}

/** The room's rules that change play, each with what it does (for everyone, in "How to play"): every
 * rule switched on, and every choice the game explains (not a turn timer that is off). */
export function rulesInPlay(game, settings = {}) {
  const out = [];
  for (const f of shown(game)) {
    const value = settings[f.key] ?? f.default;
    if (!matters(game, f, settings)) continue;
    if (!f.help || (f.type === "bool" && !value) || (f.type !== "bool" && !f.options) || (f.off && !value)) continue;
    const option = (f.options ?? []).find(([v]) => String(v) === String(value));
    out.push([f.type === "bool" ? f.label : `${f.label}: ${option ? option[1] : value}`, f.help]);
  }
  return out;
}

/** What a save changed, in words ("Target score: 200", "Stacking: off"): the toast said only that
 * something had. `before`, `after`: the room's fields (settings, capacity, public, password). */
export function describeChanges(game, before, after) {
  const words = (f, value) => {
    if (f.type === "bool") return value ? "on" : "off";
    const option = (f.options ?? []).find(([v]) => String(v) === String(value));
    return option ? option[1] : String(value);
  };
  const changes = [];
  for (const f of shown(game)) {
    const was = before.settings?.[f.key] ?? f.default;
    const now = after.settings?.[f.key] ?? f.default;
    if (String(was) !== String(now) && matters(game, f, after.settings ?? {})) changes.push(`${f.label}: ${words(f, now)}`);
  }
  if (before.capacity !== after.capacity) changes.push(`Seats: ${after.capacity}`);
  if (before.public !== after.public) changes.push(after.public ? "Listed in the lobby" : "Not listed in the lobby");
  if (before.has_password !== after.has_password) changes.push(after.has_password ? "Password set" : "No password");
  return changes;
}

