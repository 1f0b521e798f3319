"""``python -m mbarrier_dialect``: ``mbarrier-compile``'s command line
(cli.py)."""
import sys

from .cli import main

sys.exit(main())
