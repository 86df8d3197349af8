"""Neighbouring charges are separated on the element that distinguishes them, by the fact's words first."""

from __future__ import annotations

import pytest

from tests.conftest import SHARED_DATA
from tools.corpus.charge_rules import load_charge_rules
from tools.law.charge_families import (
    FAMILIES,
    Member,
    check_families,
    told_acts,
    untold_act,
)

CHARGE_RULES = load_charge_rules(SHARED_DATA / "zh/interpretations/lawrefbook")

CASES = [
    # (proposed, neighbour among the candidates, fact, decided)
    ("盗窃", "职务侵占", "被告人系某超市收银员，利用其负责收银的职务便利，将店内货款8000元据为己有。", "职务侵占"),
    ("职务侵占", "盗窃", "被告人趁夜撬开某超市仓库门锁，窃取香烟二十条，价值4000元。", "盗窃"),
    ("盗窃", "侵占", "被告人受朋友委托代为保管笔记本电脑一台，后将其变卖，经多次催要拒不退还。", "侵占"),
    ("诈骗", "保险诈骗", "被告人故意制造交通事故，虚构车辆损失，向保险公司申请理赔，骗取保险金3万元。", "保险诈骗"),
    ("诈骗", "合同诈骗", "被告人以公司名义与被害人签订购销合同，收取货款20万元后逃匿。", "合同诈骗"),
    ("合同诈骗", "诈骗", "被告人冒充军人，谎称能办理入伍手续，骗取被害人现金2万元。", "诈骗"),
    ("诈骗", "合同诈骗", "被告人以高价收购为诱饵，与被害人签订《预购协议》，骗取被害人钱款5万元。", "合同诈骗"),
    # Goods paid for and never delivered are a contract's fraud; a loan asked "to pay for goods" is not.
    (
        "诈骗",
        "合同诈骗",
        "被告人谎称能买到低价钢材，收取被害人王某40万元货款后，用于偿还个人债务，至今未交付钢材。",
        "合同诈骗",
    ),
    ("合同诈骗", "诈骗", "被告人谎称做生意需要资金周转，骗得邵某32000元，后以前往义乌支付货款为由逃匿。", "诈骗"),
    # A beating for a look taken amiss is 293's 无事生非 though it caused 轻伤.
    ("故意伤害", "寻衅滋事", "被告人因不满被害人朝其观望，持啤酒瓶殴打被害人头部，致其轻伤二级。", "寻衅滋事"),
    # A power line in use cut through is power equipment damaged, whatever the wire is called.
    ("盗窃", "破坏电力设备", "被告人携带断线钳，剪下正在通电使用的农用铝线54公斤，致使农田无法灌溉。", "破坏电力设备"),
    (
        "合同诈骗",
        "诈骗",
        "被告人向村委会提供其妻子与县教育局签订的教师聘任协议书，谎称其妻子是合同教师，骗取征地补偿款9.7万元。",
        "诈骗",
    ),
    # Social insurance is not 198's; one lender promised high interest is no fundraising from the public.
    ("保险诈骗", "诈骗", "被告人隐瞒其母已死亡的事实，冒领养老保险金共计3.8万元。", "诈骗"),
    ("集资诈骗", "诈骗", "被告人谎称做生意需要资金，以支付高额利息为诱饵，骗取被害人王某借款20万元。", "诈骗"),
    ("诈骗", "集资诈骗", "被告人以月息2%的高额利息为诱饵，散发传单向不特定群众宣传，骗取钱款300万元。", "集资诈骗"),
    # A teller machine's forgotten card used, as facts tell it.
    (
        "诈骗",
        "信用卡诈骗",
        "被告人在自动柜员机取款时，见机内有一张未取走的储蓄卡，遂从卡内分三次取走现金6000元。",
        "信用卡诈骗",
    ),
    # A contract need not be written (CAIL's 合同诈骗 judgments): a rented car pledged, goods bought on credit.
    ("诈骗", "合同诈骗", "被告人从汽车租赁公司租赁轿车一辆后，谎称系其所有，将该车质押给他人借款5万元。", "合同诈骗"),
    ("诈骗", "合同诈骗", "被告人隐瞒无力付款的真相，以赊购方式骗得被害人玉米30吨，后低价卖掉逃匿。", "合同诈骗"),
    # A loan obtained by deceit is 贷款诈骗; a fraud whose victim borrowed from a bank to pay is not.
    ("诈骗", "贷款诈骗", "被告人使用虚假的购销合同，骗取农村信用社贷款50万元，贷款到期后拒不归还。", "贷款诈骗"),
    ("贷款诈骗", "诈骗", "被告人谎称能办理低息贷款，被害人从银行取出存款后交给被告人手续费2万元。", "诈骗"),
    # 信用卡 includes a debit card: one found and used at a teller machine, and a 贷记卡 overdrawn.
    ("诈骗", "信用卡诈骗", "被告人拾得被害人遗忘在自动取款机内的银行卡，随即分三次取走卡内现金6000元。", "信用卡诈骗"),
    ("诈骗", "信用卡诈骗", "被告人办理贷记卡一张后持续消费，累计透支本金3万元，经银行催收拒不归还。", "信用卡诈骗"),
    # Art. 293's smashing of property and chasing are 寻衅滋事; a quarrel's abuse before an injury is not.
    ("故意伤害", "寻衅滋事", "被告人酒后持铁棍在饭店内打砸，砸坏桌椅玻璃，并将店主打致轻微伤。", "寻衅滋事"),
    ("故意伤害", "寻衅滋事", "被告人驾车追逐拦截被害人车辆，下车后持棍殴打被害人致其轻微伤。", "寻衅滋事"),
    ("寻衅滋事", "故意伤害", "被告人与邻居因琐事发生争吵，相互辱骂后用木棍击打被害人头部，致其轻伤二级。", "故意伤害"),
    ("职务侵占", "贪污", "被告人系某村村委会主任，利用协助政府发放补偿款的职务便利，侵吞补偿款5万元。", "贪污"),
    ("故意伤害", "聚众斗殴", "被告人纠集十余人持棍棒与对方人员斗殴，致一人轻伤。", "聚众斗殴"),
    # A gang that beats one man is no fight between two sides.
    ("聚众斗殴", "寻衅滋事", "被告人纠集五人在酒吧门口无故殴打被害人，致其轻微伤。", "寻衅滋事"),
    # Two men trading blows is no gang fight; a gang fight that causes 重伤 is judged as 故意伤害 (292, para. 2).
    ("聚众斗殴", "故意伤害", "被告人与被害人因琐事互殴，持菜刀将被害人砍伤，经鉴定构成轻伤二级。", "故意伤害"),
    ("聚众斗殴", "故意伤害", "被告人纠集五人持刀与对方人员斗殴，致被害人脾脏破裂，经鉴定构成重伤二级。", "故意伤害"),
    # 234 needs 轻伤 at least: a beating that caused 轻微伤 only is 293's.
    ("故意伤害", "寻衅滋事", "被告人酒后在烧烤店内殴打被害人，致其面部软组织挫伤，经鉴定为轻微伤。", "寻衅滋事"),
    # The rented car is pledged a sentence after it was rented.
    (
        "诈骗",
        "合同诈骗",
        "被告人在汽车租赁公司租赁了一辆轿车，约定租期3天。后因资金紧张，将该车抵押给他人借款2万元。",
        "合同诈骗",
    ),
    ("故意伤害", "寻衅滋事", "被告人酒后在烧烤摊无故随意殴打他人，致二人轻微伤。", "寻衅滋事"),
    ("寻衅滋事", "故意伤害", "被告人因邻里纠纷用砖头击打被害人头部，致其轻伤二级。", "故意伤害"),
    (
        "盗窃",
        "盗掘古文化遗址、古墓葬",
        "被告人夜间在某山上挖掘盗洞，盗掘一座清代古墓，窃得铜钱若干。",
        "盗掘古文化遗址、古墓葬",
    ),
    ("盗窃", "破坏电力设备", "被告人用断线钳剪断正在使用的高压电缆一百米后卖给废品站。", "破坏电力设备"),
    # However the cut is told (剪为…段, 砸断).
    ("盗窃", "破坏电力设备", "被告人掀开电缆沟盖板，将正在使用的电缆剪为二十段后运走。", "破坏电力设备"),
    ("盗窃", "破坏电力设备", "被告人拉出花坛下的路灯电缆线，用石头砸断后盗走二十米。", "破坏电力设备"),
    # A post named long after its employer, 职务之便, a warehouse 管理员; 代为保管 by the company is not 侵占.
    (
        "侵占",
        "职务侵占",
        "被告人利用担任某印染有限公司仓库管理员的职务之便，采用虚假入库的手段，将该公司代为保管的白坯布占为己有。",
        "职务侵占",
    ),
    (
        "盗窃",
        "职务侵占",
        "被告人担任某投资管理有限公司在本区某路某号四楼游戏机房收银员，利用该职务便利破解充值系统，骗取现金10万元。",
        "职务侵占",
    ),
    # Village posts claiming state subsidies under false names embezzle, 利用职务便利 told or not.
    ("职务侵占", "贪污", "被告人时任某村村委会主任，以亲属名义虚报面积，骗取国家退耕还林补助款6万元私分。", "贪污"),
    ("盗窃", "破坏易燃易爆设备", "被告人在某输油管道上打孔安装阀门，盗取原油两吨。", "破坏易燃易爆设备"),
    ("盗窃", "破坏电力设备", "被告人与他人拆盗正在使用中的变压器一台，卖得3000元。", "破坏电力设备"),
    ("破坏电力设备", "盗窃", "被告人趁店主不在，窃取店内手机两部。", "盗窃"),
    ("走私、贩卖、运输、制造毒品", "非法持有毒品", "民警在被告人住处查获甲基苯丙胺65克。", "非法持有毒品"),
    (
        "非法持有毒品",
        "走私、贩卖、运输、制造毒品",
        "被告人以300元的价格将甲基苯丙胺0.5克贩卖给吸毒人员。",
        "走私、贩卖、运输、制造毒品",
    ),
    # The seller's case, told to say where the drug came from, is not the defendant's sale.
    (
        "走私、贩卖、运输、制造毒品",
        "非法持有毒品",
        "民警在宾馆查获被告人持有的海洛因13包，毒品系其从彭某处购买，彭某涉嫌贩卖毒品一案已被立案。",
        "非法持有毒品",
    ),
    ("赌博", "开设赌场", "被告人在其经营的茶楼内设置赌博机五台供他人赌博，从中获利。", "开设赌场"),
    ("开设赌场", "赌博", "被告人以营利为目的，多次聚众以打麻将的方式赌博。", "赌博"),
    # The company named after 被告 is the defendant unit: 单位行贿, not 行贿.
    ("行贿", "单位行贿", "被告某某设备有限公司、被告人齐某在销售物资中向国有企业采购员行贿22万元。", "单位行贿"),
    # A player betting on a gambling website gambles; fishing machines in a game hall are 赌博机.
    ("开设赌场", "赌博", "被告人在出租屋内购买电脑，在境内赌博网站上注册账号从事对赌，非法获利3万元。", "赌博"),
    ("赌博", "开设赌场", "被告人在其经营的动漫城内放置捕鱼机两台，通过退分兑钱的方式供人赌博。", "开设赌场"),
    ("受贿", "行贿", "被告人为承揽工程，为谋取不正当利益，先后送给时任某局局长王某现金共计20万元。", "行贿"),
    (
        "行贿",
        "受贿",
        "被告人系某县国土资源局局长，利用职务上的便利，为他人在土地审批中谋取利益，非法收受他人财物共计30万元。",
        "受贿",
    ),
    (
        "受贿",
        "非国家工作人员受贿",
        "被告人系某超市采购经理，利用负责采购的职务便利，收受供货商好处费5万元。",
        "非国家工作人员受贿",
    ),
    (
        "行贿",
        "单位行贿",
        "被告单位某建筑公司为承揽工程，经法定代表人李某决定，送给某镇镇长现金10万元。",
        "单位行贿",
    ),
    (
        "行贿",
        "对非国家工作人员行贿",
        "被告人为推销药品，先后送给某医院药剂科主任刘某回扣款共计8万元。",
        "对非国家工作人员行贿",
    ),
    # Paid to them is given too.
    (
        "行贿",
        "对非国家工作人员行贿",
        "被告人为获取平台推广资源，向某网络科技有限公司的高级销售经理张某累计支付贿赂款24万元。",
        "对非国家工作人员行贿",
    ),
    ("非法持有毒品", "容留他人吸毒", "被告人在自家卧室内为彭某等三人提供吸毒场所，被民警当场抓获。", "容留他人吸毒"),
    # A village post in the village's own affairs takes 163's bribe. Where the fact states a unit's post and an
    # official reading both (a village post in 征地补偿, which 93 as the NPC Standing Committee reads it allows),
    # 163 holds: CAIL's courts convicted 6 of the 7 such facts the checks met under 163 (issue 65).
    (
        "受贿",
        "非国家工作人员受贿",
        "被告人在担任某村党支部书记期间，利用职务之便，先后收受承包村集体鱼塘的韩某现金5万元。",
        "非国家工作人员受贿",
    ),
    (
        "非国家工作人员受贿",
        "受贿",
        "被告人在担任某社区支部书记期间，在征地补偿过程中，利用职务之便收受村民甘某贿赂6万元。",
        "非国家工作人员受贿",
    ),
    # A state-controlled company's manager is no state functionary; 西安市长安区 names no 市长.
    (
        "受贿",
        "非国家工作人员受贿",
        "西安市长安区检察院指控，被告人系某国有控股公司项目经理，利用职务便利收受供应商好处费8万元。",
        "非国家工作人员受贿",
    ),
    # The recipient's duty and taking, told in the giver's judgment, are not the defendant's.
    (
        "受贿",
        "单位行贿",
        "被告单位某医药公司为提高药品销量，由被告人俞某出面，多次送给某卫生院负责药品采购等工作的院长余某"
        "现金共计25万元，余某非法予以收受。另有事业单位法人证书等证据证实。",
        "单位行贿",
    ),
    # A bribe given to the defendant is taken by him, however the fact words the giving.
    (
        "行贿",
        "非国家工作人员受贿",
        "被告人系某快递公司运营中心总监，利用职务便利，每月收受王某给予其1000元人民币。",
        "非国家工作人员受贿",
    ),
    # The defendant named where the bribe is handed over took it; 贿送的 money is taken too.
    (
        "行贿",
        "受贿",
        "被告人耿某某身为国家工作人员，利用职务便利为徐某谋取利益。徐某在办公室送给耿某某4万元现金。",
        "受贿",
    ),
    # A public hospital's doctor paid for the consumables he uses is 163's (the 2008 commercial-bribery opinion, art.
    # 4).
    (
        "受贿",
        "非国家工作人员受贿",
        "被告人系某县人民医院（事业单位）骨科医生，利用使用骨科耗材的职务便利，多次收受耗材商给予的回扣共计10万元。",
        "非国家工作人员受贿",
    ),
    # A company's 处长 or engineer, a tender's evaluation expert: 163's staff.
    (
        "受贿",
        "非国家工作人员受贿",
        "被告人利用担任某水泥有限公司供应处处长的职务之便，非法收受供货商钟某送的贿赂款11万元。",
        "非国家工作人员受贿",
    ),
    (
        "受贿",
        "非国家工作人员受贿",
        "被告人利用某电子股份有限公司采购工程师的职务便利，以帮助取得订单为由，索要供应商好处费3万元。",
        "非国家工作人员受贿",
    ),
    (
        "受贿",
        "非国家工作人员受贿",
        "被告人被抽为某采购项目的评标专家，利用评标的职务便利收受投标人现金1万元。",
        "非国家工作人员受贿",
    ),
    # A post in a state organ named as the defendant's; a duty told instead of the post's use.
    (
        "非国家工作人员受贿",
        "受贿",
        "被告人在担任某县国土资源局收储中心主任期间，利用职务便利，收受他人财物2.8万元。",
        "受贿",
    ),
    (
        "行贿",
        "受贿",
        "被告人担任某区中心医院财务科科长，全面负责该院的财务工作，收受某投资公司给予的贿赂20万元。",
        "受贿",
    ),
    # A company bribing another company's staff is punished under 164 (its third paragraph), not 393.
    (
        "单位行贿",
        "对非国家工作人员行贿",
        "被告单位某药业公司为推销药品，经总经理决定，送给某民营医院采购负责人回扣款共计12万元。",
        "对非国家工作人员行贿",
    ),
    (
        "虚开增值税专用发票、用于骗取出口退税、抵扣税款发票",
        "虚开发票",
        "被告人以支付开票费的方式，让他人为自己虚开增值税普通发票10份，票面金额共计120万元。",
        "虚开发票",
    ),
    (
        "虚开发票",
        "虚开增值税专用发票、用于骗取出口退税、抵扣税款发票",
        "被告人在无真实交易的情况下，为他人虚开增值税专用发票20份，税额共计50万元，已全部抵扣。",
        "虚开增值税专用发票、用于骗取出口退税、抵扣税款发票",
    ),
    ("滥伐林木", "盗伐林木", "被告人擅自砍伐同村村民所有的杉木林，立木蓄积12立方米。", "盗伐林木"),
    ("盗伐林木", "滥伐林木", "被告人未办理林木采伐许可证，砍伐其承包山场上的松树，蓄积量20立方米。", "滥伐林木"),
    (
        "生产、销售有毒、有害食品",
        "生产、销售不符合安全标准的食品",
        "被告人收购病死猪肉加工后销售，经检验不符合食品安全标准。",
        "生产、销售不符合安全标准的食品",
    ),
    # The standard exceeded and the dead animal, as facts tell them without 不符合 or 病死.
    (
        "生产、销售有毒、有害食品",
        "生产、销售不符合安全标准的食品",
        "被告人在炸制油条时超量添加明矾，经检验铝含量超出国家标准二倍以上。",
        "生产、销售不符合安全标准的食品",
    ),
    (
        "生产、销售有毒、有害食品",
        "生产、销售不符合安全标准的食品",
        "被告人私设屠宰场，将收购的死猪屠宰后销售。",
        "生产、销售不符合安全标准的食品",
    ),
    (
        "生产、销售不符合安全标准的食品",
        "生产、销售有毒、有害食品",
        "被告人在生产的保健品中添加西地那非后销售。",
        "生产、销售有毒、有害食品",
    ),
    # A non-food substance the 2013 interpretation names (art. 20) is 144's 非食品原料 without those words.
    (
        "生产、销售不符合安全标准的食品",
        "生产、销售有毒、有害食品",
        "被告人用硫磺熏制生姜后在市场销售。",
        "生产、销售有毒、有害食品",
    ),
    # A local government's office is a state organ; a company's office is not.
    ("职务侵占", "贪污", "被告人在担任某县农业综合开发办公室主任期间，利用职务便利，将项目资金8万元据为己有。", "贪污"),
    ("贪污", "职务侵占", "被告人利用担任某物流公司办公室主任的职务便利，将公司货款5万元据为己有。", "职务侵占"),
    # A duty's convenience however named.
    ("职务侵占", "贪污", "被告人系国家工作人员，因工作之便将其保管的公款3万元据为己有。", "贪污"),
    # A place and tables provided for others to gamble on is a casino, even with a cut taken.
    ("赌博", "开设赌场", "被告人在其经营的饭馆二楼设置3台麻将桌供他人赌博，从中抽水牟利600元。", "开设赌场"),
    # Doctors paid per prescription are 163's staff (the 2008 opinion, art. 4): their briber commits 164.
    (
        "行贿",
        "对非国家工作人员行贿",
        "被告人为提高其代理药品的销量，与某医院医生约定，医生在处方中每使用一盒该药，给予提成5元，共计支付8万元。",
        "对非国家工作人员行贿",
    ),
    # Who is 163's staff and how a taking is told, as CAIL's 非国家工作人员受贿 judgments tell them: a tender's
    # evaluation expert, a bribe 索得, a kickback 收取 from a supplier named at length, a company's team leader, a
    # village's 社长, a power company's station head, a hospital's doctor, a post named after 工作期间; land that
    # becomes state-owned makes no village post an official.
    *[
        ("受贿", "非国家工作人员受贿", fact, "非国家工作人员受贿")
        for fact in (
            "被告人被抽中为某县食品采购项目评标专家，收受供货商销售人员现金1万元，答应在评标过程中给予关照。",
            "被告人利用担任某村村委会主任、负责企业租地谈判的职务之便，向某机械公司索得好处费3.8万元。",
            "被告人系某铝业有限公司喷涂车间主任，利用职务上的便利，收取供货商某金属表面处理剂有限公司老板给付的回扣款4万元。",
            "被告人利用其担任某生态农业开发有限公司消防队队长的职务之便，以给队员转正为由，收受下属好处费11万元。",
            "被告人利用担任某乡某村社长的职务便利，为投标人承包林地提供帮助，收受其给予的好处费1万元。",
            "被告人在担任某供电公司农电管理中心供电所所长期间，利用职务便利，收受施工方回扣2万元。",
            "被告人利用其担任某县医院骨科医生的职务便利，多次收受耗材商给予的回扣共计16万元。",
            "被告人在某公司北京分公司工作期间，利用其担任客服经理的职务便利，非法收受他人财物2万元。",
            "被告人利用担任某村党支部书记的职务便利，以平息村民就公司租地流转为国有事项的上访为由，向该公司员工索贿20万元。",
        )
    ],
    # Compensation for expropriation obtained by deceit is 诈骗, though an agreement was signed for it.
    ("合同诈骗", "诈骗", "被告人伪造建房批复，与区征收办签订房屋征收补偿安置协议书，骗取补偿款21万元。", "诈骗"),
]


