"""Line recall of replayed prompts under definitions of "a later step needs this line" other than the published one
(tuning aid, not part of the product; round 13 of docs/economy.md).

Measurement only: reads the recorded trajectories (core.replay.loaders) and the prompts `contextual replay --dump`
wrote; imports nothing from core/context. On tune/ only:

    python -m contextual replay --policy ours --policy raw --policy codex --policy anthropic-30k \
        --dump /tmp/dump --summary-only --jobs 2 ../shared/trajectories/tune/
    python scripts/line_recall_variants.py /tmp/dump ../shared/trajectories/tune/ [--misses misses.json] \
        [--per-traj per_traj.json] [--policies ours,raw,codex,anthropic-30k]

(--misses lists the first policy's misses with whether each anchor kept the line.) Every definition yields, per
trajectory, a list of (step k, key, candidate lines from observations of steps < k); a pair is hit when one
candidate line is verbatim inside one message of the prompt that produced step k (as written, or with JSON escapes
decoded, as core/replay/metrics.py reads it).
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from contextual.core.replay.loaders import find_trajectories, iter_trajectories
from contextual.core.replay.metrics import decode_json_escapes, identifiers

DEFAULT_POLICIES = POLICIES = ("ours", "raw", "codex", "anthropic-30k")

# --- name functions ---------------------------------------------------------------------------------------------
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]{3,}")
_SHORT = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]{1,}")
_PART4 = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
_PIECE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def published(text: str) -> set[str]:
    return identifiers(text)


def case_insensitive(text: str) -> set[str]:
    return {n.lower() for n in identifiers(text)}


def short(text: str) -> set[str]:
    return {n for n in (m.rstrip("./-") for m in _SHORT.findall(text)) if len(n) >= 2}


def code_like(text: str) -> set[str]:
    """Published names that are not plain words: a path, dotted name, snake_case, CamelCase or with digits."""
    return {n for n in identifiers(text)
            if any(c in n for c in "_./") or any(c.isdigit() for c in n) or any(c.isupper() for c in n[1:])}


def split4(text: str) -> set[str]:          # the repository's `split` scorer
    return set(_PART4.findall(text))


def whole_and_parts(text: str) -> set[str]:
    """(d) the published names plus each one's `.`/`/` parts of 2+ characters (`a.b/cd.py`: a.b/cd.py, b, cd, py)."""
    out = set()
    for name in identifiers(text):
        out.add(name)
        for part in re.split(r"[./]", name):
            part = part.strip("-")
            if len(part) >= 2 and _PIECE.fullmatch(part):
                out.add(part)
    return out


# --- pair builders ----------------------------------------------------------------------------------------------

def name_pairs(preamble, task, responses, outputs, names=published, *, newest=False, any_obs=False,
               strip=True, static_task=True):
    """Published construction, parameterised. any_obs: a name the action uses counts whenever an earlier
    observation showed it (even if an earlier action also did); strip=False: lines keep their indentation
    (trailing whitespace dropped); static_task=False: names of the task count too (only the preamble is static)."""
    static = set(names(task)) if static_task else set()
    for text in preamble:
        static |= names(text)
    first_in_action, in_any_action = set(), set()
    in_obs: dict[str, list[tuple[int, str]]] = {}
    pairs = []
    for step, response in enumerate(responses):
        used = names(response) - static
        for name in sorted(used):
            if name in in_obs and (any_obs or (name not in in_any_action)):
                if not any_obs and name in first_in_action:
                    continue
                pairs.append((step, name, list(dict.fromkeys(in_obs[name]))))
        first_in_action |= used - in_obs.keys()
        in_any_action |= used
        if step < len(outputs):
            by_name: dict[str, list[tuple[int, str]]] = {}
            for line in outputs[step].splitlines():
                key = line.strip()
                if not key:
                    continue
                shown = line.rstrip() if not strip else key
                for name in names(key) - static:
                    by_name.setdefault(name, []).append((step, shown))
            for name, lines in by_name.items():
                if newest:
                    in_obs[name] = lines
                else:
                    in_obs.setdefault(name, []).extend(lines)
    return pairs


