// The room screen: header, players and spectators, chat, the waiting room,
// the game table (delegated to the game's module) and the game-over panel.

import { GAMES, TABLES, endReason, title } from "./catalog.js";
import { renderLog } from "./gamelog.js";
import { capacityField, catchDelayField, describeSettings, readCatchDelay, readSettings, rulesInPlay, settingsFields } from "./settings.js";
import { gone, when } from "./stats.js";
import { $, $$, choose, confirmDialog, el, fill, markOverflow, markOverflowY, morph, sentence } from "./ui.js";

const STATE_TEXT = { waiting: "Waiting for players", countdown: "Starting soon", playing: "Playing", finished: "Game over" };

/** The seat whose move the game waits for, or null: nobody's while the game rests between rounds
 * (the room's clock then times the pause, `turn.pause`, not a move). */
export function seatOnTurn(play) {
  return play?.turn && !play.turn.pause ? play.turn.seat : null;
}

/** Everything the table modules need to know about the current room. */
export function tableContext(room, app) {
  const seats = room.play?.seats ?? [];
  const mine = seats.find((s) => s.member === room.you?.member);
  const memberAt = (seat) => {
    const id = seats.find((s) => s.seat === seat)?.member;
    return room.members?.find((x) => x.id === id);
  };
  return {
    seat: mine ? mine.seat : null, // null: watching (spectator, or seated after this game began)
    /** The seat called "you": the person's own (a replay's view of another seat is not theirs). */
    you: mine ? mine.seat : null,
    name: (seat) => seats.find((s) => s.seat === seat)?.name ?? `Seat ${seat + 1}`,
    kicked: (seat) => Boolean(seats.find((s) => s.seat === seat)?.kicked),
    /** The seat's player's colour (an index for `ui.seatColour`), theirs from game to game
     * (docs/protocol.md, `seats`); a seat's own in a game from before colours. */
    colour: (seat) => seats.find((s) => s.seat === seat)?.colour ?? seat,
    act: (action) => app.act(action),
    /** "bot", "offline · bot in 12 s" (the seconds the seat still waits), "bot playing" or "left" on a seat
     * chip, so nobody has to look at the side panel to know why a seat does not move. */
    presence: (seat) => {
      const m = memberAt(seat);
      // A seat of this game whose player left it or was kicked, or left the room once it was over.
      // One a bot played for to the end was let go then too, and is a new member when back: found by
      // name (unique in a room), their chip is theirs again (it had said "left" with them back).
      if (!m) {
        const emptied = seats.find((s) => s.seat === seat);
        if (!emptied) return null;
        const back = emptied.left ? null : room.members?.find((x) => !x.bot && x.name === emptied.name);
        if (back) return back.connected ? null : offline(back, room);
        return el("span", { class: "badge left" }, gone({ left: true, ...emptied }));
      }
      // The level gives way on a small screen's chips (styles.css); the players' list says it in full.
      if (m.bot) return el("span", { class: "badge bot" }, m.level ? el("span", { class: "level" }, `${m.level} `) : null, "bot");
      if (m.replaced) return el("span", { class: "badge bot", title: "A bot plays this seat until they are back" }, "bot", el("span", { class: "more" }, " playing"));
      return m.connected ? null : offline(m, room);
    },
    /** The seat's player dropped out and no bot plays for them (yet): the seat is waiting, not thinking. */
    absent: (seat) => {
      const m = memberAt(seat);
      return Boolean(m && !m.bot && !m.connected && !m.replaced);
    },
    rerender: () => renderStage(room, app),
    /** The game's rest (UNO between rounds) with its clock's `localDeadline`, or null. */
    pause: room.state === "playing" && room.play?.turn?.pause ? room.play.turn : null,
  };
}

export function renderRoom(room, app) {
  $("#screen-room").dataset.state = room.state; // narrow screens place toasts by it (styles.css)
  fill($("#room-code"), room.code);
  fill(
    $("#room-status"),
    el("span", { class: "badge game" }, title(room.kind)),
    // A finished room shows its results only to who saw the game; the others see the waiting room.
    el("span", { dataset: { testid: "room-state" } }, stateText(room)),
  );
  // Two places, one shown (styles.css): beside the room code, or on a phone under the players, where
  // the room's heading line has no room for them and a stray thumb does not find them mid-game.
  morph($("#host-tools"), isHost(room) ? hostTools(room, app) : null);
  morph($("#host-tools-side"), isHost(room) ? hostTools(room, app) : null);
  renderMembers(room, app);
  renderStage(room, app);
  renderLog(room, tableContext(room.play ? room : { ...room, play: room.results?.play }, app), TABLES[room.kind]);
}

