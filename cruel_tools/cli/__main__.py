"""``python -m cruel_tools.cli``: the same as the console script ``cruel``."""

from .console import main

__all__: list[str] = []

if __name__ == "__main__":  # pragma: no cover
    main()
