"""Does a game keep the interface (`games.api`)? One check any game's own tests can call.

    >>> import games
    >>> from games import conformance
    >>> conformance.check(games.game("zwicker"), boards=1)   # raises AssertionError on a breach

`check(game)` plays random legal boards of every preset (or the variants given) to the end
through the interface only, as OpenSpiel's `games_sim_test` and PettingZoo's `api_test` do, and
asserts what the arena relies on: variants round-trip through their plain-data form; the same
seed gives the same deals, observations and results; every legal move is legal (`check` accepts
it), `apply` leaves its input unchanged, positions and moves round-trip; a finished deal has no
legal move and a result per seat and side; a zero-sum game's boards sum to zero; one stored deal
rebuilds alone from its seed, dealer and carry (`Game.deal`); every datum is plain JSON. And of
its extras (`games.extras`): its reference bots, anchor, modules, viewer and docs exist.

`playthrough(game, variant, seed)` is one seeded deal as readable text (each seat's view at its
turn, the legal moves, the move made, the result), to keep as a golden file and diff.

An outside game's tests (docs/adding-a-game.md):

    from games import conformance
    def test_my_game_conforms():
        conformance.check(my_package.GAME)

Pure: no I/O, no arena import.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from typing import Any

import games
from games.api import Game, IllegalMove, Json, Move, State, Variant

UTILITIES = ("zero_sum", "general_sum")
MAX_MOVES = 100_000  # moves in one deal before the game is called broken
MAX_DEALS = 10_000   # deals in one board, likewise


def plain(x: Json, what: str = "a datum") -> Json:
    """`x`, asserted to be plain JSON data that comes back unchanged."""
    assert json.loads(json.dumps(x)) == x, f"{what} is not plain JSON data: {x!r}"[:500]
    return x


def variants_of(game: Game) -> list[Variant]:
    """The game's default variant and every preset of its Info."""
    out = [game.variant(None)]
    for preset in game.info.presets:
        v = game.variant(preset)
        if v.to_dict() not in [o.to_dict() for o in out]:
            out.append(v)
    return out


def check_info(game: Game) -> None:
    """Info says what the arena needs, and the extras exist."""
    info = game.info
    assert info.name == info.name.strip().lower() and info.name, f"name {info.name!r}: lower case, no spaces"
    assert 1 <= info.min_players <= info.max_players, f"players {info.min_players}..{info.max_players}"
    assert info.formats and all(isinstance(f, str) and f for f in info.formats), "formats: at least one name"
    assert info.utility in UTILITIES, f"utility {info.utility!r} is none of {UTILITIES}"
    assert info.unit and info.title and info.version, "unit, title and version are needed"
    extras = games.extras(game)
    for name, path in extras.reference_bots.items():
        assert path.is_file() or path.is_dir(), f"reference bot {name}: no file {path}"
    assert extras.anchor[1].exists(), f"anchor {extras.anchor[0]}: no file {extras.anchor[1]}"
    for path in extras.modules:
        assert path.exists(), f"module {path} for sandboxed bots does not exist"
    assert extras.viewer is None or (extras.viewer.suffix == ".js" and extras.viewer.is_file()), \
        f"viewer {extras.viewer}: a .js file"
    for path in extras.docs:
        assert path.is_file(), f"docs: no file {path}"


def check_variant(game: Game, variant: Variant) -> None:
    assert isinstance(variant, Variant), f"{variant!r} lacks the Variant interface"
    again = game.variant(plain(variant.to_dict(), "a variant"))
    assert again.to_dict() == variant.to_dict(), "variant(v.to_dict()) is not v"
    assert isinstance(str(variant), str) and str(variant), "a variant has a short text form"
    layout = game.layout(variant)
    assert layout.players == variant.players, "the layout's players are not the variant's"
    assert game.info.min_players <= variant.players <= game.info.max_players, "players outside Info's range"
    described = plain(game.describe(variant), "describe(variant)")
    assert isinstance(described, dict) and described.get("game") == game.info.name, \
        "describe(variant) is a dict naming the game ('game')"


def _move_out(state: State, move: Move) -> Json:
    plain(move.to_dict(), "a move")
    assert isinstance(str(move), str) and str(move), "a move has a text form"
    return move.to_dict()


