"""The privileges of the application's role on a shared database: the knowledge base read and written, the
audit record only added to (and an answer's ending filled in while it is being written). A DBA runs
``hippo-tui db grants ROLE | psql …`` as the database's owner after ``hippo-tui db migrate``; the
append-only triggers hold for every role, the owner's too."""

from __future__ import annotations

import re

_ROLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
KB_TABLES = ("meta", "sources", "documents", "document_versions")
AUDIT_TABLES = ("answers", "resets", "citations")
# What finish_answer, record_citations and mark_interrupted write of an answer in flight.
ANSWER_ENDING = ("finished", "outcome", "raw_text", "final_text", "error", "timings", "grounding", "coverage")


def grants_sql(role: str) -> str:
    """The GRANT/REVOKE script for ``role`` (a plain SQL name: anything else is refused, never quoted in)."""
    if not _ROLE.fullmatch(role):
        raise ValueError(f"{role!r} is not a plain role name (letters, digits and _, not starting with a digit)")
    r = f'"{role}"'
    return "\n".join([
        f"-- hippo-tui: the application role {role}. Run as the database's owner, after `hippo-tui db migrate`.",
        "BEGIN;",
        f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {r};",
        f"REVOKE CREATE ON SCHEMA public FROM {r};",
        f"GRANT USAGE ON SCHEMA public TO {r};",
        f"GRANT SELECT ON hippo_schema TO {r};",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON {', '.join(KB_TABLES)} TO {r};",
        f"GRANT SELECT, INSERT ON {', '.join(AUDIT_TABLES)} TO {r};",
        f"GRANT UPDATE ({', '.join(ANSWER_ENDING)}) ON answers TO {r};",
        "-- Replacing an answer's citations (after check one, again after check two): the trigger allows it",
        "-- only while that answer is in flight.",
        f"GRANT DELETE ON citations TO {r};",
        f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {r};",
        "COMMIT;",
        "",
    ])  # fmt: skip