@pytest.mark.parametrize(("proposed", "neighbour", "fact", "decided"), CASES)
def test_each_family_check_separates_its_pair(proposed: str, neighbour: str, fact: str, decided: str) -> None:
    charges, checks = check_families([proposed], [proposed, neighbour], fact)
    assert charges == [decided]
    assert [(c.charge, c.decided, c.by) for c in checks] == [(proposed, decided, "fact")]
    # The judgment shows where the fact states the element: words of the fact itself.
    assert all(checks[0].quote.split("…")) and all(part in fact for part in checks[0].quote.split("…"))


def test_an_injury_of_unstated_degree_does_not_state_intentional_injury() -> None:
    # 受伤 says nothing of 轻伤, which 234 needs: the proposal stands for the question to decide.
    fact = "被告人在酒吧内殴打被害人，致其受伤住院。"
    charges, checks = check_families(["寻衅滋事"], ["寻衅滋事", "故意伤害"], fact)
    assert charges == ["寻衅滋事"] and [(c.decided, c.by) for c in checks] == [("寻衅滋事", "default")]


def test_a_charge_without_a_neighbour_among_the_candidates_is_not_checked() -> None:
    fact = "被告人系某超市收银员，利用其负责收银的职务便利，将货款8000元据为己有。"
    assert check_families(["盗窃"], ["盗窃", "诈骗"], fact) == (["盗窃"], [])


