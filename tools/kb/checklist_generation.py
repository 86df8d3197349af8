"""Checklists made on demand: an article's stored list when it is still good, else one the model makes (or,
when it cannot, one read from the article's text), stored for every later audit. An article outside criminal
law that states its conditions gets them, read by code, without asking the model at all.

Generated on first demand (the auditor) or in bulk (``jurisgraph checklists``), and made again when asked,
when the prompt changed since, or when the stored items fail today's checks. The prompt version is a hash of
the prompt file, so an edited prompt is recorded as a different version without anyone remembering to bump a
number."""

from __future__ import annotations

import hashlib

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from prompts import load_prompt, render_prompt
from tools.errors import StructuredOutputError
from tools.kb.checklists import Checklist, ChecklistRepository
from tools.law.articles import Article
from tools.law.checklist_rules import (
    PROMPT,
    ChecklistSchema,
    checkable,
    read_conditions,
    rules_version,
    statute_elements,
)
from tools.llm.chat import Usage, empty_usage, failed_usage, invoke_structured
from tools.llm.fake import FAKE_SPEC

DERIVED_MODEL = "statute-text"
"""What a checklist read from the article's own first sentence records as its maker (see
:func:`tools.law.checklist_rules.statute_elements`)."""


def prompt_version(language: str = "zh") -> str:
    """Hash of the checklist prompt template: changes whenever the prompt does."""
    return hashlib.sha256(load_prompt(PROMPT, language).template.encode("utf-8")).hexdigest()[:8]


def failure_key(model_name: str, language: str, retries: int) -> str:
    """What a recorded failure to make a checklist holds for: the model, the prompt, this module's checks
    (the rules' source, so an edited check tries again without anyone bumping a number) and the retries allowed.
    Decoding is greedy, so the same key fails the same way; recording it saves every later audit of the
    article the same futile calls. Only an article with no offence to read from its text (see
    :func:`statute_elements`) still records one."""
    return f"{model_name}|{prompt_version(language)}|{rules_version()}|{retries}"


def ensure_checklist(
    article: Article,
    checklists: ChecklistRepository,
    model: BaseChatModel,
    model_name: str,
    language: str = "zh",
    regenerate: bool = False,
    retries: int = 2,
) -> tuple[Checklist, Usage]:
    """The stored checklist of an article, generating (and storing) it when absent, when asked to, when it
    was made by another version of the prompt or by the fake model for a real one, or when it fails today's
    checks (so a KB built before a prompt edit or a new check heals on first use).

    When the model cannot make one, the checklist is read from the article's text (:func:`statute_elements`,
    recorded as made by ``statute-text``) and stored like a model's; an article that defines no offence has
    none to read, so its failure is recorded on the article and raised again, without calls, while its
    :func:`failure_key` holds. ``regenerate`` tries the model anyway.

    An article outside criminal law whose conditions code can read (:func:`read_conditions`) is checked on
    them, whatever the model made of it before: the local model wrote what such an article provides
    (是否需要赔偿损失？) or asked questions (…应当承担什么责任？) instead of its conditions, and its first list
    of an article cost a consultation up to a minute."""
    if conditions := read_conditions(article.text):
        held = checklists.get(article.id)
        if held is not None and held.model == DERIVED_MODEL and list(held.items) == conditions:
            return held, empty_usage()
        checklist = Checklist(article.id, tuple(conditions), DERIVED_MODEL, prompt_version(language))
        checklists.save(checklist)
        return checklist, empty_usage()
    stored = None if regenerate else checklists.get(article.id)
    # The fake model's lists only serve fake runs: a real model never audits with a placeholder list a test
    # run or a `--model fake` try left in the knowledge base.
    placeholder = stored is not None and stored.model == FAKE_SPEC and model_name != FAKE_SPEC
    usable = stored and not placeholder and stored.prompt_version == prompt_version(language)
    if stored and usable and checkable(stored.items, article.text):
        return stored, empty_usage()
    key = failure_key(model_name, language, retries)
    recorded = None if regenerate else checklists.failure(article.id, key)
    if recorded is not None:
        raise StructuredOutputError(f"{recorded} (recorded earlier for this model and prompt; regenerate to retry)")
    prompt = render_prompt(PROMPT, language, article_id=article.id, heading=article.heading, text=article.text)
    try:
        parsed, usage = invoke_structured(
            model, [HumanMessage(content=prompt)], ChecklistSchema, retries, context={"article_text": article.text}
        )
    except StructuredOutputError as exc:
        if derived := statute_elements(article.text):
            checklist = Checklist(article.id, tuple(derived), DERIVED_MODEL, prompt_version(language))
            checklists.save(checklist)
            return checklist, failed_usage(exc)
        checklists.record_failure(article.id, key, str(exc))
        raise
    items = tuple(dict.fromkeys(item.strip() for item in parsed.items if item.strip()))
    checklist = Checklist(article.id, items, model_name, prompt_version(language))
    checklists.save(checklist)
    return checklist, usage
