# Registers the migcheck plugin when pytest runs from a source checkout (the installed package
# also registers it through its pytest11 entry point; pytest loads it once either way).
pytest_plugins = ["migcheck.pytest_plugin"]
