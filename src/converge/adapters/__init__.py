"""Converge in the frameworks researchers already use (the ``rl`` extra: ``pip install 'converge-game[rl]'``).

* :mod:`converge.adapters.openspiel` — the OpenSpiel game ``python_converge`` (importing it registers
  the game), with chance nodes for the deals, observers, serialisation and ``resample_from_infostate``;
* :mod:`converge.adapters.pettingzoo` (also :mod:`converge.adapters.converge_v0`) — the PettingZoo AEC
  environment ``converge_v0``;
* :mod:`converge.adapters.gymnasium` — a single-agent Gymnasium environment against a chosen bot
  (registered as ``converge/Converge-v0``), and its vector entry point (``gymnasium.make_vec``), whose
  episode loop is :mod:`converge.adapters.core` (compiled with the engine);
* :mod:`converge.adapters.episodes` — what an episode is and what it pays (``reward``, ``episode``), for
  Gymnasium and PettingZoo alike; :mod:`converge.adapters.image` — ``rgb_array`` frames of the table;
  :mod:`converge.adapters.spaces` — every space, as the Markdown of ``docs/spaces.md``;
* :mod:`converge.adapters.encoding` — the tensors and strings all three build from
  ``Match.observation(player)``, and nothing else;
* :mod:`converge.adapters.resample` — whole histories consistent with one player's information;
* :mod:`converge.adapters.efg` — a small variant's whole tree as a Gambit text, for OpenSpiel's exact solvers;
  :mod:`converge.adapters.best_response` — the exact best response to a bot there: how exploitable it is.

This package imports no framework itself: import the module you need.
"""
