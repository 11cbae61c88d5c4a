"""PettingZoo-style entry point: ``from converge.adapters import converge_v0; env = converge_v0.env()``."""

from converge.adapters.pettingzoo import ConvergeAECEnv, env, raw_env

__all__ = ["ConvergeAECEnv", "env", "raw_env"]
