"""Python backends that end the process at import (tests/python/packages/dying): one segfaults
(ctypes.string_at(0)), one calls os._exit(4), one hangs. The runner's plugin probe must list each
unavailable with how the probe ended and the package's last stderr line, while `opcert list` and
`opcert run --backend cpu` go on (docs/RELIABILITY.md, "A plugin that dies while it loads").

Run by CTest with the interpreter the bridge embeds: OPCERT_BINARY, OPCERT_SOURCE_DIR."""

import json
import re
import tempfile
import unittest
from pathlib import Path

from bridge_venv import PACKAGES, make_venv, run_opcert

# Long enough for `import torch` on a loaded machine, short enough for a test: the hang costs it.
PROBE_TIMEOUT = "20"

EXPECTED = {
    "segv_at_import": ("not loaded: the plugin probe died with SIGSEGV while initialising it",
                       "opcert_test_dying: segfaulting at import"),
    "exit_at_import": ("not loaded: the plugin probe exited with code 4 while initialising it",
                       "opcert_test_dying: os._exit(4) at import"),
    "hang_at_import": ("not loaded: initialising it took longer than the plugin probe's 20 s (--probe-timeout, "
                       "OPCERT_PROBE_TIMEOUT); the probe was killed",
                       "opcert_test_dying: hanging at import"),
}


class DyingImport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="opcert-python-dying-")
        cls.venv = make_venv(Path(cls.tmp.name), [PACKAGES / "dying"])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def opcert(self, *args):
        return run_opcert(self.venv, *args, env={"OPCERT_PROBE_TIMEOUT": PROBE_TIMEOUT})

    def test_list_names_each_dying_package_with_how_and_its_stderr(self):
        done = self.opcert("list", "--json")
        self.assertEqual(done.returncode, 0, done.stderr)
        doc = json.loads(done.stdout)
        self.assertIn("cpu", {b["name"] for b in doc["backends"]})
        for name, (reason, line) in EXPECTED.items():
            entries = [u for u in doc["unavailable"] if name in u["source"]]
            self.assertEqual(len(entries), 1, (name, doc["unavailable"]))
            self.assertEqual(entries[0]["reason"], reason)
            self.assertIn(line, entries[0]["stderr_tail"])

    def test_run_of_the_cpu_backend_goes_on_and_says_why(self):
        out = Path(self.tmp.name) / "run"
        done = self.opcert("run", "--backend", "cpu", "--no-peer", "--suite", "smoke", "--filter", "^softmax.fp32",
                           "--progress", "plain", "--out", str(out))
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        report = json.loads((out / "report.json").read_text())
        self.assertTrue(report["results"])
        self.assertTrue(all(r["status"] == "PASSED" for r in report["results"]), report["results"])
        for name, (reason, line) in EXPECTED.items():
            self.assertRegex(done.stderr, f"opcert: unavailable: [^\\n]*{name}[^\\n]*: {re.escape(reason)}\n")
            self.assertIn(f"opcert:   | {line}\n", done.stderr)


if __name__ == "__main__":
    unittest.main()
