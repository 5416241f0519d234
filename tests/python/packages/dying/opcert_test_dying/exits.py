# A package that gives up at import and ends the process, as os._exit does, without unwinding.
import os
import sys

print("opcert_test_dying: os._exit(4) at import", file=sys.stderr, flush=True)
os._exit(4)
