#!/usr/bin/env python3
"""The results store on a real PostgreSQL server (Debian's postgresql package), and on a SQLite file,
with several writers at once.

    postgres_store_test.py OPCERT PACED_PLUGIN PACED_SUITE WORK_DIR

Starts a server of its own on a temporary data directory, on loopback and a Unix socket in that
directory, as an unprivileged user (the `postgres` user when the test runs as root: initdb refuses
root). Makes four real runs (two conformance runs of the CPU backend, two benches of the paced test
plugin), then has eight `opcert history add` processes add them at once, each run twice, to a store
nobody has created yet: the store must end with exactly four runs (four "added", four "unchanged"),
each with all of its results, benchmarks and repetitions; show, list, export, remove and the
dashboard must read it. The same writers then go at a SQLite file. Exit 77 (skipped) with the
reason when PostgreSQL's server programs are not installed.
"""
import concurrent.futures
import glob
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import time

SKIP = 77


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, env=None, check=True):
    p = subprocess.run(args, capture_output=True, text=True, env=env)
    if check and p.returncode != 0:
        fail(f"{' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def server_bin():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return os.path.dirname(found[-1]) if found else None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A PostgreSQL server of the test's own, stopped however the test ends."""

    def __init__(self, bin_dir, work):
        self.bin_dir, self.data, self.sock = bin_dir, os.path.join(work, "pgdata"), os.path.join(work, "pgsock")
        self.port = free_port()
        self.user = None
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                print("SKIP: running as root and there is no unprivileged 'postgres' user to run the server")
                sys.exit(SKIP)
        for d in (work, self.sock):
            os.makedirs(d, exist_ok=True)
        if self.user:
            for d in (work, self.sock):
                os.chown(d, self.user.pw_uid, self.user.pw_gid)
        self.log = os.path.join(self.sock, "server.log")

    def _as_server_user(self, args):
        return (["runuser", "-u", "postgres", "--"] if self.user else []) + args

    def start(self):
        run(self._as_server_user([os.path.join(self.bin_dir, "initdb"), "-D", self.data, "--auth=trust", "-U", "opcert",
                                  "--no-sync", "-E", "UTF8"]))
        run(self._as_server_user([os.path.join(self.bin_dir, "pg_ctl"), "-D", self.data, "-l", self.log, "-w", "-t", "60",
                                  "-o", f"-k {self.sock} -c listen_addresses=127.0.0.1 -p {self.port} -c fsync=off",
                                  "start"]))

    def stop(self):
        subprocess.run(self._as_server_user([os.path.join(self.bin_dir, "pg_ctl"), "-D", self.data, "-m", "fast", "-w",
                                             "stop"]), capture_output=True)

    def url(self, database="postgres"):
        return f"postgresql://opcert@127.0.0.1:{self.port}/{database}"


def make_runs(opcert, plugin, suite, work):
    """Four real runs: two conformance runs on the CPU backend, two benches of the paced plugin."""
    runs = []
    for i in range(2):
        out = os.path.join(work, f"run{i}")
        run([opcert, "run", "--backend", "cpu", "--no-peer", "--suite", "smoke", "--filter", "^softmax\\.", "--seed", "1",
             "--progress", "plain", "--out", out])
        runs.append(out)
        time.sleep(1.1)  # runs are told apart by their start, to the second
    for i in range(2):
        out = os.path.join(work, f"bench{i}")
        run([opcert, "bench", "--plugin", plugin, "--backend", "paced", "--no-peer", "--suite", suite, "--impl",
             "paced.softmax.steady", "--benchmark_min_time=0.01", "--benchmark_repetitions=3", "--out", out])
        runs.append(out)
        time.sleep(1.1)
    return runs


def expected_counts(run_dir):
    with open(os.path.join(run_dir, "report.json")) as f:
        doc = json.load(f)
    repetitions = sum(len(b.get("repetitions") or []) for b in doc.get("benchmarks", []))
    return len(doc["results"]), len(doc.get("benchmarks", [])), repetitions


def add_concurrently(opcert, db, runs):
    """Eight writers at once, each run added by two of them; returns their outcomes."""
    jobs = [r for r in runs for _ in range(2)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        done = list(pool.map(lambda r: run([opcert, "history", "add", r, "--db", db]), jobs))
    return sorted(p.stdout.split()[2].rstrip(":") for p in done)


def check_store(opcert, db, runs, work, label):
    outcomes = add_concurrently(opcert, db, runs)
    if outcomes != ["added"] * 4 + ["unchanged"] * 4:
        fail(f"{label}: eight writers of four runs gave {outcomes}; expected four added and four unchanged")
    listed = json.loads(run([opcert, "history", "list", "--db", db, "--json"]).stdout)
    if len(listed) != 4 or len({r["id"] for r in listed}) != 4:
        fail(f"{label}: the store lists {len(listed)} runs: {[r['id'] for r in listed]}")
    exported = json.loads(run([opcert, "history", "export", "--db", db, "--json"]).stdout)
    by_dir = {os.path.realpath(r["source_dir"]): r for r in exported["runs"]}
    for r in runs:
        results, benchmarks, repetitions = expected_counts(r)
        got = by_dir.get(os.path.realpath(r))
        if got is None:
            fail(f"{label}: {r} is not in the export")
        got_reps = sum(len(b["measurements"]) for b in got["benchmarks"])
        if (len(got["results"]), len(got["benchmarks"]), got_reps) != (results, benchmarks, repetitions):
            fail(f"{label}: {r}: the store holds {len(got['results'])} results, {len(got['benchmarks'])} benchmarks, "
                 f"{got_reps} repetitions; its report has {results}, {benchmarks}, {repetitions}")
    bench_id = next(r["id"] for r in listed if r["kind"] == "bench")
    shown = json.loads(run([opcert, "history", "show", str(bench_id), "--db", db, "--json"]).stdout)
    if shown["id"] != bench_id or shown["counts"]["benchmarks"] < 1:
        fail(f"{label}: show {bench_id} gave {shown['counts']}")
    site = os.path.join(work, f"site-{label}")
    run([opcert, "dashboard", "--db", db, "--out", site])
    if not os.path.exists(os.path.join(site, "runs", f"{bench_id}.html")):
        fail(f"{label}: the dashboard has no page for run {bench_id}")
    run([opcert, "history", "remove", str(listed[0]["id"]), "--db", db])
    if len(json.loads(run([opcert, "history", "list", "--db", db, "--json"]).stdout)) != 3:
        fail(f"{label}: remove left the run in the store")
    missing = run([opcert, "history", "show", str(listed[0]["id"]), "--db", db], check=False)
    if missing.returncode != 2 or len(missing.stderr.strip().splitlines()) != 1:
        fail(f"{label}: show of a removed run exited {missing.returncode}: {missing.stderr}")
    print(f"{label}: 8 concurrent writers, 4 runs, counts match the reports; show, export, remove, dashboard read it")


def main():
    opcert, plugin, suite, work = sys.argv[1:5]
    bin_dir = server_bin()
    if bin_dir is None:
        print("SKIP: PostgreSQL's server programs are not installed (apt-get install postgresql)")
        return SKIP
    probe = run([opcert, "history", "list", "--db", "postgresql://opcert@127.0.0.1:1/none"], check=False)
    if "built without libpq" in probe.stderr:
        print("SKIP: this opcert was built without libpq (apt-get install libpq-dev, then reconfigure)")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    runs = make_runs(opcert, plugin, suite, work)
    server = Server(bin_dir, os.path.join(work, "pg"))
    try:
        server.start()
        check_store(opcert, server.url(), runs, work, "postgresql")
        refused = run([opcert, "history", "list", "--db", server.url("nosuch")], check=False)
        if refused.returncode != 2 or "nosuch" not in refused.stderr:
            fail(f"a store on a database that does not exist: exit {refused.returncode}, {refused.stderr}")
    finally:
        server.stop()
    check_store(opcert, os.path.join(work, "history.db"), runs, work, "sqlite")
    return 0


if __name__ == "__main__":
    sys.exit(main())
