"""toolcat: a configuration-driven catalog of HTTP tools for LLM function calling."""

__version__ = "0.1.0"
__all__ = ["__version__"]
