"""A failed build or validation quotes the program's own words: before, a PHP bot with a parse
error was refused as "exited with code 255", and its author had to guess (issue 46)."""

from __future__ import annotations

from kingmaker.server.building.log_tail import ending, telling_lines

PHP_PARSE_ERROR = """\
kingmaker bridge: connected
PHP Parse error:  syntax error, unexpected token "}", expecting ";" in /bot/bot.php on line 14
"""


def test_an_interpreters_parse_error_is_quoted() -> None:
    assert ending(PHP_PARSE_ERROR) == (
        '; its log says: kingmaker bridge: connected / PHP Parse error:  syntax error, unexpected token "}", '
        'expecting ";" in /bot/bot.php on line 14'
    )


def test_a_compilers_first_error_is_quoted_with_the_last_line() -> None:
    log = "bot.c:1:25: error: 'x' undeclared\nnote: reported once\nnote: more\nmake: *** [bot] Error 1\n"
    assert telling_lines(log) == "bot.c:1:25: error: 'x' undeclared / make: *** [bot] Error 1"


def test_an_empty_log_adds_nothing_and_a_long_line_is_cut() -> None:
    assert ending("") == ""
    assert telling_lines("x" * 1000, chars=10) == "x" * 10 + "…"
