"""Which lines define something, in the languages agents read (core/context/definitions.py): the stored forms keep
a view's definitions first, so a later `sed -n '282,449p'` finds where the function it saw starts."""

import pytest

from contextual.core.context import digest as dg
from contextual.core.context.definitions import is_definition
from contextual.core.context.turn_forms import TURN

DEFINITIONS = [
    "static ast_t* make_pattern_type(pass_opt_t* opt, ast_t* pattern)",          # C, from OpenHands' public example
    "   282\tstatic ast_t* make_pattern_type(pass_opt_t* opt, ast_t* pattern)",   # the same in a `cat -n` view
    "static bool case_expr_matches_type_alone(pass_opt_t* opt,",                  # its parameters go on below
    "int main(int argc, char** argv) {", "int main(void)",
    "    public static void main(String[] args) {", "public class CartService {",
    "std::vector<int> Foo::bar(const std::string& s) const {", "void Widget::draw() const", "    void push(int x) {",
    "pub fn total(cart: &Cart) -> f64 {", "pub(crate) struct Cart {", "impl<T> Display for Wrapper<T> {", "mod tests {",
    "trait Shape {", "export default async function handler(req, res) {", "export const total = (cart) => {",
    "const load = async (id: string): Promise<Cart> => {", "func (s *Server) Run(ctx context.Context) error {",
    "func main() {", "  12\u2192def discount(cart):", "class Cart(Base):", "@pytest.fixture",
    "    override fun onCreate(savedInstanceState: Bundle?) {", "object Main extends App {", "defmodule Cart do",
    "record Point(int x, int y) {", "namespace app {",
]

NOT_DEFINITIONS = [
    "    return foo(x)", "    if (x) {", "    foo(x);", "  ast_t* type = ast_type(case_expr);", "types = [1, 2]",
    "enumerate(items)", "function(x)", "module.exports = x", "    pony_assert(ast_id(eq_def) == TK_FUN);",
    "Traceback (most recent call last):", "    else if (y) {", "    result = compute(x)", "    print(foo)",
    "    self.foo(x)", "    raise ValueError(x)", "    elif foo(x):", "    lambda x: foo(x)", "} else {",
    "    for (int i = 0; i < n; i++) {", "E   assert foo(1) == 2", "    return make_pattern_type(opt, pattern);",
    # program output and prose that the shape of a C function head used to take (tune/'s outputs)
    "Result2 shape: (1, 6)", "hash randomization: on (PYTHONHASHSEED=1882467151)", "Running partitions(6, k=2)",
    "FAIL: test_fk_reuse (queries.tests.JoinReuseTest)", "Calling get_format(None)", "object or None",
    "Create a compiled template object with a template_string, then call render()", "y*CreateBoson(x)",
    "INTERNALERROR>     return cls(**reportdict)", "impl details are hidden", "fun stuff",
]


@pytest.mark.parametrize("line", DEFINITIONS)
def test_a_definition_in_any_of_the_languages_agents_read(line: str) -> None:
    assert is_definition(line)


@pytest.mark.parametrize("line", NOT_DEFINITIONS)
def test_a_call_a_statement_or_prose_is_not_a_definition(line: str) -> None:
    assert not is_definition(line)


def test_a_c_file_view_keeps_its_function_heads_with_their_numbers() -> None:
    """A long `cat -n` of a C file whose every line shows a name seen before (a search had listed the functions):
    the form keeps the heads of its functions, numbered, where it used to drop them (C has no `def`)."""
    heads = [f"static ast_t* make_{i}(pass_opt_t* opt, ast_t* pattern)" for i in range(6)]
    body = []
    for head in heads:
        body += [head, "{", "  ast_t* type = ast_type(pattern);", "  return type;", "}", ""]
        body += ["  // filler that repeats what is known" for _ in range(90)]
    view = "\n".join(f"{n:6d}\t{line}" for n, line in enumerate(body, 1))
    seen = {"ast_t", "ast_type", "pattern", "type", "return", "filler", "that", "repeats", "what", "known",
            "pass_opt_t", "opt"} | {f"make_{i}" for i in range(6)}
    form = dg.digest("cat -n match.c", view, TURN, seen=seen)
    kept = [line.split("\t", 1)[1] for line in form.splitlines() if "\t" in line]
    assert [line for line in kept if line.startswith("static")] == heads
