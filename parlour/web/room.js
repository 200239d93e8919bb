// The room screen: header, players and spectators, chat, the waiting room,
// the game table (delegated to the game's module) and the game-over panel.

import { GAMES, TABLES, title } from "./catalog.js";
import { capacityField, describeSettings, readSettings, settingsFields } from "./settings.js";
import { $, choose, confirmDialog, el, fill, morph } from "./ui.js";

const STATE_TEXT = { waiting: "Waiting for players", countdown: "Starting soon", playing: "Playing", finished: "Game over" };

/** Everything the table modules need to know about the current room. */
export function tableContext(room, app) {
  const seats = room.play?.seats ?? [];
  const mine = seats.find((s) => s.member === room.you?.member);
  return {
    seat: mine ? mine.seat : null, // null: watching (spectator, or seated after this game began)
    name: (seat) => seats.find((s) => s.seat === seat)?.name ?? `Seat ${seat + 1}`,
    act: (action) => app.act(action),
    rerender: () => renderStage(room, app),
  };
}

export function renderRoom(room, app) {
  fill($("#room-code"), room.code);
  fill(
    $("#room-status"),
    el("span", { class: "badge game" }, title(room.kind)),
    el("span", {}, STATE_TEXT[room.state] ?? room.state),
  );
  morph($("#host-tools"), isHost(room) ? hostTools(room, app) : null);
  renderMembers(room, app);
  renderStage(room, app);
}

/** The host's room-wide controls, each behind a confirmation. */
function hostTools(room, app) {
  const ask = (title, text, yes, type) => async () => {
    if (await confirmDialog(title, text, yes)) app.send(type);
  };
  return [
    room.state === "playing"
      ? el("button", { class: "small", onclick: ask("End this game?", "Everyone goes back to the waiting room; the game is not scored.", "End game", "reset") }, "End game")
      : null,
    el("button", { class: "small", onclick: ask("Close the room?", "Everyone is sent back to the start screen.", "Close room", "terminate") }, "Close room"),
  ];
}

function isHost(room) {
  return room.host === room.you?.member;
}

function renderMembers(room, app) {
  const host = isHost(room);
  const turnSeat = room.state === "playing" ? room.play?.turn?.seat : null;
  const players = room.members.filter((m) => m.role === "player").sort((a, b) => a.seat - b.seat);
  const spectators = room.members.filter((m) => m.role === "spectator");
  const badges = (m) => [
    m.host ? el("span", { class: "badge host", title: "Host" }, "♛ host") : null,
    m.id === room.you?.member ? el("span", { class: "badge you" }, "you") : null,
    m.bot ? el("span", { class: "badge bot" }, "bot") : null,
    !m.connected && !m.bot ? offline(m, room) : null,
    m.replaced ? el("span", { class: "badge bot", title: "A bot plays this seat until they are back" }, "bot playing") : null,
    m.role === "player" && ["waiting", "countdown"].includes(room.state)
      ? el("span", { class: `badge ${m.ready ? "ready" : "unready"}` }, m.ready ? "✓ ready" : "not ready")
      : null,
    m.role === "player" && turnSeat === m.seat ? el("span", { class: "badge turn" }, "to play") : null,
  ];
  const controls = (m) =>
    host && m.id !== room.you.member
      ? el(
        "span",
        { class: "member-controls" },
        m.bot ? null : el("button", { class: "small", onclick: () => app.send("transfer_host", { member: m.id }), "aria-label": `Make ${m.name} host` }, "Make host"),
        el("button", { class: "small danger", onclick: () => app.kick(m), "aria-label": `Kick ${m.name}` }, "Kick"),
      )
      : null;
  const item = (m) =>
    el("li", { class: `member ${m.connected || m.bot ? "" : "away"}`, dataset: { member: m.id } }, el("span", { class: "member-name" }, m.name), badges(m), controls(m));
  morph($("#players"), players.map(item));
  morph($("#spectators"), spectators.length ? spectators.map(item) : el("li", { class: "muted" }, "nobody watching"));
}

