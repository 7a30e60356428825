"""The ablation switches read from the environment: the default where unset, the names listed,
and an unknown name refused with the variable and the choices named."""

import pytest

from cad.cm.construction import CM_PARTS, cm_parts
from cad.core.errors import CadError
from cad.lang.facts import DEFAULT_GENDER_SOURCES, gender_sources


def test_unset_gives_the_default_and_a_list_gives_its_names(monkeypatch):
    monkeypatch.delenv("CAD_CM_PARTS", raising=False)
    monkeypatch.delenv("CAD_GENDER_SOURCES", raising=False)
    assert cm_parts() == frozenset(CM_PARTS)
    assert gender_sources() == frozenset(DEFAULT_GENDER_SOURCES)
    monkeypatch.setenv("CAD_CM_PARTS", " referent, ,demonstrative")
    assert cm_parts() == {"referent", "demonstrative"}
    monkeypatch.setenv("CAD_CM_PARTS", "")
    assert cm_parts() == frozenset()
    monkeypatch.setenv("CAD_GENDER_SOURCES", "lexicon")
    assert gender_sources() == {"lexicon"}


def test_an_unknown_name_is_refused_naming_the_variable_and_the_choices(monkeypatch):
    monkeypatch.setenv("CAD_CM_PARTS", "referent,colour")
    with pytest.raises(CadError, match=r"CAD_CM_PARTS: unknown part\(s\) colour \(choose from .*referent"):
        cm_parts()
    monkeypatch.setenv("CAD_GENDER_SOURCES", "oracle")
    with pytest.raises(CadError, match=r"CAD_GENDER_SOURCES: unknown source\(s\) oracle \(choose from .*lexicon"):
        gender_sources()
