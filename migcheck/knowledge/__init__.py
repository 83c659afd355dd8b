"""What is known about torch and MindSpore: one correspondence table (table.py) and its lookups (lookup.py).

Pure data and plain functions with no stage and no framework, so mapping, localization and running read
the same rows. The table orders candidates and names them in words; measurement decides causes.
"""
