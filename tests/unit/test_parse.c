/* test_parse.c - the Python lexer and parser: trees (as py_dump
 * S-expressions worked out by hand), locations, error messages, and no
 * crash on any prefix or mutation of a realistic TileLang file. */
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyast.h"

static char result[16384];

/* Parse src[0..len): the S-expression of the module, or the first
 * diagnostic ("t.py:L:C: error: msg") when parsing fails.  Sets *nerr. */
static const char *parse_n(const char *src, size_t len, int *nerr)
{
	tlc_context *ctx = tlc_context_new();
	tlc_buf diag, out;
	tlc_buf_init(&diag);
	tlc_buf_init(&out);
	tlc_diag_capture(ctx, &diag);
	tlc_diag_set_caret(ctx, false);
	uint32_t file = tlc_add_source(ctx, "t.py", src, len);
	tlc_arena *arena = tlc_arena_new();
	py_node *m = py_parse(ctx, arena, file, src, len);
	if (m)
		py_dump(&out, m);
	const char *text = m ? tlc_buf_str(&out) : tlc_buf_str(&diag);
	snprintf(result, sizeof(result), "%s", text);
	size_t n = strlen(result);
	if (n && result[n - 1] == '\n')
		result[n - 1] = 0;
	if (nerr)
		*nerr = tlc_error_count(ctx);
	else if (m && tlc_error_count(ctx))
		snprintf(result, sizeof(result), "tree AND errors: %s", tlc_buf_str(&diag));
	tlc_arena_free(arena);
	tlc_buf_free(&diag);
	tlc_buf_free(&out);
	tlc_context_free(ctx);
	return result;
}

static const char *parse(const char *src) { return parse_n(src, strlen(src), NULL); }

/* The dump of a one-expression module, without "(module (expr " and "))". */
static const char *expr(const char *src)
{
	const char *r = parse(src);
	size_t n = strlen(r);
	if (!strncmp(r, "(module (expr ", 14) && n > 16) {
		memmove(result, result + 14, n - 14);
		result[n - 16] = 0;
	}
	return result;
}

