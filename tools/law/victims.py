"""A fact told by the one it happened to: the teller is the victim, and no act of theirs is stated.

Criminal liability is personal (刑法:14, 15: a person answers for their own intentional or negligent act). "我家昨晚
被小偷撬门入室" tells a theft, but by someone else: the teller's own account convicts the teller of nothing, and
the judge must not convict it of 盗窃 because its words are a theft's. Code reads this plainly: the fact speaks in
the first person, the teller (or their family or property) is what something was done to (我…被…), it names no
defendant (被告人, 犯罪嫌疑人), and the teller does nothing an offence is made of.
"""

from __future__ import annotations

import re

_POLICE = r"(?!(?:警察|民警|交警|公安|派出所|抓|拘|查|传唤|带走))"
_FIRST_PERSON_DONE_TO = re.compile(
    rf"(?:我|本人|我们)[^。，；！？]{{0,8}}被{_POLICE}|(?:我|我们)(?:的|家的?)[^。！？]{{0,24}}被{_POLICE}"
)
"""The teller, their family or their property as the object of what happened: 我被同事打了, 我家昨晚被小偷撬门,
我的电动车停在楼下被人偷了, 我母亲在小区里被人推销, and what is theirs told over a clause (我家的电动车放在楼道里
充电，今天早上发现被人偷了); not the police acting on the teller (我被警察带走, 我被抓), which follows the teller's own
act."""
_DEFENDANT = re.compile(r"被告人|犯罪嫌疑人|嫌疑人[^，。]{0,2}(?:我|本人)|上诉人|原审被告")
"""A defendant named: the text is a charge's, an appeal's (上诉人, 原审被告人) or a confession's, not a victim's."""
_OWN_ACT = re.compile(r"(?:我|本人)(?!被)[^被。，；！？]{0,4}(?:偷|盗|窃|抢|骗|打了|打伤|砸|杀|撞|拿走|藏|卖了)")
"""The teller doing what an offence is made of (我偷了, 我把他打伤, 我开车撞了): the account is then theirs to
answer for."""


def victim_account(fact: str) -> str:
    """The words by which ``fact`` tells what was done to its teller, when it is a victim's own account ('' when
    it is not: a third-person fact, a named defendant, or an act of the teller's own)."""
    done_to = _FIRST_PERSON_DONE_TO.search(fact)
    if not done_to or _DEFENDANT.search(fact) or _OWN_ACT.search(fact):
        return ""
    end = min((i for i in (fact.find(c, done_to.end()) for c in "。，；！？") if i >= 0), default=len(fact))
    return fact[done_to.start() : end]
