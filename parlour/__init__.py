"""Parlour: a self-hosted, server-authoritative multiplayer card and board game server."""

__version__ = "0.1.0"
