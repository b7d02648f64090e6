#!/bin/sh
# workflow_check.sh - TAP: .github/workflows/ci.yml is a well-formed GitHub
# Actions workflow that builds tlc in the three environments it is meant to.
#
# Usage: sh tests/workflow_check.sh [WORKFLOW.yml]
#   default: $TLC_SRCDIR/.github/workflows/ci.yml (make check sets TLC_SRCDIR),
#   else the ci.yml beside this script's folder.
#
# Needs python3 only.  The file is read by a small reader of the YAML subset
# that workflows use (block mappings and sequences, plain and quoted scalars,
# `|` and `>` block scalars, flow lists of scalars, comments); anything past
# that subset (anchors, aliases, tags, flow mappings, multi-line plain
# scalars, tabs) is reported as an error, so the file stays in it.  When
# PyYAML is importable, it parses the file too and must agree.  When
# `actionlint` is on PATH it runs as a last test (else that test is skipped).
#
# Checked: the top level has `on:` (push and pull_request) and a non-empty
# `jobs:`; every job has `runs-on` and a non-empty `steps` list (or calls a
# reusable workflow with `uses`); every step has one of `uses` or `run`; every
# `uses:` is pinned (owner/repo@vN[.N...] or a full commit SHA; docker:// with
# a tag); actions/checkout is v4 or later; every `${{ matrix.KEY }}` is a key
# of the job's matrix; the matrix has the three environments, each with an
# image of an explicit tag: debian:12 (which runs `bash .ci/run`), an
# nvidia/cuda devel image and a rocm/ image (which run `make ... check`).
# Each problem is reported as file:line and what is wrong; the exit status is
# non-zero when any test failed.
top=$(cd "$(dirname "$0")/.." && pwd)
wf=${1:-${TLC_SRCDIR:-$top}/.github/workflows/ci.yml}
PYTHON=${PYTHON:-python3}

if ! command -v "$PYTHON" >/dev/null 2>&1; then
	echo "not ok 1 - $PYTHON is needed to check $wf"
	echo "1..1"
	exit 1
fi

exec "$PYTHON" - "$wf" <<'EOF'
import re
import shutil
import subprocess
import sys

wf = sys.argv[1]
n = 0
failed = 0


def report(ok, name, problems=()):
    """One TAP line; the problems, one a line, as diagnostics."""
    global n, failed
    n += 1
    if ok:
        print("ok %d - %s" % (n, name))
    else:
        failed += 1
        print("not ok %d - %s" % (n, name))
        for p in problems:
            print("#   %s" % p)


def skip(name, why):
    global n
    n += 1
    print("ok %d - %s # SKIP %s" % (n, name, why))


def finish():
    print("1..%d" % n)
    sys.exit(1 if failed else 0)


# ---- a reader of the YAML subset that workflows use ----
class YamlError(Exception):
    def __init__(self, line, msg):
        Exception.__init__(self, "%s:%d: %s" % (wf, line, msg))


class Str(str):
    line = 0


class Map(dict):
    line = 0

    def __init__(self):
        dict.__init__(self)
        self.lines = {}


class Seq(list):
    line = 0


def at(node, line):
    node.line = line
    return node


def strip_comment(text):
    """TEXT less a trailing comment (a # at the start or after a blank,
    outside quotes)."""
    quote = None
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                if quote == "'" and text[i + 1:i + 2] == "'":
                    i += 1
                else:
                    quote = None
        elif c in "'\"" and (i == 0 or text[i - 1] in " \t[,:-"):
            quote = c
        elif c == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
        i += 1
    return text.rstrip()


def quoted_end(text, q):
    """The index just past the quoted string at the start of TEXT, or -1."""
    i = 1
    while i < len(text):
        c = text[i]
        if q == '"' and c == "\\":
            i += 2
            continue
        if c == q:
            if q == "'" and text[i + 1:i + 2] == "'":
                i += 2
                continue
            return i + 1
        i += 1
    return -1


