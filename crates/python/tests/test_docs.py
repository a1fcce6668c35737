"""Every Python example of docs/python.md runs as written."""

import re

import pytest

from conftest import ROOT

DOC = (ROOT / "docs" / "python.md").read_text()
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC, flags=re.S)


def test_the_guide_has_its_examples():
    assert len(EXAMPLES) >= 6


@pytest.mark.parametrize("code", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_an_example_of_the_guide_runs(code):
    exec(compile(code, "docs/python.md", "exec"), {"__name__": "__doc_example__"})
