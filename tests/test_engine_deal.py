"""Dealing, refills, the end of a deal, games, bad input and the text notation."""

import random

import pytest

from engine import zwicker
from engine.zwicker.moves import Move


def test_jensen_deals_one_at_a_time_from_the_forehand():
    v = zwicker.variant("jensen")
    deck = zwicker.shuffle(42, v.rules.deck)
    s = zwicker.deal(v, 42, dealer=2)
    assert s.to_move == 3
    assert s.hands[3] == tuple(deck[0:16:4]) and s.hands[2] == tuple(deck[3:16:4])
    assert s.table == tuple(deck[16:19]) and s.stock == tuple(deck[19:])


def test_grossenwiehe_deals_two_five_two_five():
    v = zwicker.variant("grossenwiehe")
    deck = zwicker.shuffle(1, v.rules.deck)
    s = zwicker.deal(v, 1, dealer=0)
    assert s.hands[1] == (deck[0], deck[4], deck[13], deck[17])
    assert s.table == tuple(deck[8:13] + deck[21:26]) and len(s.stock) == 58 - 26


def refill_sizes(variant, seed=0):
    """Hand sizes after the first deal and after every refill."""
    s = zwicker.deal(variant, seed)
    sizes = [[len(h) for h in s.hands]]
    rng = random.Random(seed)
    while not s.is_over:
        stock = len(s.stock)
        s = s.apply(rng.choice(s.legal_moves()))
        if len(s.stock) < stock:
            sizes.append([len(h) for h in s.hands])
    return sizes


def test_refills_deal_the_short_stock_out_evenly():
    assert refill_sizes("jensen") == [[4, 4, 4, 4], [4, 4, 4, 4], [5, 5, 5, 5]]
    assert refill_sizes("huelsemann") == [[4, 4, 4, 4], [4, 4, 4, 4], [4, 4, 4, 4]]
    # 3 players: 55 - 12 - 3 = 40 in stock: 12, 12, then 16 dealt as 6, 5, 5 (forehand first).
    three = refill_sizes({"preset": "jensen", "players": 3})
    assert three[-1] == [5, 6, 5] and [sum(x) for x in three] == [12, 12, 12, 16]


def test_turn_skips_seats_with_empty_hands_after_an_uneven_refill():
    s = zwicker.deal({"preset": "jensen", "players": 3}, 0, dealer=0)
    rng = random.Random(0)
    while not s.is_over:
        assert s.hands[s.to_move], "the seat to move always holds cards"
        s = s.apply(rng.choice(s.legal_moves()))
    assert [m.card for _, m in s.history][-1] and s.history[-1][0] == 1  # the forehand played last


def test_leftovers_go_to_the_last_capturer_and_are_no_zwick():
    s = zwicker.State.from_dict({
        "variant": "jensen", "dealer": 3, "to_move": 0, "hands": [["5C"], [], [], []],
        "table": ["9C", {"build": ["2D", "3D"], "value": 5, "by": 1}], "stock": [],
        "taken": [[], ["AS"]], "zwicks": [0, 0], "last_capture": 1,
    })
    end = s.apply({"type": "trail", "card": "5C"})
    assert end.is_over and end.table == () and end.taken[1] == ("AS", "9C", "2D", "3D", "5C")
    assert end.zwicks == (0, 0) and end.to_move == 1
    zwick = s.apply({"type": "capture", "card": "5C", "take": [1]})
    assert zwick.is_over and zwick.taken[0] == ("5C", "2D", "3D", "9C") and zwick.zwicks == (0, 0)


def test_a_last_card_zwick_counts_and_nobody_captured_scores_nothing():
    s = zwicker.State.from_dict({
        "variant": "jensen", "dealer": 3, "to_move": 0, "hands": [["9S"], [], [], []],
        "table": ["9C"], "stock": [], "taken": [[], []], "zwicks": [0, 0], "last_capture": None,
    })
    end = s.apply(zwicker.parse_move("9Sx0"))
    assert end.zwicks == (1, 0) and end.score() == [3 + 1, 0]
    nobody = s.apply({"type": "trail", "card": "9S"})
    assert nobody.is_over and nobody.table == ("9C", "9S") and nobody.score() == [0, 0]


