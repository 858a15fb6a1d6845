"""Contextual's engine: everything that runs without a screen."""

__version__ = "0.1.0"
