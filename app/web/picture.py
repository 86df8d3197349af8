"""The evidence of an answer as a picture: who pointed to what, laid out in columns the page draws.

A consultation reads left to right as question → its elements → the answered consultations → the candidate
articles they cite (kept, pruned, unverified) → the answer; a judgment as fact → acts → precedents →
candidate charges → their articles → the judgment. The layout is
computed here (a layered graph needs no force simulation, and the same answer always draws the same
picture); the page draws it as SVG with the text set as text, never as markup, so nothing shown can run.
"""

from __future__ import annotations

from typing import Any, TypedDict

COLUMN_GAP = 230
"""Horizontal distance between the picture's columns, in SVG units."""
ROW_GAP = 64
"""Vertical distance between two nodes of one column."""
MARGIN = 40
"""Space around the picture."""
MAX_PER_COLUMN = 8
"""Nodes one column shows: the first (best-ranked) ones; the page lists the rest in the answer."""


class Node(TypedDict):
    """One thing the answer rests on, where the page draws it, and the text a click shows."""

    id: str
    kind: str
    """question, element, article, consultation, answer; fact, act, charge, precedent, judgment."""
    label: str
    text: str
    state: str
    """kept, pruned or unverified for an article or a charge (considered: a judgment's article the audit verified
    but no convicted charge applies); empty for the rest."""
    x: int
    y: int


class Edge(TypedDict):
    """Who points to what, and how (retrieved by, cites, rests on)."""

    source: str
    target: str
    label: str


class Picture(TypedDict):
    """A laid-out picture: its nodes and edges and the size of its canvas."""

    nodes: list[Node]
    edges: list[Edge]
    width: int
    height: int


def short(text: str, chars: int = 14) -> str:
    """A node's label: the text's first characters on one line."""
    line = " ".join(text.split())
    return line if len(line) <= chars else line[: chars - 1] + "…"


def laid_out(columns: list[list[dict[str, str]]], edges: list[Edge]) -> Picture:
    """Place each column's nodes top to bottom, the columns left to right; edges to nodes not drawn go."""
    nodes: list[Node] = []
    columns = [column[:MAX_PER_COLUMN] for column in columns if column]
    tallest = max((len(column) for column in columns), default=1)
    height = 2 * MARGIN + (tallest - 1) * ROW_GAP
    for i, column in enumerate(columns):
        top = MARGIN + (tallest - len(column)) * ROW_GAP // 2
        for j, node in enumerate(column):
            nodes.append(
                Node(
                    id=node["id"],
                    kind=node["kind"],
                    label=node["label"],
                    text=node["text"],
                    state=node.get("state", ""),
                    x=MARGIN + i * COLUMN_GAP,
                    y=top + j * ROW_GAP,
                )
            )
    drawn = {node["id"] for node in nodes}
    kept = [e for e in edges if e["source"] in drawn and e["target"] in drawn]
    width = 2 * MARGIN + max(len(columns) - 1, 0) * COLUMN_GAP
    return Picture(nodes=nodes, edges=kept, width=width, height=height)


def _article_state(article_id: str, kept: set[str], pruned: set[str]) -> str:
    return "kept" if article_id in kept else "pruned" if article_id in pruned else "unverified"


def consult_picture(question: str, out: dict[str, Any]) -> Picture:
    """A consultation's evidence: question, elements, candidate articles, answered consultations, answer."""
    elements = out.get("element_graph") or {}
    stated = [("key_facts", t) for t in elements.get("key_facts", [])] + [
        ("legal_questions", t) for t in elements.get("legal_questions", [])
    ]
    element_nodes = [
        {"id": f"element:{i}", "kind": "element", "label": short(text), "text": text}
        for i, (_, text) in enumerate(stated)
        if isinstance(text, str)
    ]
    basis = {item["article_id"]: item for item in out.get("legal_basis") or []}
    pruned = {v["article_id"] for v in out.get("verdicts") or [] if not v["applicable"]}
    evidence = list(out.get("evidence") or [])
    ranked = list(basis) + [e["article_id"] for e in evidence if e["article_id"] not in basis]
    texts = {e["article_id"]: f"{e['heading']}\n{e['text']}" for e in evidence}
    texts.update({a: f"《{b['law']}》{b['number']}\n{b['text']}" for a, b in basis.items()})
    article_nodes = [
        {
            "id": f"article:{a}",
            "kind": "article",
            "label": a,
            "text": texts.get(a, a),
            "state": _article_state(a, set(basis), pruned),
        }
        for a in ranked
    ]
    sources = {e["article_id"]: "·".join(e["sources"]) for e in evidence}
    examples = out.get("examples") or []
    example_nodes = [
        {
            "id": f"consultation:{x['id']}",
            "kind": "consultation",
            "label": short(x["question"]),
            "text": f"{x['question']}\n\n{x['answer']}\n\n引用 cites: {'、'.join(x['articles'])}",
        }
        for x in examples
    ]
    edges = [Edge(source="question", target=n["id"], label="要素 element") for n in element_nodes]
    edges += [Edge(source="question", target=f"article:{a}", label=sources.get(a, "")) for a in ranked]
    edges += [
        Edge(source=f"consultation:{x['id']}", target=f"article:{a}", label="引用 cites")
        for x in examples
        for a in x["articles"]
    ]
    edges += [Edge(source=f"article:{a}", target="answer", label="依据 basis") for a in basis]
    answer = {"id": "answer", "kind": "answer", "label": "回答 Answer", "text": str(out.get("response") or "")}
    question_node = {"id": "question", "kind": "question", "label": short(question), "text": question}
    return laid_out([[question_node], element_nodes, example_nodes, article_nodes, [answer]], edges)