def unquote(text, line):
    q = text[0]
    end = quoted_end(text, q)
    if end != len(text):
        raise YamlError(line, "bad quoted string: %s" % text)
    body = text[1:-1]
    if q == "'":
        return body.replace("''", "'")
    esc = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", "0": "\0", " ": " "}
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            if i + 1 >= len(body) or body[i + 1] not in esc:
                raise YamlError(line, "escape outside the subset in %s" % text)
            out.append(esc[body[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def scalar(text, line):
    if not text:
        return None
    if text[0] in "'\"":
        return at(Str(unquote(text, line)), line)
    if text[0] in "&*!{%@`" or text.startswith("? "):
        raise YamlError(line, "outside the YAML subset this check reads "
                        "(anchor, alias, tag, flow mapping or reserved character): %s" % text)
    if text == "~" or text == "null":
        return None
    if re.search(r":(\s|$)", text):
        raise YamlError(line, "`: ` inside a plain scalar (YAML reads a mapping there): quote it: %s" % text)
    return at(Str(text), line)


def split_key(text, line):
    """(key, rest) when TEXT is a mapping entry `key: rest`, else None."""
    if text[0] in "'\"":
        end = quoted_end(text, text[0])
        if end < 0 or text[end:end + 1] != ":" or text[end + 1:end + 2] not in ("", " "):
            return None
        return unquote(text[:end], line), text[end + 1:].strip()
    m = re.match(r"([^\s#'\"\[\]{},][^#]*?)\s*:(?:\s+|$)", text)
    if not m:
        return None
    return m.group(1), text[m.end():].strip()


class Reader:
    def __init__(self, text):
        # (indent, line number, text, problem): comments and blank lines out;
        # a line's problem (a tab in its indentation, a second document) is
        # an error only when the line is read as structure, not inside a
        # block scalar
        self.lines = []
        self.raw = text.split("\n")
        for i, raw in enumerate(self.raw, 1):
            body = raw.lstrip(" ")
            problem = "a tab in the indentation" if body.startswith("\t") else None
            stripped = strip_comment(body.lstrip(" \t"))
            if not stripped:
                continue
            if stripped in ("---", "..."):
                if not self.lines:
                    continue
                problem = "more than one document"
            self.lines.append((len(raw) - len(body), i, stripped, problem))
        self.pos = 0

    def peek(self):
        if self.pos >= len(self.lines):
            return None
        ind, ln, text, problem = self.lines[self.pos]
        if problem:
            raise YamlError(ln, problem)
        return ind, ln, text

    def parse(self):
        if not self.lines:
            raise YamlError(1, "the file is empty")
        node = self.block(self.lines[0][0])
        if self.peek():
            ind, ln, _ = self.peek()
            raise YamlError(ln, "unexpected indentation")
        return node

    def block(self, indent):
        ind, ln, text = self.peek()
        if ind != indent:
            raise YamlError(ln, "bad indentation")
        if text == "-" or text.startswith("- "):
            return self.sequence(indent)
        return self.mapping(indent)

    def value(self, rest, ln, indent, in_seq_at=None):
        """The value of an entry whose text after the key or dash is REST."""
        if rest == "":
            nxt = self.peek()
            if nxt and nxt[0] > indent:
                return self.block(nxt[0])
            if nxt and in_seq_at is None and nxt[0] == indent and (
                    nxt[2] == "-" or nxt[2].startswith("- ")):
                return self.sequence(indent)
            return None
        if rest[0] in "|>":
            if not re.match(r"^[|>][-+]?[1-9]?$", rest):
                raise YamlError(ln, "bad block scalar header: %s" % rest)
            return at(Str(self.block_scalar(rest, ln, indent)), ln)
        if rest[0] == "[":
            return self.flow_seq(rest, ln)
        if rest == "{}":
            return at(Map(), ln)
        node = scalar(rest, ln)
        nxt = self.peek()
        if nxt and nxt[0] > indent:
            raise YamlError(nxt[1], "a multi-line plain scalar or bad indentation "
                            "(outside the YAML subset this check reads)")
        return node

    def block_scalar(self, header, ln, indent):
        # the raw lines after LN up to the next line indented at most INDENT
        body = []
        i = ln  # index of the line after LN in self.raw
        while i < len(self.raw):
            raw = self.raw[i]
            if raw.strip() and len(raw) - len(raw.lstrip(" ")) <= indent:
                break
            body.append(raw)
            i += 1
        while self.pos < len(self.lines) and self.lines[self.pos][1] <= i:
            self.pos += 1
        while body and not body[-1].strip():
            body.pop()
        if not body:
            return ""
        digits = re.findall(r"[1-9]", header)
        if digits:
            bi = indent + int(digits[0])
        else:
            bi = min(len(r) - len(r.lstrip(" ")) for r in body if r.strip())
        lines = []
        for r in body:
            if r.strip() and len(r) - len(r.lstrip(" ")) < bi:
                raise YamlError(ln, "block scalar line less indented than its first")
            lines.append(r[bi:])
        if header[0] == "|":
            text = "\n".join(lines)
        else:
            # folded: a break between two lines of text is a space, blank
            # lines are breaks, and more-indented lines keep their breaks
            text, prev, blanks = "", None, 0
            for l in lines:
                if not l.strip():
                    blanks += 1
                    continue
                kind = "more" if l[0] == " " else "text"
                if prev is None:
                    text += "\n" * blanks
                elif prev == kind == "text":
                    text += "\n" * blanks if blanks else " "
                else:
                    text += "\n" * (blanks + 1)
                text += l
                prev, blanks = kind, 0
        return text if "-" in header else text + "\n"

    def flow_seq(self, text, ln):
        if not text.endswith("]"):
            raise YamlError(ln, "a flow list must end on its line: %s" % text)
        inner = text[1:-1].strip()
        seq = at(Seq(), ln)
        if not inner:
            return seq
        for item in re.findall(r"""\s*("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,]+?)\s*(?:,|$)""", inner):
            if item[:1] in "[{":
                raise YamlError(ln, "nested flow collections are outside the subset: %s" % text)
            seq.append(scalar(item, ln))
        return seq

    def mapping(self, indent):
        m = None
        while self.peek() and self.peek()[0] == indent:
            ind, ln, text = self.peek()
            if text == "-" or text.startswith("- "):
                raise YamlError(ln, "a list item where a mapping key belongs")
            kv = split_key(text, ln)
            if kv is None:
                raise YamlError(ln, "expected `key: value`, got: %s" % text)
            key, rest = kv
            if m is None:
                m = at(Map(), ln)
            if key in m:
                raise YamlError(ln, "duplicate key '%s' (first on line %d)" % (key, m.lines[key]))
            self.pos += 1
            m.lines[key] = ln
            m[key] = self.value(rest, ln, indent)
        return m

    def sequence(self, indent):
        seq = at(Seq(), self.peek()[1])
        while self.peek() and self.peek()[0] == indent:
            ind, ln, text = self.peek()
            if not (text == "-" or text.startswith("- ")):
                raise YamlError(ln, "expected a list item `- ...`, got: %s" % text)
            rest = text[1:].lstrip(" ")
            if rest and (rest == "-" or rest.startswith("- ") or split_key(rest, ln)):
                # `- key: value` or `- - x`: a block at the column after the dash
                col = indent + len(text) - len(rest)
                self.lines[self.pos] = (col, ln, rest, None)
                seq.append(self.block(col))
            else:
                self.pos += 1
                seq.append(self.value(rest, ln, indent, in_seq_at=indent))
        return seq


def plain(node):
    """NODE as plain dicts, lists and strings (for comparing with PyYAML)."""
    if isinstance(node, dict):
        return {k: plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    return None if node is None else str(node)


def from_pyyaml(node):
    """PyYAML's reading in the same terms: YAML 1.1 reads `on` as True, and
    true/false/numbers as their types; this reader keeps the text."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            k = "on" if k is True else ("off" if k is False else str(k))
            out[k] = from_pyyaml(v)
        return out
    if isinstance(node, list):
        return [from_pyyaml(v) for v in node]
    if isinstance(node, bool):
        return "true" if node else "false"
    return None if node is None else str(node)


def first_difference(a, b, path="(top)"):
    if type(a) is not type(b):
        return "%s: %r here, %r by PyYAML" % (path, a, b)
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return "%s: key '%s' only %s" % (path, k, "here" if k in a else "by PyYAML")
            d = first_difference(a[k], b[k], "%s.%s" % (path, k))
            if d:
                return d
    elif isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d items here, %d by PyYAML" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s[%d]" % (path, i))
            if d:
                return d
    elif a != b:
        return "%s: %r here, %r by PyYAML" % (path, a, b)
    return None


# ---- the tests ----
try:
    with open(wf, encoding="utf-8") as f:
        text = f.read()
except (OSError, UnicodeDecodeError) as e:
    report(False, "the workflow file is readable", ["%s" % e])
    finish()
report(True, "the workflow file is readable (%s)" % wf)

try:
    doc = Reader(text).parse()
except YamlError as e:
    report(False, "it parses as the YAML subset", [str(e)])
    finish()
if not isinstance(doc, dict):
    report(False, "it parses as the YAML subset", ["%s: the top level is not a mapping" % wf])
    finish()
report(True, "it parses as the YAML subset")

try:
    import yaml
except ImportError:
    yaml = None
if yaml is None:
    skip("PyYAML reads it the same", "PyYAML not installed")
else:
    try:
        theirs = from_pyyaml(yaml.safe_load(text))
        d = first_difference(plain(doc), theirs)
        report(d is None, "PyYAML reads it the same", [d] if d else [])
    except yaml.YAMLError as e:
        report(False, "PyYAML reads it the same", ["PyYAML: %s" % str(e).replace("\n", " ")])


def where(node, key=None):
    """file:line of NODE (of its entry KEY when given)."""
    if key is not None and isinstance(node, Map) and key in node.lines:
        return "%s:%d" % (wf, node.lines[key])
    return "%s:%d" % (wf, getattr(node, "line", 0) or 1)


# on: push and pull_request
on = doc.get("on")
problems = []
if "on" not in doc:
    problems.append("%s: no top-level `on:`" % wf)
else:
    if isinstance(on, str):
        events = [on]
    elif isinstance(on, (list, dict)):
        events = list(on)
    else:
        events = []
    for ev in ("push", "pull_request"):
        if ev not in events:
            problems.append("%s: `on:` has no `%s` event" % (where(doc, "on"), ev))
report(not problems, "`on:` has push and pull_request", problems)

# jobs: a non-empty mapping
jobs = doc.get("jobs")
if not isinstance(jobs, dict) or not jobs:
    report(False, "`jobs:` is a non-empty mapping",
           ["%s: no top-level `jobs:` mapping with at least one job" % where(doc, "jobs")])
    finish()
report(True, "`jobs:` is a non-empty mapping (%s)" % ", ".join(jobs))

# every job: runs-on and steps; every step: uses or run
all_steps = []  # (job id, job, step)
for jid, job in jobs.items():
    problems = []
    if not isinstance(job, dict):
        report(False, "job '%s' has runs-on and steps" % jid, ["%s: job '%s' is not a mapping" % (where(jobs, jid), jid)])
        continue
    if "uses" in job and "steps" not in job:
        report("runs-on" not in job, "job '%s' calls a reusable workflow" % jid,
               ["%s: a job calling a workflow has no runs-on" % where(job, "runs-on")] if "runs-on" in job else [])
        continue
    if not job.get("runs-on"):
        problems.append("%s: job '%s' has no `runs-on`" % (where(jobs, jid), jid))
    steps = job.get("steps")
    if not isinstance(steps, list) or not steps:
        problems.append("%s: job '%s' has no `steps` list" % (where(jobs, jid), jid))
        steps = []
    for i, st in enumerate(steps, 1):
        if not isinstance(st, dict):
            problems.append("%s: step %d of job '%s' is not a mapping" % (where(steps), i, jid))
            continue
        if ("uses" in st) == ("run" in st):
            problems.append("%s: step %d of job '%s' needs exactly one of `uses` and `run`"
                            % (where(st), i, jid))
        all_steps.append((jid, job, st))
    report(not problems, "job '%s' has runs-on and steps, each a uses or a run" % jid, problems)

# every uses: pinned to a version
pin = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@(v[0-9]+(\.[0-9]+)*|[0-9a-f]{40})$")
problems = []
uses = [(job, "uses", job["uses"]) for job in jobs.values() if isinstance(job, dict) and "uses" in job]
uses += [(st, "uses", st["uses"]) for _, _, st in all_steps if "uses" in st]
for node, key, u in uses:
    u = str(u)
    if u.startswith("./"):
        continue
    if u.startswith("docker://"):
        if not re.search(r":[A-Za-z0-9_][A-Za-z0-9_.-]*$|@sha256:[0-9a-f]{64}$", u[len("docker://"):]) or u.endswith(":latest"):
            problems.append("%s: `uses: %s` has no image tag (pin one, not latest)" % (where(node, key), u))
    elif not pin.match(u):
        problems.append("%s: `uses: %s` is not pinned to a version (write owner/repo@vN or a full commit SHA)"
                        % (where(node, key), u))
report(not problems, "every `uses:` is pinned to a version (%d)" % len(uses), problems)

problems = []
def is_checkout(st):
    return isinstance(st, dict) and re.match(r"^actions/checkout(@|$)", str(st.get("uses", "")))


checkouts = [(st, str(st["uses"])) for _, _, st in all_steps if is_checkout(st)]
for st, u in checkouts:
    mm = re.match(r"^actions/checkout@v([0-9]+)", u)
    if mm and int(mm.group(1)) < 4:
        problems.append("%s: `uses: %s`: use actions/checkout@v4 or later" % (where(st, "uses"), u))
for jid, job in jobs.items():
    if isinstance(job, dict) and isinstance(job.get("steps"), list) and \
            any(isinstance(s, dict) and "run" in s for s in job["steps"]) and \
            not any(is_checkout(s) for s in job["steps"]):
        problems.append("%s: job '%s' runs commands but never checks out the tree" % (where(jobs, jid), jid))
report(not problems, "jobs check out the tree with actions/checkout@v4 or later", problems)


# ${{ matrix.KEY }}: KEY is in the job's matrix
def strings(node):
    if isinstance(node, dict):
        for v in node.values():
            yield from strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from strings(v)
    elif isinstance(node, str):
        yield node


def matrix_of(job):
    strat = job.get("strategy") if isinstance(job, dict) else None
    m = strat.get("matrix") if isinstance(strat, dict) else None
    return m if isinstance(m, dict) else None


def matrix_entries(m):
    """The matrix's combinations, as dicts (axes crossed, then include)."""
    combos = [{}]
    for k, v in m.items():
        if k in ("include", "exclude"):
            continue
        vals = v if isinstance(v, list) else [v]
        combos = [dict(c, **{k: x}) for c in combos for x in vals]
    if combos == [{}]:
        combos = []
    inc = m.get("include")
    for e in inc if isinstance(inc, list) else []:
        if isinstance(e, dict):
            combos.append(dict(e))
    return combos


problems = []
for jid, job in jobs.items():
    if not isinstance(job, dict):
        continue
    m = matrix_of(job)
    keys = set()
    if m:
        for e in matrix_entries(m):
            keys.update(e)
    for s in strings(job):
        for expr in re.findall(r"\$\{\{(.*?)\}\}", s):
            for k in re.findall(r"\bmatrix\.([A-Za-z0-9_-]+)", expr):
                if k not in keys:
                    problems.append("%s: job '%s' uses matrix.%s, which its matrix does not define%s"
                                    % (where(s), jid, k, " (it has no matrix)" if not m else ""))
report(not problems, "every ${{ matrix.KEY }} is defined by its job's matrix", problems)

# the three environments
want = [
    ("debian-12", lambda img: img == "debian:12"),
    ("an NVIDIA CUDA devel image (nvcc)", lambda img: re.match(r"^(nvcr\.io/)?nvidia/cuda:[0-9][^:]*-devel-", img)),
    ("a ROCm image (hipcc)", lambda img: re.match(r"^rocm/[a-z0-9._-]+:[A-Za-z0-9._-]+$", img)),
]
found = {}  # what -> (job id, job, entry)
problems = []
for jid, job in jobs.items():
    if not isinstance(job, dict):
        continue
    m = matrix_of(job)
    entries = matrix_entries(m) if m else [{}]
    for e in entries:
        cont = job.get("container")
        img = cont.get("image") if isinstance(cont, dict) else cont
        if img is None:
            continue
        img = str(img)
        img = re.sub(r"\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}",
                     lambda mm: str(e.get(mm.group(1), mm.group(0))), img)
        if "${{" in img:
            continue
        if ":" not in img.split("/")[-1] or img.endswith(":latest"):
            problems.append("%s: container image '%s' has no version tag (pin one, not latest)" % (where(job, "container"), img))
        for what, ok in want:
            if ok(img) and what not in found:
                found[what] = (jid, job, e, img)
for what, _ in want:
    if what not in found:
        problems.append("%s: no job or matrix entry runs in %s" % (wf, what))
report(not problems, "the matrix has debian-12, CUDA and ROCm containers%s"
       % "".join(" " + found[w][3] for w, _ in want if w in found), problems)


def step_runs(job, entry, pattern):
    """True when a step of JOB that ENTRY's matrix values do not turn off runs
    a command matching PATTERN (a step's `if:` comparing matrix.KEY with == or
    != is evaluated; any other `if:` is taken as maybe)."""
    for st in job.get("steps") or []:
        if not isinstance(st, dict) or "run" not in st:
            continue
        cond = str(st.get("if", "")).strip()
        c = re.sub(r"^\$\{\{\s*(.*?)\s*\}\}$", r"\1", cond)
        c = re.sub(r"^(success|failure|always)\(\)\s*&&\s*", "", c)
        mm = re.match(r"^matrix\.([A-Za-z0-9_-]+)\s*(==|!=)\s*'([^']*)'$", c)
        if mm:
            same = str(entry.get(mm.group(1))) == mm.group(3)
            if same != (mm.group(2) == "=="):
                continue
        if re.search(pattern, str(st["run"]), re.M):
            return True
    return False


problems = []
for what, _ in want:
    if what not in found:
        continue
    jid, job, entry, img = found[what]
    if what == "debian-12":
        if not step_runs(job, entry, r"^\s*bash \.ci/run\s*$"):
            problems.append("%s: the debian-12 job (%s) does not run `bash .ci/run`" % (where(jobs, jid), jid))
    elif not step_runs(job, entry, r"\bmake\b.*\bcheck\b"):
        problems.append("%s: the %s job (%s) does not run `make check`" % (where(jobs, jid), img, jid))
report(not problems, "debian-12 runs bash .ci/run, the CUDA and ROCm entries make check", problems)

# actionlint, when there is one
al = shutil.which("actionlint")
if al is None:
    skip("actionlint", "actionlint not installed")
else:
    r = subprocess.run([al, "-no-color", wf], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    report(r.returncode == 0, "actionlint (%s)" % al, r.stdout.strip().split("\n")[:40])

finish()
EOF
