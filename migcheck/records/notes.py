"""Notes a verdict carries that the reports single out (stage-free text markers)."""
from __future__ import annotations

# A case that changed process-wide state gets this note; the console lists such notes under "warnings".
STATE_WARNING = "warning: this item changed process-wide state; put back for the items after it:"


def is_warning(note: str) -> bool:
    return note.startswith(STATE_WARNING)
