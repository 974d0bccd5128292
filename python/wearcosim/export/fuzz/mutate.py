"""Broken variants of valid models, and what the exporter's command line answers to them.

Each mutation damages one place of a generated model's text and knows the lines a good error
message may name (the damaged line; for a missing equation, the declaration of the variable left
without one, ...).  The answer of ``python -m wearcosim.cli build --file M.mo M --out DIR`` must
be: a non-zero exit status, no Python traceback, exactly one line ``error: ...`` carrying
``M.mo:line[:col]`` with one of those lines, and no FMU written.
"""
from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

from . import tree as A

ROOT = Path(__file__).resolve().parents[4]

KINDS = ["unknown-name", "swapped-names", "dropped-equation", "extra-equation", "wrong-dimension",
         "index-out-of-range", "loop-out-of-range", "type-error", "unbalanced", "syntax", "unknown-function",
         "wrong-arg-count", "reinit-non-state", "der-of-parameter", "refused-construct"]


class Mutant:
    def __init__(self, kind: str, text: str, lines: list, what: str, may_build: bool = False):
        self.kind, self.text, self.lines, self.what = kind, text, set(lines), what
        #: the variant is still valid Modelica (der() of a parameter is 0): a build is right too
        self.may_build = may_build


def _sections(lines):
    eq0 = next(i for i, l in enumerate(lines) if l == "equation")
    end = next(i for i, l in enumerate(lines) if l.startswith("  annotation(experiment"))
    return eq0, end


def _decl_line(lines, name):
    pat = re.compile(rf"^  (?:(?:parameter|constant|discrete|output) )?\w+ {re.escape(name)}\b")
    for i, l in enumerate(lines):
        if pat.match(l):
            return i + 1
    return None


_SIMPLE = re.compile(r"^  (?!when|elsewhen|for|if|else|end|reinit)\S.* = .*;$")


def mutants(m: A.Model, rng: random.Random, n: int = 3) -> list:
    text = A.render(m)
    lines = text.split("\n")
    eq0, end = _sections(lines)
    decls = {d.name: d for d in m.decls()}
    vars_ = [d for d in m.decls() if d.prefix not in ("parameter", "constant")]
    out = []
    kinds = KINDS[:]
    rng.shuffle(kinds)
    for kind in kinds:
        if len(out) >= n:
            break
        mu = _mutate(kind, m, lines, eq0, end, decls, vars_, rng)
        if mu is not None:
            out.append(mu)
    return out


def _with(lines, i, new):
    ls = list(lines)
    ls[i] = new
    return "\n".join(ls)



def _call_sites(m: "A.Model", body: list, lines: list) -> list:
    """(line index, function name) of the calls of the model's functions in ``body``, else of
    sin/tanh/atan."""
    cands = [(i, f.name) for f in m.functions for i in body if re.search(rf"\b{f.name}\(", lines[i])]
    return cands or [(i, fn) for i in body for fn in ("sin", "tanh", "atan") if re.search(rf"\b{fn}\(", lines[i])]