def test_a_specific_form_of_an_act_offence_is_checked_against_the_act_itself_even_unproposed() -> None:
    # No retriever proposed 诈骗: 合同诈骗 is still checked against it, and a fact with no contract is 诈骗.
    fact = "被告人谎称能帮被害人办理工作调动，先后骗取被害人现金5万元。"
    charges, checks = check_families(["合同诈骗"], ["合同诈骗", "重婚"], fact)
    assert charges == ["诈骗"]
    assert [(c.charge, c.decided, c.by) for c in checks] == [("合同诈骗", "诈骗", "fact")]
    # A contract told keeps it; a family whose last member is no act offence gains no unproposed rival.
    contract = "被告人以公司名义与被害人签订购销合同，收取货款20万元后逃匿。"
    assert check_families(["合同诈骗"], ["合同诈骗"], contract)[0] == ["合同诈骗"]
    assert check_families(["受贿"], ["受贿"], fact) == (["受贿"], [])


def test_who_gave_and_who_took_a_bribe_is_read_from_the_fact_even_unproposed() -> None:
    # The statute separates the bribery offences by who gave and who took (by_law): a 受贿 proposed for a
    # company that gave becomes 单位行贿 with no retriever proposing it.
    gave = "被告单位某建筑公司为承揽工程，为谋取不正当利益，经法定代表人决定，送给某镇镇长现金10万元。"
    assert check_families(["受贿"], ["受贿", "合同诈骗"], gave)[0] == ["单位行贿"]
    # "X给予的" in a clause of taking tells the taking, not a giving: the official's 受贿 stands.
    took = "被告人系某区医院财务科科长，全面负责财务工作，收受某投资公司江某给予的贿赂人民币20万元。"
    assert check_families(["受贿"], ["受贿", "行贿"], took)[0] == ["受贿"]