def best_line(pairs, responses, names=published):
    """Of a pair's candidate lines, only those sharing the most names with the action (the line it most likely
    used)."""
    out = []
    for step, name, cands in pairs:
        used = names(responses[step])
        scores = [len(names(line) & used) for _, line in cands]
        top = max(scores)
        out.append((step, name, [c for c, s in zip(cands, scores) if s == top]))
    return out


_DEF_RE = r"^\s*(?:\d+[:\s]+)?(?:async\s+def|def|class)\s+{}\b"


def definition_pairs(pairs):
    """Only pairs whose name was defined (def/class line) in an earlier output; the candidates are those lines."""
    out = []
    for step, name, cands in pairs:
        last = name.rsplit(".", 1)[-1]
        pat = re.compile(_DEF_RE.format(re.escape(last)))
        defs = [c for c in cands if pat.search(c[1])]
        if defs:
            out.append((step, name, defs))
    return out


def first_use_only(pairs):
    seen, out = set(), []
    for p in pairs:
        if p[1] not in seen:
            seen.add(p[1])
            out.append(p)
    return out


_COMMAND = re.compile(r"```(?:bash|sh)?\s*\n(.*?)```", re.S)


def command_of(response: str) -> str:
    blocks = _COMMAND.findall(response)
    return "\n".join(blocks) if blocks else response


# (f) line numbers -------------------------------------------------------------------------------------------
_OWN = re.compile(r"^\s*(\d+)(?:\t|:|\s{1,3}\S)")        # nl -ba / cat -n / grep -n (one file)
_REF = re.compile(r"(?:^[^\s:]+\.\w+:(\d+):|\bline (\d+)\b)")       # path:12: (grep -rn), File "x", line 12
_SEDN = re.compile(r"^\s*(?:cd\s+\S+\s*&&\s*)?sed\s+-n\s+['\"]?(\d+),(\d+)p['\"]?\s+(\S+)\s*$")
_CATF = re.compile(r"^\s*(?:cd\s+\S+\s*&&\s*)?(?:cat|head(?:\s+-n\s*\d+|\s+-\d+)?)\s+(\S+\.\w+)\s*$")
_NUM = re.compile(r"(?<![\w.])(\d{2,6})(?!\d|\.\d)")


def numbered_lines(command: str, output: str) -> list[tuple[int, str]]:
    """(file line number, stripped line) of every line of an output whose line number is known: its own number
    (nl, cat -n, grep -n), a `path:N:` or `line N` reference, or its place in a `sed -n 'a,bp' f` / `cat f` view."""
    lines = output.splitlines()
    out = []
    start = None
    m = _SEDN.match(command.strip())
    if m:
        start = int(m.group(1))
    elif _CATF.match(command.strip()):
        start = 1
    for i, line in enumerate(lines):
        key = line.strip()
        if not key:
            continue
        found = set()
        om = _OWN.match(line)
        if om:
            found.add(int(om.group(1)))
        for a, b in _REF.findall(line):
            found.add(int(a or b))
        if start is not None and not om:
            found.add(start + i)
        for n in found:
            out.append((n, key))
    return out


_ACTED = [re.compile(r"(?<![\w.])(\d+)(?:,(\d+))?(?=s[/|#:]|[dacir]\b|[dacir]\\)"),        # sed -i '607s/…', '12d', '291r f'
           re.compile(r"\b[Ll]ines?\s+(\d+)(?:\s*(?:-|–|to|and|through)\s*(\d+))?"),           # line 849, lines 10-20
           re.compile(r"[\w/.-]+\.\w+:(\d+)\b()"),                                          # x.py:12
           re.compile(r"(?:^|\n)\s*(\d+)(?:\t|:\s)()")]                                    # quoted `1042: …`


def _acted_numbers(text: str) -> set[str]:
    """Line numbers the text acts on or refers to: sed edit addresses, `line N`/`lines N-M`, `path:N`, a quoted
    numbered line; not a view range (`sed -n '120,140p'` re-reads, it does not need the old copy)."""
    out = set()
    for pat in _ACTED:
        for a, b in pat.findall(text):
            out.add(str(int(a)))
            if b:
                out.add(str(int(b)))
    return out