/** The host's room-wide controls, each behind a confirmation. */
function hostTools(room, app) {
  const ask = (title, text, yes, type) => async () => {
    if (await confirmDialog(title, text, yes)) app.send(type);
  };
  return [
    room.state === "playing"
      // A quick-play room's clock starts the next game on its own: said (it read as a pause).
      ? el("button", { class: "small", onclick: ask("End this game?", `Everyone goes back to the waiting room; the game is not scored.${room.quick_play ? " Quick play then starts a new game after its countdown." : ""}`, "End game", "reset") }, "End game")
      : null,
    el("button", { class: "small", onclick: ask("Close the room?", "Everyone is sent back to the start screen.", "Close room", "terminate") }, "Close room"),
  ];
}

/** The room's state in words: a finished room shows its results only to who saw the game (the others
 * see the waiting room), and a waiting room whose game is about to start says so, as its panel does. */
function stateText(room) {
  if (room.state === "finished" && !room.results) return STATE_TEXT.waiting;
  // The results still on this screen, under a rematch asked for or new settings (the room waits again):
  // "Waiting for players" had stood over them. A countdown under way is still said.
  if (room.results && room.state === "waiting" && !room.countdown) return STATE_TEXT.finished;
  // A countdown's start and end come as `countdown` messages, which leave `state` as the snapshot had it.
  if (["waiting", "countdown"].includes(room.state)) return room.countdown ? STATE_TEXT.countdown : STATE_TEXT.waiting;
  // Someone with no seat in the game being played is told so where the others read "Playing" (only the
  // Spectators list said it).
  if (room.state === "playing" && !room.play?.seats?.some((s) => s.member === room.you?.member)) return "Watching";
  return STATE_TEXT[room.state] ?? room.state;
}

function isHost(room) {
  return room.host === room.you?.member;
}

function renderMembers(room, app) {
  const host = isHost(room);
  const turnSeat = room.state === "playing" ? seatOnTurn(room.play) : null;
  const players = room.members.filter((m) => m.role === "player").sort((a, b) => a.seat - b.seat);
  const spectators = room.members.filter((m) => m.role === "spectator");
  const badges = (m) => [
    m.host ? el("span", { class: "badge host", title: "Host" }, "♛ host") : null,
    m.id === room.you?.member ? el("span", { class: "badge you" }, "you") : null,
    m.bot ? el("span", { class: "badge bot" }, botWords(m)) : null,
    !m.connected && !m.bot ? offline(m, room) : null,
    m.replaced ? el("span", { class: "badge bot", title: "A bot plays this seat until they are back" }, "bot playing") : null,
    // Quick play starts on its own clock: nobody readies up, so no "not ready" either.
    m.role === "player" && !room.quick_play && ["waiting", "countdown"].includes(room.state)
      ? el("span", { class: `badge ${m.ready ? "ready" : "unready"}` }, m.ready ? "✓ ready" : "not ready")
      : null,
    m.role === "player" && turnSeat === m.seat ? el("span", { class: "badge turn" }, "to play") : null,
  ];
  // Rename between games (the server takes it mid-game too): at the table the button widened your row,
  // and with "to play" beside it the row wrapped and pushed the panel into scrolling at 1280 × 800.
  const controls = (m) =>
    m.id === room.you?.member
      ? room.state === "playing"
        ? null
        : el("span", { class: "member-controls" }, el("button", { class: "small", onclick: () => app.rename(m), "aria-label": "Rename yourself" }, "Rename"))
      : host
      ? el(
        "span",
        { class: "member-controls" },
        // Not to someone offline (the server refuses: the room would wait on a host who is away); the
        // button also widened an offline row past the panel's width at 1280 × 800.
        m.bot || !m.connected ? null : el("button", { class: "small", onclick: () => app.makeHost(m), "aria-label": `Make host: ${m.name}` }, "Make host"),
        el("button", { class: "small danger", onclick: () => app.kick(m), "aria-label": `${m.bot ? "Remove" : "Kick"} ${m.name}` }, m.bot ? "Remove" : "Kick"),
      )
      : null;
  const item = (m) =>
    el("li", { class: `member ${m.connected || m.bot ? "" : "away"}`, dataset: { member: m.id } }, el("span", { class: "member-name" }, m.name), badges(m), controls(m));
  morph($("#players"), players.map(item));
  morph($("#spectators"), spectators.length ? spectators.map(item) : el("li", { class: "muted" }, "nobody watching"));
  // Mid-game an empty audience says nothing worth its lines: five players and the host's buttons filled
  // the panel at 1280 × 800, and "nobody watching" was cut off half-way.
  $("#spectators-title").hidden = $("#spectators").hidden = room.state === "playing" && !spectators.length;
  markOverflowY($(".players-panel"));
}

