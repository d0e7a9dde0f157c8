"""``OneLineParser`` against argparse's other shapes of option: a bad value is one line naming
the option whatever its ``nargs`` or ``action``, and what argparse says about the command's shape
(a missing value, two options of an exclusive group, an unknown one) keeps its usage block,
the subcommand's own under a subcommand, as plain argparse prints it."""

from __future__ import annotations

import pytest

from alphazero.config.command_line import OneLineParser


def parser() -> OneLineParser:
    parser = OneLineParser(prog="tool")
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument("--seed", type=int, action="append")
    parser.add_argument("--clock", choices=("wall", "cpu"), action="append")
    exclusive = parser.add_mutually_exclusive_group()
    exclusive.add_argument("--share", type=float)
    exclusive.add_argument("--all", action="store_true")
    parser.add_argument("count", type=int, nargs="?", choices=(1, 2, 3))
    return parser


def refused(build: OneLineParser, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit:
        build.parse_args(argv)
    assert exit.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sizes", "1", "x"], "--sizes: expected an integer, got 'x'"),
        (["--seed", "1", "--seed", "z"], "--seed: expected an integer, got 'z'"),
        (["--clock", "wall", "--clock", "sundial"], "--clock: expected wall or cpu, got 'sundial'"),
        (["--share", "half"], "--share: expected a number, got 'half'"),
        (["5"], "count: expected 1, 2 or 3, got 5"),
    ],
)
def test_a_bad_value_is_one_line_whatever_the_options_nargs_or_action(argv, message, capsys):
    assert refused(parser(), argv, capsys) == f"error: {message}\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sizes"], "argument --sizes: expected at least one argument"),
        (["--share", "0.5", "--all"], "argument --all: not allowed with argument --share"),
        (["--frob"], "unrecognized arguments: --frob"),
        (["1", "2"], "unrecognized arguments: 2"),
    ],
)
def test_the_commands_shape_keeps_argparses_usage(argv, message, capsys):
    err = refused(parser(), argv, capsys)
    assert err.startswith("usage: tool ") and err.endswith(f"tool: error: {message}\n")


def test_help_and_good_values_are_argparses(capsys):
    args = parser().parse_args(["--sizes", "1", "2", "--seed", "3", "--seed", "4", "--all", "2"])
    assert (args.sizes, args.seed, args.all, args.count) == ([1, 2], [3, 4], True, 2)
    with pytest.raises(SystemExit) as exit:
        parser().parse_args(["--help"])
    assert exit.value.code == 0 and capsys.readouterr().out.startswith("usage: tool ")


def test_a_value_refused_after_parsing_is_one_line(capsys):
    build = parser()
    args = build.parse_args(["--sizes", "0"])
    with pytest.raises(SystemExit) as exit:
        build.error(f"--sizes must be at least 1, got {min(args.sizes)}")
    assert exit.value.code == 2
    assert capsys.readouterr().err == "error: --sizes must be at least 1, got 0\n"


def test_parse_known_args_refuses_a_bad_value_in_one_line_too(capsys):
    """Not argparse's ``ArgumentError`` out of the call, a traceback for the person."""
    build = parser()
    args, rest = build.parse_known_args(["--seed", "7", "--other"])
    assert (args.seed, rest) == ([7], ["--other"])
    with pytest.raises(SystemExit) as exit:
        build.parse_known_args(["--seed", "x", "--other"])
    assert exit.value.code == 2
    assert capsys.readouterr().err == "error: --seed: expected an integer, got 'x'\n"


def subcommands() -> OneLineParser:
    parser = OneLineParser(prog="tool")
    commands = parser.add_subparsers(dest="command", required=True)
    go = commands.add_parser("go")
    go.add_argument("--steps", type=int)
    go.add_argument("--side", choices=("left", "right"))
    commands.add_parser("stop")
    return parser


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["go", "--steps", "x"], "--steps: expected an integer, got 'x'"),
        (["go", "--side", "up"], "--side: expected left or right, got 'up'"),
        (["fly"], "command: expected go or stop, got 'fly'"),
    ],
)
def test_a_subcommands_bad_value_is_one_line(argv, message, capsys):
    assert refused(subcommands(), argv, capsys) == f"error: {message}\n"


def test_a_subcommands_shape_shows_its_own_usage_as_argparse_does(capsys):
    err = refused(subcommands(), ["go", "--steps"], capsys)
    assert err.startswith("usage: tool go ")
    assert err.endswith("tool go: error: argument --steps: expected one argument\n")
