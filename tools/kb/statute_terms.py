"""Lexical entity extraction for statutes: the entity graph of Law GraphRAG built without model calls.

Statutes name their actors, objects and procedures with a small set of head words (…处理者, …部门, …信息,
…评估) and define their terms in fixed forms (本法所称X，是指…). Terms are found by those head words and
kept when they recur (a prefix that occurs in one article only is usually a phrase, not a term); relations
are co-occurrence in one sentence, weighted by how many sentences join the two. The model then writes only
the community reports. Measured on the four data laws: a 1.5B model's extraction took 260 s per chunk and
repeated one entity ten times; this extractor takes under a second for all 275 articles.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from tools.kb.entity_graph import Entity, MergedGraph, Relation, entity_key
from tools.law.articles import Article

# Head word -> entity type (ENTITY_TYPES). Longer heads first, so 主管部门 wins over 部门.
HEAD_TYPES: dict[str, str] = {
    "处理者": "主体",
    "运营者": "主体",
    "提供者": "主体",
    "经营者": "主体",
    "接收方": "主体",
    "主管部门": "机关",
    "部门": "机关",
    "机关": "机关",
    "机构": "机关",
    "委员会": "机关",
    "人民政府": "机关",
    "信息": "客体",
    "数据": "客体",
    "秘密": "客体",
    "设施": "客体",
    "产品": "客体",
    "系统": "客体",
    "载体": "客体",
    "评估": "程序",
    "认证": "程序",
    "审查": "程序",
    "备案": "程序",
    "标准合同": "程序",
    "制度": "概念",
    "境外": "概念",
}
_HEADS = sorted(HEAD_TYPES, key=len, reverse=True)
_HEAD_RE = re.compile("|".join(map(re.escape, _HEADS)))
# A term's words before its head are nominal (jieba tags); a verb ends the term (处理个人信息 is an act on
# 个人信息), except the verbs legal Chinese uses as nouns inside names (数据分类分级保护制度).
_NOMINAL_TAGS = ("n", "j", "b", "vn", "a", "s")
_NOMINAL_VERBS = {"保护", "管理", "审查", "评估", "认证", "监督", "涉密", "安全"}
# Words jieba tags as nouns that open an act or a clause rather than a name (规范数据处理活动, 会同有关部门).
_NOT_FIRST = {"规范", "建立健全", "委托", "经", "会同", "存储", "获取", "大量", "有效", "违法", "托运", "相关"}
_DEFINED_RE = re.compile(
    r"(?:本法|本条例|本办法|本规定)所称(?P<term>[^，。；：、]{2,16}?)，是指(?P<definition>[^。；]+)"
)
_LISTED_RE = re.compile(r"（[一二三四五六七八九十]+）(?P<term>[^，。；：、（）]{2,16})，是指(?P<definition>[^；。]+)")
_SENTENCE_RE = re.compile(r"[^。；！？\n]+")


@dataclass(frozen=True)
class LexicalConfig:
    """Knobs of the lexical extractor."""

    max_prefix_words: int = 4
    """Most words put before a head word."""
    min_articles: int = 2
    """A term must occur in this many articles (defined terms always count)."""
    description_chars: int = 60
    """Length of an entity's or relation's description (the sentence it was seen in, cut)."""
    relation_descriptions: int = 2
    """Sentences kept per relation as its description."""


def _words(text: str) -> list[tuple[int, str, str]]:
    """(start offset, word, jieba POS tag) of every word of ``text``."""
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)
    out: list[tuple[int, str, str]] = []
    offset = 0
    for word, tag in jieba.posseg.lcut(text):
        out.append((offset, word, tag))
        offset += len(word)
    return out


def _nominal(word: str, tag: str) -> bool:
    return tag.startswith(_NOMINAL_TAGS) or word in _NOMINAL_VERBS


def _opens_badly(term: str) -> bool:
    return any(term.startswith(w) for w in _NOT_FIRST | _NOMINAL_VERBS) and term not in HEAD_TYPES


def _occurrences(text: str, config: LexicalConfig) -> list[list[str]]:
    """For every head word in ``text``, the terms it could end, longest first: the head with 1 to
    ``max_prefix_words`` nominal words before it (the part of a word the head starts inside counts)."""
    words = _words(text)
    starts = [offset for offset, _, _ in words]
    out: list[list[str]] = []
    for match in _HEAD_RE.finditer(text):
        i = bisect.bisect_right(starts, match.start()) - 1  # the word the head starts in
        begins = [starts[i]] if starts[i] < match.start() else []
        j = i - 1
        while j >= 0 and len(begins) < config.max_prefix_words and _nominal(words[j][1], words[j][2]):
            begins.append(starts[j])
            j -= 1
        terms = [text[b : match.end()] for b in reversed(begins)]
        terms = [t for t in terms if not _opens_badly(t)]
        if terms:
            out.append(terms)
    return out


def defined_terms(articles: Sequence[Article]) -> dict[str, tuple[str, str]]:
    """Terms a law defines (本法所称X，是指…, or a numbered list of 用语的含义): term -> (article id, definition)."""
    terms: dict[str, tuple[str, str]] = {}
    for article in articles:
        patterns = [_DEFINED_RE] + ([_LISTED_RE] if "含义" in article.text else [])
        for pattern in patterns:
            for match in pattern.finditer(article.text):
                terms.setdefault(match["term"].strip(), (article.id, match["definition"].strip()))
    return terms


def find_terms(
    articles: Sequence[Article], config: LexicalConfig, definitions: dict[str, tuple[str, str]] | None = None
) -> dict[str, str]:
    """Term -> entity type: defined terms, and for every head word occurrence the longest term it could end
    that occurs in at least ``min_articles`` articles."""
    per_article = [_occurrences(article.text, config) for article in articles]
    frequency: Counter[str] = Counter()
    for occurrences in per_article:
        frequency.update({term for options in occurrences for term in options})
    terms = {term: "概念" for term in (defined_terms(articles) if definitions is None else definitions)}
    for occurrences in per_article:
        for options in occurrences:
            term = next((t for t in options if frequency[t] >= config.min_articles), None)
            if term is not None:
                terms.setdefault(term, HEAD_TYPES[next(h for h in _HEADS if term.endswith(h))])
    return terms


def _mentions(sentence: str, ordered_terms: Sequence[str]) -> list[str]:
    """Terms in a sentence, longest first, each span claimed once (个人信息处理者 hides its 个人信息)."""
    found: list[str] = []
    masked = sentence
    for term in ordered_terms:
        if term in masked:
            found.append(term)
            masked = masked.replace(term, "\x00" * len(term))
    return found


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def lexical_graph(articles: Sequence[Article], config: LexicalConfig | None = None) -> MergedGraph:
    """The entity graph of ``articles``: terms as entities (with the articles that mention them), and
    sentence co-occurrence as relations."""
    config = config or LexicalConfig()
    definitions = defined_terms(articles)
    terms = find_terms(articles, config, definitions)
    ordered = sorted(terms, key=len, reverse=True)
    entities: dict[str, Entity] = {}
    relations: dict[tuple[str, str], Relation] = {}
    sentences_of: defaultdict[str, list[str]] = defaultdict(list)
    for article in articles:
        for sentence in _SENTENCE_RE.findall(article.text):
            sentence = sentence.strip()
            named = _mentions(sentence, ordered)
            for term in named:
                key = entity_key(term)
                entity = entities.setdefault(key, Entity(key=key, name=term))
                entity.types[terms[term]] += 1
                entity.article_ids.add(article.id)
                sentences_of[key].append(f"[{article.id}] {sentence}")
            keys = sorted({entity_key(t) for t in named})
            for i, source in enumerate(keys):
                for target in keys[i + 1 :]:
                    relation = relations.setdefault((source, target), Relation(source, target))
                    relation.weight += 1
                    if len(relation.descriptions) < config.relation_descriptions:
                        relation.descriptions.append(_cut(f"[{article.id}] {sentence}", config.description_chars))
    for key, entity in entities.items():
        defined = definitions.get(entity.name)
        text = f"[{defined[0]}] 是指{defined[1]}" if defined else sentences_of[key][0]
        entity.description = _cut(text, config.description_chars)
        entity.descriptions = [entity.description]
    return MergedGraph(entities, relations)
