"""The Python side of the bridge without opcert: the registration API, opcert._host's checks,
package digests and the offline build backend (docs/PYTHON.md). Run with the interpreter the
bridge embeds, whose torch is opcert's LibTorch."""

import importlib
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
import zipfile
from pathlib import Path

SOURCE = Path(os.environ.get("OPCERT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(SOURCE / "python"))

import torch  # noqa: E402

import opcert  # noqa: E402
from opcert import _host, _provenance  # noqa: E402


class Registration(unittest.TestCase):
    def test_keys_are_backend_op_variant(self):
        b = opcert.Backend("my_ops")

        @b.implementation("softmax", "fast", description="one line")
        def softmax(inputs, outputs, attrs):
            return None

        self.assertEqual([i.key for i in b.implementations], ["my_ops.softmax.fast"])
        self.assertEqual(b.find("my_ops.softmax.fast").description, "one line")

    def test_bad_names_devices_and_duplicates_are_refused(self):
        with self.assertRaisesRegex(ValueError, "must be lowercase"):
            opcert.Backend("My Ops")
        with self.assertRaisesRegex(ValueError, "device must be one of"):
            opcert.Backend("a", device="tpu")
        b = opcert.Backend("a")
        b.add("softmax", "x", lambda i, o, a: None)
        with self.assertRaisesRegex(ValueError, "registered twice"):
            b.add("softmax", "x", lambda i, o, a: None)


class Hosting(unittest.TestCase):
    def hosted(self, backend):
        return _host.HostedBackend(torch, backend, ("", "", ""))

    def test_release_ignores_pre_release_and_local_tags(self):
        self.assertEqual(_host._release("1.13.0a0"), _host._release("1.13.0"))
        self.assertEqual(_host._release("2.11.0+cu130"), (2, 11, 0))
        self.assertNotEqual(_host._release("2.11.0"), _host._release("2.1.1"))

    def test_a_torch_other_than_opcerts_libtorch_is_refused(self):
        saved = _host._libtorch_version
        try:
            _host._libtorch_version = "9.9.9"
            with self.assertRaisesRegex(RuntimeError, "built against LibTorch 9.9.9"):
                _host._import_torch()
        finally:
            _host._libtorch_version = saved

    def test_query_gives_meta_tensors_and_takes_a_reason(self):
        b = opcert.Backend("q")
        seen = {}

        def query(inputs, outputs, attrs):
            seen.update(device=inputs["x"].device.type, shape=tuple(inputs["x"].shape), attrs=dict(attrs))
            return "too wide" if inputs["x"].shape[-1] > 8 else None

        b.add("softmax", "s", lambda i, o, a: None, query=query)
        h = self.hosted(b)
        narrow = {"x": (2, (3, 4), (4, 1))}
        self.assertIsNone(h.query("q.softmax.s", narrow, {"y": (2, (3, 4), (4, 1))}, {"eps": 0.5}))
        self.assertEqual(seen, {"device": "meta", "shape": (3, 4), "attrs": {"eps": 0.5}})
        wide = {"x": (2, (3, 16), (16, 1))}
        self.assertEqual(h.query("q.softmax.s", wide, {"y": (2, (3, 16), (16, 1))}, {}), "too wide")

    def test_a_dtype_this_torch_lacks_is_declined_with_the_reason(self):
        b = opcert.Backend("f")
        b.add("gemm_fp8", "x", lambda i, o, a: None)
        reason = self.hosted(b).query("f.gemm_fp8.x", {"a": (5, (2, 2), (2, 1))}, {"c": (4, (2, 2), (2, 1))}, {})
        if hasattr(torch, "float8_e4m3fn"):
            self.assertIsNone(reason)
        else:
            self.assertEqual(reason, f"torch {torch.__version__} has no float8_e4m3fn")

    def test_returned_results_are_published_and_checked(self):
        b = opcert.Backend("r")
        b.add("softmax", "ok", lambda i, o, a: {"y": torch.ones(2, 3)})
        b.add("softmax", "shape", lambda i, o, a: {"y": torch.ones(3, 2)})
        b.add("softmax", "name", lambda i, o, a: {"z": torch.ones(2, 3)})
        h = self.hosted(b)
        out = torch.zeros(2, 3)
        h.run("r.softmax.ok", {}, {"y": out}, {})
        self.assertEqual(out.sum().item(), 0.0)  # nothing moves before publish
        self.assertEqual(h.publish(), 24)
        self.assertEqual(out.sum().item(), 6.0)
        with self.assertRaisesRegex(ValueError, r"returned 'y' as torch.float32 \(3, 2\)"):
            h.run("r.softmax.shape", {}, {"y": out}, {})
        with self.assertRaisesRegex(ValueError, "not an output of the call"):
            h.run("r.softmax.name", {}, {"y": out}, {})

    def test_unsupported_in_a_query_declines(self):
        b = opcert.Backend("u")

        def query(inputs, outputs, attrs):
            raise opcert.Unsupported("no strided x")

        b.add("softmax", "s", lambda i, o, a: None, query=query)
        self.assertEqual(self.hosted(b).query("u.softmax.s", {}, {}, {}), "no strided x")


class ActiveEnvironment(unittest.TestCase):
    def test_a_worker_takes_the_runners_answer_instead_of_asking_again(self):
        from opcert import _environment

        with tempfile.TemporaryDirectory() as site_dir:
            saved = {k: os.environ.get(k) for k in ("OPCERT_PYTHON", _environment._HANDOFF)}
            try:
                # An interpreter that cannot run: only the handed-down answer can name its site dir.
                os.environ["OPCERT_PYTHON"] = "/nonexistent/bin/python3"
                os.environ[_environment._HANDOFF] = json.dumps(
                    {"interpreter": "/nonexistent/bin/python3", "prefix": "/nonexistent",
                     "version": list(sys.version_info[:2]), "site": [site_dir]})
                self.assertEqual(_environment.add_active_environment(), [])
                self.assertIn(site_dir, sys.path)
                del os.environ[_environment._HANDOFF]
                notes = _environment.add_active_environment()
                self.assertEqual(len(notes), 1)
                self.assertIn("/nonexistent/bin/python3 (OPCERT_PYTHON) cannot be asked", notes[0])
            finally:
                for key, value in saved.items():
                    os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)
                if site_dir in sys.path:
                    sys.path.remove(site_dir)


class Packages(unittest.TestCase):
    def test_the_digest_follows_the_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            package = Path(tmp) / "digest_probe_pkg"
            package.mkdir()
            (package / "__init__.py").write_text("x = 1\n")
            sys.path.insert(0, tmp)
            try:
                importlib.invalidate_caches()
                name, version, first = _provenance.describe("digest_probe_pkg:x", None)
                (package / "__init__.py").write_text("x = 2\n")
                _, _, second = _provenance.describe("digest_probe_pkg:x", None)
                (package / "__pycache__").mkdir()
                (package / "__pycache__" / "junk.pyc").write_bytes(b"\0")
                _, _, third = _provenance.describe("digest_probe_pkg:x", None)
            finally:
                sys.path.remove(tmp)
        self.assertEqual((name, version), ("digest_probe_pkg", ""))
        self.assertRegex(first, r"^[0-9a-f]{64}$")
        self.assertNotEqual(first, second)
        self.assertEqual(second, third)  # compiled files are not the code

    def test_the_build_backend_writes_a_wheel_with_entry_points_offline(self):
        project = SOURCE / "examples" / "python-torch-backend"
        with tempfile.TemporaryDirectory() as out:
            script = textwrap.dedent(f"""
                import os, sys
                os.chdir({str(project)!r})
                sys.path.insert(0, "build_backend")
                import opcert_build_backend as b
                assert b.get_requires_for_build_wheel() == []
                print(b.build_wheel({out!r}))
            """)
            name = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.strip()
            with zipfile.ZipFile(Path(out) / name) as wheel:
                files = set(wheel.namelist())
                entry_points = wheel.read("opcert_torch_example-0.1.0.dist-info/entry_points.txt").decode()
                record = wheel.read("opcert_torch_example-0.1.0.dist-info/RECORD").decode()
        self.assertEqual(name, "opcert_torch_example-0.1.0-py3-none-any.whl")
        self.assertIn("opcert_torch_example/backend.py", files)
        self.assertIn('[opcert.backends]\ntorch_example = opcert_torch_example:backend', entry_points)
        self.assertIn("opcert_torch_example/backend.py,sha256=", record)


if __name__ == "__main__":
    unittest.main()
