"""HTTP and websocket front-ends: the ASGI app, the native protocol, and (later) protocol adapters."""