def test_a_bribe_handed_to_the_defendant_is_not_his_giving() -> None:
    bribery = next(f for f in FAMILIES if f.name == "贿赂")
    giving = bribery.member("行贿")
    assert giving is not None
    assert not giving.stated_in("徐某在村办公室送给耿某某4万元现金。被告人耿某某亦供认不讳。")
    assert not giving.stated_in("被告人利用职务上的便利，收受李某、陈某贿送的人民币共15万元。")
    # A longer name beginning with the defendant's is another person.
    assert giving.stated_in("被告人李某为承揽工程，送给李某某现金5万元。")


def test_the_question_decides_only_when_the_fact_is_silent() -> None:
    asked: list[Member] = []

    def no(member: Member) -> bool:
        asked.append(member)
        return False

    silent = "被告人将被害人价值5000元的财物占为己有。"  # says neither 窃取 nor 单位人员 nor 代为保管
    charges, checks = check_families(["职务侵占"], ["职务侵占", "盗窃", "侵占"], silent, no)
    assert [m.charge for m in asked] == ["职务侵占"] and charges == ["盗窃"]
    assert checks[0].by == "question"
    stated = "被告人趁夜撬开仓库门锁，窃取香烟二十条。"
    asked.clear()
    assert check_families(["盗窃"], ["盗窃", "职务侵占"], stated, no)[0] == ["盗窃"] and not asked


