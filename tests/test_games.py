"""The games interface: the registry, and one conformance test over every installed game and
its presets, through `games.api` only (random legal play to the end of boards)."""

from __future__ import annotations

import json
import random

import pytest

from engine import zwicker as rules
import games
from games import zwicker

ZWICKER_VARIANTS = ["jensen", "huelsemann", "grossenwiehe", "grupp", "jensen:players=3",
                    "grossenwiehe:players=6", "huelsemann:players=6", "jensen:build_holder=partner"]


def installed():
    out = []
    for name in games.names():
        try:
            out.append(games.game(name))
        except games.UnknownGame:
            pass
    return out


def variants(game):
    if game.info.name == "zwicker":
        return [game.variant(v) for v in ZWICKER_VARIANTS]
    return [game.variant(None)]


CASES = [(g, v) for g in installed() for v in variants(g)]


def plain(x):
    """JSON-safe and back unchanged: plain data only."""
    assert json.loads(json.dumps(x)) == x
    return x


@pytest.mark.parametrize(("game", "variant"), CASES, ids=[f"{g.info.name}:{v}" for g, v in CASES])
def test_random_boards_play_to_the_end_through_the_interface(game, variant):
    layout = game.layout(variant)
    assert layout.players == variant.players
    assert plain(game.variant(variant.to_dict()).to_dict()) == variant.to_dict()
    assert plain(game.describe(variant))["game"] == game.info.name
    for seed in range(4):
        rng = random.Random(seed)
        fmt = game.info.formats[seed % len(game.info.formats)]
        board = game.board(variant, seed, seed % variant.players, fmt)
        deals = []
        while not board.is_over:
            state = board.deal()
            # one deal rebuilt alone, as storage does: the same position (the board's earlier
            # deals, which a Zwicken observation's history shows, are not part of one deal)
            assert game.deal(variant, board.deal_seed, board.dealer, board.carry()).to_dict() == state.to_dict()
            while not state.is_over:
                seat = state.to_move
                legal, complete = state.legal_moves(1000)
                assert legal
                if complete:
                    assert legal == state.legal_moves()[0]
                position = plain(state.to_dict())
                assert plain(game.state_from_dict(position).to_dict()) == position
                obs = plain(state.observation(seat))
                assert plain(state.observation(seat, moves=False)).items() <= obs.items()
                move = rng.choice(legal)
                checked = state.check(plain(move.to_dict()))
                assert checked.to_dict() == move.to_dict()
                after = state.apply(move.to_dict() if rng.random() < 0.5 else move)
                assert plain(state.to_dict()) == position, "apply changed its input"
                assert isinstance(plain(after.frame(state, move)), dict)
                state = after
            assert state.to_move is None
            assert state.legal_moves() == ([], True)
            with pytest.raises(games.IllegalMove):
                state.check({"type": "trail", "card": "2C"})
            result = state.result()
            assert len(result.seats) == layout.players and len(result.sides) == layout.num_sides
            plain(result.detail)
            deals.append(result.detail)
            board = board.after(state)
        total = board.result()
        assert plain(total.detail)
        assert len(total.sides) == layout.num_sides
        if game.info.utility == "zero_sum":
            assert sum(total.seats) == 0


def test_zwicker_results_are_the_engines():
    g = games.game("zwicker")
    v = g.variant("jensen")
    rng = random.Random(1)
    s = g.board(v, 11, 2).deal()
    e = rules.deal("jensen", 11, 2)
    assert s.to_dict() == e.to_dict()
    while not s.is_over:
        m = s.legal_moves(1000)[0][rng.randrange(3) - 1]
        s, e = s.apply(m), e.apply(m)
    assert s.to_dict() == e.to_dict()
    r = s.result()
    assert list(r.sides) == e.score() and r.detail == e.breakdown()
    assert list(r.seats) == [e.score()[v.side_of(k)] for k in range(4)]


def test_zwicker_game_board_is_the_engines_game():
    g = games.game("zwicker")
    v = g.variant("jensen:target=51")
    board, game = g.board(v, 5, 1, "game"), rules.Board.new(v, 5, 1)
    while not game.is_over:
        assert not board.is_over and (board.deal_seed, board.dealer) == (game.deal_seed, game.dealer)
        s = board.deal()
        while not s.is_over:
            s = s.apply(s.legal_moves()[0][0])
        board, game = board.after(s), game.after_points(list(s.result().sides))
    assert board.is_over and list(board.result().sides) == list(game.totals)
    assert board.result().detail["winner"] == game.winner
    assert len(board.result().detail["deals"]) == game.deals_played


def test_zwicker_check_keeps_an_announced_capture_value():
    g = games.game("zwicker")
    s = g.state_from_dict(rules.parse_position(
        "variant: jensen\ndealer: 3\nto_move: 0\nhand 0: AS\nhand 1: 2C\nhand 2: 3C\nhand 3: 4C\n"
        "table: AH\nstock: -\ntaken 0: -\ntaken 1: -\nzwicks: 0 0\nlast_capture: -").to_dict())
    assert s.legal_moves()[0][0].value == 1  # listed: the lowest value
    named = s.check({"type": "capture", "card": "AS", "value": 11, "take": [0]})
    assert named.value == 11 and named.key == s.legal_moves()[0][0].key
    assert s.apply(named).to_dict()["moves"][-1]["value"] == 11  # recorded as announced
    assert s.check({"type": "capture", "card": "AS", "take": [0]}).value == 1
    with pytest.raises(games.IllegalMove, match="cannot take"):
        s.check({"type": "capture", "card": "AS", "value": 6, "take": [0]})
    with pytest.raises(games.IllegalMove):
        s.check({"type": "fly"})
    with pytest.raises(games.IllegalMove):
        s.apply({"type": "trail", "card": "KS"})


def test_zwicker_forfeit_is_todays_award():
    g = games.game("zwicker")
    v = g.variant("jensen")
    assert g.forfeit(v, "deal", 1, deals=3).sides == (90, 0)
    assert g.forfeit(v, "game", 2).sides == (0, 101)
    assert g.forfeit(v, "game", 2).seats == (0, 101, 0, 101)


def test_zwicker_variant_specs():
    g = games.game("zwicker")
    assert g.variant("jensen:target=51,all_tens=true") == rules.variant("jensen", target=51, all_tens=True)
    assert g.variant('{"preset": "grupp", "players": 5}') == rules.variant("grupp", players=5)
    assert g.variant({"game": "zwicker", "preset": "huelsemann"}) == rules.variant("huelsemann")
    assert games.load({"preset": "jensen", "target": 51})[1] == rules.variant("jensen", target=51)
    assert games.load("zwicker:jensen:target=51")[1] == rules.variant("jensen", target=51)
    for bad in ("nope", "jensen:target", "jensen:target=0", "[1]", {"game": "zwicken", "preset": "jensen"}):
        with pytest.raises(games.BadVariant):
            g.variant(bad)


def test_zwicker_layouts():
    g = games.game("zwicker")
    assert g.layout(g.variant("jensen")).sides == ((0, 2), (1, 3))
    assert g.layout(g.variant("grossenwiehe:players=6")).sides == ((0, 2, 4), (1, 3, 5))
    assert g.layout(g.variant("huelsemann:players=6")).sides == tuple((s,) for s in range(6))
    assert g.layout(g.variant("jensen:players=3")).partnerships is False


def test_unknown_game_is_one_clear_error():
    with pytest.raises(games.UnknownGame, match="unknown game 'chess'.*zwicker"):
        games.game("chess")
    assert games.game() is zwicker.GAME
