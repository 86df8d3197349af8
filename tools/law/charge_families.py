"""Neighbouring charges: families of offences that differ in one element, and the check that separates them.

A small model confuses 职务侵占 with 盗窃, 保险诈骗 with 诈骗, 挪用资金 with 挪用公款: the act is the same, and
the charge turns on who acted (国家工作人员, 公司、企业或者其他单位的人员), on what (保险金, 合同) or how
(暴力, 乘人不备). Each member names that element, the wording by which a fact states it, and a yes/no
question for when the fact does not say. Members are ordered most specific first: a fact that states
保险金 and 虚构事实 is 保险诈骗, not 诈骗.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

DEFENDANT = "<defendant>"
"""Stands in a pattern for the defendant: 被告人 or a name the fact gives after it (送给耿某某4万元 is a bribe
the defendant 耿某某 took, not one he gave: CAIL's 非国家工作人员受贿)."""
# Judgments mask names as a surname, a digit perhaps, 某 or ×, and a suffix that tells persons apart (李某某, 杨1某,
# 梁某甲, 陈某B); a longer name the prefix begins (李某某 beside the defendant 李某) is another person.
_MASKED_NAME = r"被告人([\u4e00-\u9fff]{1,2}?\d?[某×][某甲乙丙丁一二三\dA-Z]?)"


def _for_fact(pattern: str, fact: str) -> str:
    """``pattern`` with :data:`DEFENDANT` standing for the defendant's words in ``fact``."""
    if DEFENDANT not in pattern:
        return pattern
    names = sorted({re.escape(n) + r"(?![某甲乙丙丁一二三A-Z])" for n in re.findall(_MASKED_NAME, fact)})
    return pattern.replace(DEFENDANT, "(?:" + "|".join(["被告人", *names]) + ")")


@dataclass(frozen=True)
class Member:
    """One charge of a family and the element that sets it apart from its neighbours."""

    charge: str
    element: str
    """The distinguishing element, as a judgment states it."""
    stated: tuple[str, ...]
    """Patterns that must all occur in the fact for the fact to state the element."""

    def stated_in(self, fact: str) -> bool:
        return all(re.search(_for_fact(pattern, fact), fact) for pattern in self.stated)

    def quote(self, fact: str) -> str:
        """The words of ``fact`` that state the element (each pattern's first match, joined by …); empty when
        the fact does not state it."""
        found = [re.search(_for_fact(pattern, fact), fact) for pattern in self.stated]
        # A pattern that asserts an absence (no 重伤 anywhere) matches nothing worth quoting.
        return "…".join(m.group() for m in found if m and m.group()) if all(found) else ""


@dataclass(frozen=True)
class Family:
    name: str
    members: tuple[Member, ...]
    """Most specific first."""
    by_law: bool = False
    """The statute itself separates the members by words a fact states (刑法:133-1's third paragraph: a drunk
    driver who causes a serious accident is judged under the heavier 交通肇事; 205-1: 虚开 of an invoice other
    than a VAT special one is 虚开发票; 191: laundering is 洗钱 only for the crimes it lists; 163/164, 385/389 and
    393: who took and who gave, and whether the taker was a state functionary), so a member the fact states is
    weighed even when no retriever proposed it."""

    def member(self, charge: str) -> Member | None:
        return next((m for m in self.members if m.charge == charge), None)


_TITLES = (
    r"员工|职工|职员|工作人员|会计|出纳|司机|业务员|营业员|销售员|采购员|收银员|经理|总监|主管|助理|保管员|管理员|仓管|库管"
    r"|店员"
)
# A village or residents' committee post is a state functionary only while it assists the government in the
# matters the NPC Standing Committee's reading of 93 lists (2000); in the village's own affairs its bribe is 163's
# (CAIL's 非国家工作人员受贿 judgments of 村委会主任 and 村支部书记).
_VILLAGE_POST = r"村民委员会|村委会?|居委会|(村|社区|街道)[^，。；]{0,6}(书记|主任|会计|出纳|文书|组长|社长|队长)"
# The money among those matters: public whoever handles it (挪用公款, 贪污).
_STATE_FUNDS = r"救灾|优抚|扶贫|移民|救济|低保|(征地|占地|征用|征收|拆迁)[^，。；]{0,6}(补偿|款|费)"
_PUBLIC_AFFAIRS = (
    rf"{_STATE_FUNDS}|抢险|防汛|捐助|国有土地|代征|代缴"
    r"|计划生育|计生|户籍(?!证明|信息|资料|材料|所在地)|征兵|协助[^，。；]{0,10}(政府|乡|镇|街道)|退耕还林|危房改造"
    r"|(国家|政府|财政)[^，。；]{0,10}(补助|补贴|资金|奖补|专项|项目)"
)
# The post may be named well after the employer (…有限公司在本区…四楼游戏机房收银员: cmdl-1053, tune).
# …or be a village post acting in the village's own affairs: 163's and 271's "other unit" (where the fact also
# tells public affairs, _OFFICIAL states the more specific member first).
# 163's "other unit" includes a tender's evaluation committee (评标委员会: the 2008 opinion on commercial bribery),
# and a hospital's medical workers (its art. 4). Posts as CAIL's 非国家工作人员受贿 judgments name them: a team's,
# a station's, a credit cooperative's head, a driving school's instructor, a post told after 在…公司工作期间.
_STAFF = (
    rf"(公司|企业|单位|集团|商场|超市|酒店|银行|信用社|联社|驾校|厂)[^，。；]{{0,30}}"
    rf"({_TITLES}|工程师|负责人|主任|教练|(处|科|部|队|组|班|厂|所|站|理事)长|(工作|任职)期间)"
    r"|医院[^，。；]{0,15}(医生|医师|护士|科主任)"
    rf"|{_VILLAGE_POST}|评标(委员会|专家)"
)
# Staff of a company not said to be state-owned: the recipient of 164's bribe.
_PRIVATE_STAFF = rf"(?<!国有)(公司|企业|医院|集团)[^，。；]{{0,15}}({_TITLES}|主任|医生|采购|负责人)"


def _in_clause_without(words: str) -> str:
    """The start of a match confined to one clause (between ，。；) in which none of ``words`` stands."""
    return rf"(?:^|(?<=[，。；]))(?:(?!{words})[^，。；])*?"


_OFFICIAL = (
    r"(?<!非)国家工作人员|国家机关"
    rf"|({_VILLAGE_POST})(?=[\s\S]*({_PUBLIC_AFFAIRS}))|({_PUBLIC_AFFAIRS})(?=[\s\S]*({_VILLAGE_POST}))"
    # A township's own posts, not a village's named after its township (…镇河东村村委会主任); not a company's
    # 国有控股 (a state-controlled company's staff are 163's unless the state delegated them), nor the 市长 of
    # 西安市长安区, nor land that becomes state-owned (租赁土地部分流转为国有: a village secretary's 163 bribe, CAIL).
    r"|(乡|镇)[^，。；村社居]{0,6}(书记|主任|会计|文书)|事业单位|国有(?!控股|参股|土地|事项)"
    # A 处长 or 科长 of a company is its staff (江西丰城南方水泥有限公司供应处处长: CAIL's 非国家工作人员受贿).
    rf"|{_in_clause_without('公司|企业|集团|厂')}(局|厅|处|科|乡|镇|县|市|区)长(?![^，。；]{{0,3}}(区|镇|县|乡|村|街|路))"
    # A post in a state organ the fact names as the defendant's (在担任岳西县国土资源局收储中心二室主任期间: ljp-9,
    # tune), not an organ the fact names for another reason (被某县公安局抓获).
    r"|(担任|系|任)[^，。；]{0,15}(局|政府|(?<![村居]民)委员会|人民法院|人民检察院|派出所|管理所|管理站)[^，。；]{0,10}"
    r"(主任|所长|站长|干部|工作人员|科员|干事|会计|出纳|职工|民警)"
    # A local government's office and its head (蒙城县…文明办副主任, 县农业综合开发办公室…主任: CAIL's 滥用职权 and
    # 单位受贿 tell them so), not a company's nor a street office's community (…办事处…社区主任: 163's).
    rf"|{_in_clause_without('公司|企业|集团|厂|银行|物业|学校|医院')}(县|市|区|镇|乡|省)[^，。；]{{0,12}}"
    r"(办公室|办(?!事处))[^，。；]{0,20}主任"
)
# A duty's convenience however named (负责…改厕工程工作之便: a township office's head).
_USING_POST = (
    r"利用[^，。；]{0,20}(便利|之便)|(职务|工作)(上的)?(便利|之便)|利用[^，。；]{0,6}(职务|职权|经手|管理|保管|负责)"
)
# A bribe taken is tied to the post by its duty as well (全面负责该院的财务工作…负责监管协议履行: charge-205,
# tune); a duty told beside property taken is not (a former employee's fraud: cail-train-487).
# Not a duty that describes another (送给…卫生院负责药品采购等工作的院长: the giver's judgment).
_POST_FOR_BRIBE = (
    rf"{_USING_POST}|评标(委员会|专家|过程)|负责[^，。；]{{0,15}}(工作|事宜|监管|管理|审批|采购|验收)"
    r"(?![^，。；]*的[^，。；]{0,8}(长|主任|经理|人员|书记|负责人|干部))"
)
# Money handed over, to whom as the lookahead between says: the defendant taking it or someone he gave it to.
_HANDED = r"(送给|送予|给予|送去)"
_MONEY = r"[^，。；]{0,20}(现金|财物|好处费|礼金|红包|购物卡|人民币|元)"
_TAKING = (
    r"收受|索取|索要|索贿|索得|非法收取|收取[^，。；]{0,25}(好处|贿|礼金|红包|回扣|感谢费)"
    rf"|{_HANDED}({DEFENDANT}){_MONEY}"
)
# Not "X给予的" within a clause of the defendant taking it (收受…江某某给予的贿赂人民币20万元: charge-205, tune),
# nor a bribe given to the defendant (送给被告人肖某现金, 给予其1000元, 向…被告人李某甲行贿, 送给耿某某4万元 when he is
# the defendant: CAIL's 非国家工作人员受贿), nor one the defendant took (收受…贿送的人民币).
_GIVING = (
    r"谋取不正当利益|(?<!被告人[^，。；]{2})(?<!被告人[^，。；]{3})行贿|贿送(?!的)"
    rf"|{_HANDED}(?!的|其|{DEFENDANT}){_MONEY}"
)

FAMILIES: tuple[Family, ...] = (
    Family(
        "侵占财物",
        (
            # A village post that claims state subsidies under false names embezzles whether or not the fact
            # says 利用职务便利 (骗取国家退耕还林补助款: cmdl-710, cmdl-739, tune).
            Member(
                "贪污",
                "国家工作人员利用职务上的便利侵吞公共财物",
                (
                    _OFFICIAL,
                    rf"{_USING_POST}|(骗取|套取|冒领|侵吞|截留)[^，。；]{{0,12}}"
                    rf"(国家|政府|财政|公款|补助|补贴|专项|{_STATE_FUNDS})",
                ),
            ),
            Member("职务侵占", "公司、企业或者其他单位的人员利用职务上的便利占有本单位财物", (_STAFF, _USING_POST)),
            Member(
                "侵占",
                "将代为保管的他人财物或者遗忘物、埋藏物占为己有且拒不退还",
                (r"代为保管|代管|遗忘物|埋藏物|拒不(退还|交出|归还)",),
            ),
            Member("盗窃", "秘密窃取他人财物", (r"窃|盗|偷|扒|撬|顺手",)),
        ),
    ),
    Family(
        "诈骗",
        (
            # Social insurance obtained by deceit is 诈骗 (the NPC Standing Committee's reading of 266, 2014:
            # 骗取养老保险金, 工伤保险金: CAIL); 198 is a fraud on an insurer.
            Member(
                "保险诈骗",
                "骗取保险金",
                (r"(?<!养老)(?<!工伤)(?<!医疗)(?<!失业)(?<!生育)(?<!社会)保险金|理赔|骗保|保险公司",),
            ),
            Member(
                "贷款诈骗",
                "骗取银行或者其他金融机构的贷款",
                # A loan and a bank alone tell a fraud whose victim borrowed, or that promised loans (25 CAIL
                # judgments of 诈骗 or 合同诈骗, none of 贷款诈骗): the loan itself must be obtained by deceit.
                (
                    r"贷款",
                    r"银行|信用社|金融机构|农商行|小额贷款",
                    r"骗取[^，。；]{0,15}贷款|贷款[^，。；]{0,20}(逾期|拒不归还|未归还|不予归还|至今未还|无法归还|挥霍)"
                    r"|(虚假|伪造|虚构)[^，。；]{0,20}(贷款|借款)",
                ),
            ),
            Member(
                "集资诈骗",
                "以非法占有为目的使用诈骗方法非法集资",
                # High interest promised to one lender is 诈骗's deceit; 集资 is raised from the public (CAIL's 诈骗
                # judgments of loans at 高额利息).
                (
                    r"集资|吸收[^，。；]{0,10}资金|(社会|公众|不特定|群众)[^。]{0,40}高额(回报|利息|返利)"
                    r"|高额(回报|利息|返利)[^。]{0,60}(社会|公众|不特定|群众)",
                ),
            ),
            Member(
                "信用卡诈骗",
                "使用伪造、作废或者冒用他人的信用卡，或者恶意透支",
                # A debit card found and used at a teller machine is 冒用他人信用卡 (信用卡 includes 借记卡 in
                # criminal law); a 贷记卡's overdraft is told in many words.
                (
                    r"(使用|冒用|盗刷|伪造)[^，。；]{0,10}信用卡|信用卡[^，。；]{0,10}(透支|套现|盗刷)|恶意透支"
                    r"|(信用卡|贷记卡)[^。]{0,80}透支|透支[^，。；]{0,10}(本金|消费|取现)"
                    # The overdraft and the bank's reminders may be told sentences after the card (CAIL).
                    r"|(信用卡|贷记卡)[^。]{0,80}。[^。]{0,60}透支|经[^，。；]{0,10}催(收|缴)[^。]{0,10}(未|不|仍未)(还|归还)"
                    r"|(拾得|捡到|捡拾|遗忘|遗失|忘记取)[^。]{0,40}(银行卡|储蓄卡|信用卡|借记卡)[\s\S]{0,80}"
                    r"(取走|取款|取现|消费|转账|刷卡)"
                    r"|(银行卡|储蓄卡|信用卡|借记卡)[^。]{0,40}(遗忘|遗失|未取走)[^。]{0,80}(取走|取款|取现|消费|转账|刷卡)"
                    r"|未取走的(银行卡|储蓄卡|信用卡|借记卡)",
                ),
            ),
            Member(
                "合同诈骗",
                "在签订、履行合同过程中骗取对方当事人财物",
                # A contract need not be written: an oral agreement, buying on credit, goods first and payment
                # later, goods paid for and never delivered, a rented car pledged or sold. A contract others signed,
                # shown as proof (提供其妻子与教育局签订的聘任协议书: charge-130, tune), is not the fraud's contract,
                # nor is a compensation agreement signed with the government that expropriates (征收补偿安置协议):
                # 合同诈骗 protects market dealings; compensation obtained by deceit is 诈骗's.
                (
                    r"签订(?!的)(?![^，。；]{0,20}补偿)[^，。；]{0,20}(合同|协议)|(合同|协议)[^，。；]{0,10}(签订|履行)|口头(协议|约定)|赊购|赊销|赊欠"
                    r"|先(收|拉|运|发|供|拿)[^，。；]{0,6}后(付|结)|先欠钱拿货"
                    # The goods' price unpaid or taken for goods never sent; no goods or means to perform (CAIL's
                    # 合同诈骗; a loan "for goods" is not: 以…支付货款为由 stays 诈骗's).
                    r"|(不予|未|拒绝|拒不|没有)[^，。；]{0,6}支付[^，。；]{0,10}货款|(收到|接到|收取)[^，。；]{0,10}货款后"
                    r"|货款[^，。；]{0,6}(未支付|不还|不归还|未付)|催(要|讨|收)?货款|(欠|拖欠)[^，。；]{0,8}货款"
                    r"|骗[^，。；]{0,8}货款|(没有|无)[^，。；]{0,6}(货源|履行[^，。；]{0,6}能力|履约能力)"
                    # The pledge may come a sentence later (租赁了一辆…轿车。后因资金紧张，将该车抵押给…: CAIL).
                    r"|(租赁|租用|租车|租得|租走|承租)[^。]{0,60}。?[^。]{0,60}(抵押|质押|典当|变卖|卖给|出售|转卖|转押)",
                ),
            ),
            Member("诈骗", "虚构事实或者隐瞒真相骗取他人财物", (r"虚构|隐瞒|冒充|谎称|骗",)),
        ),
    ),
    Family(
        "挪用",
        (
            # Not _OFFICIAL: a village post handling the village's own funds commits 挪用资金, not 挪用公款.
            Member(
                "挪用公款",
                "国家工作人员挪用公款",
                # Funds a village post administers for the state (the NPC Standing Committee's reading of 93:
                # 土地征收、征用补偿费用, 救灾、优抚、移民、救济款物: cmdl-1290, tune) and the state's township
                # stations (畜牧兽医工作站站长: cmdl-899, tune) are public.
                (
                    rf"公款|(?<!非)国家工作人员|国家机关|国有(公司|企业|单位|资产|资金)|事业单位|财政|{_STATE_FUNDS}"
                    r"|(兽医|畜牧|农技|农机|林业|水利|水务|国土|计生|卫生|文化)[^，。；]{0,6}(站|所)[^，。；]{0,4}(站长|所长)",
                ),
            ),
            Member("挪用资金", "公司、企业或者其他单位的工作人员挪用本单位资金", (r"挪用",)),
        ),
    ),
    Family(
        "抢夺财物",
        (
            Member(
                "抢劫",
                "以暴力、胁迫或者其他方法当场劫取财物",
                # Force as facts tell it, also after a theft to resist capture (269: 踢倒, 击打); a knife only when
                # held or used, not any 刀 a fact mentions (cail-train-80: 抢夺).
                (
                    r"暴力|殴打|威胁|胁迫|持刀|持[^，。；]{0,4}刀|(拿|掏|亮)出[^，。；]{0,4}刀"
                    r"|刀[^，。；]{0,6}(威胁|逼|抵|架在|刺|砍|捅)|捆绑|掐|按倒|推倒|拳打脚踢|踢(倒|打)|击打|打倒|捂(住|嘴)|劫",
                ),
            ),
            Member("抢夺", "乘人不备公然夺取财物", (r"乘[^，。；]{0,6}不备|夺|抢走|飞车",)),
        ),
    ),
    Family(
        "伤害秩序",
        (
            # Two men trading blows (互殴) is a fight, not a gathering (17 CAIL judgments of 故意伤害 say 互殴; no
            # 聚众斗殴 on the tuning halves does); a gang fight that causes 重伤 is judged under 234 (292's second
            # paragraph).
            Member(
                "聚众斗殴",
                "纠集多人与对方斗殴",
                (
                    # 纠集 alone tells a gang beating one man (寻衅滋事: 32 CAIL judgments); a fight has two sides.
                    r"聚众|斗殴|约架|对打|纠集[^。]{0,80}(对方|双方|打架)|(对方|双方)[^。]{0,40}纠集",
                    r"^(?![\s\S]*重伤)",
                ),
            ),
            Member(
                "寻衅滋事",
                "随意殴打他人、追逐拦截、强拿硬要或者在公共场所起哄闹事",
                # Art. 293's modes as facts tell them: chasing, blocking, smashing property, beating at random;
                # not 辱骂 or 恐吓, which facts of a quarrel before an injury tell too (ljp-65, charge-55, tune).
                (
                    r"随意殴打|寻衅|滋事|无故|借故|强拿硬要|起哄闹事|逞强|随意|看不顺眼|挑衅|追逐|拦截|拦堵|追打|追砍"
                    r"|打砸|砸(坏|毁|烂|碎)|任意损毁|损毁[^，。；]{0,10}(车|玻璃|门|窗|财物|物品)"
                    # The motives the 2013 interpretation names (发泄情绪, 无事生非: a look taken amiss) and a share
                    # demanded in another's business (强拿硬要).
                    r"|泄愤|发泄|瞅|看了[^，。；]{0,2}一眼|观望|(入|干|占)股"
                    # A beating that hurt no one beyond 轻微伤 is no 故意伤害 (234 needs 轻伤 at least) but is 293's
                    # 随意殴打 (CAIL and the tuning halves: 36 more of 1,306 wrong proposals repaired).
                    r"|^(?![\s\S]*(轻伤|重伤|死亡|伤残))[\s\S]*轻微伤",
                ),
            ),
            Member("故意伤害", "故意伤害他人身体，致人轻伤以上", (r"轻伤|重伤|死亡|伤残|致[^，。；]{0,6}死",)),
        ),
    ),
    Family(
        "窃取特定对象",
        (
            Member(
                "盗掘古文化遗址、古墓葬",
                "盗掘具有历史、艺术、科学价值的古文化遗址、古墓葬",
                (r"盗掘|盗墓|古墓|古文化遗址|古遗址",),
            ),
            Member(
                "破坏电力设备",
                "破坏（盗割、拆卸）正在使用中的电力设备",
                # Cut through however the fact tells it (电缆剪为35段: cmdl-50, tune).
                (
                    r"电线|电缆|变压器|输电|(供电|用电|电力|高压|低压)线路|电力设施|电力设备|正在通电",
                    # A transformer in use taken down and stolen (拆盗正在使用中的变压器, 盗窃变压器…推到地下: CAIL).
                    r"盗割|盗剪|割取|拆卸|拆盗|切断|(剪|割|砸|锯|截|铰)(断|下|为|成|掉)|电力设[备施][^，。；]{0,6}(破坏|损坏)"
                    r"|(盗窃|偷)[^，。；]{0,6}变压器",
                ),
            ),
            Member(
                "破坏易燃易爆设备",
                "破坏输油、输气管道等正在使用中的易燃易爆设备",
                (r"(输油|输气|燃气|天然气|原油|成品油)[^，。；]{0,6}(管道|管线|干线)|打孔盗油|盗油",),
            ),
            Member("盗窃", "秘密窃取他人财物", (r"窃|盗|偷|扒|撬|顺手",)),
        ),
    ),
    Family(
        "枪支",
        (
            Member(
                "非法制造、买卖、运输、邮寄、储存枪支、弹药、爆炸物",
                "非法制造、买卖、运输、邮寄或者储存枪支、弹药、爆炸物",
                (
                    r"(制造|组装|改装|买卖|出售|卖给|购买|购得|买得|运输|邮寄|储存)[^，。；]{0,15}(枪|弹药|子弹|炸药|雷管|爆炸物)",
                ),
            ),
            Member("非法持有、私藏枪支、弹药", "非法持有、私藏枪支、弹药", (r"持有|私藏|藏匿|查获|收缴",)),
        ),
    ),
    Family(
        "野生动物",
        (
            Member(
                "危害珍贵、濒危野生动物",
                "猎捕、杀害、收购、运输、出售国家重点保护的珍贵、濒危野生动物",
                # A province's 重点保护 list is not the state's (江西省级重点保护陆生野生动物: CAIL's 非法狩猎); the
                # species CITES lists are (画眉…列为国际贸易公约附录Ⅱ: cmdl-1243, tune).
                (r"珍贵|濒危|国家(一|二|I|II)级|(?<!省)(?<!省级)(?<!非)重点保护(陆生)?野生动物|附录(Ⅰ|Ⅱ|I|II|一|二)",),
            ),
            # Hunting as facts tell it: catching frogs by lamplight, nets for birds, the 三有 animals 341's second
            # paragraph protects (CAIL's 非法狩猎 judgments).
            Member(
                "非法狩猎",
                "违反狩猎法规，在禁猎区、禁猎期或者使用禁用的工具、方法狩猎",
                (r"狩猎|猎捕|捕猎|禁猎|捕捉|捕获|捕杀|猎杀|打猎|诱捕|捕鸟|(粘|鸟|捕)网|三有",),
            ),
        ),
    ),
    Family(
        "淫秽物品",
        (
            Member(
                "制作、复制、出版、贩卖、传播淫秽物品牟利",
                "以牟利为目的制作、复制、出版、贩卖、传播淫秽物品",
                (r"牟利|获利|非法所得|出售|贩卖|卖给|收取[^，。；]{0,10}(费|元)|会员|付费|充值|打赏",),
            ),
            Member("传播淫秽物品", "传播淫秽物品，情节严重", (r"传播|淫秽",)),
        ),
    ),
    Family(
        "毒品",
        (
            # Not the seller's own case the fact tells to say where the drug came from (彭某涉嫌贩卖毒品一案已被
            # 立案: the buyer holds); a buyer told 另案处理 is still the defendant's sale.
            Member(
                "走私、贩卖、运输、制造毒品",
                "走私、贩卖、运输或者制造毒品",
                (
                    r"(贩卖|出售|卖给|售予|兜售|交易|运输|携带[^，。；]{0,10}(入境|过境)|制造|制毒|走私)"
                    r"(?![^，。；]{0,8}一案)",
                ),
            ),
            # Providing the place, as facts say it without 容留 (为彭某…提供吸毒场所: CAIL).
            Member(
                "容留他人吸毒",
                "提供场所容留他人吸食毒品",
                (r"容留|提供[^，。；]{0,6}(吸毒|吸食毒品)?场所|为[^，。；]{0,20}吸(食|毒)[^，。；]{0,10}提供",),
            ),
            Member("非法持有毒品", "非法持有毒品数量较大", (r"持有|查获|藏匿|存放",)),
        ),
    ),
    Family(
        "赌博",
        (
            Member(
                "组织参与国（境）外赌博",
                "组织中华人民共和国公民参与国（境）外赌博",
                (r"(境外|国外|澳门|缅甸|柬埔寨|菲律宾)[^，。；]{0,12}赌", r"组织|招揽|介绍"),
            ),
            Member(
                "开设赌场",
                "开设赌场：经营赌博场所、网站或者设置赌博机",
                # A player who bets on a gambling website gambles; setting one up, running or acting as its agent
                # opens a casino (cmdl-779, tuning half). 捕鱼机 and 老虎机 are 赌博机.
                (
                    r"开设[^，。；]{0,8}赌场|(建立|开设|搭建|经营|代理|租用服务器)[^，。；]{0,10}赌博(网站|平台)"
                    r"|赌博(网站|平台)[^，。；]{0,10}(代理|股东)|赌博机|捕鱼机|老虎机|(赌博性质|赌博功能)[^，。；]{0,6}(机|游戏)"
                    r"|赌博(软件|App|APP)|(经营|设立|设置)[^，。；]{0,8}(赌场|赌点)"
                    # A place or the gambling tools provided for others to gamble: what opening a casino is (为赌博
                    # 提供场所、提供赌具: CAIL's and CMDL's 开设赌场).
                    r"|提供[^，。；]{0,6}(场所|场地|赌具)|(设置|摆放|摆设|放置)[^，。；]{0,10}(麻将桌|麻将机|赌桌|赌台|赌具)",
                ),
            ),
            Member("赌博", "以营利为目的聚众赌博或者以赌博为业", (r"赌",)),
        ),
    ),
    Family(
        "卖淫",
        (
            Member("强迫卖淫", "以暴力、胁迫等手段强迫他人卖淫", (r"强迫|逼迫|威胁[^，。；]{0,10}卖淫",)),
            # Before 组织卖淫 only where the fact says the defendant helped another's organising: a fact of
            # helpers tells the organising too (协助侯某某、温某…组织卖淫: cmdl-561, cmdl-633, tune), while an
            # organiser's fact may name guards and lookouts of his own.
            Member(
                "协助组织卖淫",
                "为组织卖淫的人招募、运送人员或者充当保镖、打手、管账人",
                (r"(协助|帮助)[^，。；]{0,15}组织[^，。；]{0,8}卖淫",),
            ),
            Member(
                "组织卖淫",
                "以招募、雇佣、纠集等手段管理或者控制多人从事卖淫",
                (r"(组织|招募|雇佣|纠集|管理|控制)[^，。；]{0,15}(卖淫|小姐|失足)",),
            ),
            Member("引诱、容留、介绍卖淫", "引诱、容留或者介绍他人卖淫", (r"引诱|容留|介绍|卖淫",)),
        ),
    ),
    Family(
        "林木",
        (
            Member(
                "盗伐林木",
                "以非法占有为目的擅自砍伐国家、集体或者他人所有的林木",
                (r"盗伐|(擅自|私自|偷偷)[^，。；]{0,10}砍伐[^，。；]{0,15}(他人|国家|集体|村|林场)",),
            ),
            Member(
                "滥伐林木",
                "未经许可或者超过许可证的数量砍伐林木（包括本人所有的）",
                (r"滥伐|未(办理|取得)[^，。；]{0,10}(采伐|林木)[^，。；]{0,6}许可|超(过|出)[^，。；]{0,10}采伐",),
            ),
        ),
    ),
    Family(
        "贿赂",
        (
            Member(
                "受贿",
                "国家工作人员利用职务上的便利，索取或者非法收受他人财物，为他人谋取利益",
                (_OFFICIAL, _POST_FOR_BRIBE, _TAKING),
            ),
            Member(
                "非国家工作人员受贿",
                "公司、企业或者其他单位的工作人员利用职务上的便利，索取或者非法收受他人财物，为他人谋取利益",
                (_STAFF, _POST_FOR_BRIBE, _TAKING),
            ),
            # Before 单位行贿: a company that bribes another company's staff commits 164's offence (its third
            # paragraph); 393's 单位行贿 is a bribe to a state functionary.
            Member(
                "对非国家工作人员行贿",
                "为谋取不正当利益，给予公司、企业或者其他单位的工作人员以财物",
                # Paid to them is given too (向…公司的高级销售经理…支付贿赂款: cmdl-151, tune).
                (
                    rf"(给予|送给|送予|送)[^，。；]{{0,25}}{_PRIVATE_STAFF}"
                    rf"|向[^，。；]{{0,25}}{_PRIVATE_STAFF}[^。；]{{0,30}}(支付|给予|送)[^，。；]{{0,6}}(贿|好处费|回扣|感谢费)"
                    # Doctors paid for prescribing a drug (the 2008 opinion on commercial bribery, art. 4: a medical
                    # worker's prescription is 163's post, its price 164's bribe; CAIL's and CMDL's drug sellers).
                    r"|(医生|医务人员)[^。]{0,30}(处方|开药|用药)[^。]{0,30}(好处|利益|回扣|提成|返利)"
                    r"|(处方|用药)[^。]{0,20}(回扣|提成|返利)",
                ),
            ),
            # A judgment names the defendant company as 被告单位 or as 被告 followed by its name (cmdl-975, tune).
            Member(
                "单位行贿",
                "单位为谋取不正当利益而行贿",
                (r"被告单位|被告(?!人)[^，。；、（(]{2,25}(公司|厂|集团|企业)", _GIVING),
            ),
            Member("行贿", "为谋取不正当利益，给予国家工作人员以财物", (_GIVING,)),
        ),
        by_law=True,
    ),
    Family(
        "虚开",
        (
            Member(
                "虚开增值税专用发票、用于骗取出口退税、抵扣税款发票",
                "虚开增值税专用发票或者用于骗取出口退税、抵扣税款的其他发票",
                (r"专用发票|出口退税|抵扣税款",),
            ),
            Member(
                "虚开发票",
                "虚开增值税专用发票和用于骗取出口退税、抵扣税款的发票以外的发票（普通发票）",
                (r"普通发票|虚开[^，。；]{0,20}发票|发票[^，。；]{0,10}虚开",),
            ),
        ),
        by_law=True,
    ),
    Family(
        "赃款赃物",
        (
            Member(
                "洗钱",
                "掩饰、隐瞒毒品犯罪、黑社会性质的组织犯罪、恐怖活动犯罪、走私犯罪、贪污贿赂犯罪、破坏金融管理秩序犯罪、"
                "金融诈骗犯罪的所得及其产生的收益的来源和性质",
                (
                    r"(毒品|贩毒|黑社会|恐怖|走私|贪污|受贿|贿赂|金融诈骗|集资诈骗|票据诈骗|信用卡诈骗|非法吸收公众存款)"
                    r"[^。]{0,30}(所得|收益|赃款|资金|钱款)",
                ),
            ),
            Member(
                "掩饰、隐瞒犯罪所得、犯罪所得收益",
                "明知是犯罪所得及其产生的收益而予以窝藏、转移、收购、代为销售或者以其他方法掩饰、隐瞒",
                # Judgments mask the crime known of (明知被告人杜某实施了××，…藏匿: CAIL) and name the car or goods
                # 赃车, 赃物.
                (
                    r"明知[^。]{0,30}(犯罪所得|赃|盗窃所得|诈骗所得|来路不明|盗窃的|偷来|骗来|××)|收购赃|代为销售|赃车|赃物|销赃",
                ),
            ),
        ),
        by_law=True,
    ),
    Family(
        "交通",
        (
            Member(
                "交通肇事",
                "违反交通运输管理法规，发生重大事故，致人重伤、死亡或者使公私财产遭受重大损失"
                "（醉酒驾驶等危险驾驶行为同时构成交通肇事的，依照处罚较重的规定定罪处罚：刑法第一百三十三条之一第三款）",
                (
                    r"驾驶|驾车|行驶|车辆|机动车",
                    # A clause telling an injury or a death (经抢救无效死亡 too), unless it denies one (未造成人员伤亡).
                    r"(?:^|(?<=[，。；]))(?:(?!未造成|没有造成|无人员|未致)[^，。；])*(重伤|死亡|身亡)|重大(交通)?事故",
                ),
            ),
            Member(
                "危险驾驶",
                "醉酒驾驶机动车、追逐竞驶，或者严重超员超速、违规运输危险化学品",
                (r"醉酒|醉驾|酒后驾驶|乙醇含量|酒精含量|追逐竞驶|严重超(员|载|速)|危险化学品",),
            ),
        ),
        by_law=True,
    ),
    Family(
        "食品",
        (
            Member(
                "生产、销售有毒、有害食品",
                "在生产、销售的食品中掺入有毒、有害的非食品原料",
                # The non-food substances the 2013 interpretation's art. 20 names as 非食品原料: those the law bars
                # from food and those on the published lists (硫磺 fumes, 工业松香, 无根豆芽素: CAIL).
                (
                    r"有毒、?有害|非食品原料|瘦肉精|盐酸克伦特罗|地沟油|罂粟|西地那非|工业(用)?[^，。；]{0,4}(盐|碱|明胶)|甲醛|农药"
                    r"|硫磺|松香|豆芽素|非食用|非食品添加剂|苄基腺嘌呤|氯苯氧乙酸钠|敌百虫|孔雀石绿|氯霉素|硝基呋喃"
                    r"|(禁止|不得)[^，。；]{0,10}(添加|使用)",
                ),
            ),
            Member(
                "生产、销售不符合安全标准的食品",
                "生产、销售不符合食品安全标准的食品，足以造成严重食物中毒事故或者其他严重食源性疾病",
                # Exceeding a standard however told (超出国家标准二倍以上, 超量添加: cmdl-702, tune), and the carcasses
                # of 病死、死因不明 animals as facts name them (收购的死猪: cmdl-879, tune).
                (
                    r"不符合[^，。；]{0,6}(食品)?安全标准|病死|死因不明|超(标|范围)|超(出|过)[^，。；]{0,6}标准|超量|细菌"
                    r"|食物中毒|死(猪|鸡|鸭|鹅|牛|羊|狗|禽|畜)",
                ),
            ),
        ),
    ),
)


@dataclass(frozen=True)
class FamilyCheck:
    """How one convicted charge fared against its neighbours."""

    family: str
    charge: str
    """The charge as proposed."""
    decided: str
    """The charge after the check (the same charge when it held)."""
    by: str
    """"fact" (the fact states the element), "question" (the model answered the targeted question) or
    "default" (neither settled it; the proposal stands)."""
    element: str
    """The element the decision turned on."""
    quote: str = ""
    """Where the fact states it (its words), when the fact decided."""


Ask = Callable[[Member], bool | None]
"""A targeted yes/no question about a member's element (None: no answer)."""


def check_families(
    chosen: Sequence[str], candidates: Sequence[str], fact: str, ask: Ask | None = None
) -> tuple[list[str], list[FamilyCheck]]:
    """(charges, checks): ``chosen`` with each charge that has a neighbour among ``candidates`` (best first)
    checked on the element that separates them. A more specific neighbour whose element the fact states
    replaces the charge; a charge whose own element the fact states stays; otherwise the stated neighbour
    replaces it, and when the fact states no member's element, ``ask`` decides whether the charge's element
    holds (no: it merges into a neighbour already in ``chosen``, else the best-ranked less specific neighbour,
    or the family's most general member, replaces it);
    the family's last, most general member is never asked about: its element is the act itself."""
    out = list(chosen)
    checks: list[FamilyCheck] = []
    for family in FAMILIES:
        act_offence = family.members[-1]
        rivals = [
            m
            for m in family.members
            if m.charge in candidates
            or m.charge in chosen
            or (family.by_law and m.stated_in(fact))
            # An act offence is the neighbour of its specific forms whether or not a retriever proposed it.
            or (m is act_offence and m.charge in ACT_WORDS and any(family.member(c) for c in chosen))
        ]
        if len(rivals) < 2:
            continue
        stated = [m for m in rivals if m.stated_in(fact)]
        for member in [m for c in out if (m := family.member(c))]:
            charge = member.charge
            others = [m for m in rivals if m.charge != charge and m.charge not in out]
            position = family.members.index(member)
            specific = [m for m in stated if family.members.index(m) < position and m.charge not in out]
            decided, by, element, quote = charge, "default", member.element, ""
            if specific:
                decided, by, element, quote = specific[0].charge, "fact", specific[0].element, specific[0].quote(fact)
            elif member in stated:
                by, quote = "fact", member.quote(fact)
            elif others and (alternative := next((m for m in stated if m in others), None)):
                decided, by, element, quote = alternative.charge, "fact", alternative.element, alternative.quote(fact)
            elif others and ask and member != family.members[-1] and (answer := ask(member)) is not None:
                by = "question"
                # No: the charge merges into a neighbour already proposed, else the best-ranked neighbour.
                proposed = [c for c in out if c != charge and family.member(c)]
                if not answer and proposed:
                    decided = proposed[0]
                elif not answer:
                    # Refuting its element leaves a less specific offence, never a more specific one whose own
                    # element the fact does not state either (合同诈骗 refuted became 信用卡诈骗 on charge-98): the
                    # next one down whose element the fact states, proposed or not (a village group leader's 贪污
                    # refuted is his 职务侵占, not the 侵占 a retriever ranked), else the best-ranked.
                    lower = [m for m in family.members[position + 1 :] if m.charge not in out]
                    told = [m for m in lower if m.stated_in(fact)]
                    general = told[:1] or [m for m in others if m in lower] or [family.members[-1]]
                    ranked = sorted(
                        general, key=lambda m: candidates.index(m.charge) if m.charge in candidates else len(candidates)
                    )
                    decided = ranked[0].charge
            out = [decided if c == charge else c for c in out]
            checks.append(FamilyCheck(family.name, charge, decided, by, element, quote))
    return list(dict.fromkeys(out)), checks


ACT_WORDS = {
    "盗窃": r"窃|盗|偷|扒|撬|顺手|(拿|取|搬|拎|提|牵|开|骑|推|抱|背|带)走|据为己有",
    "诈骗": r"骗|虚构|隐瞒|冒充|谎称|假冒|假称|假装|编造|伪造|以[^，。；]{1,20}为(由|名)",
    "故意伤害": r"伤|殴打|打(死|残)|骨折|捅|砍|刺|踢|咬",
}
"""The offences whose element is the act itself (秘密窃取, 虚构事实骗取, 伤害他人身体) and the words by which a fact
tells that act: a fact that tells none is not one of them, whatever the precedents or the pre-judgment say (the
1.5B model pre-judges 盗窃 for facts of 放火, 假币 or 故意杀人). Broader than their family members' words, which
separate neighbours: taking something away tells a theft here. Other offences need not repeat such words."""


def untold_act(charge: str, fact: str) -> bool:
    """Whether ``charge`` is an act offence (:data:`ACT_WORDS`) whose act ``fact`` never tells."""
    words = ACT_WORDS.get(charge)
    return words is not None and not re.search(words, fact)


def told_acts(chosen: Sequence[str], ranked: Sequence[str], fact: str) -> list[str]:
    """``chosen`` without the act offences ``fact`` never tells; when that leaves none, the best of ``ranked``
    that is not one (a fact is convicted of something; its neighbours are then checked as any proposal is)."""
    kept = [c for c in chosen if not untold_act(c, fact)]
    if kept or not chosen:
        return kept
    return next(([c] for c in ranked if not untold_act(c, fact)), list(chosen))