static void test_expressions(void)
{
	is_str(expr("a + b * c"), "(+ a (* b c))", "* binds tighter than +");
	is_str(expr("-x ** 2"), "(- (** x 2))", "** binds tighter than unary minus on its left");
	is_str(expr("2 ** -1"), "(** 2 (- 1))", "unary minus on the right of **");
	is_str(expr("a ** b ** c"), "(** a (** b c))", "** is right-associative");
	is_str(expr("a - b - c"), "(- (- a b) c)", "- is left-associative");
	is_str(expr("a // b % c @ d"), "(@ (% (// a b) c) d)", "term operators");
	is_str(expr("a | b ^ c & d << 1 + 2"), "(| a (^ b (& c (<< d (+ 1 2)))))", "bitwise levels");
	is_str(expr("x >> 1 << 2"), "(<< (>> x 1) 2)", "shifts");
	is_str(expr("not a == b"), "(not (cmp a == b))", "not wraps a comparison");
	is_str(expr("a < b <= c != d"), "(cmp a < b <= c != d)", "chained comparison");
	is_str(expr("x not in y is not z"), "(cmp x not-in y is-not z)", "not in / is not");
	is_str(expr("a in b is c > d >= e == f"), "(cmp a in b is c > d >= e == f)", "all comparison ops");
	is_str(expr("a or b and not c"), "(or a (and b (not c)))", "boolean precedence");
	is_str(expr("a or b or c"), "(or a b c)", "flattened or");
	is_str(expr("x if c else y if d else z"), "(ifexp c x (ifexp d y z))", "nested ternary");
	is_str(expr("lambda x, y=2: x * y"), "(lambda (x (y = 2)) (* x y))", "lambda");
	is_str(expr("lambda: 0"), "(lambda () 0)", "lambda without parameters");
	is_str(expr("lambda *a, **k: a"), "(lambda (*a **k) a)", "lambda star parameters");
	is_str(expr("~a.b[c](d)"), "(~ (call (sub (. a b) c) d))", "primary chain under ~");
	is_str(expr("+x - -y"), "(- (+ x) (- y))", "unary plus and minus");
	is_str(expr("await f()"), "(await (call f))", "await");
	is_str(expr("A[bz, by*bm:(by+1)*bm, :]"),
	       "(sub A (tuple bz (slice (* by bm) (* (+ by 1) bm) _) (slice _ _ _)))", "TileLang slice region");
	is_str(expr("x[::2]"), "(sub x (slice _ _ 2))", "step-only slice");
	is_str(expr("x[1:]"), "(sub x (slice 1 _ _))", "open slice");
	is_str(expr("x[a:b:]"), "(sub x (slice a b _))", "slice with empty step");
	is_str(expr("x[a,]"), "(sub x (tuple a))", "one-element tuple index");
	is_str(expr("T.gemm(A_s, B_s, C_l, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)"),
	       "(call (. T gemm) A_s B_s C_l (kw transpose_B True) (kw policy (. (. T GemmWarpPolicy) FullRow)))",
	       "call with keywords");
	is_str(expr("f(*args, **kw)"), "(call f (* args) (** kw))", "star arguments");
	is_str(expr("f(a, *b, c=1, *d, **e)"), "(call f a (* b) (* d) (kw c 1) (** e))", "mixed arguments");
	is_str(expr("f(a,)"), "(call f a)", "trailing comma in call");
	is_str(expr("sum(x for x in y if x)"), "(call sum (genexp x (for x y (if x))))", "bare generator argument");
	is_str(expr("(1, 2.5, 'that', None, True, False, ...)"), "(tuple 1 2.5 \"that\" None True False ...)",
	       "atoms in a tuple");
	is_str(expr("()"), "(tuple)", "empty tuple");
	is_str(expr("(x)"), "x", "parenthesised name is the name");
	is_str(expr("(x,)"), "(tuple x)", "one-element tuple");
	is_str(expr("[1, *a]"), "(list 1 (* a))", "list with starred");
	is_str(expr("[]"), "(list)", "empty list");
	is_str(expr("{'a': 1, **d}"), "(dict (\"a\" 1) (** d))", "dict with unpacking");
	is_str(expr("{}"), "(dict)", "empty dict");
	is_str(expr("{1, 2,}"), "(set 1 2)", "set");
	is_str(expr("[i * j for i in range(4) for j in range(i) if j if i]"),
	       "(listcomp (* i j) (for i (call range 4)) (for j (call range i) (if j) (if i)))", "nested list comprehension");
	is_str(expr("{k: v for k, v in d.items()}"), "(dictcomp k v (for (tuple k v) (call (. d items))))", "dict comprehension");
	is_str(expr("{x for x in s}"), "(setcomp x (for x s))", "set comprehension");
	is_str(expr("(x for x in a if x > 0 or x < -1)"), "(genexp x (for x a (if (or (cmp x > 0) (cmp x < (- 1))))))",
	       "generator expression");
	is_str(expr("(y := 5)"), "(:= y 5)", "walrus");
	is_str(expr("0x1F + 0o17 + 0b101 + 1_000 + 0"), "(+ (+ (+ (+ 31 15) 5) 1000) 0)", "integer bases and underscores");
	is_str(expr("(1e-6, .5, 5., 1.5, 2E3, 1_0.2_5)"), "(tuple 1e-06 0.5 5.0 1.5 2000.0 10.25)", "float forms");
	is_str(expr("9223372036854775807"), "9223372036854775807", "largest int64");
	is_str(expr("'a' \"b\" '''c'''"), "\"abc\"", "adjacent strings concatenate");
	is_str(expr("r'\\n' + '\\n\\t\\x41\\u00e9\\101\\q'"), "(+ \"\\\\n\" \"\\n\\x09A\\xc3\\xa9A\\\\q\")",
	       "escapes decoded, raw kept, unknown escape kept");
	is_str(expr("Rb'\\d' + B'\\x41'"), "(+ \"\\\\d\" \"A\")", "bytes prefixes in any case");
	is_str(expr("f\"{x:>{w}} {{y}} {d['k']}\""), "f\"{x:>{w}} {{y}} {d['k']}\"", "f-string kept raw");
	is_str(expr("f'{a}' '{b}'"), "f\"{a}{{b}}\"", "f-string concatenated with a plain string");
	is_str(expr("rf'{a}\\n' FR'x'"), "f\"{a}\\\\nx\"", "rf and FR prefixes");
	is_str(expr("'''line1\nline2'''"), "\"line1\\nline2\"", "triple-quoted string spans lines");
	is_str(expr("'a\\\nb'"), "\"ab\"", "backslash-newline inside a string");
	is_str(expr("T.Layout((M, N), lambda i, j: (i, j))"), "(call (. T Layout) (tuple M N) (lambda (i j) (tuple i j)))",
	       "lambda argument");
	is_str(expr("a if b else lambda: c"), "(ifexp b a (lambda () c))", "lambda in else branch");
	is_str(expr("x.y.z"), "(. (. x y) z)", "attribute chain");
	is_str(expr("f\"{x[\"a\"]} {y:{'>'}8}\""), "f\"{x[\\\"a\\\"]} {y:{'>'}8}\"",
	       "f-string with the same quote nested in a replacement field (3.12)");
	is_str(expr("'\\N{DASH}'"), "\"\\\\N{DASH}\"", "\\N{...} escapes are kept as written");
	is_str(expr("a[i](j)[k:l, ...]"), "(sub (call (sub a i) j) (tuple (slice k l _) ...))", "mixed primaries");
}