def test_a_refuted_charge_merges_into_a_neighbour_already_proposed() -> None:
    # 诈骗 and 合同诈骗 both proposed (two acts), the fact silent on any contract: the model says no, and
    # 合同诈骗 merges into 诈骗 instead of turning into a third fraud (集资诈骗, next among the candidates).
    silent = "被告人以帮忙办事为名，先后收取被害人钱款共计5万元，后均未办理。"
    charges, checks = check_families(["诈骗", "合同诈骗"], ["诈骗", "合同诈骗", "集资诈骗"], silent, lambda m: False)
    assert charges == ["诈骗"]
    decisions = [(c.charge, c.decided, c.by) for c in checks]
    assert decisions == [("诈骗", "诈骗", "default"), ("合同诈骗", "诈骗", "question")]


def test_a_refuted_charge_falls_to_a_less_specific_neighbour() -> None:
    # No contract, says the model: that leaves 诈骗 (the family's most general member, here no candidate),
    # not 信用卡诈骗, whose card the fact never mentions either.
    silent = "被告人声称能办理入学手续，收取被害人钱款3万元后逃匿。"
    candidates = ["合同诈骗", "拒不执行判决、裁定", "信用卡诈骗"]
    charges, checks = check_families(["合同诈骗"], candidates, silent, lambda m: False)
    assert charges == ["诈骗"] and [(c.charge, c.decided, c.by) for c in checks] == [("合同诈骗", "诈骗", "question")]


