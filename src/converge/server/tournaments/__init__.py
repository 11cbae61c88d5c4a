"""Tournaments on the server: events players join (:mod:`.service`), run by a director (:mod:`.director`) that
starts them, pairs each round once the last one is over and makes its matches, on the rules of
:mod:`converge.tournament`. Each game's result is written in the transaction that ends its match."""