static void test_statements(void)
{
	is_str(parse("a = b = c\n"), "(module (= a b c))", "assignment chain");
	is_str(parse("a, *b = c\n"), "(module (= (tuple a (* b)) c))", "starred tuple target");
	is_str(parse("(a, b), [c, d] = e\n"), "(module (= (tuple (tuple a b) (list c d)) e))", "nested targets");
	is_str(parse("x = 1,\n"), "(module (= x (tuple 1)))", "trailing comma makes a tuple");
	is_str(parse("A: T.Tensor((M, K), dtype)\n"), "(module (ann A (call (. T Tensor) (tuple M K) dtype)))",
	       "annotation without value");
	is_str(parse("x: int = 5\n"), "(module (ann x int 5))", "annotation with value");
	is_str(parse("self.x: int = 5\n"), "(module (ann (. self x) int 5))", "annotated attribute");
	is_str(parse("x += 1; y **= 2; z //= 3; w @= v; u >>= 1; t ^= s\n"),
	       "(module (+= x 1) (**= y 2) (//= z 3) (@= w v) (>>= u 1) (^= t s))", "augmented assignments");
	is_str(parse("a[i] |= 1; b.c <<= 2; d &= 3; e %= 4; f -= 5; g *= 6; h /= 7\n"),
	       "(module (|= (sub a i) 1) (<<= (. b c) 2) (&= d 3) (%= e 4) (-= f 5) (*= g 6) (/= h 7))",
	       "more augmented assignments");
	is_str(parse("@tilelang.jit(out_idx=[-1])\n@other\ndef f(a, b: int = 2, *args, c, d=1, **kw) -> int:\n    return a\n"),
	       "(module (def f (a (b : int = 2) *args kw:c (kw:d = 1) **kw) (-> int) "
	       "(@ (call (. tilelang jit) (kw out_idx (list (- 1)))) other) (body (return a))))",
	       "decorated def with every kind of parameter");
	is_str(parse("def f(a, *, b, c=2): pass\n"), "(module (def f (a kw:b (kw:c = 2)) (body (pass))))", "bare * separator");
	is_str(parse("def f(a, /, b): pass\n"), "(module (def f (a b) (body (pass))))", "positional-only marker");
	is_str(parse("def f(\n    a,\n    b,\n):\n    pass\n"), "(module (def f (a b) (body (pass))))", "multi-line parameters");
	is_str(parse("async def f():\n    await g()\n"), "(module (def f () (body (expr (await (call g))))))", "async def");
	is_str(parse("with T.Kernel(T.ceildiv(N, bn), threads=128) as (bx, by):\n    pass\n"),
	       "(module (with (as (call (. T Kernel) (call (. T ceildiv) N bn) (kw threads 128)) (tuple bx by)) (body (pass))))",
	       "with-as tuple");
	is_str(parse("with a as b, c:\n    pass\n"), "(module (with (as a b) c (body (pass))))", "with: 'as b, c' is two items");
	is_str(parse("with (open(x) as f, g as h,):\n    pass\n"), "(module (with (as (call open x) f) (as g h) (body (pass))))",
	       "parenthesised with items");
	is_str(parse("with (a, b) as c:\n    pass\n"), "(module (with (as (tuple a b) c) (body (pass))))",
	       "with on a parenthesised expression");
	is_str(parse("if a:\n    x = 1\nelif b:\n    pass\nelse:\n    y = 2\n"),
	       "(module (if a (body (= x 1)) (else (if b (body (pass)) (else (= y 2))))))", "if/elif/else");
	is_str(parse("for k in T.Pipelined(K // bk, num_stages=3):\n    T.copy(A[k], As)\nelse:\n    pass\n"),
	       "(module (for k (call (. T Pipelined) (// K bk) (kw num_stages 3)) (body (expr (call (. T copy) (sub A k) As))) (else (pass))))",
	       "for/else");
	is_str(parse("for i, (j, k) in x, y:\n    pass\n"), "(module (for (tuple i (tuple j k)) (tuple x y) (body (pass))))",
	       "for with tuple targets and iterables");
	is_str(parse("while (n := n - 1) > 0:\n    continue\nelse:\n    break\n"),
	       "(module (while (cmp (:= n (- n 1)) > 0) (body (continue)) (else (break))))", "while/else with walrus");
	is_str(parse("try:\n    import torch\nexcept ImportError as e:\n    raise RuntimeError('x') from e\n"
	             "except (A, B):\n    raise\nexcept:\n    pass\nelse:\n    pass\nfinally:\n    del a, b[0]\n"),
	       "(module (try (body (import torch)) (except ImportError (as e) (body (raise (call RuntimeError \"x\") (from e)))) "
	       "(except (tuple A B) (body (raise))) (except (body (pass))) (else (pass)) (finally (del a (sub b 0)))))",
	       "try/except/else/finally");
	is_str(parse("try:\n    pass\nfinally:\n    pass\n"), "(module (try (body (pass)) (finally (pass))))", "try/finally");
	is_str(parse("import a.b as c, d\nfrom ..x.y import (p, q as r,)\nfrom . import *\nfrom os import path\n"),
	       "(module (import (as a.b c) d) (from ..x.y p (as q r)) (from . *) (from os path))", "imports");
	is_str(parse("class A(B, metaclass=M):\n    x = 1\n    def f(self): return self.x\n"),
	       "(module (class A (bases B (kw metaclass M)) (body (= x 1) (def f (self) (body (return (. self x)))))))",
	       "class with bases and a method");
	is_str(parse("@dataclass\nclass C: pass\n"), "(module (class C (@ dataclass) (body (pass))))", "decorated class");
	is_str(parse("def f():\n    global g, h\n    nonlocal k\n    assert x, 'm'\n    assert y\n    return a, *b\n"),
	       "(module (def f () (body (global g h) (nonlocal k) (assert x \"m\") (assert y) (return (tuple a (* b))))))",
	       "global, nonlocal, assert, return tuple");
	is_str(parse("def g():\n    x = yield 1\n    yield from y\n    yield\n"),
	       "(module (def g () (body (= x (yield 1)) (expr (yield-from y)) (expr (yield)))))", "yield forms");
	is_str(parse("if __name__ == \"__main__\":\n    main()\n"),
	       "(module (if (cmp __name__ == \"__main__\") (body (expr (call main)))))", "__main__ block");
	is_str(parse("if x: a = 1; b = 2;\n"), "(module (if x (body (= a 1) (= b 2))))", "one-line block with semicolons");
	is_str(parse("x = 1 + \\\n    2\n"), "(module (= x (+ 1 2)))", "backslash continuation");
	is_str(parse("x = (1 +\n2)\ny = [\n  1,\n    ]\nz = {\n'a':\n 1}\n"),
	       "(module (= x (+ 1 2)) (= y (list 1)) (= z (dict (\"a\" 1))))", "implicit line joining");
	is_str(parse("if a:\r\n    b = 1\r\nc = 2\r\n"), "(module (if a (body (= b 1))) (= c 2))", "CRLF line endings");
	is_str(parse("def f():\n    x = 1\n# comment at col 0\n        # deeper comment\n\n    \t\n    return x\n"),
	       "(module (def f () (body (= x 1) (return x))))", "comments and blank lines at odd indentation");
	is_str(parse("x = 1"), "(module (= x 1))", "no trailing newline");
	is_str(parse("if a:\n    if b:\n        pass"), "(module (if a (body (if b (body (pass))))))",
	       "dedents at end of file without newline");
	is_str(parse("if a:\n    if b:\n        pass\nc\n"), "(module (if a (body (if b (body (pass))))) (expr c))",
	       "double dedent");
	is_str(parse("if a:\n\tx = 1\n        y = 2\n"), "(module (if a (body (= x 1) (= y 2))))", "a tab is 8 columns");
	is_str(parse(""), "(module)", "empty file");
	is_str(parse("# just a comment\n\n   \n"), "(module)", "only comments and blank lines");
	is_str(parse("\xEF\xBB\xBFx = 1\n"), "(module (= x 1))", "UTF-8 byte order mark");
	is_str(parse("s = 'héllo'  # ünïcode comment\n"), "(module (= s \"h\\xc3\\xa9llo\"))", "UTF-8 in strings and comments");
	is_str(parse("print(f'{x!r:>10}', sep='')\n"), "(module (expr (call print f\"{x!r:>10}\" (kw sep \"\"))))", "f-string argument");
	is_str(parse("match = 1\ntype = 2\n"), "(module (= match 1) (= type 2))", "soft keywords are names");
}

