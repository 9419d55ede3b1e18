"""hippo-tui: a terminal medical assistant whose citations can be checked."""

__version__ = "0.1.0"
