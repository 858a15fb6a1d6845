"""The files a Bash line reads and writes, as its words say, for the Read and Edit/Write deny rules
(core/permission_rules.py): what it names (reads), what it writes (writes) with its table of programs
(write_programs), one program's words (write_words), git's sub-commands (git_writes) and what git's state says
they write (git_state), and a diff's files for `patch`, `git apply`, `git am` (diffs). The line itself is read
by core/shell/."""