static void test_locations(void)
{
	const char *src = "x = foo(a,\n      b.c)\n\tif y: pass\n";
	src = "x = foo(a,\n      b.c)\nif y:\n\tz = -1\n";
	tlc_context *ctx = tlc_context_new();
	uint32_t file = tlc_add_source(ctx, "t.py", src, strlen(src));
	tlc_arena *arena = tlc_arena_new();
	py_node *m = py_parse(ctx, arena, file, src, strlen(src));
	ok(m && m->nbody == 2, "location test parses");
	if (m && m->nbody == 2) {
		py_node *as = m->body[0], *call = as->a, *attr = call->list[1], *ifs = m->body[1];
		py_node *z = ifs->body[0], *neg = z->a;
		ok(as->loc.file == file && as->loc.line == 1 && as->loc.col == 1, "assignment at 1:1");
		ok(call->loc.line == 1 && call->loc.col == 5, "call at its first token 1:5");
		ok(attr->kind == PY_ATTR && attr->loc.line == 2 && attr->loc.col == 7, "attribute on the next line at 2:7");
		ok(attr->a->loc.line == 2 && attr->a->loc.col == 7 && attr->loc.file == file, "name b at 2:7");
		ok(ifs->loc.line == 3 && ifs->loc.col == 1 && ifs->a->loc.col == 4, "if at 3:1, condition at 3:4");
		ok(z->loc.line == 4 && z->loc.col == 2 && neg->loc.col == 6, "a tab counts as one column");
	}
	tlc_arena_free(arena);
	tlc_context_free(ctx);
}

