// Shared by the profile and leaderboard pages: the history API (with this browser's profile, so
// its private games show) and how a player, a result and a rate read.

import { endReason } from "./catalog.js";
import { profileHeaders, storedProfile } from "./identity.js";
import { el } from "./ui.js";

/** GET a history API path; {status, body}. */
export async function getJson(path) {
  const reply = await fetch(path, { headers: profileHeaders() });
  return { status: reply.status, body: await reply.json() };
}

export const myProfile = () => storedProfile()?.id ?? null;

export const percent = (rate) => (rate == null ? "—" : `${Math.round(rate * 100)}%`); // null: nothing to rate

/** A player's name linking to their page (bots to their level's), marked when it is this browser. */
export function playerLink(player) {
  const label = player.bot ? `${player.name} (${player.bot} bot)` : player.name;
  if (!player.profile) return el("span", {}, label);
  const mine = player.profile === myProfile();
  return el("a", { href: `/p/${encodeURIComponent(player.profile)}`, class: mine ? "me" : null }, label);
}

/** Why a player's seat emptied mid-game ("kicked" or "left"), or null while they played on. */
export const gone = (seat) => (seat.left ? (seat.kicked ? "kicked" : "left") : null);

/** "Ada won", "Ada and Bob tied", or why a game ended without a winner (`entry`: the game's catalog entry). */
export function resultText(game, entry) {
  const names = game.result.winners.map((seat) => game.players.find((p) => p.seat === seat)?.name ?? `Seat ${seat + 1}`);
  if (!names.length) return `No winner. ${endReason(entry, game.result.reason) ?? ""}`.trim();
  return `${names.join(" and ")} ${game.result.tie ? "tied" : "won"}`;
}

export function when(seconds) {
  return new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function showError(main, text) {
  main.replaceChildren(el("section", { class: "panel" }, el("h1", {}, "Not found"), el("p", { class: "muted" }, text), el("p", {}, el("a", { href: "/" }, "Back to the lobby"))));
}
