"""Programs that exercise the site from outside: the load generator, the fuzzer, the benches.

Nothing of the site imports them; the management commands under ``tools/management`` are thin
doors to them (``manage.py loadtest``, ``fuzz``, ``bench_move``, ``bench_socket``,
``reply_latency``).
"""
