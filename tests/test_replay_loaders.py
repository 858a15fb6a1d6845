import json
from pathlib import Path

import pytest

from contextual.core.replay.loaders import (MINI_FORMAT, SWE_AGENT_FORMAT, TrajectoryError, find_trajectories,
                                 load_trajectory)

SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "trajectories"
needs_samples = pytest.mark.skipif(not (SAMPLES / "astropy__astropy-12907.traj.json").is_file(),
                                   reason=f"the sample trajectories are not at {SAMPLES}")


def _mini(tmp_path: Path, messages: list[dict], name: str = "x.traj.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"trajectory_format": MINI_FORMAT, "instance_id": "demo__demo-1", "info": {},
                                "messages": messages}))
    return path


@needs_samples
def test_mini_swe_agent_sample():
    traj = load_trajectory(SAMPLES / "astropy__astropy-12907.traj.json")
    assert traj.source_format == MINI_FORMAT
    assert traj.instance_id == "astropy__astropy-12907"
    assert traj.task.startswith("<pr_description>")
    assert len(traj.preamble) == 1 and traj.preamble[0].startswith("You are a helpful assistant")
    assert len(traj.steps) == 20                      # one step per assistant turn
    first = traj.steps[0]
    assert first.action == "ls -R" and first.returncode == 0
    assert first.thought.startswith("I need to explore the codebase")
    assert "<output_head>" in first.output and not first.output.startswith("<returncode>")
    last = traj.steps[-1]
    assert last.action.startswith("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")
    assert last.output.startswith("diff --git") and last.returncode is None


@needs_samples
def test_format_error_turn_keeps_every_block():
    traj = load_trajectory(SAMPLES / "django__django-10914.traj.json")
    errors = [s for s in traj.steps if s.format_error]
    assert len(errors) == 2
    step = errors[0]
    assert step.action.startswith("sed -i '/File Uploads/a")
    assert 'grep -A 5 "File Uploads" docs/releases/3.0.txt' in step.thought     # the second block is kept
    assert step.output.startswith("Please always provide EXACTLY ONE action") and step.returncode is None


@needs_samples
def test_swe_agent_sample():
    traj = load_trajectory(SAMPLES / "swe-agent" / "pydicom__pydicom-1458.traj")
    assert traj.source_format == SWE_AGENT_FORMAT
    assert traj.instance_id == "pydicom__pydicom-1458"
    assert traj.task.startswith("We're currently solving the following issue")
    assert "Pixel Representation" in traj.task
    assert any("DEMONSTRATION" in text for text in traj.preamble)
    assert len(traj.steps) == 12
    assert traj.steps[0].action == "create reproduce_bug.py"
    assert traj.steps[0].output.startswith("[File: /pydicom__pydicom/reproduce_bug.py")
    assert traj.steps[-1].action == "submit"


def test_plain_output_unwrapped_and_returncode_parsed(tmp_path):
    path = _mini(tmp_path, [
        {"role": "system", "content": "sys"}, {"role": "user", "content": "the task"},
        {"role": "assistant", "content": "THOUGHT: look\n\n```bash\nls -a\n```"},
        {"role": "user", "content": "<returncode>2</returncode>\n<output>\nno such file\n</output>"},
        {"role": "assistant", "content": "I forgot the block"},
        {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 0 actions."},
    ])
    traj = load_trajectory(path)
    assert traj.task == "the task" and traj.preamble == ["sys"]
    one, two = traj.steps
    assert (one.thought, one.action, one.output, one.returncode, one.format_error) == \
        ("look", "ls -a", "no such file", 2, False)
    assert two.action == "" and two.format_error and two.thought == "I forgot the block"


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "not JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"something": 1}', "neither a mini-swe-agent"),
    ('{"messages": [{"role": "system", "content": "s"}]}', "no assistant turn"),
    ('{"messages": [{"role": "user"}, {"role": "assistant", "content": "x"}]}', "no task"),
    ('{"messages": [{"role": "user", "content": 3}, {"role": "assistant", "content": "x"}]}', "content is int"),
    ('{"messages": [{"role": "user", "content": "t"}, {"role": "assistant", "content": "x", "tool_calls": 5}]}',
     "malformed trajectory"),
])
def test_corrupt_file_is_one_line_naming_it(tmp_path, content, fragment):
    path = tmp_path / "broken.traj.json"
    path.write_text(content)
    with pytest.raises(TrajectoryError) as info:
        load_trajectory(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message and fragment in message


def test_find_trajectories_recurses_and_filters(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("a/one.traj.json", "a/b/two.traj", "a/readme.md", "three.json"):
        (tmp_path / name).write_text("{}")
    found = find_trajectories([tmp_path, tmp_path / "three.json"])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["a/b/two.traj", "a/one.traj.json", "three.json"]
    with pytest.raises(TrajectoryError, match="no such file"):
        find_trajectories([tmp_path / "missing"])
