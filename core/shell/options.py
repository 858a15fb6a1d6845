"""How a wrapper's words are read as getopt reads them (for core/shell/parse.py): which option takes the next
word, a long option's unique start, bundled short flags, settings (`-o NAME=VALUE`), tar's old style, xargs'
replace string, and the spellings of standard input as a file."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection

from contextual.core.shell.nodes import Word
from contextual.core.shell.wrapper import Wrapper
from contextual.core.shell.wrappers import STDIN_PATHS, WRAPPERS


def takes_next_word(word: str, option: str, attached: str, wrapper: Wrapper) -> bool:
    """Whether the option's value is the next word: `-u me`, and in a bundle of short flags (getopt) when the
    first letter that takes a value is the last one (`ssh -tp 22 host`; `-tp22` holds its value). A word with `=`
    holds its value, empty or not (`docker exec --user= c rm f`: the container is `c`)."""
    if long_option(option, wrapper) in wrapper.value_options:
        return "=" not in word
    if word.startswith("--") or not word.startswith("-") or option in (wrapper.flag_options or ()):
        return False                      # `mpiexec -disable-x CMD`: a long flag after one dash, not a bundle
    for position, letter in enumerate(word[1:], start=1):
        if "-" + letter in wrapper.value_options:
            return position == len(word) - 1
    return False


def known_option(word: str, wrapper: Wrapper) -> bool:
    """Whether a wrapper whose options are all listed (flag_options) knows this one: `--rm`, `--name=x`, `-it`,
    `-itv/a:/b` (getopt and pflag: the first letter taking a value takes the rest of the word)."""
    known = wrapper.value_options | (wrapper.flag_options or frozenset())
    if word.partition("=")[0] in known:
        return True                       # mpirun's `-np`, `-hostfile`: a long option after one dash
    if word.startswith("--"):
        return long_option(word.partition("=")[0], wrapper) in known
    for letter in word[1:]:
        if "-" + letter in wrapper.value_options:
            return True
        if "-" + letter not in known:
            return False
    return True


def may_take_next(word: Word) -> bool:
    """Whether an option word may take the next word as its value, whatever that is (getopt gives `tar --exclude
    --` the value `--`): each program's options with a value are not all in the table, so any option may."""
    return word is not None and word.startswith("-") and word != "--" and len(word) > 1 and "=" not in word


def short_flags_hold(word: str, wrapper: Wrapper) -> bool:
    """`bash -lc 'rm f'`: the script option among bundled short flags."""
    letter = (wrapper.script_option or "")[1:]
    return len(letter) == 1 and word.startswith("-") and not word.startswith("--") and letter in word[1:]


def is_script_option(word: str, wrapper: Wrapper) -> bool:
    """`-c`, `-lc` (bundled), `--command`, `--com=…` (a long form's unique start): the option whose value the
    wrapper runs as shell text."""
    return bool(wrapper.script_option) and (word == wrapper.script_option or short_flags_hold(word, wrapper)
                                            or long_option(word.partition("=")[0], wrapper) in wrapper.script_long)


def long_option(option: str, wrapper: Wrapper) -> str:
    """getopt_long takes a unique start of a long option: `--to-c` is `--to-command`."""
    if not option.startswith("--") or option in wrapper.value_options or option in wrapper.command_options:
        return option
    known = {o for o in wrapper.value_options | wrapper.command_options | wrapper.script_long if o.startswith("--")}
    starts = long_starts(option, known)
    return starts[0] if len(starts) == 1 else option


def long_starts(option: str, known: Collection[str]) -> list[str]:
    """The long options getopt_long may read `option` as: the one it names exactly, else each it is a start of
    (one: that option; more: an ambiguous start, refused by the program)."""
    if option in known:
        return [option]
    return sorted(o for o in known if o.startswith(option))


def setting_value(word: str, following: Word, wrapper: Wrapper) -> Word:
    """The setting a word gives (`-o NAME=VALUE`, `-oNAME=VALUE`, `-qo NAME=VALUE`, `--config NAME=VALUE`), None
    when it is only known when the line runs, "" when the word gives none."""
    option = wrapper.setting_option
    if not option:
        return ""
    if word.startswith("--config") and option == "-c":          # git clone --config NAME=VALUE
        return word.partition("=")[2] if "=" in word else following
    if word.startswith("--") or not word.startswith("-"):
        return ""
    for position, letter in enumerate(word[1:], start=1):
        if "-" + letter == option:
            return word[position + 1:] or following
        if "-" + letter in wrapper.value_options:
            return ""                     # an earlier letter takes the rest as its value
    return ""


def is_stdin_path(path: str) -> bool:
    """`-`, /dev/stdin and any spelling of a descriptor path (`/dev//stdin`, /proc/self/fd/0, /dev/fd/3):
    a script read from there is not a file on disk."""
    if path == "-":
        return True
    plain = posixpath.normpath(re.sub(r"/+", "/", path))
    # anything under /proc (`/proc/self/root/dev/stdin`) may be a descriptor: not a file read here either
    return plain in STDIN_PATHS or plain.startswith("/proc/") or \
        re.fullmatch(r"/dev/fd/\d+", plain) is not None


def old_style(words: list[Word], wrapper: Wrapper) -> list[Word]:
    """tar's first word as letters: each letter an option, the values of those taking one in the words after."""
    out: list[Word] = []
    following = iter(words[1:])
    for letter in words[0] or "":
        out.append("-" + letter)
        if "-" + letter in wrapper.value_options:
            out.append(next(following, None))
    return out + list(following)


def replace_string(words: list[Word]) -> str | None:
    """xargs' replace string, as its getopt reads its options (bundles, values skipped, the last one given wins):
    `-I STR`, `-ISTR`, `-0I{}`, `--replace=STR` (or a unique start: `--re=STR`), `{}` for `-i` and `--replace`
    alone; BSD's `-J STR`. None when none is given."""
    xargs = WRAPPERS["xargs"]
    found: str | None = None
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word is None or word in ("-", "--") or not word.startswith("-"):
            break
        if word.startswith("--"):
            name, equals, value = word.partition("=")
            if len(name) > 3 and "--replace".startswith(name):
                found = value if equals else "{}"
            elif not equals and long_option(name, xargs) in xargs.value_options:
                i += 1
            continue
        for at, letter in enumerate(word[1:], start=1):
            rest = word[at + 1:]
            if letter in "IJ":
                found, i = (rest, i) if rest else (words[i] if i < len(words) else None, i + 1)
                break
            if letter == "i":
                found = rest or "{}"
                break
            if letter in "el":             # an optional value, only in the word
                break
            if "-" + letter in xargs.value_options:
                i += 0 if rest else 1
                break
    return found


def replaced(words: list[Word], replace: str | None) -> list[Word]:
    """xargs -I STR: a word holding STR is made from what xargs reads, so only known then."""
    if not replace:
        return words
    return [None if w is None or replace in w else w for w in words]