/** "offline", counting down the seconds the seat still waits for them when the server said so. */
function offline(m, room) {
  const deadline = m.replaced ? null : room.grace?.[m.id];
  if (!deadline) return el("span", { class: "badge off" }, "offline");
  const bot = room.state === "playing" && room.bots_take_over !== false && m.role === "player";
  const after = bot ? "a bot takes over" : "they leave the room";
  return el(
    "span",
    { class: "badge off", dataset: { deadline }, title: `Their seat is kept until the countdown ends; then ${after}.` },
    // What the countdown is for, said on the badge too (a phone shows no title). Short of room (a phone's
    // seat chips, the Players panel beside the table: styles.css) it reads "bot in 56 s": "offline 56 s"
    // read as how long they had been gone.
    bot ? [el("span", { class: "more" }, "offline · "), "bot in "] : "offline · ",
    el("span", { class: "timer-text" }, String(Math.ceil((deadline - Date.now()) / 1000))),
    " s",
  );
}

export function renderStage(room, app) {
  const stage = $("#stage");
  stage.dataset.seq = room.play?.seq ?? ""; // lets tests (and debugging) see which game message is shown
  if (room.state === "playing" && room.play) {
    const table = el("div", { class: "table-host" });
    const ctx = tableContext(room, app);
    TABLES[room.kind].render(table, room.play.view, ctx);
    morph(stage, room.play.turn?.away ? allAway() : turnTimer(room, ctx), table);
  } else if (room.results) {
    const shown = { ...room, play: room.results.play };
    const table = el("div", { class: "table-host final" });
    TABLES[room.kind].render(table, room.results.play.view, tableContext(shown, app));
    morph(stage, gameOver(room, app), table);
  } else {
    morph(stage, waiting(room, app));
  }
  for (const hand of $$("#stage .dock .hand")) markOverflow(hand); // a render resets their classes
  updateTimers();
}

/** The host may start before everyone is ready (the countdown starts the game by itself once they
 * are): the button says who is not, so that nobody is started on by surprise. */
function startLabel(players, you) {
  const unready = players.filter((m) => !m.ready && m !== you);
  if (!unready.length) return "Start game";
  return `Start game (${unready.length === 1 ? `${unready[0].name} isn't ready` : `${unready.length} not ready`})`;
}

/** Start now, asked first while someone has not said they are ready: a host's one click had pulled
 * friends still reading the last game's results into the next. */
async function startNow(players, you, app) {
  const unready = players.filter((m) => !m.ready && m !== you).map((m) => m.name);
  if (unready.length) {
    const names = unready.length === 1 ? unready[0] : `${unready.slice(0, -1).join(", ")} and ${unready.at(-1)}`;
    const they = unready.length === 1 ? "They have" : "They have each";
    const asked = await confirmDialog(`Start without waiting for ${names}?`, `${they} not said they are ready: the game starts for them at once.`, "Start now", { kind: "primary" });
    if (!asked) return;
  }
  app.send("start");
}

/** What a guest's game waits for. A greyed "Waiting for the host to start" said only the host could
 * start it, but everyone ready starts it too: one who had asked for a rematch read it, and the game
 * then began by itself. */
