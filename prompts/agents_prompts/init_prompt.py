"""The turn /init runs (issue 29/30): the agent reads the project and writes or updates an instruction file."""

INIT_FILES = ("AGENTS.md", "CODE_LAW.md")


def init_prompt(file_name: str, exists: bool, draft: str) -> str:
    """The user message of /init's turn. `draft` is a starter written from a quick look at the project (language,
    test command, layout): a head start the agent checks and improves, never pastes blindly."""
    keep = (f"{file_name} exists: read it first and KEEP everything in it — the user's rules stay word for word; add "
            "what is missing and correct only what is now wrong, with Edit, not a rewrite."
            if exists else f"{file_name} does not exist yet: create it with Write.")
    return (f"/init: write the project's instruction file {file_name}, which every prompt starts with.\n\n"
            "Read the project first (its layout, README, build and package files, test setup, CI) with the read-only "
            "tools. Then record, briefly and concretely: what the project is; how to build, run, test and lint it "
            "(exact commands); the layout (where things live); the conventions the code follows (naming, style, "
            "errors, tests); anything a newcomer gets wrong. No generic advice; nothing you did not see in the "
            f"project.\n\n{keep}\n\nA starter from a quick look, to check and improve:\n\n{draft.strip()}\n")
