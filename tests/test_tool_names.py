"""core/tools/names.py lists the tools' names without loading them; here they are held to the tools' own."""

from contextual.core.mcp.search import ToolSearch
from contextual.core.tools import names
from contextual.core.tools.registry import default_tools


def test_the_light_list_of_names_is_the_registry_and_tool_search_as_they_name_themselves():
    assert names.BUILTIN == tuple(default_tools())
    assert names.TOOL_SEARCH == ToolSearch.name


def test_a_name_in_other_letters_is_read_as_the_tool_meant_and_an_unknown_name_as_none():
    assert names.named_otherwise("bash") == "Bash" and names.named_otherwise("TODOWRITE") == "TodoWrite"
    assert names.named_otherwise("Bash") is None and names.named_otherwise("WebFetch") is None
    assert names.named_otherwise("toolsearch") == "ToolSearch"
