"""The State Council's administrative regulations as statutes: parsed from LawRefBook markdown, the version in
force only (issue 61 item 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA
from tools.corpus.regulations import load_regulations, parse_regulation
from tools.errors import CorpusError

INJURY = """# 工伤保险条例

2003年4月27日 中华人民共和国国务院令第375号公布

<!-- INFO END -->

## 第一章 总则

第一条 为了保障因工作遭受事故伤害的职工获得医疗救治和经济补偿，制定本条例。

## 第三章 工伤认定

### 第一节 认定

第十四条 职工有下列情形之一的，应当认定为工伤：

(一)在工作时间和工作场所内，因工作原因受到事故伤害的；

第十四条之一 本条为测试之用。

第十五条 修改决定引用的条文：

第十四条 这一条是引用的旧文，不是本条例自己的。
"""


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def test_articles_keep_their_chapter_section_and_paragraphs(tmp_path: Path) -> None:
    info, articles = parse_regulation(_write(tmp_path, "工伤保险条例(2010-12-20).md", INJURY))
    assert (info.short, info.full_name, info.department) == ("工伤保险条例", "工伤保险条例", "国务院")
    by_id = {a.id: a for a in articles}
    assert list(by_id) == ["工伤保险条例:1", "工伤保险条例:14", "工伤保险条例:14-1", "工伤保险条例:15"]
    injury = by_id["工伤保险条例:14"]
    assert injury.label == "第十四条" and injury.chapter == "第三章 工伤认定 第一节 认定"
    first = "(一)在工作时间和工作场所内，因工作原因受到事故伤害的；"
    assert injury.text == f"职工有下列情形之一的，应当认定为工伤：\n{first}"
    assert injury.heading == "《工伤保险条例》第十四条"
    assert by_id["工伤保险条例:1"].chapter == "第一章 总则"


def test_a_regulation_numbered_without_articles_is_one_text_and_an_empty_one_is_named(tmp_path: Path) -> None:
    numbered = "# 某某规定\n\n<!-- INFO END -->\n\n一、第一项规定。\n\n二、第二项规定。\n"
    _, articles = parse_regulation(_write(tmp_path, "某某规定(1985-09-18).md", numbered))
    assert [(a.id, a.text) for a in articles] == [("某某规定:全文", "一、第一项规定。\n二、第二项规定。")]
    with pytest.raises(CorpusError, match="no '# title' line"):
        parse_regulation(_write(tmp_path, "bad.md", "第一条 无题。\n"))


def test_only_the_latest_version_in_force_is_offered(tmp_path: Path) -> None:
    root = tmp_path / "regulations"
    folder = root / "lawrefbook"
    _write(folder, "工伤保险条例(2003-04-27).md", INJURY.replace("制定本条例", "旧文"))
    _write(folder, "工伤保险条例(2010-12-20).md", INJURY)
    _write(folder, "中医药条例(2003-04-07).md", "# 中医药条例\n\n<!-- INFO END -->\n\n第一条 已废止。\n")
    _write(folder, "户口登记条例(1958-01-09).md", "# 户口登记条例\n\n<!-- INFO END -->\n\n第一条 法律库已有。\n")
    index = [
        {"file": "工伤保险条例(2003-04-27).md", "expired": False},
        {"file": "工伤保险条例(2010-12-20).md", "expired": False},
        {"file": "中医药条例(2003-04-07).md", "expired": True},
        {"file": "户口登记条例(1958-01-09).md", "expired": False},
    ]
    (root / "index.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    found = load_regulations(root, taken={"户口登记条例"})
    assert [info.short for info, _ in found.laws] == ["工伤保险条例"]
    assert found.laws[0][1][0].text.endswith("制定本条例。")  # the 2010 version
    assert found.expired == ["中医药条例"] and found.older == 1
    with pytest.raises(CorpusError, match="regulations directory not found"):
        load_regulations(tmp_path / "nowhere")


def test_the_shared_regulations_load_as_the_data_readme_counts_them() -> None:
    # Of 683 files: 32 titles expired, 27 older versions, and one title laws.db already holds.
    found = load_regulations(SHARED_DATA / "zh/regulations", taken={"红十字标志使用办法"})
    articles = {a.id: a for _, law in found.laws for a in law}
    assert len(found.laws) == 616 and len(articles) == 23132
    assert articles["工伤保险条例:14"].text.startswith("职工有下列情形之一的，应当认定为工伤")
    assert articles["劳动合同法实施条例:6"].heading == "《中华人民共和国劳动合同法实施条例》第六条"


def test_the_markdown_folder_named_itself_still_reads_the_index_beside_it(tmp_path: Path) -> None:
    folder = tmp_path / "regulations" / "lawrefbook"
    _write(folder, "中医药条例(2003-04-07).md", "# 中医药条例\n\n<!-- INFO END -->\n\n第一条 已废止。\n")
    index = [{"file": "中医药条例(2003-04-07).md", "expired": True}]
    (tmp_path / "regulations" / "index.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    found = load_regulations(folder)
    assert found.laws == [] and found.expired == ["中医药条例"]
