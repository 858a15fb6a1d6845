"""The engine's parts, composed by `core.agent.Engine` (a thin façade): each owns its own fields.

- `settings.Settings` — the config in force and the providers (its methods that change them: ARCHITECTURE.md);
- `prompt_state.PromptState` — history as stored, the builder, the turn in progress, usage, the view and trigger;
- `recorder.Recorder` — appends to history and the session, the messages not yet announced, notices owed;
- `toolbox.Toolbox` — the tools (built-in and MCP), their ToolContext and L1;
- `permission_gate.PermissionGate` — asks, records and remembers permission answers;
- `controls.ContextControls` — the user's hands on the context (issue 19): pins, reminders, the calls sent;
- `compactor.Compactor` — plan → summarise → review → apply, and the compaction log;
- `turn.TurnLoop` — one ReAct turn, composing its own parts: `turn_input.TurnInput` (the input up to its
  recording), `model_call.ModelCall` (one call streamed), `tool_step.ToolStep` (a reply acted on and its result
  recorded), `turn_ends.TurnEnds` (a turn without an answer recorded), `fitted.Fitted` (the fitting summed up).
"""
