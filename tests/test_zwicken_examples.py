"""docs/zwicken-rules.md against engine/zwicken: the shuffle's test vectors (section 8), the data
forms of section 10 exactly as printed there, and the worked examples A-H (section 11) move by move."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine import zwicken as z
from engine.zwicken.scoring import settle
from engine.zwicken.state import deal as opening

DOC = (Path(__file__).resolve().parents[1] / "docs" / "zwicken-rules.md").read_text()


def doc_json_blocks() -> list:
    return [json.loads(b) for b in re.findall(r"```json\n(.*?)```", DOC, re.S)]


def texts(moves) -> list[str]:
    return [str(m) for m in moves]


def play(state, *moves: str, legal: dict[int, list[str]] | None = None):
    """Apply text moves in order; `legal[i]` is the legal list (text) expected before move i."""
    for i, text in enumerate(moves):
        if legal and i in legal:
            assert texts(state.legal_moves()) == legal[i], (i, text)
        state = state.apply(z.parse_move(text))
    return state


# -- section 8: the shuffle and the seeds ---------------------------------------------------------

def test_canonical_pack():
    assert " ".join(z.PACK) == ("AE KE OE UE TE 9E 8E 7E AG KG OG UG TG 9G 8G 7G "
                                "AH KH OH UH TH 9H 8H 7H AS KS OS US TS 9S 8S 7S")


@pytest.mark.parametrize("seed, first, cut", [
    (0, "TS UH 7G AH 8S TE 9H KH AS KE", "US"),
    (1, "8E TG KE UE 9E 8S 8H OE AS AG", "UG"),
    (2**64 - 1, "AE TG 8H OS OE KG 9E TE KS 7E", "AS"),
])
def test_shuffle_vectors(seed, first, cut):
    pack = z.shuffle(seed)
    assert " ".join(pack[:10]) == first and pack[-1] == cut
    assert sorted(pack) == sorted(z.PACK)


def test_seed_vectors():
    assert z.deal_seed(0, 0) == 12833539399763519841
    assert z.deal_seed(1, 0) == 14332175824996286583
    assert z.deal_seed(1, 1) == 10465930509702887059
    assert z.attempt_seed(0, 0, 0) == 15981481228442768690
    assert z.attempt_seed(0, 0, 1) == 1850814755587838139


def test_bad_seeds_refused():
    for bad in (-1, 2**64, 1.0, True, "3"):
        with pytest.raises(z.EngineError):
            z.shuffle(bad)


# -- A: a seeded deal, played out ------------------------------------------------------------------

def example_a():
    return opening("bayern", 0, 3)


def test_a_the_deal():
    s = example_a()
    assert s.hands == (("TS", "8S", "AS"), ("UH", "TE", "KE"), ("7G", "9H", "9S"), ("AH", "KH", "9G"))
    assert s.stock[0] == "9E" and s.cut == "US" and s.pot == 3
    assert " ".join(z.shuffle(0)) == ("TS UH 7G AH 8S TE 9H KH AS KE 9S 9G 9E UG AE UE TH OG 8E AG "
                                      "8H KS 7S OH OE 7E KG TG 7H 8G OS US")
    obs = z.observe(s, 3)
    assert obs["hand"] == [] and obs["hand_hidden"] and obs["hand_sizes"] == [3, 3, 3, 3]


def test_a_played_out():
    s = play(example_a(), "schleck", "pass", "play", "pass", "play", "KE", "9G", "TE", "KH", "UH", "AH",
             legal={0: ["schleck", "titsch"], 1: ["play", "pass"], 2: ["play", "pass"], 3: ["play", "pass"],
                    4: ["play", "pass"], 5: ["UH", "TE", "KE"], 6: ["AH", "KH", "9G"], 7: ["UH", "TE"],
                    8: ["AH", "KH"], 9: ["UH"], 10: ["AH"]})
    assert s.trump == "E" and s.turned == "9E"
    assert [w for _, w in s.tricks_played] == [1, 1, 3]
    r = s.result.to_dict()
    assert r["event"] == "played" and r["won"] == [0, 2, 0, 1] and r["carry"] == 0
    assert list(s.balances) == [0, 2, 0, -2] and s.pot == 0


def test_a_trumps_listed():
    from engine.zwicken.cards import trumps
    assert " ".join(trumps(True, "E")) == "AE 7S KE OE UE TE 9E 8E 7E"
    assert " ".join(trumps(True, "S")) == "AS 7S KS OS US TS 9S 8S"
    assert " ".join(trumps(False, "S")) == "AS KS OS US TS 9S 8S 7S"


def test_a_titschen_instead():
    s = example_a().apply(z.TITSCHEN)
    assert s.exposed == "9G" and s.trump == "G"
    s = play(s, "pass", "pass", "play")
    assert texts(s.legal_moves()) == ["play"]


# -- B: follow rules and the Welli -----------------------------------------------------------------

def position_b(hands: dict[int, list[str]], variant: dict | None = None, trick=()):
    """Herz trumps by Titschen (dealer 0 shows 8H), all four in, seat 1 to lead: a position whose
    unnamed cards are filled from the pack."""
    used = {c for h in hands.values() for c in h}
    rest = [c for c in z.PACK if c not in used]
    full = {s: list(hands.get(s, ())) for s in range(4)}
    for s in range(4):
        while len(full[s]) < 3:
            c = next(c for c in rest if c[1] not in "SH")  # fillers: neither Schellen nor Herz
            rest.remove(c)
            full[s].insert(0, c)
    v = z.variant(variant or {})
    pos = {
        "game": "zwicken", "variant": v.to_dict(), "board": {"deal": 0, "attempt": 0, "playout": False, "carry_in": 0},
        "dealer": 0, "phase": "trick", "to_move": 1, "hands": [full[s] for s in range(4)], "stock": rest,
        "cut": rest[-1], "method": "titschen", "turned": None, "exposed": "8H", "trump": "H", "stake": 3, "pot": 3,
        "balances": [-3, 0, 0, 0], "decisions": ["play"] * 4, "leader": 1, "trick": [], "tricks": [0] * 4,
        "moves": [{"seat": 0, "type": "trump", "method": "titschen"}] + [{"seat": s, "type": "play"} for s in (1, 2, 3, 0)],
    }
    return z.from_dict(pos)


def test_b1_welli_is_a_trump_not_a_schellen():
    hands = {1: ["9S"], 2: ["7S", "KG", "TH"], 3: ["OS", "9H", "UG"], 0: ["AH", "9G", "8H"]}
    s = position_b(hands).apply(z.card_move("9S"))
    assert texts(s.legal_moves()) == ["7S", "TH"]
    s = s.apply(z.card_move("7S"))
    assert texts(s.legal_moves()) == ["OS"]
    s = s.apply(z.card_move("OS"))
    assert texts(s.legal_moves()) == ["AH", "8H"]
    s = s.apply(z.card_move("AH"))
    assert s.tricks_played[0][1] == 0 and s.exposed == "8H"
    plain = position_b(hands, {"welli": False}).apply(z.card_move("9S"))
    assert texts(plain.legal_moves()) == ["7S"]


def test_b2_must_overtrump():
    hands = {1: ["9S"], 2: ["TH", "KG", "9G"], 3: ["KH", "7H", "UG"], 0: ["AH", "OG", "8H"]}
    for variant, legal in (({}, ["KH", "7H"]), ({"must_overtrump": True}, ["KH"])):
        s = play(position_b(hands, variant), "9S", "TH")
        assert texts(s.legal_moves()) == legal


def test_b3_must_head():
    hands = {1: ["9S"], 2: ["TS", "KG", "9G"], 3: ["KS", "8S", "OG"], 0: ["AH", "UE", "8H"]}
    for variant, legal in (({}, ["KS", "8S"]), ({"must_head": True}, ["KS"])):
        s = play(position_b(hands, variant), "9S", "TS")
        assert texts(s.legal_moves()) == legal


def test_b_led_welli_is_a_trump_lead():
    hands = {1: ["7S"], 2: ["TH", "KS", "9G"], 3: ["OS", "8S", "OG"], 0: ["AH", "UE", "8H"]}
    s = position_b(hands).apply(z.card_move("7S"))
    assert texts(s.legal_moves()) == ["TH"]
    s = s.apply(z.card_move("TH"))
    assert texts(s.legal_moves()) == ["OS", "8S", "OG"]  # no trump: anything, Schellen included


# -- C: a carried pot, five players ----------------------------------------------------------------

def test_c_carried_pot():
    v = z.variant(players=5)
    paid = (0, 0, 0, 0, 3)
    r = settle(v, "played", 4, 18, paid, ("play", "pass", "play", "play", "pass"), (2, 0, 0, 1, 0), "E", ())
    assert list(r.won) == [12, 0, 0, 6, 0] and list(r.paid) == [0, 0, 18, 0, 3]
    assert list(r.net) == [12, 0, -18, 6, -3] and r.carry == 18 and sum(r.net) == -3
    assert opening(v, 5, 0, carry_in=r.carry).pot == 21
    capped = settle(v, "played", 4, 240, paid, ("play", "pass", "play", "play", "pass"), (2, 0, 0, 1, 0), "E", ())
    assert capped.paid[2] == 192 and capped.won == (160, 0, 0, 80, 0)


# -- D: Bruder, all passed, a lone player ----------------------------------------------------------

def test_d_bruder():
    v = z.variant()
    r = settle(v, "played", 3, 12, (0, 0, 0, 3), ("play", "play", "pass", "play"), (1, 1, 0, 1), "E", ())
    assert r.event == "bruder" and r.won == (0,) * 4 and r.carry == 12
    four = settle(v, "played", 3, 12, (0, 0, 0, 3), ("play",) * 4, (1, 1, 0, 1), "E", ())
    assert four.event == "played" and four.won == (4, 4, 0, 4) and four.paid == (0, 0, 12, 3)


def test_d_all_passed():
    s = play(example_a(), "schleck", "pass", "pass", "pass")
    r = s.result.to_dict()
    assert r["event"] == "all_passed" and r["shown"] == {"3": ["AH", "KH", "9G"]} and r["carry"] == 3
    assert r["in"] == [False] * 4 and s.decisions[3] is None and r["won"] == [0] * 4
    assert z.observe(s, 0)["shown"] == {"3": ["AH", "KH", "9G"]}
    herz = settle(z.variant(), "all_passed", 3, 3, (0, 0, 0, 3), ("pass", "pass", "pass", None), (0,) * 4, "H",
                  ("AH", "KH", "9G"))
    assert herz.won == (0, 0, 0, 3) and herz.carry == 0
    pay = play(opening({"dealer_no_trump": "pay"}, 0, 3), "schleck", "pass", "pass", "pass")
    assert pay.result.paid == (0, 0, 0, 6) and pay.result.carry == 6


def test_d_lone_player():
    s = play(example_a(), "schleck", "pass", "play", "pass", "pass")
    r = s.result.to_dict()
    assert r["event"] == "lone" and r["in"] == [False, True, False, False] and r["won"] == [0, 3, 0, 0]
    assert r["shown"] == {} and r["carry"] == 0
    defends = play(opening({"lone_player": "dealer_defends"}, 0, 3), "schleck", "pass", "play", "pass")
    assert texts(defends.legal_moves()) == ["play"]


# -- E: Titschen and a gezwickt player -------------------------------------------------------------

def test_e_titschen_gezwickt():
    s = play(example_a(), "titsch", "pass", "pass", "play", "play", "9H", "AH", "9G", "7G", "KH", "9S",
             legal={4: ["play"], 6: ["AH", "KH"], 8: ["7G"], 10: ["9S"]})
    assert s.trump == "G" and s.exposed is None
    r = s.result.to_dict()
    assert r["tricks"] == [0, 0, 0, 3] and r["won"] == [0, 0, 0, 3] and r["paid"] == [0, 0, 3, 3]
    assert list(s.balances) == [0, 0, -3, 0] and s.pot == 3


# -- F: a hop, and section 10's forms --------------------------------------------------------------

def board_f():
    return z.Board.new({"cut": "hop", "deals": 1}, 0, 3)


def test_f_hop_and_the_next_attempt():
    b = board_f()
    s = b.deal()
    assert s.is_over and s.cut == "7H" and s.moves == () and s.method is None and s.trump is None
    b = b.after(s)
    assert (b.dealer, b.deal_no, b.attempt, b.pot) == (0, 0, 1, 3)
    s = b.deal()
    assert s.cut == "9S" and s.carry_in == 3 and s.pot == 6 and s.stock[0] == "OS"
    assert s.hands == (("OG", "9E", "7E"), ("8H", "KS", "OE"), ("AG", "US", "AE"), ("TH", "TE", "OH"))
    table = opening({"cut": "table", "deals": 1}, z.attempt_seed(0, 0, 0), 3)
    assert not table.is_over and table.paid == (0, 0, 0, 3)


def f_mid_trick():
    b = board_f()
    b = b.after(b.deal())
    return b, play(b.deal(), "schleck", "play", "play", "pass", "pass", "KS", "US", "OE",
                   legal={5: ["8H", "KS", "OE"], 6: ["US"]})


def test_section_10_position_and_observation_verbatim():
    blocks = doc_json_blocks()
    position = next(b for b in blocks if "hands" in b)
    observation = next(b for b in blocks if "hand_hidden" in b)
    _, s = f_mid_trick()
    assert z.to_dict(s) == position
    assert json.dumps(z.to_dict(s)) == json.dumps(position)  # key order too
    assert z.observe(s, 2) == observation
    assert json.dumps(z.observe(s, 2)) == json.dumps(observation)
    assert texts(s.legal_moves()) == ["AE"]
    assert z.to_dict(z.from_dict(position)) == position


def test_section_10_results_verbatim():
    blocks = doc_json_blocks()
    deal = next(b for b in blocks if b.get("event") == "played")
    board = next(b for b in blocks if "close" in b and b.get("close"))
    b, s = f_mid_trick()
    s = play(s, "AE", "AG", "8H", legal={1: ["AG"], 2: ["8H"]})
    assert s.result.to_dict() == deal
    b = b.after(s)
    assert b.is_over and b.result() == board
    assert json.dumps(b.result()) == json.dumps(board)
    forfeit = z.forfeit_result(z.variant(), 1)
    assert forfeit == {"balances": [192, -576, 192, 192], "forfeit": 1, "deals": [], "close": None}


def test_section_10_moves():
    for text, data in (("schleck", {"type": "trump", "method": "schlecken"}),
                       ("titsch", {"type": "trump", "method": "titschen"}),
                       ("play", {"type": "play"}), ("pass", {"type": "pass"}), ("KE", {"type": "card", "card": "KE"})):
        m = z.parse_move(text)
        assert m.to_dict() == data and str(m) == text and z.Move.from_dict(data) is m
    for bad in ({"type": "card"}, {"type": "card", "card": "XX"}, {"type": "play", "x": 1}, {"type": "trump", "method": "x"}, []):
        with pytest.raises(z.IllegalMove):
            z.Move.from_dict(bad)


# -- G: closing a board ----------------------------------------------------------------------------

def test_g_playout_deal_pot():
    v = z.variant(deals=4)
    b = z.Board.resume(v, 11, 0, {"deal": 4, "attempt": 0, "dealer": 0, "balances": [-9, 0, 0, 0], "pot": 9})
    assert b.playout and b.deal().pot == 12 and b.deal().playout


def _play_all_in(s):
    """Everyone plays (Schlecken); each seat plays its first legal card."""
    while not s.is_over:
        legal = s.legal_moves()
        s = s.apply(z.PLAY if z.PLAY in legal else legal[0])
    return s


def _play_two(s):
    """Forehand and the next seat play, the others pass; each plays its first legal card."""
    while not s.is_over:
        legal = s.legal_moves()
        if s.phase == "decide":
            s = s.apply(z.PLAY if s.decisions.count("play") < 2 else legal[-1])
        else:
            s = s.apply(legal[0])
    return s


def _resume_last(v, seed, pot, k):
    return z.Board.resume(v, seed, 0, {"deal": k, "attempt": 0, "dealer": 3,
                                       "balances": [-pot, 0, 0, 0], "pot": pot})


def test_g_playout_ends_when_nothing_is_carried():
    """Deals 4; the fourth counted deal left a carry of 9; in the play-out deal (k = 4) the ante
    makes P = 12, two seats play and split the tricks 2-1 (8 and 4 chips): the board ends."""
    v = z.variant(deals=4)

    def board(seed):
        return z.Board.resume(v, seed, 0, {"deal": 4, "attempt": 0, "dealer": 3, "balances": [-9, 0, 0, 0], "pot": 9})

    seed = next(seed for seed in range(500) if sorted(_play_two(board(seed).deal()).result.won) == [0, 0, 4, 8])
    s = _play_two(board(seed).deal())
    assert s.result.pot == 12 and s.result.carry == 0 and s.playout
    end = board(seed).after(s)
    assert end.is_over and end.result()["close"] == {"playout_deals": 1, "split": [0, 0, 0, 0]}


def test_g_split_after_the_playout():
    """A carry of 21 after the last play-out deal: 5 chips to each seat, the odd one to the
    forehand of that deal (seat 0, the dealer being seat 3)."""
    v = z.variant(deals=4, playout_max=4)
    seed = next(seed for seed in range(500) if _play_all_in(_resume_last(v, seed, 18, 7).deal()).pot == 21)
    b = _resume_last(v, seed, 18, 7)
    s = _play_all_in(b.deal())
    assert s.result.event == "played" and sorted(s.tricks) == [0, 1, 1, 1]
    end = b.after(s)
    assert end.is_over and end.pot == 0
    close = end.result()["close"]
    assert close == {"playout_deals": 4, "split": [6, 5, 5, 5]}
    assert [x - y for x, y in zip(end.balances, s.balances)] == [6, 5, 5, 5] and sum(end.balances) == 0
    # the same carry one deal earlier: the play-out goes on
    again = _resume_last(v, seed, 18, 6)
    assert not again.after(_play_all_in(again.deal())).is_over


def test_g_split_at_once_and_an_empty_pot():
    v = z.variant(deals=4, close="split")
    seed = next(seed for seed in range(500) if _play_all_in(_resume_last(v, seed, 18, 3).deal()).pot == 21)
    b = _resume_last(v, seed, 18, 3)
    end = b.after(_play_all_in(b.deal()))
    assert end.is_over and end.result()["close"] == {"playout_deals": 0, "split": [6, 5, 5, 5]}
    v = z.variant(deals=4)
    seed = next(seed for seed in range(500) if _play_two(_resume_last(v, seed, 18, 3).deal()).pot == 0)
    empty = _resume_last(v, seed, 18, 3)
    end = empty.after(_play_two(empty.deal()))
    assert end.is_over and end.result()["close"] == {"playout_deals": 0, "split": [0, 0, 0, 0]}


# -- H: a blind deal -------------------------------------------------------------------------------

def test_h_blind_deal():
    b = z.Board.new({"blindes": True}, 6, 2)
    assert b.shuffle_seed() == 10006335416697400026
    s = b.deal()
    assert s.is_over and s.moves == () and s.trump == "H" and s.turned == "AH"
    assert z.deal("bayern", b.shuffle_seed(), 2).hands == (("KE", "TS", "7E"), ("AS", "9H", "KH"),
                                                             ("UG", "8G", "OH"), ("OE", "OG", "8S"))
    r = s.result.to_dict()
    assert r["event"] == "blind" and r["in"] == [True] * 4 and r["paid"] == [3, 0, 6, 3] and r["carry"] == 9
    assert r["won"] == [0, 3, 0, 0]
    assert [(list(map(list, c)), w) for c, w in s.tricks_played] == [
        ([[3, "8S"], [0, "7E"], [1, "KH"], [2, "OH"]], 1),
        ([[1, "9H"], [2, "8G"], [3, "OG"], [0, "TS"]], 1),
        ([[1, "AS"], [2, "UG"], [3, "OE"], [0, "KE"]], 1)]
    obs = z.observe(s, 0)
    assert obs["tricks_played"][0] == {"cards": [[3, "8S"], [0, "7E"], [1, "KH"], [2, "OH"]], "winner": 1}
    nxt = b.after(s).deal()
    assert nxt.dealer == 3 and nxt.pot == 12 and not nxt.is_over


# -- section 7: options that end an attempt early --------------------------------------------------

def find_seed(pred, limit=5000):
    return next(seed for seed in range(limit) if pred(z.shuffle(seed)))


def test_cut_table_payments_and_passes():
    v = z.variant(cut="table")
    ace = find_seed(lambda p: p[-1][0] == "A")
    s = opening(v, ace, 1)
    assert s.is_over and s.result.event == "cut" and s.result.paid == (0, 3, 3, 0) and s.pot == 6
    king = find_seed(lambda p: p[-1] in ("KE", "KG", "KS"))
    assert opening(v, king, 1).result.event == "cut"
    maxi = opening(v, find_seed(lambda p: p[-1] == "KH"), 1)
    assert not maxi.is_over and maxi.paid == (6, 9, 6, 6) and maxi.pot == 27
    spitz = opening(v, find_seed(lambda p: p[-1] == "7E"), 1)
    assert spitz.paid == (3, 6, 3, 3) and spitz.pot == 15
    assert not opening(v, find_seed(lambda p: p[-1] == "7H"), 1).is_over
    assert not opening(v, ace, 1, attempt=4).is_over  # max_hops: the cut card is ignored
    two = opening(z.variant(cut="table", players=2), ace, 0)
    assert two.result.paid == (3, 3)  # two players: the other seat pays, the dealer deals again
    v2 = z.variant(cut="table", players=2)
    b2 = next(z.Board.new(v2, seed, 0) for seed in range(500) if z.shuffle(z.attempt_seed(seed, 0, 0))[-1][0] == "A")
    b2 = b2.after(b2.deal())
    assert (b2.dealer, b2.attempt, b2.pot, b2.balances) == (0, 1, 6, (-3, -3))


def test_dealer_moves_two_after_a_table_ace():
    v = z.variant(cut="table")
    board = next(z.Board.new(v, seed, 0) for seed in range(500)
                 if z.shuffle(z.attempt_seed(seed, 0, 0))[-1][0] == "A")
    b = board.after(board.deal())
    assert (b.dealer, b.attempt, b.deal_no, b.pot) == (2, 1, 0, 6)


def test_rundherum():
    v = z.variant(rundherum=True)
    seed = find_seed(lambda p: p[12][0] in "A7")  # the Schlecken card of 4 players
    s = opening(v, seed, 0).apply(z.SCHLECKEN)
    r = s.result.to_dict()
    assert r["event"] == "rundherum" and r["paid"] == [6, 3, 3, 3] and r["carry"] == 15 and r["pot"] == 15
    assert r["trump"] == z.shuffle(seed)[12][1]
    assert not opening(v, seed, 0).apply(z.TITSCHEN).is_over
    assert not opening(v, seed, 0, attempt=4).apply(z.SCHLECKEN).is_over


def test_single_stake_all_play():
    v = z.variant(single_stake_all_play=True)
    s = opening(v, 0, 3).apply(z.SCHLECKEN)
    assert texts(s.legal_moves()) == ["play"]
    assert texts(opening(v, 0, 3, carry_in=3).apply(z.SCHLECKEN).legal_moves()) == ["play", "pass"]


def test_dealer_looks():
    s = opening({"dealer_looks": True}, 0, 3)
    assert z.observe(s, 3)["hand"] == ["AH", "KH", "9G"] and not z.observe(s, 3)["hand_hidden"]
    assert "cut" not in z.observe(s, 3)