def _mutate(kind, m, lines, eq0, end, decls, vars_, rng):
    body = list(range(eq0 + 1, end))
    simple = [i for i in body if _SIMPLE.match(lines[i])]
    names_in = {i: [v.name for v in vars_ if re.search(rf"\b{re.escape(v.name)}\b", lines[i])] for i in body}
    if kind == "unknown-name":
        cands = [i for i in body if names_in[i]]
        if not cands:
            return None
        i = rng.choice(cands)
        v = rng.choice(names_in[i])
        new = re.sub(rf"\b{re.escape(v)}\b", v + "q", lines[i], count=1)
        return Mutant(kind, _with(lines, i, new), [i + 1], f"{v} -> {v}q on line {i + 1}")
    if kind == "swapped-names":
        # der(x) of a Boolean or Integer variable
        bools = [v.name for v in vars_ if v.type in ("Boolean", "Integer")]
        cands = [i for i in body if "der(" in lines[i] and "[" not in lines[i].split("=")[0]]
        if not bools or not cands:
            return None
        i = rng.choice(cands)
        mt = re.search(r"der\((\w+)\)", lines[i])
        if not mt:
            return None
        b = rng.choice(bools)
        new = lines[i].replace(f"der({mt.group(1)})", f"der({b})", 1)
        return Mutant(kind, _with(lines, i, new), [i + 1, _decl_line(lines, b), _decl_line(lines, mt.group(1))],
                      f"der({mt.group(1)}) -> der({b}) on line {i + 1}")
    if kind == "dropped-equation":
        if not simple:
            return None
        i = rng.choice(simple)
        lhs = lines[i].split("=")[0]
        defined = re.findall(r"\w+", lhs)
        # the variable left without an equation is any one the matching cannot cover: those of
        # the dropped equation and those sharing an equation with them
        near = set(names_in[i])
        for k in body:
            if k != i and near & set(names_in[k]):
                near |= set(names_in[k])
        exp = [_decl_line(lines, d) for d in set(defined) | near if d in decls] + [i + 1]
        # an initial equation der(v) = ... of the variable whose equation is gone
        exp += [k + 1 for k, l in enumerate(lines[:eq0]) for d in defined if f"der({d})" in l]
        # a reinit of it (no longer a state)
        exp += [k + 1 for k, l in enumerate(lines) for d in defined if f"reinit({d}," in l]
        ls = list(lines)
        del ls[i]
        # the lines after the dropped one moved up by one
        return Mutant(kind, "\n".join(ls), [x if x is None or x <= i else x - 1 for x in exp] + [i],
                      f"dropped line {i + 1}: {lines[i].strip()}")
    if kind == "extra-equation":
        if not simple:
            return None
        i = rng.choice(simple)
        ls = list(lines)
        ls.insert(i + 1, lines[i])
        lhs = lines[i].split("=")[0]
        exp = [i + 1, i + 2] + [_decl_line(lines, d) for d in re.findall(r"\w+", lhs) if d in decls]
        return Mutant(kind, "\n".join(ls), exp, f"line {i + 1} twice")
    if kind == "wrong-dimension":
        arr = [d for d in vars_ if d.dims]
        if not arr:
            return None
        d = rng.choice(arr)
        j = _decl_line(lines, d.name) - 1
        dim = A.expr(d.dims[0])
        new = lines[j].replace(f"{d.name}[{dim}]", f"{d.name}[{dim} + 1]", 1)
        if new == lines[j]:
            return None
        uses = [i + 1 for i in body if re.search(rf"\b{re.escape(d.name)}\b", lines[i])]
        return Mutant(kind, _with(lines, j, new), [j + 1] + uses, f"{d.name}[{dim}] -> [{dim} + 1]")
    if kind == "index-out-of-range":
        cands = [(i, mt) for i in body for mt in re.finditer(r"\b(\w+)\[(\d+)\]", lines[i])
                 if mt.group(1) in decls and decls[mt.group(1)].dims]
        if not cands:
            return None
        i, mt = rng.choice(cands)
        bad = rng.choice(["0", "100"])
        new = lines[i][:mt.start(2)] + bad + lines[i][mt.end(2):]
        return Mutant(kind, _with(lines, i, new), [i + 1], f"{mt.group(0)} -> {mt.group(1)}[{bad}] on line {i + 1}")
    if kind == "loop-out-of-range":
        cands = [i for i in body if re.match(r"^\s+for i in .*:(\w+) loop$", lines[i])]
        if not cands:
            return None
        i = rng.choice(cands)
        new = re.sub(r":(\w+) loop$", r":\1 + 1 loop", lines[i])
        k = i + 1
        inner = []
        while k < len(lines) and not lines[k].strip().startswith("end for"):
            inner.append(k + 1)
            k += 1
        return Mutant(kind, _with(lines, i, new), [i + 1] + inner, f"for-range one too long on line {i + 1}")
    if kind == "type-error":
        cands = [i for i in body if re.search(r"pre\(\w+\) \+ 1;", lines[i]) or re.search(r"= true;|= false;", lines[i])]
        if not cands:
            return None
        i = rng.choice(cands)
        new = re.sub(r"\+ 1;", "+ 0.5;", lines[i]) if "pre(" in lines[i] else re.sub(r"= (true|false);", "= 1.5;", lines[i])
        lhs = re.findall(r"\w+", lines[i].split("=")[0])
        return Mutant(kind, _with(lines, i, new), [i + 1] + [_decl_line(lines, x) for x in lhs if x in decls],
                      f"Integer/Boolean assigned a Real on line {i + 1}")
    if kind == "unbalanced":
        ls = list(lines)
        ls.insert(eq0, "  Real unusedq;")
        return Mutant(kind, "\n".join(ls), [eq0 + 1], "a variable without an equation")
    if kind == "syntax":
        cands = [i for i in body if lines[i].endswith(";") and "(" in lines[i]]
        if not cands:
            return None
        i = rng.choice(cands)
        how = rng.choice(["semicolon", "paren", "keyword"])
        if how == "semicolon":
            new = lines[i][:-1]
        elif how == "paren":
            k = lines[i].rindex(")")
            new = lines[i][:k] + lines[i][k + 1:]
        else:
            new = lines[i].replace(" = ", " == ", 1)
        if new == lines[i]:                 # nothing to damage there (no " = " in a reinit)
            new = lines[i][:-1]
            how = "semicolon"
        if how == "semicolon" and lines[i + 1].lstrip().startswith("annotation("):
            # an equation may carry an annotation (MLS 8.3): without its ';' the last equation
            # and the class's annotation are still valid Modelica -- damage its parenthesis
            k = lines[i].rindex(")")
            new, how = lines[i][:k] + lines[i][k + 1:], "paren"
        return Mutant(kind, _with(lines, i, new), [i + 1, i + 2], f"{how} damaged on line {i + 1}")
    if kind in ("unknown-function", "wrong-arg-count"):
        cands = _call_sites(m, body, lines)
        if not cands:
            return None
        i, fn = rng.choice(cands)
    if kind == "unknown-function":
        new = re.sub(rf"\b{fn}\(", fn + "x(", lines[i], count=1)
        return Mutant(kind, _with(lines, i, new), [i + 1], f"{fn} -> {fn}x on line {i + 1}")
    if kind == "wrong-arg-count":
        new = re.sub(rf"\b{fn}\(", fn + "(1.0, ", lines[i], count=1)
        return Mutant(kind, _with(lines, i, new), [i + 1], f"one more argument of {fn} on line {i + 1}")
    if kind == "reinit-non-state":
        cands = [i for i in body if "reinit(" in lines[i]]
        ints = [v.name for v in vars_ if v.type in ("Integer", "Boolean") or v.prefix == "discrete"]
        if cands and ints:
            i = rng.choice(cands)
            v = rng.choice(ints)
            new = re.sub(r"reinit\((\w+),", f"reinit({v},", lines[i], count=1)
            # or the equation of that variable in the same when-clause (assigned twice)
            near = [k + 1 for k in range(max(eq0, i - 4), min(end, i + 5)) if re.match(rf"^\s+{re.escape(v)} = ", lines[k])]
            return Mutant(kind, _with(lines, i, new), [i + 1] + near, f"reinit of a discrete variable on line {i + 1}")
        return None
    if kind == "refused-construct":
        # the same seed's model with a construct rumoca refuses (a while-loop in a function, a
        # mod() subscript in a for-equation): a refusal at the construct's line
        if m.seed is None:
            return None
        from .gen import generate
        text = A.render(generate(m.seed, refused=True))
        ls = text.split("\n")
        exp = [i + 1 for i, l in enumerate(ls) if re.search(r"^\s+while\b|\[[^\]]*\bmod\(", l)]
        if not exp:
            return None
        # a for-equation's refusal may name the loop's line
        exp += [i + 1 for i, l in enumerate(ls) if l.strip().startswith("for ") and i + 1 < len(ls)
                and re.search(r"\[[^\]]*\bmod\(", ls[i + 1])]
        return Mutant(kind, text, exp, "refused construct: " + ls[exp[0] - 1].strip())
    if kind == "der-of-parameter":
        ps = [d.name for d in m.params if d.type == "Real" and not d.dims and d.name != "pi"]
        cands = [i for i in body if re.search(r"der\(\w+\) = ", lines[i])]
        if not ps or not cands:
            return None
        i = rng.choice(cands)
        p = rng.choice(ps)
        new = lines[i].rstrip(";") + f" + der({p});"
        return Mutant(kind, _with(lines, i, new), [i + 1, _decl_line(lines, p)], f"der({p}) on line {i + 1}",
                      may_build=True)
    return None


