"""Console-script entry points that run the bundled native tools."""
import os
import sys

from . import mbarrier_opt_path


def mbarrier_opt() -> None:
    exe = mbarrier_opt_path()
    os.execv(exe, [exe, *sys.argv[1:]])
