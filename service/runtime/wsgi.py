"""The WSGI entry point gunicorn serves: ``service.runtime.wsgi:app``."""

import gc

from service.http import create_app

app = create_app()

# What is loaded by now (Flask, the schemas, the games' data: some 60,000 objects) lives as long
# as the process. Frozen, the cyclic collector no longer walks it on every full collection; and
# with a larger first generation, a request's objects are mostly freed before a collection
# promotes them, so full collections come rarely. At 128 games in flight the collector had
# doubled the CPU a move costs (issue 13, bench/throughput.py).
gc.freeze()
gc.set_threshold(10_000, 20, 20)
