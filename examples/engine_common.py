"""What the Dask and Ray recipes share: one collection from N parts.

Each recipe fans out ``atlas create SRC SCRATCH/part-I --part I/N`` as one
task per part, then runs ``atlas merge`` on the driver. Everything except
"submit a task" and "wait for the next one" lives here:

* ``run_part`` is the task body. It runs on a worker, starts the ``atlas``
  binary there and returns a plain dict. It never raises for an atlas
  failure, so what crosses the wire is data, not an exception class.
* ``main`` is the driver: arguments, checks, the fan-out with retries and
  progress, the merge, the clean-up and the exit code.

A recipe passes ``main`` an engine: an object with ``submit(index,
attempt)`` returning a handle, ``wait_any()`` returning ``(handle,
result)`` for the next finished task (``result`` is ``run_part``'s dict or
the exception the engine raised), and ``cancel(handles)``.

Standard library only, so any worker that has Python can run ``run_part``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

#: Environment variable that names the atlas binary.
BIN_ENV = "ATLAS_BIN"

#: Retries of a failed part, after its first attempt.
DEFAULT_RETRIES = 2

#: From this many parts on, ``atlas merge`` reads them from ``--list FILE``
#: instead of the command line (whose length is bounded).
LIST_FILE_FROM = 200


class Failure(Exception):
    """The build did not complete. The message says why, in one line."""


# ---------------------------------------------------------------- commands


def atlas_binary(value: str | None = None) -> str:
    """The atlas binary: ``value``, else ``$ATLAS_BIN``, else ``atlas`` on PATH."""
    value = value or os.environ.get(BIN_ENV)
    if value:
        return value
    found = shutil.which("atlas")
    if found is None:
        raise Failure(f"no atlas binary on {socket.gethostname()}: set {BIN_ENV} or put atlas on PATH")
    return found


def part_dir(scratch: Path | str, index: int) -> Path:
    """Where part ``index`` (1-based) is written."""
    return Path(scratch) / f"part-{index}"


def create_command(binary: str, src: str, dst: str, index: int, count: int) -> list[str]:
    """``atlas create`` for part ``index`` of ``count``."""
    return [binary, "create", str(src), str(dst), "--part", f"{index}/{count}", "--json", "--quiet"]


def merge_command(binary: str, parts: list[str], dst: str, list_file: str | None = None) -> list[str]:
    """``atlas merge`` of ``parts`` in order; through ``--list`` when ``list_file`` is given."""
    if list_file is not None:
        return [binary, "merge", "--list", str(list_file), str(dst), "--json"]
    return [binary, "merge", *map(str, parts), str(dst), "--json"]


def error_text(stderr: str, returncode: int) -> str:
    """The atlas error in one line: its ``atlas: ...`` line, else the last line of stderr."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith("atlas:"):
            return line
    if lines:
        return lines[-1]
    return f"exit status {returncode}, nothing on stderr"


def run_atlas(command: list[str]) -> dict[str, Any]:
    """Runs one atlas command and returns the JSON object it printed.

    Raises ``Failure`` with the atlas error text when it fails.
    """
    try:
        proc = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    except OSError as exc:
        raise Failure(f"cannot run {command[0]}: {exc.strerror or exc}") from None
    if proc.returncode != 0:
        raise Failure(error_text(proc.stderr, proc.returncode))
    try:
        summary = json.loads(proc.stdout)
    except ValueError:
        raise Failure(f"{command[0]} {command[1]} printed no JSON: {proc.stdout[:200]!r}") from None
    if not isinstance(summary, dict):
        raise Failure(f"{command[0]} {command[1]} printed JSON that is not an object")
    return summary


def check_merge(binary: str) -> None:
    """Fails unless ``binary`` is an atlas with ``merge`` (atlas-python's ``atlas`` command is not)."""
    try:
        proc = subprocess.run([binary, "merge", "--help"], capture_output=True, stdin=subprocess.DEVNULL)
    except OSError as exc:
        raise Failure(f"cannot run {binary}: {exc.strerror or exc}") from None
    if proc.returncode != 0:
        raise Failure(
            f"{binary} has no merge command: it is an older atlas, or atlas-python's; "
            f"set {BIN_ENV} to the atlas CLI built from this repo"
        )


