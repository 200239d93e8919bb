// The profile page /p/<id>: a player's totals per game and their recent games.

import "./theme.js";
import { getJson, gone, myProfile, percent, playerLink, resultText, showError, when } from "./stats.js";
import { $, el } from "./ui.js";

const main = $("#stats");
const id = decodeURIComponent(location.pathname.replace(/^\/p\//, "").replace(/\/$/, ""));

function gamePanel(totals) {
  const figures = [
    ["Played", totals.played],
    ["Won", totals.won],
    ...totals.labels.rates.map(([key, label]) => [label, percent(totals.rates[key])]),
    ...totals.labels.stats.map(([key, label]) => [label, totals.stats[key]]),
  ];
  return el(
    "section",
    { class: "panel stat-game", "aria-label": `${totals.title} stats` },
    el("h2", {}, totals.title),
    el("dl", { class: "figures" }, figures.map(([label, value]) => el("div", {}, el("dt", {}, label), el("dd", {}, String(value))))),
    el("a", { href: `/leaderboard/${totals.game}` }, `${totals.title} leaderboard →`),
  );
}

/** How this page's player did in `game`: "won", "tied", "lost", "left" or "kicked"; null when nobody
 * won (a game the room ended). The row said only "Bo won", not how they had done. */
function theirPart(game) {
  const them = game.players.find((p) => p.profile === id);
  if (!them) return null;
  const left = gone(them);
  if (left) return left;
  if (!game.result.winners.length) return null;
  if (!game.result.winners.includes(them.seat)) return "lost";
  return game.result.tie ? "tied" : "won";
}

function recentRow(game) {
  const part = theirPart(game);
  return el(
    "li",
    { class: "recent-game", dataset: { game: game.id } },
    el("span", { class: "recent-title" }, game.players.length ? `${titleOf(game.game)}` : game.game, game.private ? el("span", { class: "badge" }, "private") : null),
    el("span", { class: "recent-players" }, game.players.flatMap((p, i) => [i ? " · " : null, playerLink(p), gone(p) ? el("span", { class: "muted" }, ` (${gone(p)})`) : null])),
    el("span", { class: "recent-result" }, part ? [el("span", { class: `badge part ${part}` }, part), " "] : null, resultText(game, games[game.game])),
    el("span", { class: "muted recent-when" }, when(game.ended_at)),
    el("a", { href: `/g/${game.id}` }, "Replay"),
  );
}

let games = {}; // the catalog's entries by name
const titleOf = (name) => games[name]?.title ?? name;

async function show() {
  const [{ status, body }, catalog] = await Promise.all([getJson(`/api/players/${encodeURIComponent(id)}`), getJson("/api/catalog")]);
  if (status !== 200) {
    showError(main, "No player has this profile (yet): it appears once they have finished a game.");
    return;
  }
  games = Object.fromEntries((catalog.body.games ?? []).map((g) => [g.name, g]));
  document.title = `${body.name} — Parlour`;
  const mine = body.id === myProfile();
  main.replaceChildren(
    el("h1", { class: "tagline" }, body.name, body.bot ? el("span", { class: "badge" }, `${body.bot} bot`) : null, mine ? el("span", { class: "badge me" }, "you") : null),
    body.games.length
      ? el("div", { class: "stat-grid" }, body.games.map(gamePanel))
      : el("p", { class: "panel muted" }, "No finished games yet."),
    el(
      "section",
      { class: "panel recent" },
      el("h2", {}, "Recent games"),
      body.recent.length
        ? el("ul", { class: "recent-list" }, body.recent.map(recentRow))
        // Games counted above but not listed are private rooms' ("Played 1", and a bare "None to show").
        : el("p", { class: "muted", dataset: { testid: "no-recent" } }, body.games.length && !mine ? "None to show: games in unlisted or password rooms are shown to their players only." : "None to show."),
    ),
  );
}

show();