/** "offline", counting down the seconds the seat still waits for them when the server said so. */
function offline(m, room) {
  const deadline = m.replaced ? null : room.grace?.[m.id];
  if (!deadline) return el("span", { class: "badge off" }, "offline");
  const after = room.state === "playing" && room.bots_take_over !== false && m.role === "player" ? "a bot takes over" : "they leave the room";
  return el(
    "span",
    { class: "badge off", dataset: { deadline }, title: `Their seat is kept until the countdown ends; then ${after}.` },
    "offline · ",
    el("span", { class: "timer-text" }, String(Math.ceil((deadline - Date.now()) / 1000))),
    " s",
  );
}

export function renderStage(room, app) {
  const stage = $("#stage");
  stage.dataset.seq = room.play?.seq ?? ""; // lets tests (and debugging) see which game message is shown
  if (room.state === "playing" && room.play) {
    const table = el("div", { class: "table-host" });
    TABLES[room.kind].render(table, room.play.view, tableContext(room, app));
    morph(stage, turnTimer(room), table);
  } else if (room.state === "finished" && room.play) {
    const table = el("div", { class: "table-host final" });
    TABLES[room.kind].render(table, room.play.view, tableContext(room, app));
    morph(stage, gameOver(room, app), table);
  } else {
    morph(stage, waiting(room, app));
  }
  updateTimers();
}

function waiting(room, app) {
  const host = isHost(room);
  const you = room.members.find((m) => m.id === room.you?.member);
  const players = room.members.filter((m) => m.role === "player");
  const game = GAMES[room.kind];
  const enough = players.length >= game.min_players;
  const countdown = room.countdown;
  return el(
    "div",
    { class: "panel waiting" },
    el("h2", {}, `${game.title} — ${players.length}/${room.capacity} players`),
    el("p", { class: "settings-summary" }, describeSettings(room.kind, room.settings)),
    el("p", { class: "muted" }, `${room.public ? "Public" : "Private"} room${room.has_password ? " · password" : ""}${room.bots_take_over ? " · bots replace dropouts" : ""} · share the code or the link to invite friends`),
    countdown
      ? el("p", { class: "countdown", role: "timer" }, "Starting in ", el("strong", { class: "timer-text", dataset: { deadline: countdown.localDeadline } }, ""), " s")
      : null,
    el(
      "div",
      { class: "row wrap" },
      you?.role === "player"
        ? el("button", { class: `big ${you.ready ? "" : "primary"}`, "aria-pressed": String(you.ready), onclick: () => app.send("ready", { ready: !you.ready }) }, you.ready ? "✓ Ready — click to unready" : "I'm ready")
        : null,
      host
        ? el("button", { class: "big primary", disabled: !enough, onclick: () => app.send("start"), title: enough ? "" : `Needs ${game.min_players} players` }, "Start game")
        : el("button", { class: "big", disabled: true }, "Waiting for the host to start"),
    ),
    enough ? null : el("p", { class: "muted" }, `${game.title} needs at least ${game.min_players} players.`),
    el("details", { class: "rules" }, el("summary", {}, `How to play ${game.title}`), el("p", {}, game.how_to_play)),
    el(
      "div",
      { class: "row wrap" },
      host ? el("button", { onclick: () => editSettings(room, app) }, "Settings…") : null,
      host && players.length < room.capacity
        ? game.bots.map((level) => el("button", { onclick: () => app.send("add_bot", { level }) }, `Add ${level} bot`))
        : null,
      you?.role === "spectator" && players.length < room.capacity ? el("button", { onclick: () => app.send("take_seat") }, "Take a seat") : null,
      you?.role === "player" ? el("button", { onclick: () => app.send("become_spectator") }, "Just watch") : null,
    ),
  );
}

