"""One function per room command. Each validates first (raising ``CommandError``), then mutates.

A handler returns True when the room changed (the command is logged and replayed later), False
when it was a valid no-op (the requester still gets ``ok``) and None to drop it silently (a
timer or disconnect made stale by an earlier command). Handlers are synchronous and must be
deterministic given the command's payload and time: that is what makes replay exact.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

from parlour.bots.catalog import bot_levels
from parlour.rooms import messages
from parlour.rooms.commands import Command, CommandError
from parlour.rooms.enums import (
    BEFORE_START,
    BETWEEN_GAMES,
    FINISHED,
    OPEN_FOR_PLAYERS,
    PLAYER,
    PLAYING,
    SPECTATOR,
    WAITING,
    EndReason,
    LeaveReason,
)
from parlour.rooms.members import Member
from parlour.rooms.validate import (
    NAME_MAX,
    check_catch_delay,
    check_password,
    clean_chat,
    clip_visible,
    hash_password,
)

if TYPE_CHECKING:  # the room is given this table (``Room.handlers``); it needs no room to be built
    from parlour.rooms.room import Room

Handler = Callable[["Room", Command], bool | None]
HANDLERS: dict[str, Handler] = {}
_PROFILE_BAN = "profile:"
"""``Room.banned`` holds sessions, address hashes and, under this prefix, guest profiles."""


def handles(kind: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        HANDLERS[kind] = fn
        return fn

    return register


# --- joining and leaving ---------------------------------------------------------------


@handles("join")
def join(room: Room, cmd: Command) -> bool | None:
    """Join as a player or spectator (``payload.role``); the same session joining again re-attaches."""
    password = cmd.payload.pop("password", None)
    verified = cmd.payload.pop("password_verified", None)  # [hash, ok] from the manager's worker thread
    role = PLAYER if cmd.payload.get("role", PLAYER) == PLAYER else SPECTATOR
    existing = room.member_by_session(cmd.session)
    if existing is not None:
        return reconnect(room, cmd)
    origin, profile = cmd.payload.get("origin"), cmd.payload.get("profile")
    if cmd.session in room.banned or (profile is not None and _PROFILE_BAN + profile in room.banned):
        raise CommandError("banned", "you were removed from this room")
    if origin is not None and origin in room.banned and cmd.session not in room.joined:
        # Maybe someone else on the kicked player's network (a household, a NAT): not told they were.
        words = "the host removed someone on your network from this room, and it takes no newcomers from it"
        raise CommandError("banned", words)
    checked = (
        room.password_hash is not None
        and not room.replaying
        and not cmd.payload.get("creator")
        and (role == PLAYER or room.spectators_need_password)
    )
    if checked:
        if verified is not None and verified[0] == room.password_hash:
            correct = bool(verified[1])
        else:  # not pre-checked, or the password changed since: check here
            correct = check_password(password, room.password_hash or "")
        if not correct:
            raise CommandError("wrong_password", "wrong or missing password")
    if role == PLAYER:
        if room.state not in OPEN_FOR_PLAYERS:
            raise CommandError("game_in_progress", "a game is in progress; spectate instead")
        if len(room.players()) >= room.capacity:
            raise CommandError("room_full", "no free seat")
    member = room.add_member(cmd.session or "", _own_name(room, cmd.payload["name"]), role)
    member.sink, member.origin, member.profile = cmd.sink, origin, cmd.payload.get("profile")
    room.broadcast(messages.member_joined(member, room.host), exclude=member)
    room.update_countdown(cmd.at, joined=role == PLAYER)
    room.update_idle(cmd.at)
    snapshot = room.snapshot(member)
    if room.state in (PLAYING, FINISHED) and cmd.session in room.seats_lost:
        # They had a seat in this game (running, or over and its results up) and lost it while away
        # (their grace ran out): told so, and shown the results of a game that ended meanwhile.
        snapshot["seat_lost"] = True
        if room.seats_lost[cmd.session]:
            snapshot["played_by_bot"] = True  # a bot played their seat to the game's end
    room.reply(snapshot)
    return True


def _own_name(room: Room, name: str) -> str:
    """``name``, or "Ada 2" when someone here already goes by it (a player back on another device, say,
    whose seat a bot still plays): two Adas made every line about either of them ambiguous."""
    taken = {m.name.casefold() for m in room.members.values()}
    if name.casefold() not in taken:
        return name
    numbered = (clip_visible(name, NAME_MAX - len(f" {n}")) + f" {n}" for n in itertools.count(2))
    return next(candidate for candidate in numbered if candidate.casefold() not in taken)


@handles("reconnect")
def reconnect(room: Room, cmd: Command) -> bool | None:
    """A dropped member is back (resume): re-attach its sink and send a full snapshot."""
    member = room.require_member(cmd)
    taken_back = member.replaced
    if taken_back:
        room.hand_back(member)
    member.sink = cmd.sink
    changed = not member.connected
    member.connected = True
    room.grace.pop(member.id, None)
    if changed:
        room.broadcast(messages.member_updated(member, room.host), exclude=member)
        room.update_idle(cmd.at)
        room.check_away(cmd.at, exclude=member)
    snapshot = room.snapshot(member)
    if taken_back:  # the player is told a bot kept their seat (its moves are in the log, marked)
        snapshot["taken_back"] = True
    room.reply(snapshot)
    return changed


@handles("disconnect")
def disconnect(room: Room, cmd: Command) -> bool | None:
    """The member's connection dropped: keep its seat for the grace period.

    After a restart (``payload.restart``) every human gets a fresh grace period from the restart,
    so players dropped by a shutdown do not lose their seats to the downtime.
    """
    member = room.member_by_session(cmd.session)
    if member is None or member.bot or member.replaced:
        return None
    if not cmd.payload.get("restart") and (
        not member.connected or (cmd.sink is not None and member.sink is not cmd.sink)
    ):
        return None
    member.connected, member.sink = False, None
    room.grace[member.id] = cmd.at + room.timings.grace
    room.broadcast(messages.member_updated(member, room.host, room.grace_timer(member.id)))
    room.check_away(cmd.at)
    room.update_idle(cmd.at)
    return True


@handles("leave")
def leave(room: Room, cmd: Command) -> bool | None:
    room.remove_member(room.require_member(cmd), LeaveReason.LEFT, cmd.at)
    return True


@handles("add_bot")
def add_bot(room: Room, cmd: Command) -> bool | None:
    """The host seats a bot; the bots package drives it through its sink (see ``BotFactory``)."""
    room.require_host(cmd)
    if room.bot_factory is None and not room.replaying:
        raise CommandError("bots_unavailable", "no bot driver is installed")
    level, levels = cmd.payload.get("level"), bot_levels(room.game_name)
    if not room.replaying and (not levels or (level is not None and level not in levels)):
        title = room.engine.title
        if not levels:
            raise CommandError("no_bots", f"{title} has no bots")
        raise CommandError("no_bots", f"{title} has no {level!r} bot (it has {', '.join(levels)})")
    if len(room.players()) >= room.capacity:
        raise CommandError("room_full", "no free seat")
    _leave_results(room)  # last, after every check: a refused command changes nothing
    if room.state != WAITING:
        raise CommandError("invalid_state", "bots join between games")
    # Named for the seat it takes ("Bot 2" beside the host), not for how many have come and gone: a
    # two-seat room's only bot was "Bot 3" after a guest left. Never a name someone here has.
    names = {m.name for m in room.members.values()}
    name = cmd.payload.get("name") or next(
        f"Bot {n}" for n in itertools.count(room.free_seat() + 1) if f"Bot {n}" not in names
    )
    member = room.add_member("", name, PLAYER, bot=True)
    member.session, member.ready = f"bot:{member.id}", True
    member.bot_options = {"level": level}
    if room.bot_factory is not None and not room.replaying:
        member.sink = room.bot_factory(room, member)
        member.sink.send(room.snapshot(member))
    room.broadcast(messages.member_joined(member, room.host), exclude=member)
    room.update_countdown(cmd.at, joined=True)
    return True


# --- waiting room ----------------------------------------------------------------------


def _leave_results(room: Room) -> None:
    """A waiting room's command in a room whose game is over (called once the command can no longer be
    refused: a refusal must leave the room as it was): the room leaves the results behind first,
    as a rematch does, without its offer. Someone who arrives after a game is shown the waiting room (the
    results are for those who played), and its Ready, Start, Settings and Add bot were refused there as
    "the game has already started"."""
    if room.state == FINISHED:
        room.to_waiting()
        room.broadcast_snapshots()
        room.broadcast(messages.state_changed(WAITING))


@handles("ready")
def ready(room: Room, cmd: Command) -> bool | None:
    member = room.require_member(cmd)
    if not member.is_player:
        raise CommandError("not_a_player", "spectators do not ready up")
    value = bool(cmd.payload.get("ready"))
    if value:
        _leave_results(room)
    if room.state not in BEFORE_START:
        raise CommandError("invalid_state", "ready up in the waiting room")
    if member.ready == value:
        return False
    member.ready = value
    room.broadcast(messages.member_updated(member, room.host))
    room.update_countdown(cmd.at)
    return True


@handles("start")
def start(room: Room, cmd: Command) -> bool | None:
    room.require_host(cmd)
    if room.state not in BEFORE_START and room.state != FINISHED:
        raise CommandError("invalid_state", "the game has already started")
    room.require_players()  # before leaving the results: a refused command changes nothing
    _leave_results(room)
    room.start_game(cmd)
    return True


@handles("chat")
def chat(room: Room, cmd: Command) -> bool | None:
    member = room.require_member(cmd)
    entry = {"member": member.id, "name": member.name, "text": clean_chat(cmd.payload["text"]), "at": cmd.at}
    room.chat.append(entry)
    room.broadcast(messages.chat(entry))
    return True


@handles("take_seat")
def take_seat(room: Room, cmd: Command) -> bool | None:
    member = room.require_member(cmd)
    if member.is_player:
        return False
    if room.password_hash is not None and not room.spectators_need_password:
        # Its spectators came in without the password: a seat is had by joining with it.
        raise CommandError("wrong_password", "leave and join with the room's password to play")
    if room.state not in BETWEEN_GAMES:
        raise CommandError("game_in_progress", "change seats between games")
    if len(room.players()) >= room.capacity:
        raise CommandError("room_full", "no free seat")
    member.role, member.seat, member.ready = PLAYER, room.free_seat(), False
    room.broadcast(messages.member_updated(member, room.host))
    room.update_countdown(cmd.at, joined=True)
    return True


@handles("become_spectator")
def become_spectator(room: Room, cmd: Command) -> bool | None:
    member = room.require_member(cmd)
    if not member.is_player:
        return False
    if room.state not in BETWEEN_GAMES:
        raise CommandError("game_in_progress", "change seats between games")
    member.role, member.seat, member.ready = SPECTATOR, None, False
    room.broadcast(messages.member_updated(member, room.host))
    room.update_countdown(cmd.at)
    return True


@handles("rematch")
def rematch(room: Room, cmd: Command) -> bool | None:
    member = room.require_member(cmd)
    if not member.is_player:
        raise CommandError("not_a_player", "only players call a rematch")
    if room.state != FINISHED:
        raise CommandError("invalid_state", "a rematch follows a finished game")
    room.to_waiting()
    member.ready = True  # asking is accepting: the others accept by readying up
    room.broadcast_snapshots()
    room.broadcast(messages.state_changed(WAITING))
    room.broadcast(messages.rematch_offer(member))
    room.update_countdown(cmd.at)
    return True


# --- host controls ---------------------------------------------------------------------


def _target(room: Room, cmd: Command) -> Member:
    member_id, seat = cmd.payload.get("member"), cmd.payload.get("seat")
    for member in room.members.values():
        if member.id == member_id or (member_id is None and seat is not None and member.seat == seat):
            return member
    raise CommandError("unknown_member", "no such member in this room")


@handles("kick")
def kick(room: Room, cmd: Command) -> bool | None:
    host = room.require_host(cmd)
    target = _target(room, cmd)
    if target is host:
        raise CommandError("invalid_target", "you cannot kick yourself")
    if not target.bot:
        # By session, guest profile and address: identifying again under a new name, or from another
        # network with the same browser, does not get back in. The address bars only sessions new to
        # the room, so people who share it (a household, a NAT) and were here before still may.
        room.banned.add(target.session)
        if target.profile is not None:
            room.banned.add(_PROFILE_BAN + target.profile)
        if target.origin is not None:
            room.banned.add(target.origin)
    room.send(target, messages.kicked())
    room.remove_member(target, LeaveReason.KICKED, cmd.at)
    if target.bot and target.sink is not None and not room.replaying:
        target.sink.close()
    return True


@handles("transfer_host")
def transfer_host(room: Room, cmd: Command) -> bool | None:
    host = room.require_host(cmd)
    target = _target(room, cmd)
    if target is host or target.bot:
        raise CommandError("invalid_target", "the host role goes to another human member")
    # A host who is away can start, kick or end nothing: the room would wait on them. (A logged command
    # was checked when it came, and replay need not know who was connected then.)
    if not target.connected and not room.replaying:
        raise CommandError(
            "invalid_target", f"{target.name} is offline: the host role goes to someone who is here"
        )
    room.host = target.id
    room.broadcast(messages.host_changed(target.id))
    return True


@handles("rename")
def rename(room: Room, cmd: Command) -> bool | None:
    """A member's new name (``manager.rename`` cleaned it), never one another member here has; in a
    game, their seat takes it too (lines already in the log keep the old one)."""
    member = room.require_member(cmd)
    name = cmd.payload["name"]
    if name == member.name:
        return False
    taken = next(
        (m for m in room.members.values() if m is not member and m.name.casefold() == name.casefold()), None
    )
    if taken is not None:  # named as they are here ("ada" asked for, "Ada" taken)
        raise CommandError("name_taken", f"someone in this room is already called {taken.name}")
    member.name = name
    seat = room.game_seat(member)
    if seat is not None:
        room.seats[seat]["name"] = name
    room.broadcast(messages.member_updated(member, room.host))
    return True


@handles("update_settings")
def update_settings(room: Room, cmd: Command) -> bool | None:
    """Change rules, visibility, password or capacity before a game starts; the others are unreadied
    (what they readied for changed), the host who chose the change is not, and a start countdown stops
    (saved during "Starting in 5 s", the change was refused and the game began on the old rules)."""
    host = room.require_host(cmd)
    if room.state not in BEFORE_START and room.state != FINISHED:
        raise CommandError("invalid_state", "settings change only before the game starts")
    payload = cmd.payload
    rules = room.engine.settings(payload["settings"]) if "settings" in payload else room.rules
    capacity = payload.get("capacity", room.capacity)
    players = len(room.players())
    lowest = max(room.engine.min_players, players)
    if not lowest <= capacity <= room.engine.max_players:
        seated = f" ({players} are seated)" if players > room.engine.min_players else ""
        raise CommandError(
            "invalid_capacity", f"capacity must be {lowest} to {room.engine.max_players} players{seated}"
        )
    catch_delay = check_catch_delay(payload.get("bot_catch_delay", room.bot_catch_delay))
    public = payload.get("public", room.public)
    bots_take_over = bool(payload.get("bots_take_over", room.bots_take_over))
    now = (room.rules, room.capacity, room.bot_catch_delay, room.public, room.bots_take_over)
    password_named = "password" in payload or "password_hash" in payload
    if (rules, capacity, catch_delay, public, bots_take_over) == now and not password_named:
        return False  # saved unchanged (answered, not logged): nobody told or unreadied for nothing
    _leave_results(room)  # after every check: a refused command changes nothing
    if "password" in payload:
        password = payload.pop("password")
        payload["password_hash"] = hash_password(password) if password else None
    if "settings" in payload:
        room.settings_raw, room.rules = dict(payload["settings"]), rules
    room.capacity = capacity
    room.bot_catch_delay = catch_delay
    room.public, room.bots_take_over = public, bots_take_over
    if "password_hash" in payload:
        room.password_hash = payload["password_hash"]
    room.broadcast(
        messages.settings_changed(
            room.settings_raw,
            room.public,
            room.capacity,
            room.password_hash is not None,
            room.bots_take_over,
            room.bot_catch_delay,
        )
    )
    for member in room.players():
        if member.ready and not member.bot and member is not host:
            member.ready = False
            room.broadcast(messages.member_updated(member, room.host))
    room.update_countdown(cmd.at)
    return True


def _abandon(room: Room, cmd: Command, reason: EndReason) -> None:
    if room.state == PLAYING:
        room.end_game(cmd.at, {"winners": [], "scores": {}, "reason": reason, "tie": False})
        room.release_replaced(cmd.at)


@handles("reset")
def reset(room: Room, cmd: Command) -> bool | None:
    room.require_host(cmd)
    playing = room.state == PLAYING
    _abandon(room, cmd, EndReason.RESET)
    room.to_waiting()
    room.broadcast_snapshots()
    room.broadcast(messages.state_changed(WAITING, EndReason.RESET if playing else None))
    room.update_countdown(cmd.at)  # quick play's clock starts again: its players never ready up
    return True


@handles("terminate")
def terminate(room: Room, cmd: Command) -> bool | None:
    room.require_host(cmd)
    _abandon(room, cmd, EndReason.TERMINATED)
    room.close(EndReason.TERMINATED)
    return True


# --- the game --------------------------------------------------------------------------


@handles("action")
def action(room: Room, cmd: Command) -> bool | None:
    """A game move: the engine parses, validates and applies it; the room only routes it.

    Bots may pass an engine action (one of ``legal_actions``, JSON-compatible) as
    ``payload.engine_action`` instead of a wire action; ``apply`` validates it all the same.
    """
    member = room.require_member(cmd)
    if cmd.sink is not None and member.sink is not cmd.sink:
        # Sent through a connection, or by a takeover bot, that no longer speaks for this member
        # (they resumed elsewhere, or came back and took their seat over again): a stale move.
        return None
    if not member.is_player:
        raise CommandError("not_a_player", "spectators cannot play")
    if room.state != PLAYING:
        raise CommandError("invalid_state", "no game is running")
    seat = room.game_seat(member)
    if seat is None:
        raise CommandError("not_a_player", "you have no seat in this game")
    engine = room.engine
    if (member.bot or room.replaying) and "engine_action" in cmd.payload:
        move = cmd.payload["engine_action"]
    else:
        move = engine.parse_action(cmd.payload.get("action"))  # type: ignore[arg-type]
    events = engine.apply(room.game, seat, move)
    # The log keeps the engine's action, never the client's object: fields the engine ignored
    # (junk, however large) are not stored, and replay applies exactly what was applied.
    cmd.payload = {"engine_action": move}
    if room.missed:  # the seat moved: its clock is whole again
        room.missed.pop(seat, None)
    # A bot playing for a player who dropped out: the table's log says so on that seat's entries.
    room.game_events(events, cmd.at, seat, by_bot=member.replaced)
    return True


# --- replay only -------------------------------------------------------------------------


@handles("checkpoint")
def checkpoint(room: Room, cmd: Command) -> bool | None:
    """A logged checkpoint (written by the room itself, never sent by a client): load it."""
    if not room.replaying:
        raise CommandError("unknown_type", "checkpoints are written by rooms, not sent")
    room.restore(cmd.payload)
    room.records = []
    return True


# --- timers ----------------------------------------------------------------------------


@handles("timer")
def timer(room: Room, cmd: Command) -> bool | None:
    """A deadline passed. Stale timers (the deadline moved since) are dropped.

    In replay the logged timer is trusted as it was accepted then: deadlines are recomputed from
    the current configuration, which may differ from the one that ran.
    """
    name, deadline = cmd.payload["name"], cmd.payload["deadline"]
    live = not room.replaying
    if name == "countdown":
        if room.countdown is None or (live and room.countdown[1] != deadline):
            return None
        room.start_game(cmd)
    elif name == "turn":
        if room.turn is None or (live and room.turn[1] != deadline) or room.state != PLAYING:
            return None
        seat = room.turn[0]
        room.missed[seat] = room.missed.get(seat, 0) + 1
        room.game_events(room.engine.on_timeout(room.game, seat), cmd.at, seat)
    elif name.startswith("grace:"):
        member = room.members.get(name.removeprefix("grace:"))
        if member is None or member.connected or (live and room.grace.get(member.id) != deadline):
            return None
        if live:  # decided now and logged, so a replay (maybe without bots installed) decides the same
            cmd.payload["takeover"] = room.can_take_over(member)
        if cmd.payload.get("takeover"):
            room.take_over(member, cmd.at)
        else:
            room.remove_member(member, LeaveReason.TIMEOUT, cmd.at)
    elif name == "idle":
        if room.idle is None or (live and room.idle != deadline):
            return None
        _abandon(room, cmd, EndReason.IDLE)
        room.close(EndReason.IDLE)
    else:
        return None
    return True
