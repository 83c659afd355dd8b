"""The only modules that import torch or mindspore. Each returns plain numpy trees."""


def auto_backend() -> str:
    """The backend `--backend auto` means here; MindSpore is imported only when asked (options take this as a
    callable, so that options never import a runner)."""
    from migcheck.runners.mindspore_context import auto_backend as probe

    return probe()