function startsWhen(room, players, you, enough) {
  if (!enough) return "Waiting for more players.";
  const host = room.host === you?.id ? "you" : (room.members.find((m) => m.id === room.host)?.name ?? "the host");
  const unready = [...players.filter((m) => !m.ready && m !== you).map((m) => m.name), ...(you?.role === "player" && !you.ready ? ["you"] : [])];
  const lead = room.rematch?.member === you?.id ? "You asked for a rematch: it starts" : "The game starts";
  const list = unready.length > 1 ? `${unready.slice(0, -1).join(", ")} and ${unready.at(-1)}` : unready[0];
  const starts = host === "you" ? "you start" : `${host} starts`;
  return unready.length ? `${lead} once everyone is ready (not yet: ${list}), or when ${starts} it.` : `Waiting for ${host} to start.`;
}

/** What quick play's clock waits for: more players, or (every seat taken) nobody. */
function quickNote(countdown, full, game) {
  if (!countdown) return `Quick play: the game starts shortly after ${game.min_players} players are in.`;
  return full ? "Quick play: every seat is taken." : "Quick play: more players may still join before the start.";
}

function waiting(room, app) {
  const host = isHost(room);
  const you = room.members.find((m) => m.id === room.you?.member);
  const players = room.members.filter((m) => m.role === "player");
  const game = GAMES[room.kind];
  const enough = players.length >= game.min_players;
  const countdown = room.countdown;
  // A spectator's seat, offered first, where a player's "I'm ready" stands (it sat under a phone's fold);
  // quick play has no such row, and offers it with the room's other buttons.
  const canSit = you?.role === "spectator" && players.length < room.capacity && !seatNeedsPassword(room);
  const sit = canSit ? el("button", { class: "big primary", onclick: () => app.send("take_seat") }, "Take a seat") : null;
  return el(
    "div",
    { class: "panel waiting" },
    el("h2", {}, `${game.title} — ${players.length}/${room.capacity} players`),
    el("p", { class: "settings-summary" }, describeSettings(room.kind, room.settings, room.bot_catch_delay)),
    // "Private" said invite-only; anyone with the link or the code may join an unlisted room.
    el("p", { class: "muted" }, `${room.public ? "Listed in the lobby" : "Not listed: join by link or code"}${room.has_password ? " · password" : ""}${room.bots_take_over ? " · bots replace dropouts" : ""}`),
    countdown
      ? el("p", { class: "countdown", role: "timer" }, "Starting in ", el("strong", { class: "timer-text", dataset: { deadline: countdown.localDeadline } }, ""), " s")
      : null,
    room.quick_play
      ? el("p", { class: "muted", dataset: { testid: "quick-note" } }, quickNote(countdown, players.length >= room.capacity, game))
      : el(
      "div",
      { class: "row wrap" },
      you?.role === "player"
        ? el("button", { class: `big ${you.ready ? "" : "primary"}`, "aria-pressed": String(you.ready), onclick: () => app.send("ready", { ready: !you.ready }) }, you.ready ? "✓ Ready — click to unready" : "I'm ready")
        : sit,
      host
        ? el("button", { class: "big primary", disabled: !enough, onclick: () => startNow(players, you, app), title: enough ? "" : `Needs ${game.min_players} players` }, startLabel(players, you))
        : null,
      // The countdown says when. A host is told too once they asked for a rematch (the others may still
      // be reading the results): the Start button alone said nothing of it.
      (!host || room.rematch?.member === you?.id) && !countdown
        ? el("p", { class: "muted", dataset: { testid: "starts-when" } }, startsWhen(room, players, you, enough))
        : null,
    ),
    // Short of players, the host's way to play now (bots) stands by the words that say so; it was under
    // the invitation, below a phone's fold.
    enough
      ? null
      : el(
        "div",
        { class: "row wrap needs-players" },
        el("p", { class: "muted" }, `${game.title} needs at least ${game.min_players} players${host && game.bots.length ? ": invite friends with the link below, or play with bots." : "."}`),
        host ? botButtons(room, game, app, players) : null,
      ),
    invitePanel(room, app),
    // Once accepted (ready), the offer is answered: it had stayed up through the countdown.
    room.rematch && room.rematch.member !== room.you?.member && !you?.ready
      ? el("p", { class: "alert" }, `${room.rematch.name} asked for a rematch: ${room.you?.role === "player" ? "ready up to accept" : "take a seat to play"}.`)
      : null,
    scoreTable(room.kind, room.scoreboard),
    recentGames(room.recent_games),
    howToPlay(room, game),
    el(
      "div",
      { class: "row wrap" },
      host ? el("button", { onclick: () => editSettings(room, app) }, "Settings…") : null,
      host && enough ? botButtons(room, game, app, players) : null,
      room.quick_play ? sit : null,
      you?.role === "player" ? el("button", { onclick: () => app.send("become_spectator") }, "Just watch") : null,
    ),
    // The bot buttons go when the seats are full: say where more seats are (a two-seat Dots room).
    host && game.bots.length && players.length >= room.capacity && room.capacity < game.max_players
      ? el("p", { class: "muted", dataset: { testid: "bots-need-seats" } }, "Every seat is taken: add seats in Settings… to add a bot.")
      : null,
    you?.role === "spectator" && seatNeedsPassword(room)
      ? el("p", { class: "muted", dataset: { testid: "seat-password" } }, "Watching needs no password here, but playing does: leave and join again with the room's password to take a seat.")
      : null,
  );
}

