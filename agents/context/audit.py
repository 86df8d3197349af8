"""Settings of the audit subgraph, shared by the graphs that embed it (consult and judge)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agents.context.base import Context, setting


@dataclass(kw_only=True)
class AuditContext(Context):
    """How candidate articles are verified against their checklists."""

    audit: bool = setting(
        True,
        "Check articles against their checklists: a judgment's candidates are pruned when inapplicable; a "
        "consultation's kept basis is explained, and excluded only where the question's words contradict it.",
    )
    audit_k: int = setting(
        5,
        "Most retrieved articles the auditor verifies per answer (a consultation keeps at most this many; a fast "
        "judgment audits only its proposed charges' articles).",
        low=1,
    )
    audit_mixed: Literal["keep", "model"] = setting(
        "keep",
        "Judgments: an article whose checklist items disagree is kept, flagged for review ('keep'; only a checklist "
        "failing every item prunes), or decided by the model's checklist-final call ('model', LegalGraphRAG).",
    )
    audit_reasons: Literal["always", "questions", "never"] = setting(
        "questions",
        "Whether the auditor's model writes a one-sentence reason before each checklist answer: 'always', "
        "'never', or for consultation 'questions' only.",
    )
    stated_item_share: float = setting(
        0.5,
        "Questions: a checklist item holds only when this share of its wording's character pairs occurs in the "
        "user's words, whatever the model answers (an item left unstated is the fact the answer asks for).",
        high=1,
    )
    human_review: bool = setting(
        False,
        "Interrupt for a person to accept or override borderline verdicts (mixed checklist items); needs a "
        "checkpointer.",
    )
