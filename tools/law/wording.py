"""The one place the law's words are matched in a question, a fact, an answer or a statute's sentence.

- Normalisation: full-width digits and measure signs read half-width (:func:`normalised`); CAIL's ×× masks and facts
  told by reference, whose own words may hide an act (:func:`hides_words`); numbers as judgments write them (an
  amount's sum, 三千余元, 1.5万元: :func:`stated_amount`; a blood alcohol level; an injury under 轻伤).
- Negation, clause-scoped, by what is denied: an act or a result a fact tells (:data:`_DENIED`: 所幸未造成人员死亡),
  a finding a court or a defence disputes (:data:`_DISCLAIMED`: 不构成自首, 无前科), a condition a question says is
  unmet (:data:`_UNMET`: 没到醉驾), and what an answer denies the person or a statute's sentence denies
  (:data:`DENIAL`, :data:`STATUTE_NEGATION`). They differ because the words do: 不 denies a finding (不认定自首) but
  not an act (不慎撞倒), and 未 makes adjectives (未成年人) that deny nothing.
- Stated: a pattern told undenied (:func:`told`, :func:`told_match`), never by a person's surname (山某 tells no 山);
  a word list named at all (:func:`mentions`).
- Said by whom: the act of the one the fact is about (:func:`told_of_own`), or a victim's own account
  (:func:`victim_account`).
- Shared wording, by character pairs (:func:`bigram_share`): the measure the checklist checks, the penalty tiers, the
  audit's stated-item rule and the Response's quoted provisions share.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from tools.law.articles import cn_to_int

_NOT_TEXT = re.compile(r"[\W_]|是否")
"""Punctuation and the question frame 是否, which no text states."""
_DENIED = re.compile(
    r"(?:未(?!满|成年|婚|经|遂)|没有|并非|不是|不构成|不足以)[^，。；]{0,6}$|无(?:人员?(?:受|被)?|受|被)$|无任何$|不在(?:[^，。；]{0,4}[和或及、])?$"
)
"""Words before a condition or an act that deny it (所幸未造成人员死亡, 未达重伤, 双方都没有受伤; a time or a place
the act was not in, right before it or before a list of such: 不在禁渔期和禁渔区; not 趁其不在家中之机盗窃), at most
six characters back within a clause; 不是 as 并非 (当地不是禁渔区). 未 that makes an adjective (未满月的女婴, 未成年人,
未婚, 未经同意, 未遂) denies nothing after it; 无任何 denies what follows it (无任何伤害), and 无人 or 无受 only what it
stands right before (无人受伤, 无人被打伤, 双方均无受伤: the 伤 of 受伤 as well): 趁店内无人之际窃得 tells the theft."""
_DISCLAIMED = re.compile(r"(?:不构成|不属于|不能认定为?|不予认定|不认定|没有|并无|无|未能|未|拒不|不)[^，。；]{0,3}$")
"""Words before a finding that dispute it (辩护人所提自首的意见…经查不构成自首, 无前科, 拒不供述), at most three
characters back within a clause: any 不 or 无 disputes a finding, where it would deny no act (不慎, 无故)."""


_HALF_WIDTH = str.maketrans(
    {chr(code): chr(code - 0xFEE0) for code in (*range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B), *range(0xFF41, 0xFF5B))}
    | {"／": "/", "．": ".", "％": "%", "＋": "+", "－": "-"}
)
"""Full-width digits, letters and the signs of a measure, half-width; the clause marks the tables read (，；：！？（）)
stay as they are."""


def normalised(text: str) -> str:
    """``text`` as the tables read it: full-width digits, letters and measure signs half-width (judgments write
    "114.31mg／100ml" and "蒙Ｄ"), Chinese punctuation untouched (a pattern's clause ends at its ，)."""
    return text.translate(_HALF_WIDTH)


_MASK = re.compile(r"(?<![×\dA-Za-z])××(?!×)")
"""CAIL's mask of a charge's own words, two characters (窜至他家中××现金200元, 使用网兜××青蛙, 构成××罪); a plate
number or an address masks more (蒙Ｄ×××××), and a masked number follows a digit (95××3); a masked heading may precede
one (一、××2013年)."""
_BY_REFERENCE = re.compile(
    r"^[^。]{0,30}?(?:上述|以上|前述)(?:事实|指控)|^[^。]{0,12}?(?:另查明|又查明|再查明|庭审中查明)|"
    r"(?:与|和|同)(?:原审|一审|原判|二审|本院认定|公诉机关(?:指控)?|起诉书指控)[^。]{0,24}(?:相同|一致)|"
    r"(?:原判|原审判决|一审判决|原审)所?认定的(?:犯罪)?事实(?:清楚|[^。]{0,16}予以确认)|"
    r"^[^。]{0,40}?(?:指控|查明)[:：]?\s*$"
)
"""A fact found by reference to another text (二审查明的事实与一审相同, 本院查明的事实与公诉机关一致,
原判认定的事实清楚; 上述事实，被告人无异议 with the facts above it cut away; a fragment opening on a further finding,
另查明), or cut off after its opening words (……人民检察院指控：): its acts are told elsewhere."""


def hides_words(fact: str) -> bool:
    """Whether ``fact``'s own words may hide what an offence is made of: CAIL's ×× mask, or facts told by reference
    to another text. No rule may then read the fact as not telling an act, an element or an amount: a fact whose
    element is unreadable is never acquitted for it."""
    return bool(_MASK.search(fact) or _BY_REFERENCE.search(fact))


def denied_at(text: str, at: int, finding: bool = False) -> bool:
    """Whether the words just before ``at`` in ``text`` deny what stands there: an act or a result
    (:data:`_DENIED`), or with ``finding`` a finding (:data:`_DISCLAIMED`)."""
    return bool((_DISCLAIMED if finding else _DENIED).search(text[max(0, at - 8) : at]))


_OUTSIDE = re.compile(r"[期区]?(?:之外|以外)")
"""A closed period or area named as where or when the act was not (在禁渔期之外钓鱼, 禁猎区以外): what 不在 says
before it, said after it."""


def _outside_at(text: str, m: re.Match[str]) -> bool:
    """Whether the match ``m`` of ``text`` names a period or area (…期, …区) the fact puts the act outside of
    (:data:`_OUTSIDE`); not where 除 opens the clause (除在禁渔期捕捞之外，还……: besides)."""
    after = _OUTSIDE.match(text, m.end())
    if not after or not re.search("[期区]", text[m.end() - 1 : after.end()]):
        return False
    return not re.search(r"除[^，。；]*$", text[: m.start()])


def _alleged_at(text: str, m: re.Match[str]) -> bool:
    """Whether the match ``m`` of ``text`` lies in another's stated reason (平台以售假为由: :data:`_ALLEGED`)."""
    return bool(_ALLEGED.search(text[max(0, m.start() - 16) : m.start()])) and bool(
        re.match(r"[^，。；]{0,8}为由", text[m.end() :])
    )


_NAMED = re.compile(r"(?:被告人|被害人|上诉人|原审被告人|犯罪嫌疑人|证人|原告|被告|当事人)([\u4e00-\u9fff]{1,2}?)某")
"""A person a fact introduces by their role and a surname (被告人山某, 被害人马某某): the surname is a name wherever
it stands before 某 in that fact, never a word of the law (山某 is no 山 of land occupied)."""


def _surnames(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` where a surname the fact introduces (:data:`_NAMED`) stands before 某."""
    return [
        (name.start(), name.start() + len(surname))
        for surname in {n.group(1) for n in _NAMED.finditer(text)}
        for name in re.finditer(re.escape(surname) + "某", text)
    ]


_ORGAN = re.compile(r"[\u4e00-\u9fff]{2,4}?(?:管理|执法|监管|监督|监察)(?:部门|局|机关|机构|委员会|处|所|站)")
"""An administrative organ named by its field (通信管理部门, 邮政管理局, 市场监管部门): the field is the organ's
competence, not what the person's act was done to."""


def without_organs(fact: str) -> str:
    """``fact`` with the administrative organs it names by their field (:data:`_ORGAN`) cut out: 被通信管理部门要求
    限期备案 names no 通信 of another's that was interfered with."""
    return _ORGAN.sub("", fact)


def _undenied(pattern: str, fact: str) -> Iterator[tuple[str, re.Match[str]]]:
    """(the normalised fact, the match) for each occurrence of ``pattern`` in ``fact`` neither denied just before it,
    nor named as another's reason (:func:`_alleged_at`), nor a period or area the act was outside of
    (:func:`_outside_at`), nor part of a person's name (:func:`_surnames`, read once per fact)."""
    text = normalised(fact)
    names = _surnames(text)
    for m in re.finditer(pattern, text):
        in_name = any(start <= m.start() and m.end() <= end for start, end in names)
        if denied_at(text, m.start()) or _alleged_at(text, m) or _outside_at(text, m) or in_name:
            continue
        yield text, m


def told_match(pattern: str, fact: str) -> str | None:
    """The words of ``fact`` (:func:`normalised`) where ``pattern`` is first told undenied (None when it is not)."""
    return next((m.group() for _, m in _undenied(pattern, fact)), None)


def told(pattern: str, fact: str) -> bool:
    """Whether ``pattern`` occurs in ``fact`` (:func:`normalised`) other than denied (所幸未造成人员死亡, 未达重伤,
    双方都没有受伤)."""
    return any(_undenied(pattern, fact))


# Numbers a text states: amounts in yuan, a blood alcohol level, an injury under 轻伤 (the thresholds' measures).
_HAN_NUMBER = "零〇一二两三四五六七八九十百千万"
_AMOUNT = re.compile(
    rf"(?P<number>\d+(?:\.\d+)?|[{_HAN_NUMBER}]+)\s*(?P<more>余|多)?\s*(?P<unit>万|千|百)?\s*(?P<more2>余|多)?\s*"
    r"(?:元|(?<=万)某)"
)
"""An amount in yuan: 2300元, 1.5万元, 三千余元, 800多元 (thousands separators removed first), and CAIL's 10.4万某 (its
anonymiser took 万元 for a name)."""
_NOT_TAKEN = re.compile(
    r"(?:价格|售价|价钱|卖了|卖给|卖得|出售|销赃|购买|买了|罚款|罚金|赔偿|退赔|退还|退赃|毒资|嫖资)[^，。；,;]{0,6}$"
)
"""Words just before an amount that make it no value taken or obtained: a price paid, a sale, a fine, what was paid
back (以400元的价格贩卖, 罚款200元, 退赔3000元). The offence's amount is the value of what was taken (盗窃 解释 第四条),
so such an amount is not added up; with none left, the fact states no amount."""
_PRICE_AFTER = re.compile(r"\s*的?(?:价格|售价)")
"""An amount followed by 的价格: a price (以人民币400元的价格向他人购买)."""
_UNREADABLE = re.compile(r"美元|港元|港币|欧元|日元|英镑|韩元|数[十百千万]元|几[十百千万]元|[十百千万]余万元")
"""Amounts code cannot add up: a foreign currency, an unspecified count (数千元)."""
_ALCOHOL = re.compile(
    rf"(\d+(?:\.\d+)?|[{_HAN_NUMBER}]+)\s*(?:mg|毫克)\s*(?:/|每)\s*(?:100|一百|百)\s*(?:ml|mL|毫升)"
    rf"|每\s*(?:100|一百|百)\s*(?:ml|mL|毫升)\s*(\d+(?:\.\d+)?|[{_HAN_NUMBER}]+)\s*(?:mg|毫克)"
)
"""A blood alcohol level (114.31mg/100ml, 80毫克/100毫升, 四十五毫克每一百毫升, 二十五毫克每百毫升,
每一百毫升二十五毫克), read after :func:`normalised`."""
_MINOR_INJURY = re.compile(r"轻微伤|擦伤|擦破|蹭破|淤青|红肿|软组织挫伤")
"""Injuries under 轻伤 as facts tell them; a fact that also tells a worse one is read by a threshold's ``unless``."""
_SCALE = {"万": 10_000, "千": 1_000, "百": 100}


def _number(text: str) -> float | None:
    """A number as facts write it, in digits (114.31) or in words (四十五, 两千); None when it cannot be read."""
    try:
        return float(text) if text[0].isdigit() else float(cn_to_int(text))
    except ValueError:
        return None


def _amount(match: re.Match[str]) -> float | None:
    value = _number(match["number"])
    if value is None:
        return None
    unit = _SCALE.get(match["unit"] or "", 1)
    if match["more"] or match["more2"]:
        # 三千余元 is under four thousand, 800多元 under nine hundred: the upper end keeps the check on the safe side.
        step = unit if match["unit"] else 10 ** max(len(str(int(value))) - 1, 0)
        return value * unit + step
    return value * unit


def stated_amount(fact: str) -> float | None:
    """The sum of the yuan amounts ``fact`` states (None when it states none, or one code cannot read). A sum,
    not the largest: a theft of a 800-yuan phone and 300 yuan in cash took 1,100 yuan."""
    text = re.sub(r"(?<=\d)[,，](?=\d{3})", "", normalised(fact))
    if _UNREADABLE.search(text) or hides_words(text):
        return None
    amounts = [
        _amount(m)
        for m in _AMOUNT.finditer(text)
        if not _NOT_TAKEN.search(text[max(0, m.start() - 12) : m.start()]) and not _PRICE_AFTER.match(text, m.end())
    ]
    if not amounts or None in amounts:
        return None
    return sum(a for a in amounts if a is not None)


def stated_alcohol(fact: str) -> float | None:
    """The highest blood alcohol level (mg/100 ml) ``fact`` states, or None (also when one is unreadable: a level
    code cannot read never sets a charge aside)."""
    levels = [_number(a or b) for a, b in _ALCOHOL.findall(normalised(fact))]
    if not levels or None in levels:
        return None
    return max(level for level in levels if level is not None)


def states_slight_injury(fact: str) -> bool:
    """Whether ``fact`` tells an injury under 轻伤 (轻微伤, 擦伤, 软组织挫伤)."""
    return bool(_MINOR_INJURY.search(fact))


_OTHER = (
    r"(?:有人|小偷|窃贼|盗贼|骗子|黑客|歹徒|劫匪|不法分子|陌生人|民警|警察|交警|辅警|协警|公安|承包人|承租人|租户|房客|房东|出租人|买家|卖家|买方|卖方|对方|邻居|"
    r"同事|朋友|物业|商家|店家|快递员|网站|平台|(?:一|两|几|数)(?:名|个)?(?:陌生)?(?:男子|女子|男人|女人|小偷)|不明身份[^，。；]{0,3}人"
    r"|(?:^|(?<=[后时又却就便而]))(?:培训)?(?:机构|学校|医院|公司|银行|政府|厂家|商场|超市|开发商|中介|老板))"
)
"""Another the fact names as a doer: a person by a role or as unnamed (有人, 一名男子, 房东, 邻居), or an organisation
opening its clause or after 后 (机构搬走了, 后公司以……为由): not 被告人某经营的公司 or 在公司, which may be the
defendant's own unit."""
_OTHERS_DO = re.compile(r"(?<![把将对向给在去往从于])" + _OTHER + r"[^，。；]{0,4}$")
"""Another the fact names as the doer, just before an act (有人撬自家门锁, 一名男子拿走; a party by its role: 租户提前
搬走, 邻居家的猫抓伤, 承包人擅自砍掉; 上了三个月后机构搬走了): not the defendant's act; not one named as its object
(还把对方打伤, 将邻居推倒), nor a place (在邻居家门口骂了几句: the defendant's own words)."""
_ALLEGED = re.compile(_OTHER + r"以[^，。；]{0,8}$")
"""Another giving a reason, up to the words it names (平台以售假为由冻结了他的账户): what the reason names is that
other's word, not a stated act, when 为由 follows (:func:`_alleged_at`)."""
_JOINT = re.compile(r"伙同|纠集|指使|雇佣|带领|与|和|同")
"""Words that make the other the defendant's accomplice (伙同一名男子撬门): the act is theirs together."""


def told_of_own(pattern: str, fact: str) -> bool:
    """Whether ``pattern`` occurs in ``fact`` as the act of the one the fact is about: :func:`told`, and not done by
    another it names as the doer (a householder who heard 有人撬自家门锁 and chased him told no theft of his own). An
    act told in the passive (被盗, 被骗) says nothing of who did it: judgments tell the defendant's own theft so."""
    for text, m in _undenied(pattern, fact):
        clause = re.split(r"[，。；]", text[max(0, m.start() - 16) : m.start()])[-1]
        if not (_OTHERS_DO.search(clause) and not _JOINT.search(clause)):
            return True
    return False


def mentions(words: Iterable[str], text: str) -> bool:
    """Whether ``text`` names one of ``words`` at all, denied or not: a question that says 没有抵押 still asks about a
    security, and a list of an area's words (离婚, 抚养) names the area whichever way the question turns."""
    return any(word in text for word in words)


# A victim's own account: the teller is the one things were done to, and no act of theirs is stated (刑法:14, 15: a
# person answers for their own act). "我家昨晚被小偷撬门入室" tells a theft, by someone else.
_POLICE = r"(?!(?:警察|民警|交警|公安|派出所|抓|拘|查|传唤|带走))"
_KIN = "父亲|母亲|爸爸?|妈妈?|老公|丈夫|妻子|老婆|儿子|女儿|孩子|爷爷|奶奶|外公|外婆|哥哥|姐姐|弟弟|妹妹|家人|亲戚"
_FIRST_PERSON_DONE_TO = re.compile(
    rf"(?:我|本人|我们)[^。，；！？]{{0,8}}被{_POLICE}|(?:我|我们)(?:的|家的?)[^。！？]{{0,24}}被{_POLICE}"
    rf"|(?:我|我们)(?:的|家的?)?(?:{_KIN})[^。！？]{{0,60}}(?:被{_POLICE}|上当|受骗)"
)
"""The teller, their family or their property as the object of what happened: 我被同事打了, 我家昨晚被小偷撬门,
我的电动车停在楼下被人偷了, 我母亲在小区里被人推销, and what is theirs or their kin's told over a clause (我家的电动车
放在楼道里充电，今天早上发现被人偷了; 我父亲接到一个自称公安局的电话……转了5万元后才发现被骗); not the police
acting on the teller (我被警察带走, 我被抓), which follows the teller's own act."""
_DONE_TO_TELLER = re.compile(
    r"(?:打|骗|偷|抢|砸|划|撞|咬|推|骂|威胁|恐吓|拖欠|欠|诽谤|诬陷|殴打|敲诈|勒索)了?(?:我|本人)"
    r"|(?:我|本人)[^。，；！？]{0,12}(?:上当|受骗)"
    r"|(?:我|本人)(?:在[^，。；！？]{0,12})?(?:买|购买|网购|订购)的[^。！？]{0,24}(?:假货|假的|质量问题|坏的|过期|不合格)"
    r"|(?:我|本人)借给[^。！？]{0,30}(?:不还|没还|拉黑|不接|联系不上|失联|跑了)"
)
"""The teller as the object of another's act told without 被 (他打了我, 骗了我, 公司拖欠了我三个月工资, 我上当了),
or as the one a seller or a debtor failed (我在网上买的鞋子是假货, 我借给朋友的钱他不还): who did the act is
another, whatever the words share with an offence."""
_DEFENDANT = re.compile(r"被告人|犯罪嫌疑人|嫌疑人[^，。]{0,2}(?:我|本人)|上诉人|原审被告")
"""A defendant named: the text is a charge's, an appeal's (上诉人, 原审被告人) or a confession's, not a victim's."""
_OWN_ACT = re.compile(
    r"(?<![说称赖怪诬冤])(?:我|本人)(?!被)[^被。，；！？]{0,4}(?:偷|盗|窃|抢|骗|打了|打伤|砸|杀|撞|拿走|藏|卖了)"
)
"""The teller doing what an offence is made of (我偷了, 我把他打伤, 我开车撞了): the account is then theirs to
answer for; not what another says the teller did (同事说我偷了他的东西), which is that other's word."""


_HARM = re.compile(
    r"(?<!偷)偷(?!偷)|(?<!防)盗|窃|扒|撬|抢|骗(?!局|子)|打(?!开|算|电话|工|听|扫|车|印|包|招呼|卡|折|理)|殴|砸|杀|砍|刺|捅|撞|剐蹭|刮蹭|咬|冒用|泄露|透支|威胁|恐吓|敲诈|勒索|(?:拿|取|拎|提|牵|抱|背|带|搬)走|侵占|伤害"
    r"|拦(?:住|截|下)|索要|要钱|骂|投放|投毒|下毒|复制|发行|转载|盗版|抄袭|剽窃|翻录|盗用|用于商业|散布|造谣|捏造|扑倒|抓伤|抓破|挠伤"
)
"""The acts an offence against a person or their property is told by (偷走, 骗走, 扒走, 撬开 a door or a lock, 拎走,
殴打, 冒用, 泄露 one's information, 透支, 拦住要钱; a car 剐蹭 by another's; 辱骂, one of 寻衅滋事's forms in 刑法:293;
投放 a poison, 刑法:114; a work 复制, 发行, 转载, 抄袭 or 用于商业, 刑法:217, a rights holder's loss; a rumour 散布
or 捏造, 246's 诽谤; 扑倒 or 抓伤 by a dog), read clause by clause in a third-person fact; 骗局 names the scheme and
骗子 the one who ran it, 防盗 a protection against theft and 偷偷 secrecy, not an act, and 打开, 打算, 打电话 are no
blow."""
_ACTS = re.compile(
    rf"{_HARM.pattern}|烧|点燃|放火|遗弃|扔|弃|毁|损坏|贩|(?<!外)卖|运输|走私|藏|拘|绑|关押|逼|强迫|强行|猥亵|侮辱|诽谤|伪造|"
    r"虚开|挪用|侵吞|贪|受贿|行贿|开设|组织|容留|非法|违规|擅自|冒充|占用|逃"
)
"""Any act an offence may be made of: the one judged doing one of these is no victim whatever was done to them
(外卖 is a meal, not a sale)."""
_PASSIVE = re.compile(rf"被(?!告|害人){_POLICE}")
"""A passive, not 被告人's or 被害人's 被, nor the police acting."""
_ON_THEM = re.compile(r"^[走了去掉光到]{0,2}(?:他|她|自己)(?!人|们)")
"""The one an act was done to, just after the act (骗走了他八千元, 打了她一拳; 柜子倒下砸到了自己的脚: the defendant
harmed by a thing, which is no one's offence against them)."""
_NEW_DOER = re.compile(r"被告人|[\u4e00-\u9fff]某|我")
"""A person named anew, between two acts of one clause: the second act may be theirs."""
_OTHER_ACTS = re.compile(r"(?<![趁乘待等])" + _OTHER)
"""Another named as doing something (拍到有人半夜翻墙), not as the occasion of the defendant's act (趁有人不在)."""
_CARRIED = re.compile(r"[又再并还后便就随即然接着]{0,4}|(?:还|又|并)(?:把|将)[^，。；]{1,8}")
"""A clause opening with nothing but these before its act, or going on with 还把 or 又将 and its object, has the last
clause's doer (……有人翻墙进了院子，偷走了两只鸡; ……被人拔掉了充电线，还把充电器拿走了)."""
_AGENT_PASSIVE = re.compile(r"被(?:他人|别人|人|小偷|陌生人)")
"""A passive that names its doer as another (被人拔掉了充电线)."""
_UNNAMED = re.compile(r"(?:一|两|几|数)(?:个|名|位)$")
"""One the fact names by what they did alone, just before it (接到一个冒充被告人的电话, 一名自称客服的人): another."""
_FOUND_TO_BE = re.compile(r"发现(?:是|竟是|原来是)[^，。；]{0,6}$")
"""What the defendant found a thing to be (收到一个陌生包裹，打开后发现是恐吓信): the act it names is another's, done
to them; not 发现后 (被告人发现后盗走了手机), which goes on with their own act."""
_SOMEONE_ELSE = re.compile(r"他人|别人|某人|被害人|婴|孩子|儿子|女儿|妻子|丈夫|老人|[\u4e00-\u9fff]某")
"""Another person a passive's subject may be (后该女婴被他人抱走): then what was done was done to them."""


def _done_to_them(before: str, previous: str) -> bool:
    """Whether a passive whose clause opens with ``before`` (up to its 被) has the defendant or what is theirs as its
    subject: the clause names the defendant first (被告人某的电动车), or names no one (放在试衣间外的手提包; 被人冒用
    after a clause about the defendant, ``previous``)."""
    if before.startswith("被告人"):
        return True
    return not _SOMEONE_ELSE.search(before) and (bool(before) or previous.startswith("被告人"))


def _thing_done_to(clause: str) -> bool:
    """Whether ``clause`` tells another's act on a thing (被告人某的电动车……被人拔掉了充电线; 放在门口的快递被人): a
    passive naming another as its doer whose subject is not the defendant themself (被告人某被人推了一下)."""
    passive = _AGENT_PASSIVE.search(clause)
    return passive is not None and (not clause.startswith("被告人") or "的" in clause[: passive.start()])


def _done_to_defendant(fact: str) -> str:
    """The clause by which a third-person fact (被告人…) tells an act done to the defendant or their property, when
    the defendant does none (被告人某的电动车停在楼下被人偷走了; 被人冒用办理了信用卡; 对方以退款为名骗走了他八千元);
    '' when the defendant acts (被告人某被李某打伤后，持刀将李某砍死; any act an offence may be made of, not done to
    them), when what was done was done to another (后该女婴被他人抱走), or when none is told. An act whose doer is not
    named anew is the last named doer's: 一名男子抢走了他手里的信封后逃跑 (the man ran),
    ……有人翻墙进了院子，偷走了两只鸡 (the one who climbed in stole). A criminal proceeding's record
    (:func:`prosecution_record`) tells the defendant's own act in the victim's words (被害人的电动车被盗), so it is
    never read so."""
    if not fact.startswith("被告人") or prosecution_record(fact):
        return ""
    found, previous, other_before = "", "", False
    for clause in re.split(r"[，。；！？]", fact):
        # Where another's act was last told: the clause's opening when the last clause's doer was another.
        other_at = 0 if other_before else -1
        for m in _ACTS.finditer(clause):
            before = clause[: m.start()]
            carried = other_at > 0 or (other_at == 0 and _CARRIED.fullmatch(before) is not None)
            if carried and not _NEW_DOER.search(clause[other_at : m.start()]):
                other_at = m.end()
            elif passive := _PASSIVE.search(before):
                if not _done_to_them(before[: passive.start()], previous):
                    return ""
                other_at = -1
            elif _OTHERS_DO.search(before) or _UNNAMED.search(before) or _FOUND_TO_BE.search(before):
                other_at = m.end()
            elif not _ON_THEM.match(clause[m.end() :]):
                return ""
            found = found or clause
        # A clause telling what another did (有人半夜翻墙进了院子), or what another did to a thing of the defendant's
        # (电动车……被人拔掉了充电线: a thing acts on nothing), hands its doer to the next clause's opening act; not one
        # done to the defendant (被告人某被人推了一下), who may be the next act's doer.
        other_before = other_at > 0 or (
            not _ACTS.search(clause) and (_OTHER_ACTS.search(clause) is not None or _thing_done_to(clause))
        )
        previous = clause or previous
    return found


_BOUGHT_BAD = re.compile(
    r"^被告人[^。，；]{0,8}(?:在[^。，；]{0,12})?(?:买|购买|网购|订购|购)[^。！？]{0,30}"
    r"(?:发现|才知|原来|结果|竟然|居然)[^。！？]{0,12}(?:假|翻新|质量问题|不合格|过期|劣质|坏)"
)
"""The defendant as a buyer who found what they bought fake or faulty (被告人某在网上买了一双运动鞋，收到后发现是假冒
品牌): the one a seller failed, as the teller of 我买的……是假货 (:data:`_DONE_TO_TELLER`); who finds it out did not
know it when buying."""
_RESOLD = re.compile(r"卖|售|销|转手|经营")
"""A buyer who sold on: the purchase was a trader's (购买假冒注册商标的香烟后加价出售)."""


def victim_account(fact: str) -> str:
    """The words by which ``fact`` tells what was done to its teller, when it is a victim's own account ('' when
    it is not: a named defendant's own act, or an act of the teller's own). A third-person fact about a 被告人 is
    one when every act it tells was done to the defendant (:func:`_done_to_defendant`)."""
    if done_to_defendant := _done_to_defendant(fact):
        return done_to_defendant
    bought = _BOUGHT_BAD.search(fact)
    if bought and not prosecution_record(fact) and not _RESOLD.search(fact):
        return fact[: bought.end()] + re.split(r"[。！？]", fact[bought.end() :])[0]
    done_to = _FIRST_PERSON_DONE_TO.search(fact) or _DONE_TO_TELLER.search(fact)
    if not done_to or _DEFENDANT.search(fact) or _OWN_ACT.search(fact):
        return ""
    end = min((i for i in (fact.find(c, done_to.end()) for c in "。，；！？") if i >= 0), default=len(fact))
    return fact[done_to.start() : end]


_PROSECUTION = re.compile(
    r"指控|公诉|审[^。，；]{0,3}查明|归案|抓获|被害人|赃款|赃物|刑事拘留|逮捕|取保候审|投案|原审|上诉人|抗诉"
)
"""Words of a criminal proceeding's own record: the prosecution's charge (公诉机关指控), a court's finding (经审理查明,
二审查明), an arrest or a surrender (抓获, 归案, 投案), a victim (被害人), the proceeds (赃款). Every labelled judgment
but a handful of appeal summaries holds one; no everyday account of a dispute does. A fact's own naming of a crime
(以故意杀人罪判处) is not among them: anyone can write that."""


def prosecution_record(fact: str) -> str:
    """The words by which ``fact`` is told as a criminal proceeding's record ('' when it is not: an everyday
    account)."""
    found = _PROSECUTION.search(normalised(fact))
    return found.group() if found else ""


_UNMET = re.compile(
    r"(?:没有?达?到|未达到?|够不上|不够|不算|不是|并非)[^，。；？！,;?!\d零一二三四五六七八九十百千万两]{1,10}"
)
"""A condition the person says is not met, up to the clause's end (没到醉驾, 不是故意的); a number after the
negation is the fact itself (没到18岁: under eighteen), so it stays."""
_REPEAT = re.compile(r"再次|又因|曾因|再犯")
"""A rule for a repeat offence (因饮酒后驾驶机动车被处罚，再次饮酒后驾驶机动车的)."""
_PRIOR = re.compile(r"再次|第[二三四五]次|两次|多次|屡次|又被|又一次|上次|以前|之前|曾经|曾被|曾因|再犯")
"""Words by which a question states a prior offence or penalty."""


def without_unmet(text: str) -> str:
    """``text`` without the conditions it says are not met: 喝了一瓶啤酒开车被查，没到醉驾 states no drunk driving,
    and was answered with 91's drunk-driving tier."""
    return _UNMET.sub("", text)


def unstated_repeat(rule: str, question: str) -> bool:
    """Whether ``rule`` is for a repeat offence and ``question`` states no prior one: a first offence's answer
    quoted 91's 再次饮酒后驾驶 (it shares 处罚 with 会怎么处罚)."""
    return bool(_REPEAT.search(rule)) and not _PRIOR.search(question)


def bigram_share(phrase: str, text: str) -> float:
    """Share of ``phrase``'s character bigrams (punctuation and 是否 aside) that occur in ``text``."""
    words = _NOT_TEXT.sub("", phrase)
    pairs = [words[i : i + 2] for i in range(len(words) - 1)]
    return sum(pair in text for pair in pairs) / len(pairs) if pairs else 0.0


def _pairs(text: str) -> set[str]:
    words = _NOT_TEXT.sub("", text)
    return {words[i : i + 2] for i in range(len(words) - 1)}


def longest_shared_run(text: str, query: str) -> int:
    """The most characters in a row of ``query`` that ``text`` holds too (不可抗力 of 仓储物由于不可抗力毁损 in
    因不可抗力不能履行民事义务: 4), punctuation never part of one."""
    best = 0
    for segment in re.findall(r"[^\W_]+", query):
        for start in range(len(segment)):
            end = start + best + 1
            while end <= len(segment) and segment[start:end] in text:
                best, end = end - start, end + 1
    return best


def shared_pairs(text: str, query: str) -> int:
    """How many distinct character pairs of ``query`` (punctuation aside) ``text`` contains."""
    return len(_pairs(text) & _pairs(query))


def relevant_passage(parts: list[str], query: str, count: int, max_chars: int) -> str:
    """The ``count`` parts (sentences of an article) sharing the most character pairs with ``query``, then the most
    of its characters (物业能给我家停水停电吗？ shares 物业 and 业费 with 944's first sentence and its third alike; the
    third, 不得采取停止供电、供水……方式催交物业费, holds 停, 水 and 电 too), in their own order, as many as fit in
    ``max_chars`` (the best one alone is cut to it, ending in ……); the first part wins a tie, as a statute's first
    sentence usually states its rule."""
    chars = set(_NOT_TEXT.sub("", query))

    def closeness(i: int) -> tuple[int, int, int]:
        return -shared_pairs(parts[i], query), -len(chars & set(parts[i])), i

    ranked = sorted(range(len(parts)), key=closeness)[:count]
    if not ranked:
        return ""
    best = parts[ranked[0]].strip()
    if len(best) > max_chars:
        return best[: max_chars - 2] + "……"
    chosen, used = [], 0
    for i in ranked:
        if used + len(parts[i].strip()) <= max_chars:
            chosen.append(i)
            used += len(parts[i].strip())
    return "".join(parts[i].strip() for i in sorted(chosen))


# What an answer denies the person, and what a statute's sentence denies or keeps standing (tools/law/claims.py:
# an answer's denial stands only where a sentence of its basis states it).
WITHHOLDING = re.compile(r"可以不[交缴付还支履遵退]|有权不|可以拒绝|有权拒绝")
"""Words with which a sentence lets the person withhold a duty (业主可以不交物业费): as harmful as a denial where the
law bars the refusal, so checked as one."""
PERSISTING = re.compile(
    r"(?:仍然|仍|依然|照样|还是)(?:需要|需|须|应当|应该|应|要|得|必须)(?:继续)?(?:遵守|履行|支付|交|缴|偿还)"
)
"""Words with which a sentence holds the person to a duty although the other side failed its own (离职后公司不给补偿，
你仍然需要遵守): the graded answer that told a worker to keep an unpaid non-compete gave up the worker's claim as a
denial does."""
DENIAL = re.compile(
    r"不可以|不能|无权|不享有|不得|不予|不应当?|不需要?|不用|不会|没有权利|不属于|不构成|不适用|不支持|不必|无需|无须|"
    + WITHHOLDING.pattern
    + "|"
    + PERSISTING.pattern
)
"""Words with which a sentence denies the person something (不可以要求…, 不享有…, 不会影响…): the conclusions that
tell a user to give up a claim. Each was the harmful conclusion of a graded answer or says the same."""
PERMITS_WITHHOLDING = re.compile(WITHHOLDING.pattern + r"|不承担|免予|可以不予|有权要求解除")
"""A statute sentence that itself lets a party withhold (可以拒绝履行, 不承担责任): the only kind that states a
permission to withhold. 民法典:944 shares its words with 业主可以不交物业费 in a sentence barring that refusal
(不得……拒绝支付物业费) and in another about collecting the fee (不得……催交物业费); neither permits it."""
PERMITS_PERSISTING = re.compile(r"仍|不影响|继续履行|不得以")
"""A statute sentence that itself keeps a duty standing (仍应当承担担保责任, 不得以……为由拒绝支付): the only kind that
states a persisting duty. 劳动合同法:23 conditions a non-compete on monthly compensation and keeps no duty standing
without it."""
STATUTE_NEGATION = re.compile(r"不|无|非|没有|除外|禁止")
"""Words with which a statute sentence denies or excepts (不得收回, 无权, 但是…除外)."""


# A victim's age, from a birth date and the act's date (猥亵儿童 is 237's offence against a child under fourteen).
CHILD_AGE = 14
"""Under this age a person is a child (刑法:237 猥亵儿童; no one under it is criminally liable, 刑法:17, so a birth date
that makes someone this young at the act is never the defendant's)."""
_DATE = r"((?:19|20)\d\d)年(1[0-2]|0?[1-9])(?:、(?:1[0-2]|0?[1-9]))*月(?:(3[01]|[12]\d|0?[1-9])日)?"
"""A date as judgments write it: 2013年8月25日, 2004年12月, 2016年5、6月 (the first month of several)."""
_DATE_RE = re.compile(_DATE)
_BORN = re.compile(rf"(?:生于|出生于|出生日期为?|出生时间为?){_DATE}|{_DATE}(?:出生|生)(?![产活意效])")
"""A birth date: 生于2004年1月1日, （2004年10月4日生）, 2004年12月出生."""


def _ymd(text: str) -> tuple[int, int, int]:
    found = _DATE_RE.search(text)
    assert found is not None
    return int(found[1]), int(found[2]), int(found[3] or 0)


def age_at(birth: tuple[int, int, int], act: tuple[int, int, int]) -> int | None:
    """Whole years from ``birth`` to ``act`` (year, month, day; day 0 when not told); None when the two fall in the
    same month and a day is not told (either side of the birthday)."""
    (by, bm, bd), (ay, am, ad) = birth, act
    if am == bm and not (ad and bd):
        return None
    return ay - by - ((am, ad) < (bm, bd))


def with_ages(fact: str) -> str:
    """``fact`` with each birth date that makes its person a child at the act marked so, read in code: the act's
    date is the first date told that is no birth date (另查明，马某某生于2004年1月1日 in a fact of 2013年8月25日 reads
    马某某生于2004年1月1日（案发时不满十四周岁）). Judgments often give a child victim's age only as a birth date."""
    births = list(_BORN.finditer(fact))
    if not births:
        return fact
    act = next((d for d in _DATE_RE.finditer(fact) if not any(b.start() <= d.start() < b.end() for b in births)), None)
    if act is None:
        return fact
    parts, last = [], 0
    for birth in births:
        age = age_at(_ymd(birth.group()), _ymd(act.group()))
        if age is not None and 0 <= age < CHILD_AGE:
            parts.append(fact[last : birth.end()] + "（案发时不满十四周岁）")
            last = birth.end()
    return "".join(parts) + fact[last:]