static void test_errors(void)
{
	is_str(parse("if x\n    pass\n"), "t.py:1:5: error: expected ':' after 'if' condition", "missing colon");
	is_str(parse("while x y:\n    pass\n"), "t.py:1:9: error: expected ':' after 'while' condition, found 'y'",
	       "missing colon before a name");
	is_str(parse("x = 1\n    y = 2\n"), "t.py:2:5: error: unexpected indent", "unexpected indent");
	is_str(parse("for i in x:\npass\n"), "t.py:2:1: error: expected an indented block after 'for' statement on line 1",
	       "missing block");
	is_str(parse("def f():\n"), "t.py:2:1: error: expected an indented block after function definition on line 1",
	       "missing block at end of file");
	is_str(parse("if a:\n        x\n    y\n"), "t.py:3:5: error: unindent does not match any outer indentation level",
	       "inconsistent dedent");
	is_str(parse("s = \"abc\n"), "t.py:1:5: error: unterminated string literal (detected at line 1)", "unterminated string");
	is_str(parse("s = '''abc\n\n"), "t.py:1:5: error: unterminated triple-quoted string literal (detected at line 3)",
	       "unterminated triple-quoted string");
	is_str(parse("s = 'abc\\"), "t.py:1:5: error: unterminated string literal (detected at line 1)",
	       "string ending in a backslash at end of file");
	is_str(parse("f(a))\n"), "t.py:1:5: error: unmatched ')'", "unmatched paren");
	is_str(parse("f(a]\n"), "t.py:1:4: error: closing parenthesis ']' does not match opening parenthesis '(' at 1:2",
	       "mismatched bracket");
	is_str(parse("x = (1,\n"), "t.py:1:5: error: '(' was never closed", "unclosed paren");
	is_str(parse("x = 1 +\n"), "t.py:1:8: error: invalid syntax: unexpected end of line", "dangling operator");
	is_str(parse("a b\n"), "t.py:1:3: error: invalid syntax: unexpected 'b'", "two names");
	is_str(parse("x = = 1\ns = 'abc\n"), "t.py:1:5: error: invalid syntax: unexpected '='",
	       "an earlier syntax error wins over a later lexical one");
	is_str(parse("x = 3j\n"), "t.py:1:5: error: imaginary literals are not supported", "imaginary");
	is_str(parse("x = 012\n"), "t.py:1:5: error: leading zeros in decimal integer literals are not permitted; "
	                            "use an 0o prefix for octal integers", "leading zero");
	is_str(parse("x = 1__0\n"), "t.py:1:5: error: invalid decimal literal", "double underscore");
	is_str(parse("x = 1abc\n"), "t.py:1:5: error: invalid decimal literal", "letters after a number");
	is_str(parse("x = 0x\n"), "t.py:1:5: error: invalid hexadecimal literal", "empty hex");
	is_str(parse("x = 99999999999999999999\n"), "t.py:1:5: error: integer literal is too large (more than 63 bits)",
	       "integer overflow");
	is_str(parse("caf\xC3\xA9 = 1\n"), "t.py:1:1: error: non-ASCII character in identifier (only ASCII identifiers are supported)",
	       "non-ASCII identifier");
	is_str(parse("x = \xE2\x80\x9Cq\n"),
	       "t.py:1:5: error: invalid non-ASCII character (only ASCII is supported outside strings and comments)",
	       "non-ASCII punctuation");
	is_str(parse_n("x = 1\0\n", 7, NULL), "t.py:1:6: error: source code cannot contain null bytes", "NUL byte");
	is_str(parse("x = $\n"), "t.py:1:5: error: invalid character '$'", "invalid character");
	is_str(parse("x = 1 \\ y\n"), "t.py:1:7: error: unexpected character after line continuation character",
	       "junk after backslash");
	is_str(parse("f(x=1, y)\n"), "t.py:1:8: error: positional argument follows keyword argument", "positional after keyword");
	is_str(parse("f() = 1\n"), "t.py:1:1: error: cannot assign to function call", "assign to call");
	is_str(parse("x = 1 = y\n"), "t.py:1:5: error: cannot assign to literal", "assign to literal in a chain");
	is_str(parse("a, b += 1\n"), "t.py:1:1: error: 'tuple' is an illegal expression for augmented assignment",
	       "augmented tuple");
	is_str(parse("a, b: int\n"), "t.py:1:1: error: only single target (not tuple) can be annotated", "annotated tuple");
	is_str(parse("def f(a=1, b): pass\n"), "t.py:1:12: error: parameter without a default follows parameter with a default",
	       "default order");
	is_str(parse("try:\n    pass\nx = 1\n"), "t.py:3:1: error: expected 'except' or 'finally' block", "bare try");
	is_str(parse("@dec\nx = 1\n"), "t.py:2:1: error: expected 'def' or 'class' after a decorator", "decorator on assignment");
	is_str(parse("else:\n    pass\n"), "t.py:1:1: error: invalid syntax: unexpected 'else'", "stray else");
	is_str(parse("x = [1, 2\ny = 3\n"), "t.py:2:1: error: expected ']' to close '[', found 'y'", "unclosed list across lines");
	is_str(parse("f(x for x in y, 1)\n"), "t.py:1:1: error: generator expression must be parenthesized", "bare genexp with other args");
	is_str(parse("x = 'a' b'b'\n"), "t.py:1:9: error: cannot mix bytes and nonbytes literals", "bytes mixed with str");
	is_str(parse("x = '\\x4'\n"), "t.py:1:5: error: truncated \\xXX escape", "bad \\x escape");
	is_str(parse("x = 1 if y\n"), "t.py:1:11: error: expected 'else' after 'if' expression", "ternary without else");
	is_str(parse("async x\n"), "t.py:1:7: error: expected 'def', 'for' or 'with' after 'async'", "async without def");

	/* nesting limits */
	char deep[1024];
	memset(deep, '(', 300);
	strcpy(deep + 300, "1");
	memset(deep + 301, ')', 300);
	deep[601] = 0;
	is_str(parse(deep), "t.py:1:201: error: too deeply nested", "300 nested parentheses");
	memset(deep, '-', 300);
	strcpy(deep + 300, "x\n");
	is_str(parse(deep), "t.py:1:201: error: too deeply nested", "300 unary minuses");
	strcpy(deep, "x = ");
	for (int i = 0; i < 150; i++)
		strcat(deep, "[-");
	is_str(parse(deep), "t.py:1:205: error: too deeply nested", "brackets and unary operators count together");
	char *nested = malloc(200 * 120);
	nested[0] = 0;
	for (int i = 0; i < 110; i++) {
		size_t n = strlen(nested);
		memset(nested + n, ' ', (size_t)i);
		strcpy(nested + n + i, "if x:\n");
	}
	const char *r = parse(nested);
	ok(strstr(r, "error: too many levels of indentation") != NULL, "101 indentation levels: %s", r);
	free(nested);
}

