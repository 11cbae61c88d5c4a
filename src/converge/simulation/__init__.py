"""Simulation: bot-vs-bot series with confidence intervals, and the engine benchmark."""

from converge.simulation.runner import SeriesResult, play_match, run_series, series_plan, wilson_interval

__all__ = ["SeriesResult", "play_match", "run_series", "series_plan", "wilson_interval"]
