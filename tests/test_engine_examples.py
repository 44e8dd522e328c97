"""The worked examples of docs/rules.md section 9, each as a complete legal-move set, plus the
shuffle test vector that other implementations check themselves against."""

import pytest

from engine import zwicker
from engine.zwicker.notation import move_text


def position(table, hand, variant="jensen"):
    v = zwicker.variant(variant)
    hands = [[] for _ in range(v.players)]
    hands[0] = hand
    return zwicker.State.from_dict({
        "variant": variant, "dealer": v.players - 1, "to_move": 0, "hands": hands, "table": table,
        "stock": [], "taken": [[] for _ in range(v.num_sides)], "zwicks": [0] * v.num_sides,
        "last_capture": None,
    })


def legal(state):
    return [move_text(m) for m in state.legal_moves()]


def test_a_pair_sum_and_combined_capture():
    s = position(["9C", "5H", "4D", "7S"], ["9S", "KH", "2C", "QD"])
    assert sorted(legal(s)) == sorted([
        "9Sx0=9", "9Sx1+2=9", "9Sx0+1+2=9", "KHx2=4", "KHx0+1=14", "QDx0+2=13",
        "2C>1=3", "2C>3=9", "9S>1=14", "9S>2=13", "KH>0=13", "KH>1=9", "KH>3=3", "QD>1=2", "QD>3=4",
        "9S", "KH", "2C", "QD",
    ])
    assert len(legal(s)) == len(set(legal(s)))


def test_b_dual_values_and_a_zwick():
    s = position(["KC", "3D", "AH"], ["KS", "7C"])
    assert sorted(legal(s)) == sorted([
        "KSx0=4", "KSx1+2=4", "KSx0+1+2=4", "7Cx0+1=7", "7C>2=4", "KS>1=7", "KS>2=7", "KS", "7C",
    ])
    after = s.apply(zwicker.parse_move("KSx0+1+2"))
    assert after.zwicks == (1, 0) and after.table == () and after.taken[0] == ("KS", "KC", "3D", "AH")


def test_c_a_joker_on_the_table():
    s = position(["X20", "8H"], ["6C", "KD", "5S", "3H"])
    assert sorted(legal(s)) == sorted([
        "6C>0=14", "KD>0=6", "6C>1=14", "5S>1=3", "3H>1=5", "6C", "KD", "5S", "3H",
    ])
    with pytest.raises(zwicker.IllegalMove, match="5S>0=15"):
        s.apply({"type": "build", "card": "5S", "value": 15, "onto": 0})
    with pytest.raises(zwicker.IllegalMove, match="17"):
        s.apply({"type": "build", "card": "3H", "value": 17, "onto": 0})


def test_d_several_groups_at_once():
    s = position(["7H", "3C", "6D", "4S", "TC"], ["TS"])
    captures = [m for m in legal(s) if "x" in m]
    assert sorted(captures) == sorted([
        "TSx4=10", "TSx0+1=10", "TSx2+3=10", "TSx0+1+4=10", "TSx2+3+4=10", "TSx0+1+2+3=10",
        "TSx0+1+2+3+4=10",
    ])
    assert legal(s) == captures + ["TS"]


def test_e_huelsemann_piles_and_cap():
    s = position(["8C", "5D"], ["3H", "9S"], "huelsemann")
    assert sorted(legal(s)) == sorted(["3H>1=8", "3H>0=11", "9S>1=14", "3H", "9S"])


def test_k_scoring_a_jensen_deal():
    v = zwicker.variant("jensen")
    deck = list(v.rules.deck)
    side0_named = ["X25", "X15", "TD", "2S", "AC", "AH", "TC"]
    side1_named = ["X20", "TS", "AS", "AD", "TH"]
    plain = [c for c in deck if c not in side0_named + side1_named and v.rules.points[c] == 0]
    side0 = side0_named + plain[: 31 - len(side0_named)]
    side1 = side1_named + plain[31 - len(side0_named):]
    assert len(side0) == 31 and len(side1) == 24
    s = zwicker.State.from_dict({
        "variant": "jensen", "dealer": 0, "to_move": 1, "hands": [[], [], [], []], "table": [],
        "stock": [], "taken": [side0, side1], "zwicks": [2, 1], "last_capture": 0, "is_over": True,
    })
    assert s.score() == [23, 10]
    b = s.breakdown()
    assert b[0]["card_points"] == 18 and b[0]["most_cards"] == 3 and b[0]["zwick_points"] == 2
    assert b[1]["card_points"] == 9 and b[1]["most_cards"] == 0 and b[1]["zwick_points"] == 1
    assert sum(s.score()) == 30 + 3


# The shuffle test vector (also in games/zwicker/protocol.md): first ten cards of the jensen deck.
SHUFFLE_VECTOR = {
    0: "6D X20 8H 5H KC QC 4S 7S 6S 9D",
    1: "QH 6H 2C 7S TH TS 9C 6S KD KC",
    2**64 - 1: "X25 JH 6C 7H QH 8H 9S AH AC QS",
}


@pytest.mark.parametrize("seed", sorted(SHUFFLE_VECTOR))
def test_shuffle_vector(seed):
    deck = zwicker.variant("jensen").rules.deck
    assert " ".join(zwicker.shuffle(seed, deck)[:10]) == SHUFFLE_VECTOR[seed]


def test_canonical_deck_order():
    deck = zwicker.variant("jensen").rules.deck
    assert deck[:3] == ("AC", "2C", "3C") and deck[12] == "KC" and deck[13] == "AD"
    assert deck[-3:] == ("X15", "X20", "X25") and len(deck) == 55
    two = zwicker.variant("grupp", players=6).rules.deck
    assert len(two) == 108 and two[52:54] == ("XW", "XW") and two[-2:] == ("XW", "XW")