/* A realistic kernel file: factory style with decorators, nested def,
 * pipelined loop, slices, and a host __main__ block. */
static const char kernel[] =
	"# gemm.py: a TileLang GEMM\n"
	"import argparse\n"
	"import tilelang\n"
	"import tilelang.language as T\n"
	"from tilelang.autotuner import *  # noqa\n"
	"\n"
	"\n"
	"@tilelang.jit(out_idx=[-1], pass_configs={\"tl.disable_tma_lower\": False})\n"
	"def matmul(M, N, K, block_M, block_N, block_K, dtype=\"float16\", accum_dtype=\"float\",\n"
	"           num_stages=3, threads=128):\n"
	"    \"\"\"Factory: returns the prim_func.\"\"\"\n"
	"\n"
	"    @T.prim_func\n"
	"    def main(\n"
	"            A: T.Tensor((M, K), dtype),\n"
	"            B: T.Tensor((N, K), dtype),\n"
	"            C: T.Tensor((M, N), dtype),\n"
	"    ):\n"
	"        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):\n"
	"            A_shared = T.alloc_shared((block_M, block_K), dtype)\n"
	"            B_shared = T.alloc_shared((block_N, block_K), dtype)\n"
	"            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)\n"
	"            T.use_swizzle(panel_size=10, enable=True)\n"
	"            T.annotate_layout({A_shared: T.Layout((block_M, block_K), lambda i, j: (i, j ^ (i % 8)))})\n"
	"            T.clear(C_local)\n"
	"            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):\n"
	"                T.copy(A[by * block_M:(by + 1) * block_M, ko * block_K], A_shared)\n"
	"                T.copy(B[bx * block_N, ko * block_K:(ko + 1) * block_K], B_shared)\n"
	"                T.gemm(A_shared, B_shared, C_local, transpose_B=True,\n"
	"                       policy=T.GemmWarpPolicy.FullRow)\n"
	"            for i, j in T.Parallel(block_M, block_N):\n"
	"                C_local[i, j] = T.if_then_else(C_local[i, j] > 0, C_local[i, j], 0) * 2.0 ** -1\n"
	"            T.copy(C_local, C[by * block_M, bx * block_N])\n"
	"\n"
	"    return main\n"
	"\n"
	"\n"
	"def ref_program(A, B):\n"
	"    return A @ B.T  # host only\n"
	"\n"
	"\n"
	"def main():\n"
	"    parser = argparse.ArgumentParser(description='gemm')\n"
	"    parser.add_argument('--m', type=int, default=1024)\n"
	"    parser.add_argument(\"--n\", type=int, default=1024)\n"
	"    args, _ = parser.parse_known_args()\n"
	"    M, N, K = args.m, args.n, 1024\n"
	"    kernel = matmul(M, N, K, 128, 128, 32)\n"
	"    try:\n"
	"        import torch\n"
	"    except ImportError:\n"
	"        return\n"
	"    a = torch.randn(M, K, device='cuda', dtype=torch.float16)\n"
	"    b = torch.randn(N, K, device=\"cuda\", dtype=torch.float16)\n"
	"    c = kernel(a, b)\n"
	"    assert torch.allclose(c, ref_program(a, b), rtol=1e-2, atol=1e-2), \\\n"
	"        f\"max diff {(c - a @ b.T).abs().max():.3f}\"\n"
	"    print(\"ok\" if c is not None else \"bad\", [x for x in range(3) if x % 2])\n"
	"\n"
	"\n"
	"if __name__ == \"__main__\":\n"
	"    main()\n";

