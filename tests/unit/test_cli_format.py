"""How the CLI words a judgment's sentence."""

from __future__ import annotations

from app.cli import describe_term


def test_a_term_in_months_is_not_called_fixed_term_imprisonment() -> None:
    # 危险驾驶 carries criminal detention only; the Adjudicator's months count both kinds.
    assert describe_term({"months": 4, "life": False, "death": False}) == "4 个月（有期徒刑或拘役）"
    assert describe_term({"months": 0, "life": False, "death": False}) == "免予刑事处罚或非监禁刑"
    assert describe_term({"months": 0, "life": True, "death": False}) == "无期徒刑"
    assert describe_term({"months": 0, "life": True, "death": True}) == "死刑"
