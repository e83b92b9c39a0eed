"""The runtime: tool calls in, validated HTTP requests out, results back to the model."""

__all__: list[str] = []
