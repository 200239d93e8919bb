"""Loaded into a benchmarked ``parlour serve`` (``bench/protocol_load.py --gc-pauses``, which puts this
directory on the server's ``PYTHONPATH``): one line per cyclic-GC collection, ``generation
milliseconds collected unix-time``, appended to the file ``PARLOUR_BENCH_GC_LOG`` names. Nothing else."""

import gc
import os
import time

_path = os.environ.get("PARLOUR_BENCH_GC_LOG")
if _path:
    _log = open(_path, "a", buffering=1)  # noqa: SIM115 - open for the process's whole life
    _started = [0.0]

    def _record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            _started[0] = time.perf_counter()
            return
        ms = (time.perf_counter() - _started[0]) * 1000
        _log.write(f"{info['generation']} {ms:.3f} {info['collected']} {time.time():.3f}\n")

    gc.callbacks.append(_record)
