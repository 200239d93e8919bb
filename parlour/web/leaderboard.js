// The leaderboard page /leaderboard/<game>: players with enough games of it, by wins then win rate.

import "./theme.js";
import { getJson, myProfile, percent, playerLink, showError } from "./stats.js";
import { $, el, markOverflow } from "./ui.js";

const main = $("#stats");

async function show() {
  const catalog = (await getJson("/api/catalog")).body.games ?? [];
  // No game named: the one this browser played last (every board opened on the first game's), else that.
  const last = catalog.find((g) => g.name === localStorage.getItem("parlour.lastGame"))?.name;
  const wanted = location.pathname.match(/^\/leaderboard\/([a-z_]+)\/?$/)?.[1] ?? last ?? catalog[0]?.name;
  const { status, body } = await getJson(`/api/leaderboard/${encodeURIComponent(wanted)}`);
  if (status !== 200) {
    showError(main, "This server offers no such game.");
    return;
  }
  document.title = `${body.title} leaderboard — Parlour`;
  const { stats, rates } = body.labels;
  const head = ["#", "Player", "Played", "Won", ...rates.map(([, label]) => label), ...stats.map(([, label]) => label)];
  const rows = body.players.map((row) =>
    el(
      "tr",
      { class: row.profile === myProfile() ? "me" : null },
      el("td", {}, String(row.rank)),
      el("th", { scope: "row" }, playerLink({ profile: row.profile, name: row.name })), // a bot's name says its level
      el("td", {}, String(row.played)),
      el("td", {}, String(row.won)),
      rates.map(([key]) => el("td", {}, percent(row.rates[key]))),
      stats.map(([key]) => el("td", {}, String(row.stats[key] ?? 0))),
    ),
  );
  main.replaceChildren(
    el("h1", { class: "tagline" }, `${body.title} leaderboard`),
    el("nav", { class: "row wrap board-tabs", "aria-label": "Games" }, catalog.map((g) => el("a", { href: `/leaderboard/${g.name}`, "aria-current": g.name === body.game ? "page" : null }, g.title))),
    el(
      "section",
      { class: "panel board" },
      rows.length
        ? el("div", { class: "board-scroll" }, el("table", { class: "board-table" }, el("thead", {}, el("tr", {}, head.map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, rows)))
        : el("p", { class: "muted" }, `Nobody has finished ${body.min_games} games of ${body.title} yet.`),
      el("p", { class: "muted" }, `Players with at least ${body.min_games} finished games; bots are listed by level.`),
    ),
  );
  const scroll = $(".board-scroll");
  if (scroll) {
    const mark = () => markOverflow(scroll);
    scroll.addEventListener("scroll", mark);
    addEventListener("resize", mark);
    mark();
  }
}

show();
