"""Zwicken through games.api only (the arena's view): what the interface promises, for every preset."""

from __future__ import annotations

import json
import random

import pytest

import games
from games.api import BadPosition, BadVariant, Board, Game, GameError, IllegalMove, Move, State, Variant

G = games.game("zwicken")
PRESETS = ["bayern", "ohne_welli", "scharf"]


def play(board, rng):
    """Play a board to its end the way the arena's table loop does; returns (board, stored deals)."""
    stored = []
    while not board.is_over:
        carry, deal_no = board.carry(), board.deals_played
        state = board.deal()
        moves = []
        while not state.is_over:
            legal, complete = state.legal_moves(1000)
            assert legal and complete and state.to_move is not None
            i = rng.randrange(len(legal))
            assert state.check(legal[i].to_dict()) == legal[i]
            for seat in range(G.layout(board_variant(board)).players):
                json.dumps(state.observation(seat, moves=False))
            state = state.apply(legal[i])
            moves.append(i)
        assert state.to_move is None and state.legal_moves()[0] == []
        stored.append((deal_no, carry, moves, state.to_dict(), state.result()))
        board = board.after(state)
    return board, stored


def board_variant(board):
    return board.rules.variant


def test_registered_and_described():
    assert isinstance(G, Game) and "zwicken" in games.names()
    assert G.info.name == "zwicken" and G.info.utility == "zero_sum" and G.info.unit == "chips"
    assert G.info.formats == ("session",) and (G.info.min_players, G.info.max_players) == (2, 10)
    g, v = games.load("zwicken:players=5,welli=false")
    assert g is G and isinstance(v, Variant) and v.players == 5 and not v.welli
    assert games.load({"game": "zwicken", "players": 3})[1] == G.variant("players=3")
    assert G.variant(G.describe(v)) == v and G.describe(v)["game"] == "zwicken"
    assert G.variant(v.to_dict()) == v and G.variant(str(v)) == v
    layout = G.layout(v)
    assert layout.sides == tuple((s,) for s in range(5)) and not layout.partnerships


@pytest.mark.parametrize("spec", [{"players": 11}, {"stake": 4}, {"wind": 1}, "preset=berlin", {"game": "zwicker"}])
def test_bad_variants(spec):
    with pytest.raises(BadVariant):
        G.variant(spec)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_boards_through_the_interface(preset, players):
    v = G.variant({"preset": preset, "players": players})
    for seed in range(4):
        rng = random.Random(seed)
        board = G.board(v, seed * 7919, seed % players, "session")
        assert isinstance(board, Board)
        end, stored = play(board, rng)
        result = end.result()
        assert sum(result.seats) == 0 and result.sides == result.seats
        assert result.detail["balances"] == list(result.seats)
        assert [r.detail for *_, r in stored] == result.detail["deals"]
        # deal results and the carry balance: each deal's nets plus the pot's change are zero
        pot = 0
        for _, carry, _, _, r in stored:
            assert carry["pot"] == pot
            pot = r.detail["carry"]
            assert sum(r.seats) == carry["pot"] - pot
        # each stored deal rebuilt alone from its carry and move indices
        for deal_no, carry, moves, final, _ in stored:
            state = G.resume(v, seed * 7919, seed % players, "session", deal_no, carry).deal()
            for i in moves:
                state = state.apply(state.legal_moves()[0][i])
            assert state.to_dict() == final
        # the same seed and moves give the same board
        again, _ = play(G.board(v, seed * 7919, seed % players), random.Random(seed))
        assert again.result() == result


def test_states_are_values():
    v = G.variant("bayern")
    s = G.board(v, 0, 3).deal()
    assert isinstance(s, State)
    before = s.to_dict()
    legal, _ = s.legal_moves()
    assert isinstance(legal[0], Move) and str(legal[0]) == "schleck"
    s.apply(legal[0])
    assert s.to_dict() == before
    assert G.state_from_dict(before).to_dict() == before
    assert G.parse_move("titsch", s) == legal[1]
    assert G.move_from_dict({"type": "play"}).to_dict() == {"type": "play"}
    assert "dealer 3" in s.text() and "(3 cards)" in s.text(0)


def test_errors_are_the_interfaces():
    s = G.board(G.variant(), 0, 3).deal()
    for bad in ({"type": "play"}, {"type": "card", "card": "AE"}, {"type": "bid"}, "schleck"):
        with pytest.raises(IllegalMove):
            s.check(bad)
        with pytest.raises(IllegalMove):
            s.apply(bad)
    with pytest.raises(IllegalMove):
        G.parse_move("AE", s)
    with pytest.raises(BadPosition):
        G.state_from_dict({"game": "zwicken"})
    with pytest.raises(GameError):
        s.result()
    with pytest.raises(GameError):
        G.board(G.variant(), 0, 0, "game")
    with pytest.raises(GameError):
        G.board(G.variant(), -1, 0)


def test_forfeit():
    r = G.forfeit(G.variant(), "session", 1)
    assert r.seats == (192, -576, 192, 192) and sum(r.seats) == 0
    assert r.detail == {"balances": [192, -576, 192, 192], "forfeit": 1, "deals": [], "close": None}
    assert G.forfeit(G.variant({"players": 3, "forfeit": 30}), None, 0).seats == (-60, 30, 30)