def number_pairs(preamble, task, responses, outputs, commands, any_action=False, command_only=False, acted=False):
    """(f) numbers (>= 10) an action uses that an earlier output showed as a line number: is a line with that
    number still there? Numbers of the task/preamble never count; unless any_action, neither do numbers an
    earlier action already used."""
    static = set(_NUM.findall(task))
    for text in preamble:
        static |= set(_NUM.findall(text))
    in_action = set()
    by_number: dict[str, list[tuple[int, str]]] = {}
    pairs = []
    for step, response in enumerate(responses):
        text = commands[step] if command_only else response
        used = {n for n in (_acted_numbers(text) if acted else _NUM.findall(text)) if int(n) >= 10} - static
        for n in sorted(used):
            if n in by_number and (any_action or n not in in_action):
                pairs.append((step, n, list(dict.fromkeys(by_number[n]))))
        in_action |= used
        if step < len(outputs):
            for num, key in numbered_lines(commands[step], outputs[step]):
                by_number.setdefault(str(num), []).append((step, key))
    return pairs


def quoted_pairs(preamble, task, responses, outputs, any_action=False, min_chars=15):
    """(l) lines of earlier outputs (stripped, >= min_chars, with a letter) that the action reproduces verbatim:
    the agent quoted them, so it needed them. Unless any_action, a line an earlier action (or the task/preamble)
    already held does not count (it was not only an observation's)."""
    static = task + "\x00" + "\x00".join(preamble)
    obs_lines: dict[str, list[int]] = {}
    said = []
    pairs = []
    for step, response in enumerate(responses):
        earlier = "\x00".join(said)
        for line, where in obs_lines.items():
            if line in response and line not in static and (any_action or line not in earlier):
                pairs.append((step, line[:40], [(where[0], line)]))
        said.append(response)
        if step < len(outputs):
            for raw in outputs[step].splitlines():
                key = raw.strip()
                if len(key) >= min_chars and any(c.isalpha() for c in key):
                    obs_lines.setdefault(key, []).append(step)
    return pairs


# --- scoring ----------------------------------------------------------------------------------------------------

def load_prompts(dump: Path, policy: str, iid: str, steps: int) -> dict[int, tuple[str, list[str]]]:
    safe = iid.replace("/", "_").replace("\\", "_")
    out = {}
    with open(dump / policy / f"{safe}.jsonl", encoding="utf-8") as handle:
        for raw in handle:
            d = json.loads(raw)
            if d["step"] >= steps or d["step"] in out:
                continue
            msgs = [m["content"] for m in d["messages"]]
            readable = [c + ("\n" + decode_json_escapes(c) if "\\" in c else "") for c in msgs]
            out[d["step"]] = ("\x00".join(readable), msgs)
    return out


def definitions(traj):
    pre, task = list(traj.preamble), traj.task
    resp = [s.response for s in traj.steps]
    outs = [s.output for s in traj.steps]
    cmds = [s.action for s in traj.steps]
    cmd_resp = [command_of(r) for r in resp]
    pub = name_pairs(pre, task, resp, outs)
    defs = {
        "published": pub,
        "split (repo)": name_pairs(pre, task, resp, outs, split4),
        "(b) case-insensitive": name_pairs(pre, task, resp, outs, case_insensitive),
        "(c) short, 2+ chars": name_pairs(pre, task, resp, outs, short),
        "(d) names + ./ parts": name_pairs(pre, task, resp, outs, whole_and_parts),
        "(e1) any earlier obs": name_pairs(pre, task, resp, outs, any_obs=True),
        "(e2) verbatim indent": name_pairs(pre, task, resp, outs, strip=False),
        "(e) any obs + indent": name_pairs(pre, task, resp, outs, any_obs=True, strip=False),
        "(e3) any obs+task names": name_pairs(pre, task, resp, outs, any_obs=True, static_task=False),
        "(f) line numbers": number_pairs(pre, task, resp, outs, cmds),
        "(f2) line numbers, any": number_pairs(pre, task, resp, outs, cmds, any_action=True),
        "(g) newest": name_pairs(pre, task, resp, outs, newest=True),
        "(g2) newest, any obs": name_pairs(pre, task, resp, outs, newest=True, any_obs=True),
        "(h) command only": name_pairs(pre, task, cmd_resp, outs),
        "(i) best line": best_line(pub, resp),
        "(i2) best line, newest": best_line(name_pairs(pre, task, resp, outs, newest=True), resp),
        "(j) definition line": definition_pairs(name_pairs(pre, task, resp, outs, any_obs=True)),
        "(f3) line numbers, cmd": number_pairs(pre, task, resp, outs, cmds, command_only=True),
        "(f4) acted-on numbers": number_pairs(pre, task, resp, outs, cmds, acted=True),
        "(f5) acted-on, cmd": number_pairs(pre, task, resp, outs, cmds, acted=True, command_only=True),
        "(l) quoted lines": quoted_pairs(pre, task, resp, outs),
        "(l2) quoted, any": quoted_pairs(pre, task, resp, outs, any_action=True),
        "(l3) quoted, 25+ chars": quoted_pairs(pre, task, resp, outs, min_chars=25),
        "(l4) quoted in command": quoted_pairs(pre, task, cmds, outs, any_action=True),
        "(e4) any obs, code-like": name_pairs(pre, task, resp, outs, code_like, any_obs=True),
        "(e5) any obs+task, code": name_pairs(pre, task, resp, outs, code_like, any_obs=True, static_task=False),
        "(g3) newest, any, code": name_pairs(pre, task, resp, outs, code_like, newest=True, any_obs=True),
    }
    return defs