/** A room whose spectators came in without its password (rooms made over /dots): a seat is had only by
 * joining again with the password, so "Take a seat" would only earn an error. */
function seatNeedsPassword(room) {
  return room.has_password && room.spectators_need_password === false;
}

/** Getting friends in: the link, its QR code, the share sheet, and whether anyone else can reach us. */
function invitePanel(room, app) {
  const invite = room.invite;
  if (!invite) return null;
  return el(
    "div",
    { class: "invite", dataset: { testid: "invite" } },
    el("img", { class: "qr", src: invite.qr, alt: `QR code of the invite link ${invite.url}`, width: 148, height: 148, dataset: { testid: "qr" } }),
    el(
      "div",
      { class: "invite-text" },
      el("p", {}, "Invite friends with this link or the QR code:"),
      el("p", {}, el("code", { class: "invite-url", dataset: { testid: "invite-url" } }, invite.url)),
      // The link does not carry the password (nor should it): the one who shares it has to pass it on.
      room.has_password ? el("p", { class: "muted", dataset: { testid: "invite-password" } }, "The room has a password: tell them it too.") : null,
      el(
        "div",
        { class: "row wrap" },
        el("button", { onclick: () => app.copyLink() }, "Copy link"),
        navigator.share ? el("button", { onclick: () => app.share() }, "Share…") : null,
      ),
      // How to open the server up is for the host; a guest, who can do nothing about it, is told only why.
      invite.local_only
        ? el(
            "p",
            { class: isHost(room) ? "alert" : "muted", dataset: { testid: "local-only" } },
            isHost(room) ? "Only this computer can join: start the server with --host 0.0.0.0 (or --public-url) to invite others." : "Only this computer can join this server.",
          )
        : null,
      invite.lan.length > 1 ? el("p", { class: "muted" }, "Also on this network: ", invite.lan.slice(1).join(" · ")) : null,
    ),
  );
}

/** The host's settings dialog; `draft` and `problem`: what they saved and why the server refused it,
 * shown again in the dialog (it closed, and the edits were lost, behind a toast). */
async function editSettings(room, app, draft = null, problem = null) {
  const now = draft ?? { settings: room.settings, capacity: room.capacity, public: room.public, bots_take_over: room.bots_take_over !== false, bot_catch_delay: room.bot_catch_delay };
  const body = el(
    "div",
    { class: "settings-grid" },
    problem ? el("p", { class: "alert settings-problem", role: "alert", dataset: { testid: "settings-problem" } }, problem) : null,
    capacityField(room.kind, now.capacity),
    settingsFields(room.kind, now.settings),
    catchDelayField(room.kind, now.bot_catch_delay),
    el("label", { class: "check" }, el("input", { type: "checkbox", name: "public", checked: now.public }), " Public (listed in the lobby)"),
    el("label", { class: "check" }, el("input", { type: "checkbox", name: "bots_take_over", checked: now.bots_take_over }), " A bot plays for anyone who drops out"),
    el("label", {}, "New password ", el("input", { type: "password", name: "password", maxlength: 64, placeholder: room.has_password ? "unchanged" : "none" })),
    room.has_password ? el("label", { class: "check" }, el("input", { type: "checkbox", name: "nopassword" }), " Remove the password") : null,
  );
  const answer = await choose("Room settings", body, [{ label: "Cancel", value: "cancel" }, { label: "Save", value: "save", class: "primary", validate: true }]);
  if (answer !== "save") return;
  const form = $("#dialog form");
  const fields = {
    settings: readSettings(form, room.kind),
    capacity: Number(form.elements.capacity.value),
    public: form.elements.public.checked,
    bots_take_over: form.elements.bots_take_over.checked,
    bot_catch_delay: readCatchDelay(form),
  };
  if (form.elements.nopassword?.checked) fields.password = "";
  else if (form.elements.password.value) fields.password = form.elements.password.value;
  const { error } = await app.attempt("update_settings", fields);
  if (error) await editSettings(room, app, fields, sentence(error.message ?? "the settings were not saved"));
}

