"""Display names: emoji made of several code points are welcome (a play-tester's "👩‍🚀" was refused as
"1 to 16 visible characters": the joiner inside it is a format character), while an invisible character
that makes one name look like another, or turns text around, is still refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parlour.rooms.commands import CommandError
from parlour.rooms.validate import NAME_MAX, clean_name, clip_visible, visible_length

JOINED = [
    "👩\u200d🚀",  # woman astronaut: woman, joiner, rocket
    "🏳️\u200d🌈",  # rainbow flag: white flag, variation selector, joiner, rainbow
    "👨\u200d👩\u200d👧\u200d👦",  # family: seven code points
    "🧑🏽\u200d💻",  # a skin tone before the joiner
    "❤️\u200d🔥",
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland: the black flag and tags
    "🇫🇷",  # two regional letters
    "e\u0301",  # e and a combining accent
]


@pytest.mark.parametrize("emoji", JOINED)
def test_an_emoji_however_built_is_one_character_and_welcome(emoji: str) -> None:
    assert visible_length(emoji) == 1
    assert clean_name(emoji) == emoji
    assert clean_name(f"🦄Zoë {emoji}✨") == f"🦄Zoë {emoji}✨"
    full = emoji * NAME_MAX
    if len(full) <= 64:  # sixteen shown, as long as their code points stay within the name's bound
        assert clean_name(full) == full
    else:
        with pytest.raises(CommandError):
            clean_name(full)


@pytest.mark.parametrize(
    "bad",
    [
        "A\u200dda",  # a joiner between letters: looks like "Ada"
        "Ada\u200d",
        "\u200d🚀",
        "a\u200d🚀",
        "\u202eevil",  # right-to-left override
        "Ada\u2060",  # word joiner
        "\U000e0067x",  # a tag with no flag
        "\u0301",  # a mark with nothing to go on: shows nothing
        "x" * (NAME_MAX + 1),
        "🚀" * (NAME_MAX + 1),
        "a" + "\u0301" * 70,  # one character on screen, 71 code points
        "bad\x00name",
        "",
        "   ",
    ],
)
def test_invisible_tricks_and_long_names_are_refused(bad: str) -> None:
    with pytest.raises(CommandError) as refused:
        clean_name(bad)
    assert refused.value.code == "invalid_name"


def test_an_invisible_character_is_named_as_the_reason() -> None:
    """ "A\u200dda" shows as "Ada": a length limit was no explanation."""
    with pytest.raises(CommandError) as refused:
        clean_name("A\u200dda")
    assert refused.value.message == "a name may not hold invisible or control characters"


def test_a_name_numbered_for_a_twin_is_cut_between_characters_never_inside_an_emoji() -> None:
    name = "👩\u200d🚀" * NAME_MAX
    cut = clip_visible(name, NAME_MAX - 2)
    assert cut == "👩\u200d🚀" * (NAME_MAX - 2)
    assert clean_name(cut + " 2") == cut + " 2"


@given(
    st.lists(st.sampled_from([*JOINED, "A", "é", " ", "🚀", "Zoë"]), min_size=1, max_size=30),
    st.integers(1, 16),
)
def test_clipping_keeps_whole_characters(parts: list[str], limit: int) -> None:
    name = "".join(parts)
    cut = clip_visible(name, limit)
    assert name.startswith(cut)
    assert visible_length(cut) == min(limit, visible_length(name))
    assert not cut.endswith("\u200d")
