#!/usr/bin/env python3
"""Tests of the Dask and Ray recipes (examples/dask/create.py, examples/ray/create.py).

Run through examples/run_tests.sh, which makes the venv. Needs the atlas
binary with ``create --part`` and ``merge``: ``$ATLAS_BIN``, else
target/debug/atlas of this repo.

Each recipe's collection is compared with ``atlas create SRC whole`` run
on one machine. How: atlas-python (``import atlas``) reads metadata only, so
names, order, dimensions, attributes, dtypes, chunking, fill values and
statistics come from ``atlas.list_datasets`` / ``atlas.describe`` /
``atlas.info``, and the values of every array from
``atlas get COLL NAME ARRAY --format json``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

import atlas
import netCDF4
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import engine_common  # noqa: E402  (after the sys.path line above)

REPO = HERE.parent
DASK = HERE / "dask" / "create.py"
RAY = HERE / "ray" / "create.py"
ATLAS = os.path.abspath(os.environ.get("ATLAS_BIN") or REPO / "target" / "debug" / "atlas")
# Every recipe run gets it (the venv's PATH has atlas-python's own `atlas`, another program).
os.environ["ATLAS_BIN"] = ATLAS
# Ray on loopback only, for the shared instance and every driver that joins it.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
# One token for the shared instance and the drivers that join it; nothing
# written to ~/.ray.
os.environ["RAY_AUTH_MODE"] = "token"
os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)

# Filled by setUpModule.
TMP: Path
SRC: Path
WHOLE: Path
REFERENCE: dict
SHARED_DASK = None  # scheduler address
SHARED_RAY = None  # GCS address
_services: list[subprocess.Popen] = []


# ---------------------------------------------------------------- fixtures


def write_netcdf(directory: Path) -> list[Path]:
    """12 small, varied NetCDF files: a time axis, a couple of variables, one
    variable in some files only, a packed one, masked values, global
    attributes of several types, two files in a subdirectory."""
    directory.mkdir(parents=True)
    paths = []
    for i in range(12):
        sub = directory / "later" if i >= 10 else directory
        sub.mkdir(exist_ok=True)
        path = sub / f"station-{i:02d}.nc"
        n = 3 + i % 4
        with netCDF4.Dataset(path, "w") as nc:
            nc.title = f"station {i}"
            nc.station_id = np.int32(i)
            nc.elevation_m = float(10.5 * i)
            nc.bounds = np.array([i, i + 1.5, i + 3.0])
            nc.createDimension("time", None)
            nc.createDimension("x", 4)
            t = nc.createVariable("time", "f8", ("time",))
            t.units = "hours since 2021-03-01 00:00:00"
            t.calendar = "standard"
            t.standard_name = "time"
            t[:] = np.arange(n) * 6.0 + 24 * i
            x = nc.createVariable("x", "i4", ("x",))
            x[:] = np.arange(4) * 100
            temp = nc.createVariable("temperature", "f4", ("time", "x"), fill_value=np.float32(-999.0))
            temp.units = "K"
            temp.long_name = "air temperature"
            values = (270 + i + np.arange(n * 4).reshape(n, 4) * 0.25).astype("f4")
            values = np.ma.masked_array(values, mask=np.zeros_like(values, dtype=bool))
            if i % 3 == 1:
                values.mask[0, i % 4] = True
            temp[:] = values
            if i % 4 == 0:  # only in some files
                sal = nc.createVariable("salinity", "i2", ("time",), fill_value=np.int16(-1))
                sal.scale_factor = 0.01
                sal.add_offset = 30.0
                sal.units = "psu"
                sal[:] = 30.0 + 0.01 * np.arange(n) * (i + 1)
            if i % 5 == 2:
                flag = nc.createVariable("qc", "u1", ("x",))
                flag.flag_meanings = "good bad"
                flag[:] = np.array([0, 1, 0, 1], dtype="u1")
        paths.append(path)
    return paths


def run(argv, env=None, timeout=300):
    """Runs a command; returns (returncode, stdout, stderr)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.run(
        [str(a) for a in argv],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        cwd=tempfile.gettempdir(),  # the recipes must not depend on the working directory
    )
    return proc.returncode, proc.stdout, proc.stderr


