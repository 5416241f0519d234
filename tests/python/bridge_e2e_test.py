"""End to end through opcert's Python bridge: packages pip-installed into a virtual environment,
found through their entry points, run and judged like any backend (docs/PYTHON.md).

Run by CTest with the interpreter the bridge embeds: OPCERT_BINARY, OPCERT_SOURCE_DIR."""

import json
import re
import tempfile
import unittest
from pathlib import Path

from bridge_venv import PACKAGES, SOURCE, make_venv, run_opcert


class BridgeEndToEnd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="opcert-python-")
        packages = [SOURCE / "examples" / "python-torch-backend", PACKAGES / "broken", PACKAGES / "mutant"]
        cls.venv = make_venv(Path(cls.tmp.name), packages)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def opcert(self, *args, env=None):
        return run_opcert(self.venv, *args, env=env)

    def run_suite(self, backend, *flags):
        out = Path(tempfile.mkdtemp(dir=self.tmp.name))
        done = self.opcert("run", "--backend", backend, "--out", str(out), "--progress", "plain", *flags)
        report = json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else None
        return done, report

    def test_listed_with_its_package_and_the_broken_one_unavailable(self):
        done = self.opcert("list", "--json")
        self.assertEqual(done.returncode, 0, done.stderr)
        doc = json.loads(done.stdout)
        backends = {b["name"]: b for b in doc["backends"]}
        self.assertIn("torch_example", backends)
        example = backends["torch_example"]
        self.assertTrue(example["source"]["library_path"].endswith("libopcert_python.so"), example["source"])
        self.assertEqual(example["source"]["package"]["name"], "opcert-torch-example")
        self.assertRegex(example["source"]["package"]["sha256"], r"^[0-9a-f]{64}$")
        keys = {i["key"] for i in example["implementations"]}
        self.assertIn("torch_example.softmax.fp32", keys)
        broken = [u for u in doc["unavailable"] if "broken_ops" in u["source"]]
        self.assertEqual(len(broken), 1, doc["unavailable"])
        self.assertIn("RuntimeError: the vendor library libbroken.so.1 is missing", broken[0]["reason"])

    def test_torch_example_passes_smoke_and_says_why_it_declines(self):
        done, report = self.run_suite("torch_example", "--suite", "smoke")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        mine = [r for r in report["results"] if r["backend"] == "torch_example"]
        statuses = {r["status"] for r in mine}
        self.assertLessEqual(statuses, {"PASSED", "SKIPPED"}, [(r["case"], r["status"], r.get("message")) for r in mine])
        self.assertGreaterEqual(sum(r["status"] == "PASSED" for r in mine), 20)
        for r in mine:
            if r["status"] == "SKIPPED":
                self.assertTrue(r.get("message"), r)
            # opcert finds the bridge's backends itself: a repro line needs no --plugin for them.
            self.assertNotIn("--plugin", r["repro"])
        record = next(b for b in report["backends"] if b["name"] == "torch_example")
        self.assertEqual(record["source"], "plugin")
        self.assertEqual(record["package"]["name"], "opcert-torch-example")
        self.assertEqual(record["package"]["version"], "0.1.0")
        self.assertRegex(record["package"]["sha256"], r"^[0-9a-f]{64}$")

    def test_faults_in_a_python_backend_reach_the_verdict(self):
        done, report = self.run_suite("mutant_ops", "--suite", "smoke", "--filter", "softmax|rms_norm|^gemm\\.")
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        by_op = {}
        for r in report["results"]:
            if r["backend"] == "mutant_ops":
                by_op.setdefault(r["op"], set()).add(r["status"])
        self.assertEqual(by_op["softmax"], {"FAILED"})
        self.assertEqual(by_op["rms_norm"], {"ERROR"})
        self.assertEqual(by_op["gemm"], {"SKIPPED"})
        messages = [r.get("message", "") for r in report["results"] if r["op"] == "rms_norm" and r["backend"] == "mutant_ops"]
        self.assertTrue(all("ValueError: hidden size" in m for m in messages), messages)

    def test_a_manifest_names_a_module_that_is_no_package(self):
        plain = PACKAGES / "plain_module"
        done = self.opcert("list", "--json", "--plugin-dir", str(plain), env={"PYTHONPATH": str(plain)})
        self.assertEqual(done.returncode, 0, done.stderr)
        backend = next(b for b in json.loads(done.stdout)["backends"] if b["name"] == "manifest_ops")
        self.assertEqual(backend["source"]["manifest_path"], str(plain / "manifest_ops.json"))
        self.assertEqual(backend["source"]["package"]["name"], "manifest_ops")

    def test_a_certificate_names_the_package_and_a_changed_package_fails_verify(self):
        plan = Path(self.tmp.name) / "softmax-plan.json"
        plan.write_text(json.dumps({"plan_format": "1.0", "name": "python-softmax", "fail_statuses": ["FAILED", "ERROR"],
                                    "suites": [{"suite": str(SOURCE / "suites" / "sweeps" / "softmax.json"), "seed": 1}]}))
        bundle = Path(self.tmp.name) / "certificate"
        done = self.opcert("certify", "--backend", "torch_example", "--no-peer", "--plan", str(plan), "--out", str(bundle))
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        certified = json.loads((bundle / "manifest.json").read_text())["backend"]
        self.assertEqual(certified["package"]["name"], "opcert-torch-example")
        verified = self.opcert("verify", str(bundle), "--rerun", "2", "--rerun-seed", "7")
        self.assertEqual(verified.returncode, 0, verified.stdout + verified.stderr)
        # The same package name and version with one line of its code changed is another backend.
        module = next(self.venv.glob("lib/python3*/site-packages/opcert_torch_example/backend.py"))
        original = module.read_text()
        try:
            module.write_text(original + "\n# changed after certification\n")
            tampered = self.opcert("verify", str(bundle), "--rerun", "1", "--rerun-seed", "7")
        finally:
            module.write_text(original)
        self.assertEqual(tampered.returncode, 1, tampered.stdout + tampered.stderr)
        self.assertIn("is not the certified one (opcert-torch-example 0.1.0, SHA-256 " + certified["package"]["sha256"],
                      tampered.stdout + tampered.stderr)

    def test_the_other_backends_run_beside_a_broken_package(self):
        done, report = self.run_suite("cpu", "--suite", "smoke", "--filter", "softmax", "--no-peer")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertTrue(all(r["status"] == "PASSED" for r in report["results"]))
        self.assertRegex(done.stderr, re.compile(r"unavailable: .*broken_ops.*libbroken", re.S))


if __name__ == "__main__":
    unittest.main()