async function editSettings(room, app) {
  const body = el(
    "div",
    { class: "settings-grid" },
    capacityField(room.kind, room.capacity),
    settingsFields(room.kind, room.settings),
    el("label", { class: "check" }, el("input", { type: "checkbox", name: "public", checked: room.public }), " Public"),
    el("label", { class: "check" }, el("input", { type: "checkbox", name: "bots_take_over", checked: room.bots_take_over !== false }), " A bot plays for anyone who drops out"),
    el("label", {}, "New password ", el("input", { type: "password", name: "password", maxlength: 64, placeholder: room.has_password ? "unchanged" : "none" })),
    room.has_password ? el("label", { class: "check" }, el("input", { type: "checkbox", name: "nopassword" }), " Remove the password") : null,
  );
  const answer = await choose("Room settings", body, [{ label: "Cancel", value: "cancel" }, { label: "Save", value: "save", class: "primary" }]);
  if (answer !== "save") return;
  const form = $("#dialog form");
  const fields = {
    settings: readSettings(form, room.kind),
    capacity: Number(form.elements.capacity.value),
    public: form.elements.public.checked,
    bots_take_over: form.elements.bots_take_over.checked,
  };
  if (form.elements.nopassword?.checked) fields.password = "";
  else if (form.elements.password.value) fields.password = form.elements.password.value;
  app.send("update_settings", fields);
}

function gameOver(room, app) {
  const outcome = room.outcome ?? { winners: [], scores: {} };
  const ctx = tableContext(room, app);
  const winners = outcome.winners.map(ctx.name);
  const headline = outcome.tie ? `Tie: ${winners.join(" & ")}` : winners.length ? `${winners[0]} wins!` : "Nobody won";
  const you = room.members.find((m) => m.id === room.you?.member);
  const seats = room.play.seats.map((s) => s.seat);
  const scoreLabel = GAMES[room.kind]?.score_label ?? "score";
  return el(
    "section",
    { class: "panel game-over", "aria-labelledby": "over-title" },
    el("h2", { id: "over-title" }, "★ ", headline),
    outcome.reason && outcome.reason !== "finished" ? el("p", { class: "muted" }, reasonText(outcome.reason)) : null,
    el(
      "table",
      { class: "scores" },
      el("thead", {}, el("tr", {}, el("th", {}, "Player"), el("th", {}, scoreLabel))),
      el(
        "tbody",
        {},
        seats.map((seat) =>
          el(
            "tr",
            { class: outcome.winners.includes(seat) ? "winner" : "" },
            el("td", {}, ctx.name(seat), outcome.winners.includes(seat) ? " ★ winner" : ""),
            el("td", {}, String(outcome.scores[seat] ?? outcome.scores[String(seat)] ?? "–")),
          ),
        ),
      ),
    ),
    you?.role === "player" ? el("button", { class: "big primary", onclick: () => app.send("rematch") }, "Rematch") : null,
  );
}

function reasonText(reason) {
  return {
    last_player: "Everyone else left.",
    not_enough_players: "Not enough players to continue.",
    abandoned: "The game was abandoned.",
  }[reason] ?? reason.replaceAll("_", " ");
}

function turnTimer(room) {
  const turn = room.play.turn;
  const total = room.settings?.turn_timer;
  if (!turn?.localDeadline || !total) return null;
  return el(
    "div",
    { class: "turn-timer", role: "timer", "aria-label": "Turn timer", dataset: { deadline: turn.localDeadline, total } },
    el("div", { class: "timer-fill" }),
    el("span", { class: "timer-text" }, ""),
  );
}

/** Tick every visible countdown: the turn timer bar (green → yellow → red) and the start countdown. */
export function updateTimers() {
  const now = Date.now();
  for (const node of document.querySelectorAll("[data-deadline]")) {
    const left = Math.max(0, (Number(node.dataset.deadline) - now) / 1000);
    const text = node.classList.contains("timer-text") ? node : node.querySelector(".timer-text");
    if (text) text.textContent = node.dataset.total ? `${Math.ceil(left)} s` : String(Math.ceil(left));
    if (node.dataset.total) {
      const total = Number(node.dataset.total);
      node.querySelector(".timer-fill").style.width = `${Math.min(100, (100 * left) / total)}%`;
      node.dataset.level = left > Math.max(10, total / 2) ? "ok" : left > 5 ? "warn" : "urgent";
    }
  }
}

export function appendChat(message, room) {
  const log = $("#chat-log");
  const mine = message.member === room?.you?.member;
  log.append(el("li", { class: mine ? "mine" : "" }, el("strong", {}, message.name), ": ", el("span", { class: "chat-text" }, message.text)));
  while (log.children.length > 100) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
}