def canonical(value) -> str:
    """JSON text with sorted keys: NaN and nested dicts compare as text."""
    return json.dumps(value, sort_keys=True, default=str)


def read_collection(path: Path) -> dict:
    """Everything both sides must agree on, as canonical text."""
    names = atlas.list_datasets(str(path))
    datasets = {}
    for name in names:
        description = atlas.describe(str(path), name)
        values = {}
        for array in description["arrays"]:
            code, out, err = run([ATLAS, "get", path, name, array["name"], "--format", "json"])
            assert code == 0, err
            values[array["name"]] = canonical(json.loads(out))
        datasets[name] = {"describe": canonical(description), "values": values}
    info = atlas.info(str(path))
    # The creation time and the container's bytes differ between two writes.
    info_kept = {k: v for k, v in info.items() if k not in ("source", "created_unix_ms", "container_bytes")}
    return {"names": names, "datasets": datasets, "info": canonical(info_kept)}


def wrapper(name: str, fail_times: int) -> Path:
    """An ATLAS_BIN that fails part 2 ``fail_times`` times (all of them for -1), else runs atlas."""
    path = TMP / f"bin-{name}"
    marker = TMP / f"bin-{name}.count"
    path.write_text(
        "#!/bin/sh\n"
        'case " $* " in\n'
        '  *" --part 2/"*)\n'
        f'    n=$(cat "{marker}" 2>/dev/null || echo 0)\n'
        f'    if [ {fail_times} -lt 0 ] || [ "$n" -lt {fail_times} ]; then\n'
        f'      echo $((n + 1)) > "{marker}"\n'
        '      echo "atlas: injected failure of part 2" >&2\n'
        "      exit 1\n"
        "    fi;;\n"
        "esac\n"
        f'exec "{ATLAS}" "$@"\n'
    )
    path.chmod(0o755)
    return path


