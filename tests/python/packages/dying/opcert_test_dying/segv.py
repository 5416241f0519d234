# A native library that dereferences a null pointer when imported.
import ctypes
import sys

print("opcert_test_dying: segfaulting at import", file=sys.stderr, flush=True)
ctypes.string_at(0)
