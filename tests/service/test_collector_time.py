"""The cyclic garbage collector's time in the API processes (service.runtime.metrics): what
`make bench-moves` reports as an API move's ``(gc)`` (issue 29: at 1,024 War of the Ring games
it was 0.9 ms of a move's 4.2, at 16 games 0.04)."""

from __future__ import annotations

import gc
import threading

from prometheus_client import REGISTRY

from service.runtime import metrics
from service.runtime.metrics import CollectorTime


def _counted(generation: int) -> float:
    return REGISTRY.get_sample_value("tablestream_gc_seconds_total",
                                     {"generation": str(generation)}) or 0.0


def test_a_collection_is_timed_by_its_generation_and_counted_when_flushed():
    timer = CollectorTime()
    timer.install()
    try:
        before = _counted(2)
        gc.collect()
        assert timer.pending[2] > 0
        assert _counted(2) == before  # not from inside the collection
        timer.flush()
        assert timer.pending == [0.0, 0.0, 0.0]
        assert _counted(2) > before
    finally:
        gc.callbacks.remove(timer._callback)


def test_installing_twice_times_each_collection_once():
    timer = CollectorTime()
    timer.install()
    timer.install()
    try:
        assert gc.callbacks.count(timer._callback) == 1
    finally:
        gc.callbacks.remove(timer._callback)


def test_a_collection_set_off_inside_a_metrics_lock_does_not_wait_for_it():
    # An allocation anywhere can set the collector off, also inside prometheus-client's own
    # lock: a callback that counted there would wait for that lock for ever.
    timer = CollectorTime()
    timer.install()
    lock = metrics.gc_seconds(0)._value._lock
    done = threading.Event()

    def collect():
        gc.collect(0)
        done.set()

    try:
        with lock:
            worker = threading.Thread(target=collect, daemon=True)
            worker.start()
            assert done.wait(5), "the collection waited for the metric's lock"
        timer.flush()
    finally:
        gc.callbacks.remove(timer._callback)