def judge_picture(fact: str, out: dict[str, Any]) -> Picture:
    """A judgment's evidence: fact, acts, candidate charges, their articles, the precedents, the judgment."""
    acts = out.get("acts") or []
    act_nodes = [{"id": f"act:{i}", "kind": "act", "label": short(a), "text": a} for i, a in enumerate(acts)]
    convicted = set(out.get("charges") or [])
    scored = out.get("scored_charges") or []
    charge_nodes = [
        {
            "id": f"charge:{c['name']}",
            "kind": "charge",
            "label": f"{c['name']} {c['probability']:.2f}",
            "text": "\n".join(f"{k}: {v:.2f}" for k, v in c["signals"].items()),
            "state": "kept" if c["name"] in convicted else "pruned",
        }
        for c in scored[:MAX_PER_COLUMN]
    ]
    drawn_charges = {c["name"] for c in scored[:MAX_PER_COLUMN]}
    texts = {e["id"]: e["text"] for e in out.get("evidence") or []}
    cited = set(out.get("articles") or [])
    pruned = {v["article_id"] for v in out.get("verdicts") or [] if not v["applicable"]}
    audited = {v["article_id"] for v in out.get("verdicts") or [] if v["applicable"]}
    articles: list[str] = list(out.get("articles") or [])
    for c in scored[:MAX_PER_COLUMN]:
        articles += [a for a in c["articles"] if a not in articles]
    linked = set(articles)
    # The articles the search found that no candidate charge defines: retrieved for the fact itself.
    retrieved = [e["id"] for e in out.get("evidence") or [] if e["kind"] != "case" and e["id"] not in linked]
    articles += retrieved
    article_nodes = [
        {
            "id": f"article:{a}",
            "kind": "article",
            "label": a,
            "text": texts.get(a, a),
            # Verified by the audit but applied by no charge of the judgment: considered, not used.
            "state": "considered" if a in audited - cited else _article_state(a, cited, pruned),
        }
        for a in articles
    ]
    precedents = [e for e in out.get("evidence") or [] if e["kind"] == "case"]
    precedent_nodes = [
        {"id": f"precedent:{e['id']}", "kind": "precedent", "label": short(e["id"]), "text": e["text"]}
        for e in precedents
    ]
    sources = [n["id"] for n in act_nodes] or ["fact"]
    edges = [Edge(source="fact", target=n["id"], label="行为 act") for n in act_nodes]
    edges += [Edge(source="fact", target=f"article:{a}", label="检索 retrieved") for a in retrieved]
    for c in scored[:MAX_PER_COLUMN]:
        act = c["act"]
        origin = f"act:{act}" if act is not None and act < len(acts) else sources[0]
        edges.append(Edge(source=origin, target=f"charge:{c['name']}", label="罪名 charge"))
        edges += [
            Edge(source=f"charge:{c['name']}", target=f"article:{a}", label="法条 article") for a in c["articles"]
        ]
    for e in precedents:
        named = [name for name in drawn_charges if name in e["text"]]
        edges += [Edge(source=f"precedent:{e['id']}", target=f"charge:{n}", label="判例 precedent") for n in named]
    edges += [Edge(source=f"article:{a}", target="judgment", label="适用 applied") for a in cited]
    verdict = "、".join(out.get("charges") or []) or "（未判决 undecided）"
    judgment = {"id": "judgment", "kind": "judgment", "label": short(verdict), "text": str(out.get("reasoning") or "")}
    fact_node = {"id": "fact", "kind": "fact", "label": short(fact), "text": fact}
    return laid_out([[fact_node], act_nodes, precedent_nodes, charge_nodes, article_nodes, [judgment]], edges)
