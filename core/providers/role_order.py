"""Which server errors mean "the model's chat template refuses this order of roles", for the OpenAI wire.

Local servers (llama.cpp, vLLM, LM Studio) render the messages with the model's own chat template, and many
templates (Mistral's, Devstral's, Gemma's) raise when two messages of one role follow each other or a system
message is not the first: a project's rules file after the system prompt, or the task list after an observation,
is then refused on every call. The provider answers by joining runs of one role and asking again (openai.py).
"""

from __future__ import annotations

# The servers' own words, matched case-insensitively anywhere in the message.
ROLE_ORDER_PHRASES = (
    # Mistral, Llama 2, Gemma and many fine-tunes: raise_exception('Conversation roles must alternate
    # user/assistant/user/assistant/...'); Mistral v0.3 and Devstral: "After the optional system message,
    # conversation roles must alternate user and assistant roles except for tool calls and results". llama.cpp
    # answers it with HTTP 500 "Jinja Exception: …", vLLM and LM Studio with a 400.
    "roles must alternate",
    # Gemma 2's template: raise_exception('System role not supported').
    "system role not supported",
)


def refuses_role_order(message: str) -> bool:
    lowered = message.lower()
    return any(phrase in lowered for phrase in ROLE_ORDER_PHRASES)