static void test_prefixes(void)
{
	size_t len = strlen(kernel);
	int nerr;
	const char *r = parse_n(kernel, len, &nerr);
	ok(nerr == 0 && !strncmp(r, "(module (import argparse)", 25), "the kernel file parses: %.200s", r);
	int bad = 0;
	for (size_t n = 0; n <= len; n++) {
		/* copy so that valgrind sees any read past the prefix */
		char *copy = malloc(n ? n : 1);
		memcpy(copy, kernel, n);
		r = parse_n(copy, n, &nerr);
		bool failed = !strncmp(r, "t.py:", 5);
		if (failed != (nerr > 0) || nerr > 1)
			bad++;
		free(copy);
	}
	ok(bad == 0, "every prefix parses or gives exactly one error (%d bad)", bad);

	/* mutations: each position replaced by bytes that break things */
	static const char junk[] = {'(', ')', '"', '\'', '\\', '\n', '\t', ' ', ':', '\0', '\x80', '#', '{', '@', '\r'};
	bad = 0;
	char *copy = malloc(len);
	for (size_t i = 0; i < len; i += 5) {
		for (size_t j = 0; j < sizeof(junk); j++) {
			memcpy(copy, kernel, len);
			copy[i] = junk[j];
			r = parse_n(copy, len, &nerr);
			if ((!strncmp(r, "t.py:", 5)) != (nerr > 0) || nerr > 1)
				bad++;
		}
	}
	/* random binary junk */
	static const char printable[] = "()[]{}:=,.x1 \n\t\"'\\#@*-";
	uint32_t seed = 12345;
	for (int t = 0; t < 300; t++) {
		size_t n = (size_t)(t * 7 % 200);
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			copy[i] = (char)(seed >> 16);
			if (t % 2 && copy[i] & 1) /* half the runs: mostly printable text */
				copy[i] = printable[(seed >> 8) % (sizeof(printable) - 1)];
		}
		r = parse_n(copy, n, &nerr);
		if ((!strncmp(r, "t.py:", 5)) != (nerr > 0) || nerr > 1)
			bad++;
	}
	free(copy);
	ok(bad == 0, "mutated and random inputs: no crash, one error at most (%d bad)", bad);
}

int main(void)
{
	test_expressions();
	test_statements();
	test_locations();
	test_errors();
	test_prefixes();
	return done_testing();
}
