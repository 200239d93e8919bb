"""Checks on user-supplied text and secrets: names, chat, room codes, passwords, tokens."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata

from parlour.rooms.commands import CommandError

NAME_MAX = 16
CHAT_MAX = 300
ROOM_NAME_MAX = 32
PASSWORD_MAX = 64
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: readable aloud and on paper
CODE_LENGTH = 5
PRIVATE_CODE_LENGTH = 8
"""Unlisted rooms are found by code alone, so theirs come from a space 31³ times larger: 31^8 ≈ 8.5e11
codes, against a per-address limit on misses (docs/reliability.md, "Private rooms")."""


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in text)


ZWJ = "\u200d"  # joins emoji into one (👩‍🚀 is 👩, the joiner, 🚀)
BLACK_FLAG = "\U0001f3f4"  # a subdivision flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿) is this flag and tag characters
NAME_CODE_POINTS = 64
"""A name's size bound whatever it shows: a family emoji is one character on screen and seven code points."""


def _is_tag(ch: str) -> bool:
    return "\U000e0020" <= ch <= "\U000e007f"


def _joins_emoji(name: str, i: int) -> bool:
    """Whether the format character at ``name[i]`` is part of an emoji: a joiner between two (the one
    before may carry a variation selector or a skin tone), or a tag after the black flag. Anywhere else a
    format character is refused: invisible, it makes "A\u200dda" look like "Ada", or turns text around."""
    ch = name[i]
    if ch == ZWJ:
        before = name[i - 1] if i else ""
        after = name[i + 1] if i + 1 < len(name) else ""
        return (
            bool(before)
            and unicodedata.category(before) in ("So", "Sk", "Mn")
            and bool(after)
            and unicodedata.category(after) == "So"
        )
    if _is_tag(ch):
        j = i
        while j > 0 and _is_tag(name[j - 1]):
            j -= 1
        return j > 0 and name[j - 1] == BLACK_FLAG
    return False


def _name_ok(name: str) -> bool:
    """No control, surrogate, private or unassigned characters; format characters only inside emoji."""
    for i, ch in enumerate(name):
        category = unicodedata.category(ch)
        if category in ("Cc", "Cs", "Co", "Cn") or (category == "Cf" and not _joins_emoji(name, i)):
            return False
    return True


def _starts(name: str) -> list[int]:
    """Where each character a name shows starts: a combining mark, a variation selector, a skin tone,
    a tag, and whatever a joiner joins go with the character before them (👩‍🚀 is one, as é is)."""
    starts: list[int] = []
    joined = flag_half = False  # after a joiner; after the first of a flag's two regional letters
    for i, ch in enumerate(name):
        regional = "\U0001f1e6" <= ch <= "\U0001f1ff"
        if ch == ZWJ:
            joined = True
        elif joined or unicodedata.category(ch) in ("Mn", "Me", "Cf") or "\U0001f3fb" <= ch <= "\U0001f3ff":
            joined = False
        elif regional and flag_half:  # 🇫🇷 is two regional letters, one flag
            flag_half = False
        else:
            starts.append(i)
            flag_half = regional
    return starts


def visible_length(name: str) -> int:
    """About how many characters a name shows (``_starts``)."""
    return len(_starts(name))


def clip_visible(name: str, limit: int) -> str:
    """``name`` cut to its first ``limit`` shown characters, never inside an emoji or before a mark."""
    starts = _starts(name)
    return name if len(starts) <= limit else name[: starts[limit]]


def clean_name(raw: str) -> str:
    """A display name: trimmed, 1–16 visible characters, no control characters; emoji welcome, those
    made of several joined (👩‍🚀, 🏳️‍🌈) too: their joiners had been refused as format characters."""
    name = raw.strip()
    if name and not _name_ok(name):  # the length message read wrong for "A\u200dda", which shows "Ada"
        raise CommandError("invalid_name", "a name may not hold invisible or control characters")
    if len(name) > NAME_CODE_POINTS or not 1 <= visible_length(name) <= NAME_MAX:
        raise CommandError("invalid_name", f"a name is 1 to {NAME_MAX} visible characters")
    return name


def clean_room_name(raw: str) -> str:
    """A room name (the seed protocols name rooms): trimmed, 1–32 visible characters, no control
    characters; every lobby list carries every name, so a name's size is bounded like a chat line's."""
    name = raw.strip()
    if not name or len(name) > ROOM_NAME_MAX or _has_control(name):
        raise CommandError("invalid_room_name", f"a room name is 1 to {ROOM_NAME_MAX} visible characters")
    return name


def clean_chat(raw: str) -> str:
    """Chat text as sent (plain text, never HTML), 1–300 characters, no control characters."""
    if not raw.strip() or len(raw) > CHAT_MAX or _has_control(raw):
        raise CommandError("invalid_chat", f"chat is 1 to {CHAT_MAX} characters of text")
    return raw


def new_code(public: bool = True) -> str:
    """An unpredictable room code: short for a listed room, longer for an unlisted one."""
    length = CODE_LENGTH if public else PRIVATE_CODE_LENGTH
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def normalize_code(raw: str) -> str:
    """Codes are case-insensitive; spaces and hyphens are dropped (a code read out or written down in
    halves, "97K7-CYW4", was refused); anything else outside the alphabet is refused."""
    code = "".join(raw.split()).replace("-", "").upper()
    if len(code) not in (CODE_LENGTH, PRIVATE_CODE_LENGTH) or any(ch not in CODE_ALPHABET for ch in code):
        raise CommandError(
            "invalid_code",
            f"a room code is {CODE_LENGTH} or {PRIVATE_CODE_LENGTH} characters from {CODE_ALPHABET}",
        )
    return code


def hash_password(password: str) -> str:
    """A salted hash: room passwords never reach the log or any message in the clear."""
    if len(password) > PASSWORD_MAX or _has_control(password):
        raise CommandError("invalid_password", f"a password is at most {PASSWORD_MAX} printable characters")
    salt = secrets.token_hex(8)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), 20_000).hex()
    return f"{salt}${digest}"


def check_password(password: str | None, stored: str) -> bool:
    salt, digest = stored.split("$", 1)
    given = hashlib.pbkdf2_hmac("sha256", (password or "").encode(), bytes.fromhex(salt), 20_000).hex()
    return hmac.compare_digest(given, digest)


def new_token() -> str:
    """A 128-bit secret that lets a client resume its session."""
    return secrets.token_urlsafe(16)


def hash_token(token: str) -> str:
    """Tokens are high-entropy, so a plain SHA-256 is enough to make a stolen database useless."""
    return hashlib.sha256(token.encode()).hexdigest()


def secrets_match(secret: str, digest: str) -> bool:
    """Whether ``secret`` hashes to ``digest`` (compared in constant time)."""
    return hmac.compare_digest(hash_token(secret), digest)


def new_profile_id() -> str:
    """A guest profile's public id (it names the profile in URLs and game records; not a secret)."""
    return f"p_{secrets.token_hex(8)}"


CATCH_DELAY_MAX = 30.0


def check_catch_delay(value: float) -> float:
    """``bot_catch_delay``: 0 to 30 seconds (a float, or an int as seconds)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= CATCH_DELAY_MAX:
        raise CommandError("invalid_settings", f"bot_catch_delay must be 0 to {CATCH_DELAY_MAX:g} seconds")
    return float(value)
