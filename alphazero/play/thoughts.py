"""A model's thought as text: the moves it searched, why it chose its move when that is not the
most searched one, and its outlook (the search's value, or the result it proved)."""

from __future__ import annotations

from ..evaluation.model_player import Thought


def signed(value: float) -> str:
    """A value in [-1, 1] with its sign and two decimals: ``+0.31``, ``-1.00``, and ``+0.00``
    for anything that rounds to zero (formatting -0.001 directly gives ``-0.00``)."""
    # round() first, then + 0.0 turns the -0.0 it can return into 0.0.
    return f"{round(value, 2) + 0.0:+.2f}"


PROVEN = {1.0: "a proven win", 0.0: "a proven draw", -1.0: "a proven loss"}
WHY_CHOSEN = {
    1.0: "the quickest proven win",
    0.0: "it keeps the proven draw",
    -1.0: "the position is lost and it holds out longest",
    None: "the more searched moves are proven lost",
}
"""Why a search plays a move other than its most visited one (``Node.next``'s rules)."""


def format_thought(
    thought: Thought, top_label: str, outlook_label: str, chosen: str = "played"
) -> list[str]:
    """What a search found, in two lines (three when the move chosen is not the most visited).

    The moves searched come with their share of the visits and their value, the move chosen
    (``chosen``: played, suggested) first. The outlook puts what the move was chosen by
    first: the search's value, or the result it proved; the network's own win / draw / loss
    guess, from before the search ("the network alone"), follows in parentheses, and is left
    out once the search has proved the result (beside a proof it only reads as a
    contradiction). Values and percentages are for the player to move in the position
    searched.
    """
    top = sorted(thought.top, key=lambda m: m.action != thought.action)  # stable: chosen first
    moves = ", ".join(f"{m.move} {m.share:.0%} ({signed(m.value)})" for m in top)
    lines = [f"  {top_label}: {moves}   [share of {thought.simulations} visits (value)]"]
    first = top[0] if top and top[0].action == thought.action else None
    if first is not None and any(m.visits > first.visits for m in top[1:]):
        why = WHY_CHOSEN.get(thought.proven, WHY_CHOSEN[None])
        lines.append(f"  {chosen} {first.move}, not the most searched move: {why}")
    if thought.proven is not None:
        outlook = f"{PROVEN[thought.proven]} (value {signed(thought.proven)})"
    else:
        outlook = f"search value {signed(thought.value)}"
        if thought.wdl is not None:
            win, draw, loss = thought.wdl
            outlook += f" (the network alone: win {win:.0%}, draw {draw:.0%}, loss {loss:.0%})"
    lines.append(f"  {outlook_label}: {outlook}")
    return lines