/** The results of the last game, on screen until this player leaves them (a rematch is an offer). */
function gameOver(room, app) {
  const results = room.results;
  const outcome = results.outcome ?? { winners: [], scores: {} };
  const ctx = tableContext({ ...room, play: results.play }, app);
  const winners = outcome.winners.map(ctx.name);
  const headline = outcome.tie ? `Tie: ${winners.join(" & ")}` : winners.length ? `${winners[0]} wins!` : "Nobody won";
  const you = room.members.find((m) => m.id === room.you?.member);
  const view = results.play.view;
  const scoreOf = (seat) => outcome.scores[seat] ?? outcome.scores[String(seat)];
  const score = (seat) => String(scoreOf(seat) ?? "–");
  // Ranked, as a results table is read: the winners, then who stayed to the end before who left (or was
  // kicked), each by score (fewest first where fewer is better, Cheat's cards left), then by what the
  // game says breaks a tie (UNO's cards left: its losers all score 0); seat order last. In seat order, a
  // loser with more points had stood under one with fewer, and one left with 17 cards over one with 2.
  const sign = TABLES[room.kind]?.FEWER_IS_BETTER ? 1 : -1;
  const left = new Map(results.play.seats.filter(gone).map((s) => [s.seat, ` (${gone(s)})`]));
  const tiebreak = TABLES[room.kind]?.resultTiebreak?.(view) ?? (() => 0);
  const rank = (seat) => [outcome.winners.includes(seat) ? 0 : 1, left.has(seat) ? 1 : 0, scoreOf(seat) === undefined ? Infinity : sign * scoreOf(seat), tiebreak(seat)];
  const seats = results.play.seats.map((s) => s.seat).sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || x[3] - y[3] || a - b;
  });
  // What a finished hand or board says about each player: the game's table module may say more than
  // the score its catalog entry names.
  const label = GAMES[room.kind]?.score_label ?? "score";
  const columns = TABLES[room.kind]?.resultColumns?.(view, score, results.log, left) ?? [[label[0].toUpperCase() + label.slice(1), score]];
  const helped = new Set((results.log ?? []).filter((entry) => entry.by_bot).map((entry) => entry.seat));
  const why = endReason(GAMES[room.kind], outcome.reason);
  const offer = room.rematch && room.rematch.member !== room.you?.member ? room.rematch : null;
  // Who else said yes (ready in the waiting room): "Bo asks for a rematch" stayed all alone after Cy took it.
  const taken = offer ? room.members.filter((m) => m.role === "player" && m.ready && !m.bot && m.id !== offer.member && m.id !== room.you?.member).map((m) => m.name) : [];
  const takers = taken.length > 1 ? `${taken.slice(0, -1).join(", ")} and ${taken.at(-1)} are in.` : taken.length ? `${taken[0]} is in.` : "";
  const leave = () => {
    room.results = null;
    renderRoom(room, app);
  };
  let actions;
  const freeSeat = room.members.filter((m) => m.role === "player").length < room.capacity && !seatNeedsPassword(room);
  if (you?.role !== "player") {
    // A spectator may sit down for the next game from here, before a rematch is asked for or after.
    actions = [
      freeSeat ? el("button", { class: "big primary", onclick: () => app.send("take_seat") }, "Take a seat for the next game") : null,
      room.state === "finished" ? null : el("button", { class: "big", onclick: leave }, "Back to the room"),
    ];
  } else if (room.state === "finished") {
    // Asking for a "rematch" of a game you only watched (seated since) read oddly: the same request.
    actions = [
      el("button", { class: "big primary", onclick: () => app.send("rematch") }, ctx.seat === null ? "Play the next game" : "Rematch"),
      // The rules for the next game, changed without offering it first (Rematch was the only way on).
      isHost(room) ? el("button", { class: "big", onclick: () => editSettings(room, app) }, "Settings…") : null,
    ];
  }
  else {
    actions = [
      el("button", { class: "big primary", onclick: () => { leave(); if (!you.ready) app.send("ready", { ready: true }); } }, offer ? "Accept rematch" : "Play again"),
      el("button", { class: "big", onclick: leave }, "Back to the room"),
    ];
  }
  return el(
    "section",
    { class: "panel game-over", "aria-labelledby": "over-title" },
    el("h2", { id: "over-title" }, outcome.tie || !winners.length ? "" : "★ ", headline), // a star for a winner only
    why ? el("p", { class: "muted", dataset: { testid: "end-reason" } }, why) : null,
    // What the host changed since this game, said before anyone accepts (only the offer showed).
    offer ? el("p", { class: "alert", dataset: { testid: "rematch-offer" } }, `${offer.name} asks for a rematch.`, takers ? ` ${takers}` : "", room.newSettings?.length ? ` New settings: ${room.newSettings.join(", ")}.` : "") : null,
    el(
      "table",
      { class: "scores", dataset: { testid: "results" } },
      el("thead", {}, el("tr", {}, el("th", {}, "Player"), columns.map(([label]) => el("th", {}, label)))),
      el(
        "tbody",
        {},
        seats.map((seat) =>
          el(
            "tr",
            { class: outcome.winners.includes(seat) && !outcome.tie ? "winner" : "" },
            el(
              "td",
              {},
              ctx.name(seat),
              outcome.winners.includes(seat) ? (outcome.tie ? " (tie)" : " ★ winner") : "",
              left.has(seat) ? el("span", { class: "muted" }, left.get(seat)) : null,
              // Their score is partly a bot's: said here, as the log marks its moves.
              helped.has(seat) ? el("span", { class: "muted", dataset: { testid: "stood-in" } }, " (a bot stood in)") : null,
            ),
            columns.map(([, value]) => el("td", {}, value(seat))),
          ),
        ),
      ),
    ),
    TABLES[room.kind]?.resultNotes?.(view, ctx, results.log),
    // The room's scoreboard once it has more than this game to count: after a room's first game it only
    // said again what the results above it said, and pushed a phone's final board below the fold.
    room.scoreboard?.some((line) => line.games > 1) ? scoreTable(room.kind, room.scoreboard) : null,
    // The replay and the stats open in a tab of their own: this page left, its seat was given up after
    // the grace (a replay page is not in the room).
    el(
      "div",
      { class: "row wrap" },
      actions,
      results.game_id ? el("a", { class: "button big", href: `/g/${results.game_id}`, target: "_blank", rel: "noopener", dataset: { testid: "watch-replay" } }, "Watch replay") : null,
      app.profile() && ctx.seat !== null ? el("a", { class: "button big", href: `/p/${app.profile()}`, target: "_blank", rel: "noopener", dataset: { testid: "your-stats" } }, "Your stats") : null,
    ),
  );
}