def test_compulsory_capture_in_huelsemann_only():
    pos = {"dealer": 3, "to_move": 0, "hands": [["9S", "3H"], [], [], []], "table": ["9C"],
           "stock": [], "taken": [[], []], "zwicks": [0, 0], "last_capture": None}
    h = zwicker.State.from_dict({**pos, "variant": "huelsemann"})
    assert [str(m) for m in h.legal_moves()] == ["9Sx0=9"]
    with pytest.raises(zwicker.IllegalMove, match="compulsory"):
        h.apply({"type": "trail", "card": "3H"})
    j = zwicker.State.from_dict({**pos, "variant": "jensen"})
    assert "3H" in [str(m) for m in j.legal_moves()]


def test_partner_holder_rule_sees_the_partners_hand():
    pos = {"dealer": 3, "to_move": 0, "hands": [["2C", "5D"], ["9H"], ["7S"], []],
           "table": ["5H"], "stock": [], "taken": [[], []], "zwicks": [0, 0], "last_capture": None}
    own = zwicker.State.from_dict({**pos, "variant": "jensen"})
    assert "2C>0=7" not in [str(m) for m in own.legal_moves()]
    partner = zwicker.State.from_dict({**pos, "variant": {"preset": "jensen", "build_holder": "partner"}})
    assert "2C>0=7" in [str(m) for m in partner.legal_moves()]
    assert "5D>0=9" not in [str(m) for m in partner.legal_moves()]  # 9H is an opponent's


def test_capture_value_may_be_any_that_makes_it_legal():
    s = zwicker.State.from_dict({
        "variant": "jensen", "dealer": 3, "to_move": 0, "hands": [["KS", "2C"], [], [], []],
        "table": ["KC"], "stock": [], "taken": [[], []], "zwicks": [0, 0], "last_capture": None})
    for value in (None, 4, 14):
        after = s.apply({"type": "capture", "card": "KS", "value": value, "take": [0]})
        assert after.taken[0] == ("KS", "KC")
    with pytest.raises(zwicker.IllegalMove):
        s.apply({"type": "capture", "card": "KS", "value": 5, "take": [0]})


def test_games_run_to_the_target_with_the_dealer_rotating():
    game = zwicker.Board.new("jensen", seed=11, first_dealer=2)
    dealers = []
    rng = random.Random(0)
    while not game.is_over:
        s = game.deal()
        dealers.append(s.dealer)
        while not s.is_over:
            s = s.apply(rng.choice(s.legal_moves()))
        game = game.after(s)
    assert dealers[:5] == [2, 3, 0, 1, 2][: len(dealers[:5])]
    assert max(game.totals) >= 101 and game.winner == game.totals.index(max(game.totals))
    assert zwicker.variant("jensen", target=51).target == 51


@pytest.mark.parametrize("position, field", [
    ({"hands": [["ZZ"], [], [], []]}, "hands[0][0]"),
    ({"hands": [["9S"], [], [], ["9S"]]}, "9S: occurs 2 times"),
    ({"hands": [["9S"], [], []]}, "hands: expected 4"),
    ({"taken": [[]]}, "taken: expected 2"),
    ({"table": [{"build": ["2C", "3C"], "value": 5}]}, "table[0]"),
    ({"to_move": 7}, "to_move"),
    ({"zwicks": [0]}, "zwicks"),
    ({"variant": "skat"}, "variant: unknown preset"),
])
def test_bad_positions_name_the_field(position, field):
    base = {"variant": "jensen", "dealer": 3, "to_move": 0, "hands": [["9S"], [], [], []],
            "table": ["9C"], "stock": [], "taken": [[], []], "zwicks": [0, 0], "last_capture": None}
    with pytest.raises(zwicker.PositionError, match=field.replace("[", r"\[").replace("]", r"\]")):
        zwicker.State.from_dict({**base, **position})