def test_a_refuted_charge_falls_to_the_next_element_the_fact_states_though_unproposed() -> None:
    # A village group leader is no official in the village's own funds: 贪污 refuted leaves his 职务侵占, which
    # the fact states, not the 侵占 a retriever ranked.
    fact = "被告人在担任某村小组组长期间，利用职务便利，采取重复报账的手段侵吞村小组集体资金4万元。"
    charges, checks = check_families(["贪污"], ["贪污", "侵占"], fact, lambda m: False)
    assert charges == ["职务侵占"] and [(c.decided, c.by) for c in checks] == [("职务侵占", "question")]


def test_two_members_of_one_family_both_stated_both_stand() -> None:
    # 盗窃 + 侵占 (a LawBench pair): two acts, each stating its own element.
    fact = "被告人窃取邻居电动车一辆；又将朋友委托其代为保管的手机变卖，拒不退还。"
    assert check_families(["盗窃", "侵占"], ["盗窃", "侵占"], fact)[0] == ["盗窃", "侵占"]


DRUNK_CRASH = (
    "被告人醉酒后驾驶小型轿车行驶至某路口，撞倒横过道路的行人王某，致王某重伤。经鉴定，被告人血液中乙醇含量为"
    "186mg/100ml。经认定，被告人负事故全部责任。"
)


