"""What operators watch: the health and readiness checks (:mod:`~converge.server.ops.readiness`), the background
jobs' health (:mod:`~converge.server.ops.jobs`) and the Prometheus metrics (:mod:`~converge.server.ops.metrics`),
which the server's units feed through a :class:`~converge.server.ops.meter.Meter`. (Nothing is imported here: the
storage reaches the meter without pulling in the metrics library.)"""
