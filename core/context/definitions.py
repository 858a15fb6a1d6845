"""Which line of a file defines something, in the languages agents read: the one rule for every stored form.

A view's definitions are where a later step looks (`sed -n '282,449p'` after seeing where a function starts), so
the forms keep them first. A keyword alone used to decide, which found Python's and Go's plain definitions but not
Rust's `pub fn`, Java's `public class`, TypeScript's `export function`, a Go method (`func (s *Server) Run()`) or
any C, C++ or Java function, whose definition is a return type, a name and its parameters.
"""

from __future__ import annotations

import re

# A view's own line number before the text: `cat -n`/`nl` (tab), grep -n (colon), Claude Code's Read (arrow), and
# the indentation. Possessive, so a line of 10,000 blanks costs one pass, not one per way to share them out.
_LINE_NUMBER = r"^\s*+(?:\d++(?:\t|\u2192|:|-|\s)\s*+)?"

_MODIFIERS = (r"(?:(?:export|default|declare|pub(?:\([\w:]+\))?|public|private|protected|internal|static|final|"
              r"abstract|sealed|open|override|virtual|async|unsafe|extern(?:\s+\"C\")?|inline|const|data|suspend|"
              r"partial|readonly)\s+)*")
# The keyword as a word, then not what makes it a use (`types = …`, `type(x)`, `function(x)`, `class.attr`).
_KEYWORD_DEF = re.compile(_LINE_NUMBER + _MODIFIERS + r"(?:async\s+def|def|class|function\*?|func|fn|interface|"
                          r"struct|enum|type|module)\b(?!\s*[=(.,:)\]])")
# Keywords that are English words too (`object or None`, `impl details`): only with a name and what follows one.
_NAMED_DEF = re.compile(_LINE_NUMBER + _MODIFIERS + r"(?:impl|trait|union|object|record|actor|extension|"
                        r"protocol|namespace|mod|fun|defp|defmodule|defmacro)\b\s*(?:<[^>]*>\s*)?[A-Za-z_][\w.:]*"
                        r"\s*(?:<[^>]*>\s*)?(?:[{(:]|(?:extends|for|where|do)\b)")
_GO_METHOD = re.compile(_LINE_NUMBER + r"func\s*\([^)]*\)\s*[A-Za-z_]\w*\s*[(\[]")
_DECORATOR = re.compile(_LINE_NUMBER + r"@\w")
# `const total = (cart) => {`, `export const load = async function (`
_BOUND_FUNCTION = re.compile(_LINE_NUMBER + r"(?:export\s+)?(?:const|let|var)\s+[A-Za-z_$][\w$]*\s*(?::[^=]+)?=\s*"
                             r"(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)")
# C, C++, Java, C#: up to four words of modifiers and type (with `*`, `&`, `::`, templates), the name right before
# its parameter list, and parameters that are declarations (`int n`, `char* s`, none), the line ending where the
# list or the body goes on. A call (`partitions(6, k=2)`, `get_format(None)`) passes values, not declarations.
_NOT_A_TYPE = (r"return|else|if|while|for|foreach|switch|case|do|throw|throws|new|delete|sizeof|goto|await|yield|"
               r"print|echo|assert|raise|not|and|or|in|is|lambda|typedef|using|co_return|co_await|defer|go")
_TYPED_HEAD = re.compile(_LINE_NUMBER + rf"(?!(?:{_NOT_A_TYPE})\b)(?:[A-Za-z_][\w<>,]*(?:::[\w<>,]+)*"
                         r"(?:\s*[*&]+\s*|\s+)){1,4}~?[A-Za-z_]\w*(?:::~?\w+)*\((?P<params>[^;()]*)"
                         r"(?:\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:throws\s+[\w.,\s]+)?\{?|,)\s*$")
_IMPORT = re.compile(_LINE_NUMBER + r"(?:from\s+\S+\s+import|import\s|#include|require\(|use\s)")
_DECLARED = re.compile(r"[\w:<>\[\]*&\s]+")
_WORD = re.compile(r"[A-Za-z_]\w*")


def _declares(parameter: str) -> bool:
    """`int n`, `char* s`, `const std::string& s`, `int x = 0`, `void`, `...`: a type and a name, not a value."""
    declared = parameter.split("=", 1)[0].strip()
    if declared in ("void", "..."):
        return True
    return bool(_DECLARED.fullmatch(declared)) and len(_WORD.findall(declared)) >= 2


def _typed_head(line: str) -> bool:
    match = _TYPED_HEAD.match(line)
    if not match:
        return False
    params = match.group("params").strip()
    return not params or all(_declares(part) for part in params.split(",") if part.strip())


def is_definition(line: str) -> bool:
    """A line that defines something: a keyword (`def`, `pub fn`, `export class`…), a Go method, a function bound
    to a name, a typed C-family function head, or a decorator; numbered or not."""
    return bool(_KEYWORD_DEF.match(line) or _NAMED_DEF.match(line) or _GO_METHOD.match(line)
                or _DECORATOR.match(line) or _BOUND_FUNCTION.match(line) or _typed_head(line))


def is_import(line: str) -> bool:
    """A line that brings in another module (`import`, `from … import`, `#include`, `require(`, `use`)."""
    return bool(_IMPORT.match(line))
