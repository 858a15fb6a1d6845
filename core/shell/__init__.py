"""Reading a Bash line as bash would run it, for the permission rules (core/permission_rules.py) and the digests
(core/context/digest.py): the tree-sitter parse and its walk (parse, walk, nodes), the simple commands it runs
(command), the programs that run another command (wrapper, wrappers, launchers, containers, unwrap,
wrapper_options, options), what a program's own language runs (languages, said, awk_program, sed_script, vim_words,
vim_commands), what the shell knows only when it runs (variables, aliases, latent, findings), and which
spellings of a program's options are one option (option_spellings)."""
