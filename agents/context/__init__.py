"""Per-run settings, one Context per graph on a shared base, read by nodes through ``Runtime[...]`` (and shown
as Studio's form). Where a new setting goes: docs/architecture.md."""

from agents.context.audit import AuditContext
from agents.context.base import ROLES, Context, Role
from agents.context.consult import ConsultContext
from agents.context.global_search import GlobalSearchContext
from agents.context.judge import JudgeContext

__all__ = ["ROLES", "AuditContext", "ConsultContext", "Context", "GlobalSearchContext", "JudgeContext", "Role"]