def start_service(argv, ready_line_prefix: str, timeout=120) -> str:
    """Starts a long-running helper; returns what follows ``ready_line_prefix`` on its stdout."""
    proc = subprocess.Popen(
        [str(a) for a in argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    _services.append(proc)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{argv[:3]} exited before it was ready")
        if line.startswith(ready_line_prefix):
            return line[len(ready_line_prefix) :].strip()
    raise RuntimeError(f"{argv[:3]} not ready in {timeout}s")


# A scheduler and one worker in a process of their own, started from the temp
# dir: the worker has no examples/ on its path, so the recipe must ship
# engine_common itself. Closing stdin stops it.
DASK_SERVICE = """
import sys
from distributed import LocalCluster
with LocalCluster(n_workers=1, threads_per_worker=2, dashboard_address=None, host="127.0.0.1") as cluster:
    print("ADDRESS", cluster.scheduler_address, flush=True)
    sys.stdin.read()
"""

# A Ray instance the recipe joins with --address. Closing stdin shuts it down.
RAY_SERVICE = """
import logging, sys
import ray
context = ray.init(num_cpus=2, include_dashboard=False,
                   logging_level=logging.WARNING, log_to_driver=False)
print("ADDRESS", context.address_info["gcs_address"], flush=True)
sys.stdin.read()
ray.shutdown()
"""


def setUpModule():
    global TMP, SRC, WHOLE, REFERENCE, SHARED_DASK, SHARED_RAY
    assert os.access(ATLAS, os.X_OK), (
        f"no atlas binary at {ATLAS}: build it (cargo build --features cli) or set ATLAS_BIN"
    )
    code, _, err = run([ATLAS, "merge", "--help"])
    assert code == 0, f"{ATLAS} has no merge command: {err.strip()}"
    TMP = Path(tempfile.mkdtemp(prefix="atlas-engines-"))
    SRC = TMP / "src"
    write_netcdf(SRC)
    WHOLE = TMP / "whole"
    code, _, err = run([ATLAS, "create", SRC, WHOLE, "--quiet"])
    assert code == 0, err
    REFERENCE = read_collection(WHOLE)
    assert len(REFERENCE["names"]) == 12
    started = time.monotonic()
    SHARED_DASK = start_service([sys.executable, "-c", DASK_SERVICE], "ADDRESS ")
    SHARED_RAY = start_service([sys.executable, "-c", RAY_SERVICE], "ADDRESS ")
    print(f"shared dask {SHARED_DASK} and ray {SHARED_RAY} up in {time.monotonic() - started:.1f}s", file=sys.stderr)


def tearDownModule():
    for proc in _services:
        try:
            proc.stdin.close()
            proc.wait(timeout=60)
        except Exception:
            proc.kill()  # by its own handle: only what this test started
            proc.wait()
    if os.environ.get("KEEP_TMP"):
        print(f"kept {TMP}", file=sys.stderr)
    else:
        shutil.rmtree(TMP, ignore_errors=True)


# ---------------------------------------------------------------- tests


class Recipe:
    """The same cases for both engines; a subclass says which script and cluster."""

    script: Path
    address_flag: str

    def shared(self) -> list[str]:
        raise NotImplementedError

    def build(self, name, parts, *extra, env=None, shared=True):
        dst = TMP / f"{self.__class__.__name__}-{name}"
        argv = [sys.executable, self.script, SRC, dst, "--parts", parts, *extra]
        if shared:
            argv += self.shared()
        code, out, err = run(argv, env=env)
        return dst, code, out, err

    def assert_same_as_whole(self, dst: Path, code: int, out: str, err: str, parts: int):
        self.assertEqual(code, 0, f"stdout:\n{out}\nstderr:\n{err}")
        self.assertIn(f"merged {parts} part(s)", out)
        for index in range(1, parts + 1):
            self.assertRegex(err, rf"part {index}/{parts} done: \d+ dataset\(s\)")
        got = read_collection(dst)
        self.assertEqual(got["names"], REFERENCE["names"])
        for name in REFERENCE["names"]:
            self.assertEqual(got["datasets"][name]["describe"], REFERENCE["datasets"][name]["describe"], name)
            self.assertEqual(got["datasets"][name]["values"], REFERENCE["datasets"][name]["values"], name)
        self.assertEqual(got["info"], REFERENCE["info"])

    def test_three_parts_on_own_cluster(self):
        dst, code, out, err = self.build("three", 3, shared=False)
        self.assert_same_as_whole(dst, code, out, err, 3)
        self.assertFalse(dst.with_name(dst.name + ".parts").exists(), "scratch left after success")

    def test_more_parts_than_files(self):
        # 15 parts of 12 files: three parts are empty collections.
        dst, code, out, err = self.build("fifteen", 15)
        self.assert_same_as_whole(dst, code, out, err, 15)
        self.assertEqual(len(re.findall(r"done: 0 dataset\(s\)", err)), 3, err)

    def test_one_part_and_own_scratch(self):
        scratch = TMP / f"{self.__class__.__name__}-scratch"
        scratch.mkdir()
        (scratch / "keep.txt").write_text("not ours")
        dst, code, out, err = self.build("one", 1, "--scratch", scratch, "--json")
        self.assertEqual(code, 0, err)
        summary = json.loads(out)
        self.assertEqual((summary["parts"], summary["datasets"]), (1, 12))
        self.assertEqual(read_collection(dst), REFERENCE)
        self.assertEqual(sorted(p.name for p in scratch.iterdir()), ["keep.txt"], "only our parts are removed")

    def test_retry_then_success(self):
        binary = wrapper(f"{self.__class__.__name__}-flaky", 1)
        dst, code, out, err = self.build("flaky", 3, env={"ATLAS_BIN": str(binary)})
        self.assertIn("part 2/3 failed", err)
        self.assertIn("(attempt 1 of 3), retrying: atlas: injected failure of part 2", err)
        self.assert_same_as_whole(dst, code, out, err, 3)

    def test_part_fails_for_good(self):
        binary = wrapper(f"{self.__class__.__name__}-broken", -1)
        dst, code, out, err = self.build("broken", 3, env={"ATLAS_BIN": str(binary)})
        self.assertNotEqual(code, 0)
        self.assertIn("part 2/3 failed after 3 attempt(s)", err)
        self.assertIn("atlas: injected failure of part 2", err)
        self.assertEqual(err.count("part 2/3 failed"), 3, err)
        self.assertFalse(dst.exists(), "something was written at DST")
        self.assertNotIn("merged", out)

    def test_existing_destination_is_refused(self):
        dst = TMP / f"{self.__class__.__name__}-exists"
        dst.mkdir()
        code, _, err = run([sys.executable, self.script, SRC, dst, "--parts", 2, *self.shared()])
        self.assertEqual(code, 1)
        self.assertIn("already exists", err)
        self.assertEqual(list(dst.iterdir()), [])


class DaskRecipe(Recipe, unittest.TestCase):
    script = DASK

    def shared(self):
        return ["--scheduler", SHARED_DASK]

    def test_binary_from_the_wheel(self):
        # examples/run_tests.sh builds examples/wheel with maturin and
        # pip-installs it under this prefix: `atlas` on PATH is the wheel's,
        # and nothing else names a binary.
        prefix = os.environ.get("ATLAS_WHEEL_PREFIX")
        self.assertTrue(prefix, "no ATLAS_WHEEL_PREFIX: run examples/run_tests.sh, which builds the wheel")
        wheel_bin = Path(prefix) / "bin"
        self.assertTrue((wheel_bin / "atlas").is_file(), wheel_bin)
        without = {"ATLAS_BIN": "", "PATH": "/usr/bin:/bin"}
        dst = TMP / "from-wheel"
        code, _, err = run([sys.executable, DASK, SRC, dst, "--parts", 2, "--workers", 2], env=without)
        self.assertEqual(code, 1, err)
        self.assertIn("no atlas binary", err)
        with_wheel = {"ATLAS_BIN": "", "PATH": f"{wheel_bin}:/usr/bin:/bin"}
        code, out, err = run([sys.executable, DASK, SRC, dst, "--parts", 2, "--workers", 2], env=with_wheel)
        self.assert_same_as_whole(dst, code, out, err, 2)


class RayRecipe(Recipe, unittest.TestCase):
    script = RAY

    def shared(self):
        return ["--address", SHARED_RAY]


class Common(unittest.TestCase):
    """engine_common without an engine: the merge through --list, error text."""

    def test_merge_through_list_file(self):
        plan = engine_common.Plan(str(SRC), str(TMP / "listed"), 4, 0, str(TMP / "listed-scratch"))
        plan.scratch.mkdir()
        for index in range(1, 5):
            outcome = engine_common.run_part(*plan.task_args(index)[:4], ATLAS)
            self.assertTrue(outcome["ok"], outcome)
            self.assertEqual(outcome["summary"]["part"]["index"], index)
        saved = engine_common.LIST_FILE_FROM
        engine_common.LIST_FILE_FROM = 1
        try:
            summary = engine_common.merge(plan)
        finally:
            engine_common.LIST_FILE_FROM = saved
        self.assertTrue((plan.scratch / "parts.txt").exists())
        self.assertEqual((summary["parts"], summary["datasets"]), (4, 12))
        self.assertEqual(read_collection(plan.dst), REFERENCE)
        engine_common.clean_scratch(plan)
        self.assertFalse(plan.scratch.exists())

    def test_missing_binary_is_a_failed_part(self):
        outcome = engine_common.run_part(str(SRC), str(TMP), 1, 2, str(TMP / "no-such-atlas"))
        self.assertFalse(outcome["ok"])
        self.assertIn("cannot run", outcome["error"])

    def test_error_text(self):
        self.assertEqual(engine_common.error_text("warning: x\natlas: bad part\n", 1), "atlas: bad part")
        self.assertEqual(engine_common.error_text("something else\n", 2), "something else")
        self.assertEqual(engine_common.error_text("", 3), "exit status 3, nothing on stderr")


def main() -> int:
    result = unittest.main(verbosity=2, exit=False).result
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    # The plain closing line a CI log reader counts.
    print(f"recipes: {passed} passed, {failed} failed, {skipped} skipped", flush=True)
    return 0 if result.wasSuccessful() and result.testsRun else 1


if __name__ == "__main__":
    sys.exit(main())
