"""The chat model a node calls: its role's model for this run (Context), with the process's settings."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from agents.context import Context, Role
from tools.llm.chat import load_chat_model
from tools.services import get_services


def chat_model(ctx: Context, role: Role) -> BaseChatModel:
    """The model of agent ``role``. Settings (model file, threads, context size) come from the services
    nodes share, the one way nodes reach settings, so an embedding application's ``set_services`` decides."""
    return load_chat_model(ctx.model_for(role), get_services().settings)