/** The room's last games, newest first, each a link to its replay. */
/** "easy bot", "hard bot" (a bot added without a level: "bot"). */
const botWords = (m) => (m.level ? `${m.level} bot` : "bot");

/** The host's "Add easy bot", "Add hard bot" (while a seat is free). */
function botButtons(room, game, app, players) {
  if (players.length >= room.capacity) return null;
  return game.bots.map((level) => el("button", { onclick: () => app.send("add_bot", { level }), dataset: { key: `add-bot-${level}` } }, `Add ${level} bot`));
}

/** The game's rules in a paragraph, then this room's rules that change play, each explained. */
function howToPlay(room, game) {
  const rules = rulesInPlay(room.kind, room.settings);
  return el(
    "details",
    { class: "rules" },
    el("summary", {}, `How to play ${game.title}`),
    el("p", {}, game.how_to_play),
    rules.length
      ? [el("p", {}, "In this room:"), el("ul", { class: "rules-in-play" }, rules.map(([name, help]) => el("li", {}, el("strong", {}, name), ". ", help)))]
      : null,
  );
}

function recentGames(games) {
  if (!games?.length) return null;
  return el(
    "details",
    { class: "recent-games" },
    el("summary", {}, "Recent games — watch a replay"),
    el(
      "ul",
      { class: "room-list", dataset: { testid: "recent-games" } },
      [...games].reverse().map((g) =>
        el(
          "li",
          { class: "recent-game" },
          el("a", { href: `/g/${g.id}`, target: "_blank", rel: "noopener" }, title(g.game)), // the room stays open here
          " · ",
          g.winners.length ? `${g.winners.join(" & ")} ${g.tie ? "tied" : "won"}` : (endReason(GAMES[g.game], g.reason) ?? "No winner"),
          // Date and time, as the profile and the replay say it (a room lasts for days; the time alone misled).
          g.ended_at ? el("span", { class: "muted recent-when" }, ` · ${when(g.ended_at)}`) : null,
        ),
      ),
    ),
  );
}

