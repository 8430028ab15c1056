#!/usr/bin/env python3
"""One ATLAS collection from a directory of NetCDF files, built on Ray.

    python examples/ray/create.py SRC DST --parts N [--address ADDRESS]

Each of the N parts is one Ray task, ``atlas create SRC SCRATCH/part-I
--part I/N``. The driver (this process) retries a failed part, then runs
``atlas merge`` over the parts in order. Without ``--address`` it starts Ray
on this machine. See examples/README.md.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine_common  # after the sys.path line above


class RayEngine:
    """Submit and wait on Ray object refs."""

    def __init__(self, ray, plan):
        self.ray = ray
        self.plan = plan
        # Our loop counts every attempt, so Ray itself retries nothing.
        self.task = ray.remote(num_cpus=1, max_retries=0)(engine_common.run_part)
        self.pending = []

    def submit(self, index, attempt):
        ref = self.task.options(name=f"atlas-part-{index}-of-{self.plan.count}-try-{attempt}").remote(
            *self.plan.task_args(index)
        )
        self.pending.append(ref)
        return ref

    def wait_any(self):
        (ref,), self.pending = self.ray.wait(self.pending, num_returns=1)
        try:
            return ref, self.ray.get(ref)
        except Exception as exc:  # the task raised or its worker was lost
            return ref, exc

    def cancel(self, refs):
        for ref in refs:
            with contextlib.suppress(Exception):
                self.ray.cancel(ref)


@contextlib.contextmanager
def open_engine(args, plan):
    if not args.address:
        # A local instance listens on loopback only (Ray's default on Linux is
        # the first network interface). Read when ray is imported.
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    try:
        import ray.cloudpickle

        import ray
    except ImportError:
        raise engine_common.Failure("ray is not installed: pip install -r examples/ray/requirements.txt") from None
    # Workers need not have examples/ on their path: the module travels by value.
    ray.cloudpickle.register_pickle_by_value(engine_common)
    quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
    try:
        if args.address:
            context = ray.init(address=args.address, **quiet)
        else:
            context = ray.init(num_cpus=args.num_cpus, include_dashboard=False, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise engine_common.Failure(f"cannot start or reach Ray: {exc}") from None
    try:
        cpus = int(ray.cluster_resources().get("CPU", 0))
        engine_common.log(f"ray: {context.address_info.get('address') or args.address}, {cpus} CPU(s)")
        yield RayEngine(ray, plan)
    finally:
        ray.shutdown()


def arguments():
    p = engine_common.parser("Build one ATLAS collection from N parts created as Ray tasks.")
    p.prog = "ray/create.py"
    p.add_argument(
        "--address",
        metavar="ADDRESS",
        help="Ray cluster, e.g. auto, host:6379 or ray://host:10001 (default: start Ray here)",
    )
    p.add_argument(
        "--num-cpus",
        type=int,
        default=os.cpu_count(),
        metavar="C",
        help="CPUs of the local Ray instance, one part at a time each (default: this machine's)",
    )
    return p


if __name__ == "__main__":
    sys.exit(engine_common.main(None, arguments(), open_engine))
