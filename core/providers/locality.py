"""Where a server runs: on this machine or its network (llama.cpp, Ollama, vLLM), or a hosted API. A local model
reads the prompt on the user's own hardware, which sets how long it may take to say its window or begin a reply."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def on_this_network(base_url: str) -> bool:
    """A server on this machine or the local network (where llama.cpp, Ollama and vLLM run), not a hosted API."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "localhost" or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local