def test_a_finished_deal_loads_and_scores_without_is_over():
    finished = {"variant": "jensen", "dealer": 0, "to_move": 1, "hands": [[], [], [], []], "table": [],
                "stock": [], "taken": [["TD", "AS", "9C"], ["2S"]], "zwicks": [1, 0], "last_capture": 0}
    s = zwicker.State.from_dict(finished)
    assert s.is_over and s.legal_moves() == [] and s.score() == [3 + 1 + 3 + 1, 1]
    assert zwicker.State.from_dict({**finished, "is_over": True}) == s
    text = "\n".join(line for line in zwicker.position_text(s).splitlines()
                     if not line.startswith(("over:", "moves:")))
    assert zwicker.parse_position(text) == s
    nobody = zwicker.State.from_dict({**finished, "table": ["9C", "9S"], "taken": [[], []],
                                     "zwicks": [0, 0], "last_capture": None})
    assert nobody.is_over and nobody.score() == [0, 0]


@pytest.mark.parametrize("position, message", [
    ({"is_over": False}, "is_over: false contradicts the cards: every hand and the stock are empty"),
    ({"is_over": True, "hands": [["9S"], [], [], []]}, "is_over: true contradicts"),
    ({"is_over": "yes"}, "is_over: expected true or false"),
    ({"table": ["9C"]}, r"table: the deal is over, so the units left on the table belong to side 0"),
    ({"stock": ["9C"]}, "to_move: seat 1 holds no cards, but the deal is not over"),
])
def test_is_over_must_agree_with_the_cards(position, message):
    finished = {"variant": "jensen", "dealer": 0, "to_move": 1, "hands": [[], [], [], []], "table": [],
                "stock": [], "taken": [["TD"], []], "zwicks": [0, 0], "last_capture": 0}
    with pytest.raises(zwicker.PositionError, match=message):
        zwicker.State.from_dict({**finished, **position})


@pytest.mark.parametrize("move, message", [
    ({"card": "9S"}, "missing key 'type'"),
    ({"type": "capture", "card": "9S"}, "missing key 'take'"),
    ({"type": "capture", "card": "9S", "take": [5]}, "out of range"),
    ({"type": "build", "card": "9S", "onto": 0}, "missing key 'value'"),
    ({"type": "trail", "card": "2H"}, "not in seat 0's hand"),
    ({"type": "jump", "card": "9S"}, "move.type"),
    ("9S", "expected a dict"),
])
def test_bad_moves_are_clear_errors(move, message):
    s = zwicker.deal("jensen", 0).apply({"type": "trail", "card": zwicker.deal("jensen", 0).hands[1][0]})
    s = zwicker.State.from_dict({**s.to_dict(), "hands": [["9S"], ["9C"], [], []], "to_move": 0,
                                "table": ["9D"], "stock": []})
    with pytest.raises(ValueError, match=message):
        s.apply(move)


def test_unknown_and_impossible_variants():
    with pytest.raises(zwicker.VariantError, match="unknown preset"):
        zwicker.variant("zwicken")
    with pytest.raises(zwicker.VariantError, match="unknown option 'jokers'"):
        zwicker.variant("jensen", jokers=3)
    with pytest.raises(zwicker.VariantError, match="9"):
        zwicker.variant("jensen", players=9)
    with pytest.raises(zwicker.VariantError, match="grupp"):
        zwicker.variant("jensen", wild_jokers=1)
    v = zwicker.variant({"preset": "grupp", "wild_jokers": 3}, players=6)
    assert zwicker.variant(v.to_dict()) == v and v.rules.deck.count("XW") == 6
    assert zwicker.variant("jensen").describe()["points"]["X25"] == 7


def test_notation_round_trips():
    for text in ["9Sx0+1+2=9", "X25x0+3=25", "2C>3=9", "5H", "XW>1=14"]:
        assert str(zwicker.parse_move(text)) == text
    assert zwicker.parse_move("9Sx2+0").take == (0, 2)
    with pytest.raises(ValueError, match="cannot read"):
        zwicker.parse_move("9S to the table")
    assert Move.from_dict(zwicker.parse_move("2C>3=9").to_dict()) == zwicker.parse_move("2C>3=9")
    s = zwicker.deal("grupp", 5)
    assert zwicker.parse_position(zwicker.position_text(s)) == s