class _Done:
    def __init__(self, returncode: int, stdout: str, stderr: str):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run_cli(args: list, work: Path, env: dict, timeout: float) -> _Done | None:
    """``python -m wearcosim.cli ARGS`` in its own session, its output in files (not pipes: a
    grandchild holding a pipe open cannot block the reader), the whole session killed after
    ``timeout`` seconds (then None)."""
    o, e = work / "cli.stdout", work / "cli.stderr"
    with open(o, "w") as fo, open(e, "w") as fe:
        p = subprocess.Popen([sys.executable, "-m", "wearcosim.cli"] + args, stdout=fo, stderr=fe,
                             stdin=subprocess.DEVNULL, env=env, cwd=str(work), start_new_session=True)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                p.kill()
            p.wait()
            return None
    return _Done(p.returncode, o.read_text(errors="replace"), e.read_text(errors="replace"))


_LOC = re.compile(r"(?P<file>[^\s:]+\.mo):(?P<line>\d+)(?::(?P<col>\d+))?")


def check_cli(mu: Mutant, name: str, work: Path, timeout: float = 240.0) -> dict:
    """The command line's answer to a mutant: {'ok': bool, 'failures': [...], 'error': line}."""
    work.mkdir(parents=True, exist_ok=True)
    mo = work / f"{name}.mo"
    mo.write_text(mu.text)
    out = work / "out"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    p = run_cli(["build", "--file", str(mo), name, "--out", str(out)], work, env, timeout)
    if p is None:
        return {"ok": False, "failures": ["timeout"], "error": None, "rc": None,
                "expected_lines": sorted(x for x in mu.lines if x)}
    fails = []
    errs = [l for l in p.stderr.splitlines() if l.startswith("error:")]
    if "Traceback" in p.stderr or "Traceback" in p.stdout:
        fails.append("traceback")
    if "internal error" in p.stderr.lower():
        fails.append("internal-error")
    if p.returncode == 0 and not mu.may_build:
        fails.append("accepted")
    elif p.returncode != 1:
        fails.append(f"exit-{p.returncode}")
    if out.exists() and any(out.glob("*.fmu")):
        if p.returncode != 0:
            fails.append("fmu-written")
    if p.returncode != 0:
        if len(errs) != 1:
            fails.append("not-one-error-line")
        if errs:
            mt = _LOC.search(errs[0])
            if not mt:
                fails.append("no-location")
            elif Path(mt.group("file")).name != mo.name:
                fails.append("wrong-file")
            elif int(mt.group("line")) not in mu.lines:
                # line 1 is the generated model's class line: the exporter's fallback for an error
                # rumoca reports without a span
                fails.append("class-line" if int(mt.group("line")) == 1 else "wrong-line")
    return {"ok": not fails, "failures": fails, "error": (errs[0] if errs else p.stderr.strip()[-400:]),
            "rc": p.returncode, "expected_lines": sorted(x for x in mu.lines if x)}


def mutant_job(task: tuple) -> list:
    """A worker's task: the broken variants of the model of this seed through the CLI."""
    import shutil
    from .gen import generate
    seed, k, work = task
    m = generate(seed)
    rng = random.Random(seed * 7919 + 17)
    out = []
    for j, mu in enumerate(mutants(m, rng, k)):
        w = Path(work) / f"mu{seed}_{j}"
        r = check_cli(mu, m.name, w)
        shutil.rmtree(w, ignore_errors=True)
        r.update({"seed": seed, "kind": mu.kind, "what": mu.what})
        if not r["ok"]:
            r["text"] = mu.text
        out.append(r)
    return out


def mutant_failure(task: tuple, how: str, detail: str) -> list:
    """The mutants of a seed whose worker died or ran out of time."""
    return [{"ok": False, "failures": [f"worker-{how}"], "error": detail[:500], "seed": task[0],
             "kind": "?", "what": "the mutants of this seed"}]