# ---------------------------------------------------------------- the task


def run_part(src: str, scratch: str, index: int, count: int, binary: str | None = None) -> dict[str, Any]:
    """Task body: ``atlas create SRC SCRATCH/part-INDEX --part INDEX/COUNT``.

    Runs on a worker. ``binary`` is what the driver forwards (its own
    ``$ATLAS_BIN``); without it the worker's ``$ATLAS_BIN`` or PATH decides.
    Returns ``{"index", "host", "ok": True, "summary": {...}}`` or
    ``{"index", "host", "ok": False, "error": "atlas: ..."}``.
    """
    outcome: dict[str, Any] = {"index": index, "host": socket.gethostname()}
    try:
        exe = atlas_binary(binary)
        summary = run_atlas(create_command(exe, src, str(part_dir(scratch, index)), index, count))
    except Failure as exc:
        outcome.update(ok=False, error=str(exc))
        return outcome
    outcome.update(ok=True, summary=summary)
    return outcome


def datasets_in(summary: dict[str, Any]) -> int:
    """How many datasets a part's ``atlas create --json`` summary reports."""
    if "dataset_count" in summary:
        return int(summary["dataset_count"])
    return len(summary.get("written", []))


# ---------------------------------------------------------------- the driver


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Plan:
    """The checked arguments of one run, every path absolute (workers have another cwd)."""

    def __init__(self, src: str, dst: str, parts: int, retries: int, scratch: str | None):
        self.src = Path(src).resolve()
        self.dst = Path(dst).resolve()
        self.count = parts
        self.retries = retries
        self.scratch = Path(scratch).resolve() if scratch else self.dst.with_name(self.dst.name + ".parts")
        if parts < 1:
            raise Failure(f"--parts must be at least 1, not {parts}")
        if retries < 0:
            raise Failure(f"--retries must be 0 or more, not {retries}")
        if not self.src.is_dir():
            raise Failure(f"{src}: not a directory")
        if self.dst.exists():
            raise Failure(f"{dst}: already exists; remove it or choose another destination")
        # The merge runs here: find its binary before any task starts.
        self.binary = atlas_binary()
        check_merge(self.binary)
        # What the workers get: the driver's $ATLAS_BIN, made absolute if it is a path.
        forwarded = os.environ.get(BIN_ENV)
        if forwarded and os.sep in forwarded:
            forwarded = str(Path(forwarded).resolve())
        self.forwarded_binary = forwarded or None

    def part(self, index: int) -> Path:
        return part_dir(self.scratch, index)

    def task_args(self, index: int) -> tuple:
        """The arguments of ``run_part`` for part ``index``."""
        return (str(self.src), str(self.scratch), index, self.count, self.forwarded_binary)


def fan_out(plan: Plan, engine: Any) -> dict[int, dict[str, Any]]:
    """Runs every part, retrying each up to ``plan.retries`` times.

    Returns the outcomes by index. Raises ``Failure`` naming the part and
    the atlas error once a part has used up its retries; the tasks still
    running are cancelled.
    """
    count = plan.count
    attempts = {index: 1 for index in range(1, count + 1)}
    running = {engine.submit(index, 1): index for index in attempts}
    done: dict[int, dict[str, Any]] = {}
    while running:
        handle, result = engine.wait_any()
        index = running.pop(handle)
        if isinstance(result, BaseException):
            # The engine lost the task (a worker died, ...): a failed attempt too.
            result = {"index": index, "host": "?", "ok": False, "error": f"{type(result).__name__}: {result}"}
        if result.get("ok"):
            done[index] = result
            log(f"part {index}/{count} done: {datasets_in(result['summary'])} dataset(s) ({len(done)}/{count} parts)")
            continue
        tries = plan.retries + 1
        where = f" on {result['host']}" if result.get("host") not in (None, "?") else ""
        if attempts[index] < tries:
            attempt = f"attempt {attempts[index]} of {tries}"
            log(f"part {index}/{count} failed{where} ({attempt}), retrying: {result['error']}")
            attempts[index] += 1
            running[engine.submit(index, attempts[index])] = index
            continue
        engine.cancel(list(running))
        raise Failure(f"part {index}/{count} failed after {tries} attempt(s){where}: {result['error']}")
    return done