/** Wins (and points, for a game whose scores add up) across every game this room has played. */
function scoreTable(kind, board) {
  if (!board?.length) return null;
  const points = GAMES[kind]?.scores_add_up === true;
  return el(
    "details",
    { class: "scoreboard", open: true },
    el("summary", {}, "Scoreboard — this room"),
    el(
      "table",
      { class: "board-scores", dataset: { testid: "scoreboard" } },
      el("thead", {}, el("tr", {}, el("th", {}, "Player"), el("th", {}, "Wins"), el("th", {}, "Games"), points ? el("th", {}, "Points") : null)),
      el(
        "tbody",
        {},
        board.map((line) =>
          el("tr", {}, el("td", {}, line.name), el("td", {}, String(line.wins)), el("td", {}, String(line.games)), points ? el("td", {}, String(line.points)) : null),
        ),
      ),
    ),
  );
}

/** Every person seated is away: no clock runs and no bot moves for them until one is back (server). */
const allAway = () => el("p", { class: "alert", role: "status", dataset: { testid: "all-away" } }, "Every player is away: the game waits until one of them is back.");

/** The clock of the seat on turn, named on the bar: a red "2 s" with no name, on the screen of someone
 * whose turn it was not, read as their own alarm. */
function turnTimer(room, ctx) {
  const turn = room.play.turn;
  // A seat whose clock ran out twice in a row has a short one (`hurried` seconds) until it moves.
  const total = turn?.hurried ?? room.settings?.turn_timer;
  if (!turn?.localDeadline || !total || turn.pause) return null; // a pause's clock is the table's to show
  const mine = turn.seat === ctx.seat && ctx.seat !== null;
  const why = ctx.absent(turn.seat) ? " (offline)" : turn.hurried ? " (away)" : "";
  return el(
    "div",
    { class: "turn-timer", role: "timer", "aria-label": mine ? "Your turn's timer" : `${ctx.name(turn.seat)}'s turn timer`, dataset: { deadline: turn.localDeadline, total } },
    el("div", { class: "timer-fill" }),
    // An offline player's clock runs on: said, beside their chip's other countdown (till a bot takes over).
    el("span", { class: "timer-label" }, el("span", { class: "timer-who" }, mine ? `Your turn${turn.hurried ? " (short)" : ""}` : `${ctx.name(turn.seat)}${why}`, " · "), el("span", { class: "timer-text" }, "")),
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

// A web address in a chat line: http(s) only (never `javascript:`).
const LINK = /\bhttps?:\/\/[^\s<>"]+/giu;

/** An address without the punctuation that ends its sentence; a ")" stays when it closes a "(" in it. */
function trimLink(url) {
  const count = (s, c) => s.split(c).length - 1;
  while (/[.,;:!?'\]]$/u.test(url) || (url.endsWith(")") && count(url, "(") < count(url, ")"))) url = url.slice(0, -1);
  return url;
}

/** A chat line's words, with its web addresses as links that open in a new tab (text stays text). */
function chatText(text) {
  const parts = [];
  let at = 0;
  for (const match of text.matchAll(LINK)) {
    const url = trimLink(match[0]);
    if (url.length <= "https://".length) continue;
    parts.push(text.slice(at, match.index), el("a", { href: url, target: "_blank", rel: "noopener noreferrer nofollow ugc" }, url));
    at = match.index + url.length;
  }
  parts.push(text.slice(at));
  return parts;
}

export function appendChat(message, room) {
  const log = $("#chat-log");
  const mine = message.member === room?.you?.member;
  log.append(el("li", { class: mine ? "mine" : "" }, el("strong", {}, message.name), ": ", el("span", { class: "chat-text" }, chatText(message.text))));
  while (log.children.length > 100) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
}
