# A package whose import never returns (a lock never released, a device that never answers).
import sys
import time

print("opcert_test_dying: hanging at import", file=sys.stderr, flush=True)
while True:
    time.sleep(1)
