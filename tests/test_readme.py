"""The README's code blocks as a reader meets them: every fence closed, every Python block runs."""
import os
import re

import pytest

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def fenced_blocks(text):
    """[(info string, body)] by CommonMark's rule that only a bare fence closes a block."""
    blocks, info, body = [], None, []
    for line in text.splitlines():
        fence = re.match(r"^```(.*)$", line)
        if info is None and fence:
            info, body = fence.group(1).strip(), []
        elif info is not None and line.rstrip() == "```":
            blocks.append((info, "\n".join(body)))
            info = None
        elif info is not None:
            assert not fence, f"a fence opens inside the {info or 'plain'} block: {line!r}"
            body.append(line)
    assert info is None, f"the {info or 'plain'} block starting {body[:1]} is never closed"
    return blocks


def test_every_fence_is_closed_and_no_block_swallows_another():
    with open(README) as f:
        blocks = fenced_blocks(f.read())
    assert any(info == "python" for info, _ in blocks)


def test_fenced_blocks_sees_a_block_left_open():
    with pytest.raises(AssertionError):
        fenced_blocks("```python\nx = 1\n\nprose\n```bash\narena run\n```\n")


@pytest.mark.parametrize("code", [body for info, body in fenced_blocks(open(README).read()) if info == "python"])
def test_python_block_runs(code, tmp_path, monkeypatch):
    if "pyspiel" in code:
        pytest.importorskip("pyspiel")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, README, "exec"), {"__name__": "readme"})
