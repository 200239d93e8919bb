// The games this server offers, as GET /api/catalog describes them (title, seats, settings schema,
// bots), and each game's table module, loaded by name from /<name>.js. Nothing here names a game.

/** Catalog entries by game name, in the order the server lists them. */
export const GAMES = {};
/** Table modules by game name: render(stage, view, ctx), onEvent(event, name, seat), reset(), and
 * optionally resultColumns(view, score, log, left): the results table's [label, seat => text] columns
 * (`left`: the seats whose player left or was kicked),
 * resultNotes(view, ctx, log): a line under them (UNO's rounds, how Cheat was won), FEWER_IS_BETTER: the results rank the
 * lowest score first (Cheat's cards left), resultTiebreak(view): seat => a number, lowest first, for
 * results tied on score (UNO's cards left), and
 * resume(events): its marks rebuilt from a snapshot's game-log events; LOG_ICONS and optionally
 * logExtra(entry, ctx) and logPoint(entry) (a selector of what the entry names on the table) for the
 * game log (gamelog.js). */
export const TABLES = {};

export async function loadCatalog() {
  const reply = await fetch("/api/catalog");
  const { games } = await reply.json();
  for (const game of games) GAMES[game.name] = game;
  await Promise.all(
    games.map(async (game) => {
      TABLES[game.name] = await import(`./${game.name}.js`);
    }),
  );
}

/** A game's display name (its wire name if the server does not list it). */
export const title = (name) => GAMES[name]?.title ?? name;

// Why the room itself ended a game before its rules did (docs/protocol.md, "Rooms").
const ROOM_ENDS = {
  reset: "The host ended the game.",
  terminated: "The host closed the room.",
  idle: "The room closed after everyone had left.",
  deserted: "Every player left the game.",
};

/** Why the room (not the game's rules) ended a game, in a sentence; null for the rules' own ends. */
export const roomEnd = (reason) => ROOM_ENDS[reason] ?? null;

/** Why a game ended, in a sentence: `entry` is the game's catalog entry (its `end_reasons`), `reason`
 * the outcome's; null for a game its rules finished the ordinary way. */
export function endReason(entry, reason) {
  if (!reason || reason === "finished") return null;
  return entry?.end_reasons?.[reason] ?? ROOM_ENDS[reason] ?? `${reason[0].toUpperCase()}${reason.slice(1).replaceAll("_", " ")}.`;
}