def merge(plan: Plan) -> dict[str, Any]:
    """``atlas merge`` of every part, in part order, into ``plan.dst``."""
    parts = [str(plan.part(index)) for index in range(1, plan.count + 1)]
    list_file = None
    if len(parts) >= LIST_FILE_FROM:
        list_file = plan.scratch / "parts.txt"
        list_file.write_text("".join(part + "\n" for part in parts))
    try:
        return run_atlas(merge_command(plan.binary, parts, str(plan.dst), list_file and str(list_file)))
    except Failure as exc:
        raise Failure(f"merge failed: {exc}") from None


def clean_scratch(plan: Plan) -> None:
    """Removes the parts (and the list file), then the scratch directory if that leaves it empty."""
    for index in range(1, plan.count + 1):
        shutil.rmtree(plan.part(index), ignore_errors=True)
    (plan.scratch / "parts.txt").unlink(missing_ok=True)
    try:
        plan.scratch.rmdir()
    except OSError:
        pass  # not empty: somebody else's files are there too


def summary_line(plan: Plan, summary: dict[str, Any]) -> str:
    return (
        f"merged {summary.get('parts', plan.count)} part(s) into {plan.dst}: "
        f"{summary.get('datasets', '?')} dataset(s), {summary.get('container_bytes', '?')} container bytes"
    )


def parser(description: str) -> argparse.ArgumentParser:
    """The arguments both recipes take; each adds its engine's own."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("src", metavar="SRC", help="directory of NetCDF files")
    p.add_argument("dst", metavar="DST", help="collection to write (must not exist)")
    p.add_argument("--parts", type=int, required=True, metavar="N", help="number of parts, one task each")
    p.add_argument(
        "--retries",
        type=int,
        default=DEFAULT_RETRIES,
        metavar="K",
        help=f"retries of a failed part after its first attempt (default {DEFAULT_RETRIES})",
    )
    p.add_argument("--scratch", metavar="DIR", help="where the parts go (default: DST.parts beside DST)")
    p.add_argument("--json", action="store_true", help="print the merge's JSON summary instead of one line")
    return p


def main(
    argv: Iterable[str] | None,
    arguments: argparse.ArgumentParser,
    open_engine: Callable[[argparse.Namespace, Plan], AbstractContextManager[Any]],
) -> int:
    """The driver. ``open_engine(args, plan)`` yields the engine and shuts it down after the fan-out."""
    args = arguments.parse_args(None if argv is None else list(argv))
    prog = arguments.prog
    try:
        plan = Plan(args.src, args.dst, args.parts, args.retries, args.scratch)
    except Failure as exc:
        log(f"{prog}: {exc}")
        return 1
    try:
        plan.scratch.mkdir(parents=True, exist_ok=True)
        log(f"{plan.count} part(s) of {plan.src} into {plan.scratch}")
        with open_engine(args, plan) as engine:
            fan_out(plan, engine)
        summary = merge(plan)
    except Failure as exc:
        log(f"{prog}: {exc}")
        log(f"{prog}: nothing written at {plan.dst}; the parts that landed are in {plan.scratch}")
        return 1
    clean_scratch(plan)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(summary_line(plan, summary))
    return 0


__all__ = [
    "BIN_ENV",
    "Failure",
    "Plan",
    "atlas_binary",
    "check_merge",
    "clean_scratch",
    "create_command",
    "datasets_in",
    "error_text",
    "fan_out",
    "main",
    "merge",
    "merge_command",
    "parser",
    "part_dir",
    "run_atlas",
    "run_part",
]