def play_deal(game: Game, variant: Variant, state: State, rng: random.Random) -> tuple[State, list[Json]]:
    """One deal from `state` to its end by random legal moves, every step checked; the final
    state and what every seat observed along the way."""
    layout = game.layout(variant)
    seen: list[Json] = []
    for _ in range(MAX_MOVES):
        if state.is_over:
            break
        seat = state.to_move
        assert seat is not None and 0 <= seat < layout.players, f"to_move {seat!r} of a deal not over"
        legal, complete = state.legal_moves(1000)
        assert legal, "a deal not over has no legal move"
        if complete:
            assert [m.to_dict() for m in legal] == [m.to_dict() for m in state.legal_moves()[0]], \
                "legal_moves(limit) and legal_moves() differ"
        keys = [m.key for m in legal]
        assert len(set(keys)) == len(keys), "a legal move is listed twice (same key)"
        position = plain(state.to_dict(), "a position")
        assert game.state_from_dict(position).to_dict() == position, "a position does not round-trip"
        observed = plain(state.observation(seat), "an observation")
        seen.append(observed)
        brief = plain(state.observation(seat, moves=False), "an observation without moves")
        assert isinstance(observed, dict) and isinstance(brief, dict), "an observation is a dict"
        plain(state.text(seat), "a seat's text frame")
        move = rng.choice(legal)
        data = _move_out(state, move)
        assert state.check(data).key == move.key, "check(move.to_dict()) names another move"
        assert game.move_from_dict(data).to_dict() == data, "a move does not round-trip"
        public = getattr(state, "public_move", None)
        if public is not None:
            plain(public(move), "a public move")
        after = state.apply(data if rng.random() < 0.5 else move)
        assert state.to_dict() == position, "apply changed its input"
        assert isinstance(plain(after.frame(state, move), "a frame"), dict), "frame() is a dict"
        state = after
    else:
        raise AssertionError(f"a deal ran over {MAX_MOVES} moves")
    assert state.to_move is None, "a finished deal has a seat to move"
    assert state.legal_moves() == ([], True), "a finished deal has legal moves"
    try:
        state.check({"type": "no-such-move"})
    except IllegalMove:
        pass
    else:
        raise AssertionError("check() of any move after the end does not raise IllegalMove")
    result = state.result()
    assert len(result.seats) == layout.players and len(result.sides) == layout.num_sides, \
        "a deal's result: one number per seat and per side"
    plain(result.detail, "a deal's result detail")
    plain(state.text(), "the whole text frame")
    return state, seen


def play_board(game: Game, variant: Variant, seed: int, fmt: str, rng: random.Random) -> tuple[Json, list[Json]]:
    """One board to its end; its result's plain form and every observation, for comparing runs."""
    layout = game.layout(variant)
    board = game.board(variant, seed, seed % variant.players, fmt)
    seen: list[Json] = []
    for _ in range(MAX_DEALS):
        if board.is_over:
            break
        state = board.deal()
        rebuilt = game.deal(variant, board.deal_seed, board.dealer, plain(board.carry(), "a board's carry"))
        assert rebuilt.to_dict() == state.to_dict(), "Game.deal(seed, dealer, carry) is not the board's deal"
        played = board.deals_played
        final, observed = play_deal(game, variant, state, rng)
        seen += observed
        board = board.after(final)
        assert board.deals_played == played + 1, "after() does not count the deal"
    else:
        raise AssertionError(f"a board ran over {MAX_DEALS} deals")
    total = board.result()
    assert len(total.seats) == layout.players and len(total.sides) == layout.num_sides, \
        "a board's result: one number per seat and per side"
    if game.info.utility == "zero_sum":
        assert sum(total.seats) == 0, f"a zero-sum game's board sums to {sum(total.seats)}"
    for seat in range(layout.players):
        forfeit = game.forfeit(variant, fmt, seat, 1)
        assert len(forfeit.sides) == layout.num_sides, "a forfeit: one number per side"
    return plain({"seats": list(total.seats), "sides": list(total.sides), "detail": total.detail}), seen


def check(game: Game, variants: Iterable[Variant | str | dict[str, Any]] | None = None, *,
          boards: int = 3, seeds: Sequence[int] | None = None) -> None:
    """Assert that `game` keeps the interface: `boards` random boards of each variant (default:
    its default and every preset) in each of its formats, each played twice from the same seed."""
    assert isinstance(game, Game), f"{game!r} lacks the Game interface (games.api.Game)"
    check_info(game)
    chosen = variants_of(game) if variants is None else [
        v if isinstance(v, Variant) else game.variant(v) for v in variants]
    for variant in chosen:
        check_variant(game, variant)
        for k, seed in enumerate(seeds if seeds is not None else range(boards)):
            fmt = game.info.formats[k % len(game.info.formats)]
            first = play_board(game, variant, seed, fmt, random.Random(seed))
            again = play_board(game, variant, seed, fmt, random.Random(seed))
            assert first == again, f"{variant} seed {seed}: the same seed and moves gave another board"


def playthrough(game: Game, variant: Variant | str | None = None, seed: int = 0, *, policy_seed: int = 0) -> str:
    """One seeded deal as text: every seat's view at its turn, the legal moves, the move made
    (random, from `policy_seed`), and the result. Keep it as a golden file and diff."""
    v = variant if isinstance(variant, Variant) else game.variant(variant)
    rng = random.Random(policy_seed)
    state = game.deal(v, seed, 0)
    lines = [f"game {game.info.name} {game.info.version}", f"variant {v}", f"seed {seed} dealer 0", ""]
    while not state.is_over:
        seat = state.to_move
        assert seat is not None
        legal, complete = state.legal_moves()
        move = rng.choice(legal)
        lines += [state.text(seat), f"legal: {', '.join(map(str, legal))}" + ("" if complete else " ..."),
                  f"seat {seat} plays {move}", ""]
        state = state.apply(move)
    result = state.result()
    lines += [state.text(), f"result: seats {list(result.seats)}, sides {list(result.sides)}",
              json.dumps(result.detail, sort_keys=True)]
    return "\n".join(lines) + "\n"
