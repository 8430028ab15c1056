#!/usr/bin/env python3
"""One ATLAS collection from a directory of NetCDF files, built on Dask.

    python examples/dask/create.py SRC DST --parts N [--scheduler ADDRESS]

Each of the N parts is one task, ``atlas create SRC SCRATCH/part-I --part
I/N``, run on a Dask worker. The driver (this process) retries a failed part,
then runs ``atlas merge`` over the parts in order. Without ``--scheduler`` it
starts a LocalCluster on this machine. See examples/README.md.
"""

from __future__ import annotations

import contextlib
import os
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine_common  # after the sys.path line above


class DaskEngine:
    """Submit and wait on a ``distributed.Client``."""

    def __init__(self, client, plan):
        from distributed import as_completed

        self.client = client
        self.plan = plan
        self.finished = as_completed(with_results=False)
        self.run = uuid.uuid4().hex[:8]  # keys stay unique on a shared scheduler

    def submit(self, index, attempt):
        future = self.client.submit(
            engine_common.run_part,
            *self.plan.task_args(index),
            key=f"atlas-{self.run}-part-{index}-of-{self.plan.count}-try-{attempt}",
            pure=False,
        )
        self.finished.add(future)
        return future

    def wait_any(self):
        future = next(self.finished)
        try:
            return future, future.result()
        except Exception as exc:  # the task raised or its worker was lost
            return future, exc

    def cancel(self, futures):
        if futures:
            self.client.cancel(futures)


@contextlib.contextmanager
def open_engine(args, plan):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise engine_common.Failure(
            "dask.distributed is not installed: pip install -r examples/dask/requirements.txt"
        ) from None
    with contextlib.ExitStack() as stack:
        try:
            if args.scheduler:
                client = stack.enter_context(Client(args.scheduler, timeout=args.connect_timeout))
            else:
                # A task only waits on an `atlas` process, so workers as
                # threads of this one lose nothing, and start in 0.03 s, not
                # 0.4 s for processes (2 workers, one-off).
                cluster = stack.enter_context(
                    LocalCluster(
                        n_workers=args.workers or os.cpu_count() or 1,
                        threads_per_worker=1,
                        processes=False,
                        dashboard_address=None,
                    )
                )
                client = stack.enter_context(Client(cluster))
        except (OSError, TimeoutError) as exc:
            raise engine_common.Failure(f"cannot reach the Dask scheduler: {exc}") from None
        # Workers need not have examples/ on their path: the module travels with the job.
        client.upload_file(engine_common.__file__)
        engine_common.log(f"dask: {client.scheduler.address}, {len(client.scheduler_info()['workers'])} worker(s)")
        yield DaskEngine(client, plan)


def arguments():
    p = engine_common.parser("Build one ATLAS collection from N parts created on Dask workers.")
    p.prog = "dask/create.py"
    p.add_argument(
        "--scheduler", metavar="ADDRESS", help="Dask scheduler, e.g. tcp://host:8786 (default: a LocalCluster)"
    )
    p.add_argument(
        "--workers", type=int, default=None, metavar="W", help="LocalCluster workers (default: one per core)"
    )
    p.add_argument(
        "--connect-timeout", default="30s", metavar="T", help="how long to wait for the scheduler (default 30s)"
    )
    return p


if __name__ == "__main__":
    sys.exit(engine_common.main(None, arguments(), open_engine))
