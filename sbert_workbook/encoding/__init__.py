"""encoding."""
