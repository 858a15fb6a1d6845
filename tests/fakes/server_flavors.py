"""What real local servers add to the OpenAI wire: their model-info routes, tokenizer and error bodies.

A FakeLLMServer(kind="openai", flavor=Flavor(...)) answers, besides /v1/chat/completions:

* llama.cpp: ``GET /v1/models`` (data[].meta.n_ctx / n_ctx_train), ``GET /props``
  (default_generation_settings.n_ctx), ``POST /tokenize`` ({"tokens": [...]}), and over-window requests get
  llama.cpp's own 400 body (type ``exceed_context_size_error``, n_prompt_tokens, n_ctx);
* ollama: ``GET /v1/models`` (no window), ``POST /api/show`` (model_info.<arch>.context_length, parameters
  with num_ctx), ``GET /api/ps`` (the model with the window it runs with, ``n_ctx`` else num_ctx else Ollama's
  default 4,096, once a chat request has loaded it);
* vllm: ``GET /v1/models`` with data[].max_model_len;
* openrouter: ``GET /v1/models`` with data[].context_length.

The shapes follow each server's source (llama.cpp tools/server/server-context.cpp get_res_models/get_res_props,
server-task.cpp server_task_result_error; ollama api/types.go ShowResponse; vllm protocol.py ModelCard).
``token_ratio`` makes the server count prompts with "its own tokenizer": ceil(cl100k count × ratio), the
way a model's tokenizer disagrees with ours; usage, /tokenize and the window check all use that count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

FLAVORS = ("llamacpp", "ollama", "vllm", "openrouter")


@dataclass(frozen=True)
class Flavor:
    name: str
    n_ctx: int | None = None            # the window the server runs with (llama.cpp slot n_ctx, vLLM max_model_len)
    n_ctx_train: int = 131072           # what the model was trained for (llama.cpp meta, ollama model_info)
    num_ctx: int | None = None          # ollama: the num_ctx parameter of the model (None: not set)
    token_ratio: float = 1.0
    others: tuple[tuple[str, int], ...] = ()    # other models the server lists, each with its own window (vLLM, OpenRouter)

    def __post_init__(self) -> None:
        if self.name not in FLAVORS:
            raise ValueError(f"unknown flavor {self.name!r}: use one of {', '.join(FLAVORS)}")

    def count(self, cl100k_tokens: int) -> int:
        return math.ceil(cl100k_tokens * self.token_ratio)


OLLAMA_DEFAULT_NUM_CTX = 4096      # ollama/ollama docs/context-length.mdx: below 24 GiB of VRAM


def get_route(flavor: Flavor, path: str, model: str, loaded: bool = False) -> tuple[int, dict[str, Any]] | None:
    """(status, JSON payload) for a GET this flavor serves, or None (404). ``loaded``: a chat request was served
    (Ollama loads a model at its first request; /api/ps lists it from then on)."""
    path = path.split("?")[0]
    if path == "/api/ps" and flavor.name == "ollama":
        running = flavor.n_ctx or flavor.num_ctx or OLLAMA_DEFAULT_NUM_CTX
        entry = {"name": f"{model}:latest", "model": f"{model}:latest", "size": 1, "size_vram": 0,
                 "details": {"format": "gguf", "family": "gemma3"}, "context_length": running}
        return 200, {"models": [entry] if loaded else []}
    if path == "/v1/models":
        entry: dict[str, Any] = {"id": model, "object": "model", "created": 1700000000, "owned_by": flavor.name}
        if flavor.name == "llamacpp":
            entry["owned_by"] = "llamacpp"
            entry["meta"] = {"vocab_type": 1, "n_vocab": 262144, "n_ctx": flavor.n_ctx,
                             "n_ctx_train": flavor.n_ctx_train, "n_embd": 640, "n_params": 268098176}
        elif flavor.name == "vllm":
            entry.update(owned_by="vllm", root=model, max_model_len=flavor.n_ctx)
        elif flavor.name == "openrouter":
            entry.update(name=model, context_length=flavor.n_ctx)
        elif flavor.name == "ollama":
            entry["owned_by"] = "library"
        others = [{"id": name, "object": "model", "owned_by": flavor.name, "max_model_len": window,
                   "context_length": window} for name, window in flavor.others]
        return 200, {"object": "list", "data": [entry, *others]}
    if path == "/props" and flavor.name == "llamacpp":
        return 200, {"default_generation_settings": {"n_ctx": flavor.n_ctx, "params": {"n_predict": -1}},
                     "total_slots": 1, "model_alias": model, "model_path": f"/models/{model}.gguf",
                     "build_info": "b0000-fake"}
    return None


def post_route(flavor: Flavor, path: str, body: dict[str, Any], count_text) -> tuple[int, dict[str, Any]] | None:
    """(status, JSON payload) for a POST other than chat completions this flavor serves, or None."""
    path = path.split("?")[0]
    if path == "/tokenize" and flavor.name == "llamacpp":
        n = flavor.count(count_text(str(body.get("content", ""))))
        return 200, {"tokens": list(range(1000, 1000 + n))}
    if path == "/api/show" and flavor.name == "ollama":
        parameters = "stop \"<end_of_turn>\"\ntemperature 1"
        if flavor.num_ctx is not None:
            parameters += f"\nnum_ctx {flavor.num_ctx}"
        return 200, {"modelfile": "FROM fake", "parameters": parameters, "template": "{{ .Prompt }}",
                     "details": {"format": "gguf", "family": "gemma3", "parameter_size": "268M"},
                     "model_info": {"general.architecture": "gemma3",
                                    "gemma3.context_length": flavor.n_ctx_train,
                                    "gemma3.embedding_length": 640}}
    return None


def vllm_over_window(tokens: int, max_tokens: Any, window: int) -> str | None:
    """vLLM's refusal of a prompt whose max_tokens does not fit beside it (it checks prompt + max_tokens against
    max_model_len; vllm/entrypoints/openai/serving_engine.py, _validate_input)."""
    if not isinstance(max_tokens, int) or tokens + max_tokens <= window:
        return None
    return (f"This model's maximum context length is {window} tokens. However, you requested {tokens + max_tokens} "
            f"tokens ({tokens} in the messages, {max_tokens} in the completion). Please reduce the length of the "
            f"messages or completion.")


def context_error_body(flavor: Flavor, tokens: int, limit: int) -> dict[str, Any] | None:
    """llama.cpp's real over-window answer (HTTP 400); None for flavors that answer like OpenAI."""
    if flavor.name != "llamacpp":
        return None
    return {"error": {"code": 400, "message": f"request ({tokens} tokens) exceeds the available context size "
                                               f"({limit} tokens), try increasing it",
                      "type": "exceed_context_size_error", "n_prompt_tokens": tokens, "n_ctx": limit}}