def main() -> int:
    global POLICIES
    ap = argparse.ArgumentParser()
    ap.add_argument("dump", type=Path)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--policies", default=",".join(DEFAULT_POLICIES),
                    help="comma-separated dump folders to score; the first is the one whose misses are written")
    ap.add_argument("--misses", type=Path, help="write ours' misses (where an anchor hits or not) as JSON")
    ap.add_argument("--per-traj", type=Path, help="write per-trajectory figures as JSON")
    args = ap.parse_args()
    POLICIES = tuple(args.policies.split(","))
    # def -> policy -> list of (iid, hits, total)
    per: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    misses = []
    for path in find_trajectories(args.paths):
        for traj in iter_trajectories(path):
            n = len(traj.steps)
            prompts = {p: load_prompts(args.dump, p, traj.instance_id, n) for p in POLICIES}
            for dname, pairs in definitions(traj).items():
                for p in POLICIES:
                    hits = 0
                    for step, key, cands in pairs:
                        text = prompts[p].get(step, ("", []))[0]
                        hit = any(line in text for _, line in cands)
                        hits += hit
                        if p == POLICIES[0] and not hit and args.misses is not None:
                            anchors = {a: any(line in prompts[a].get(step, ("", []))[0] for _, line in cands)
                                       for a in POLICIES[1:]}
                            misses.append({"def": dname, "traj": traj.instance_id, "step": step, "key": key,
                                           "cands": [[j, traj.steps[j].action[:200], line[:300]]
                                                     for j, line in cands[:6]],
                                           "n_cands": len(cands), "anchors": anchors})
                    per[dname][p].append((traj.instance_id, hits, len(pairs)))
    header = f"{'definition':26} {'pairs':>6} " + " ".join(f"{p:>13}" for p in POLICIES)
    print("pooled | macro (mean of per-trajectory) / min trajectory")
    print(header)
    for dname, by_policy in per.items():
        total = sum(t for _, _, t in by_policy[POLICIES[0]])
        cells = []
        for p in POLICIES:
            rows = by_policy[p]
            pooled = sum(h for _, h, _ in rows) / total if total else float("nan")
            cells.append(f"{pooled:13.4f}")
        print(f"{dname:26} {total:6d} " + " ".join(cells))
        cells = []
        for p in POLICIES:
            vals = [h / t for _, h, t in by_policy[p] if t]
            cells.append(f"{statistics.mean(vals):6.4f}/{min(vals):6.4f}" if vals else "-")
        print(f"{'  macro/min':26} {'':6} " + " ".join(f"{c:>13}" for c in cells))
    if args.per_traj:
        args.per_traj.write_text(json.dumps({d: {p: v for p, v in bp.items()} for d, bp in per.items()}, indent=1))
    if args.misses:
        args.misses.write_text(json.dumps(misses, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
