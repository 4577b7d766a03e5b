"""The project's benchmarks: `make bench`, `make bench-against` and `make loadtest`.

Not part of the installed package (the wheel holds generator, companion and session_service);
run from a checkout, as ``python -m benchmarks.<module>``. Each benchmark is an entry module
beside the helpers it shares with the others and with the tests:

- ``bench``: `make bench` (the builds at each size; ``--peer``, ``--sale``, ``--resume``,
  ``--hostile`` for one kind only), with ``build`` (one measured build, its own process),
  ``procs`` (the companion as a process, measured runs), ``report``, ``peer`` and ``export``
  (beside Hugo), ``sale`` with ``sale_record``, ``sale_replay`` and ``sale_stack``, ``resume``,
  ``hostile``;
- ``against``: `make bench-against`, this tree's builds beside another revision's;
- ``loadtest``: `make loadtest`, with ``loadtest_bare`` (the baseline endpoint),
  ``loadtest_cpu``, ``loadtest_http`` (the load generator's client) and ``loadtest_paced``;
- shared: ``processes`` (`storefront` commands as processes on free ports, also the tests'),
  ``nginx`` (the shipped server block served by a real nginx, also the tests'), ``doc`` (each
  benchmark's section of docs/benchmarks.md).

A new benchmark is a module here with a ``main``, a section title, and a call to
``doc.write_section`` with what it printed.
"""
