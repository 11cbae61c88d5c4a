"""The ``converge`` command line (see :mod:`converge.cli.main`)."""