def test_a_drunk_driver_who_causes_serious_injury_is_judged_under_the_heavier_offence() -> None:
    # 交通肇事 is no candidate (nothing retrieved it): the statute itself (133-1 ③) sends the act there.
    charges, checks = check_families(["危险驾驶"], ["危险驾驶", "故意伤害"], DRUNK_CRASH)
    assert charges == ["交通肇事"]
    [check] = checks
    assert (check.charge, check.decided, check.by) == ("危险驾驶", "交通肇事", "fact")
    assert "第一百三十三条之一第三款" in check.element
    assert check.quote.endswith("致王某重伤")


@pytest.mark.parametrize(
    "fact",
    [
        "被告人醉酒驾驶小型轿车，在某路口被执勤民警查获，经鉴定血液中乙醇含量为152mg/100ml，未造成人员伤亡。",
        "被告人醉酒驾驶机动车与路边护栏相撞，未造成人员重伤，血液中乙醇含量为120mg/100ml。",
    ],
)
def test_drunk_driving_without_a_serious_accident_stays_dangerous_driving(fact: str) -> None:
    assert check_families(["危险驾驶"], ["危险驾驶"], fact)[0] == ["危险驾驶"]
    # And a model that proposed 交通肇事 for it is corrected to what the fact states.
    assert check_families(["交通肇事"], ["交通肇事"], fact)[0] == ["危险驾驶"]


