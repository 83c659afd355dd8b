"""Frozen record types that several stages hold: kept below every stage so that holding one never imports
the stage that makes it (a Verdict holds a Localization; the runners make Calls that localization reads).
No logic here beyond the fields."""