def test_an_abandonment_without_a_battlefield_is_the_general_offence() -> None:
    # 444 is 261's refusal told of wounded servicemen on a battlefield: a baby left in a ditch is 遗弃, proposed or not.
    baby = "被告人将自己刚满月的女儿遗弃于村东侧水塘旁边的一干沟内，后该女婴被他人抱走。"
    charges, [check] = check_families(["遗弃伤病军人"], ["遗弃伤病军人"], baby)
    assert charges == ["遗弃"] and (check.decided, check.by) == ("遗弃", "fact")
    wounded = "被告人在作战中擅自撤离阵地，将两名受伤的战友遗弃在战场上。"
    assert check_families(["遗弃伤病军人"], ["遗弃伤病军人"], wounded)[0] == ["遗弃伤病军人"]


def test_every_family_orders_distinct_charges() -> None:
    for family in FAMILIES:
        names = [m.charge for m in family.members]
        assert len(names) == len(set(names)) >= 2


def test_an_act_offence_is_proposed_only_for_a_fact_that_tells_its_act() -> None:
    arson = "被告人因琐事对邻居不满，深夜将汽油泼洒在邻居家柴房并点燃，烧毁柴房。"
    # Not told: the next candidate that is not such an offence stands in; beside another charge it just goes.
    assert told_acts(["盗窃"], ["盗窃", "诈骗", "放火"], arson) == ["放火"]
    assert told_acts(["盗窃", "放火"], ["盗窃", "放火"], arson) == ["放火"]
    # Told in other words than the family's: taking away is a theft, a pretext a deceit, a fracture an injury.
    assert told_acts(["盗窃"], ["盗窃"], "被告人趁被害人熟睡，将其手机拿走后卖掉。") == ["盗窃"]
    assert told_acts(["诈骗"], ["诈骗"], "被告人以帮忙办理低保为名，收取被害人2万元。") == ["诈骗"]
    assert told_acts(["故意伤害"], ["故意伤害"], "被告人用木棍击打被害人，致其左臂骨折。") == ["故意伤害"]
    # Other offences are not read this way; with no other candidate nothing stands (the judge answers 不构成犯罪).
    assert not untold_act("滥伐林木", arson) and untold_act("诈骗", arson)
    assert told_acts(["盗窃"], ["盗窃", "诈骗"], arson) == []
    # A stand-in needs its own evidence (``able``) or the told act of its family behind it.
    assert told_acts(["盗窃"], ["盗窃", "放火"], arson, able=[]) == []
    assert told_acts(["盗窃"], ["盗窃", "放火"], arson, able=["放火"]) == ["放火"]
    texting = "被告人群发短信谎称中奖，骗取被害人手续费3万元。"
    assert told_acts(["盗窃"], ["盗窃", "信用卡诈骗"], texting, able=[]) == ["信用卡诈骗"]


MEMBERS = [(f.name, m) for f in FAMILIES for m in f.members]


@pytest.mark.parametrize(("family", "member"), MEMBERS, ids=[f"{f}/{m.charge}" for f, m in MEMBERS])
def test_each_member_states_its_example_and_its_article_defines_it(family: str, member: Member) -> None:
    # The table's justification per member: the article the SPC's charge-name rules give the charge, and a fact
    # in which its patterns find the element stated.
    assert member.article in CHARGE_RULES.articles[member.charge], (family, member.charge)
    assert member.stated_in(member.example) and member.quote(member.example)


def test_an_act_offence_whose_specific_form_the_fact_states_stays_for_its_family_check() -> None:
    # A warehouse keeper takes his firm's phones by his post and covers it with forged slips: no word of theft,
    # so 盗窃's act is untold, but 职务侵占's element is stated. 盗窃 used to give way to the next candidate
    # (诈骗, told by 伪造) and the check on 侵占财物 never ran; it now stays for the check to replace it.
    keeper = (
        "被告人李某系某物流公司仓库保管员，利用其保管仓库钥匙、负责货物出入库登记的职务便利，先后十余次将仓库内"
        "存放的手机共计45部私自带出仓库，以伪造出库单的方式掩盖，并将手机变卖。"
    )
    ranked = ["盗窃", "诈骗", "职务侵占"]
    assert untold_act("盗窃", keeper)
    assert told_acts(["盗窃"], ranked, keeper) == ["盗窃"]
    assert check_families(told_acts(["盗窃"], ranked, keeper), ranked, keeper)[0] == ["职务侵占"]
    # The specific form must be one the check would weigh: not ranked (and no by-law family), the stand-in stays.
    assert told_acts(["盗窃"], ["盗窃", "诈骗"], keeper) == ["诈骗"]
