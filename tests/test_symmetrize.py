from cad.core.alignment import format_alignment, parse_alignment
from cad.corpus.symmetrize import symmetrize
from cad.core.errors import CadError
import pytest


def test_grow_diag_follows_union_from_intersection():
    fwd = {(0, 0), (1, 1), (2, 1)}
    rev = {(0, 0), (1, 1), (2, 2)}
    # (2,1) neighbours (1,1) with source 2 unaligned; then (2,2) neighbours (2,1) with target 2 unaligned
    assert symmetrize(fwd, rev, 3, 3, "grow-diag") == {(0, 0), (1, 1), (2, 1), (2, 2)}
    assert symmetrize(fwd, rev, 3, 3, "intersect") == {(0, 0), (1, 1)}
    assert symmetrize(fwd, rev, 3, 3, "union") == fwd | rev


def test_diagonal_neighbours_only_in_grow_diag():
    fwd = {(0, 0), (1, 1)}
    rev = {(0, 0)}
    assert symmetrize(fwd, rev, 2, 2, "grow-diag") == {(0, 0), (1, 1)}
    assert symmetrize(fwd, rev, 2, 2, "grow") == {(0, 0)}


def test_final_and_needs_both_words_unaligned():
    fwd = {(0, 0), (2, 2), (0, 2)}
    rev = {(0, 0)}
    # (0,2): source 0 is aligned -> only "final" adds it, and then (2,2) still has source 2 free
    assert symmetrize(fwd, rev, 3, 3, "grow-diag-final-and") == {(0, 0), (2, 2)}
    assert symmetrize(fwd, rev, 3, 3, "grow-diag-final") == {(0, 0), (0, 2), (2, 2)}


def test_grow_does_not_add_points_between_aligned_words():
    # (1,0) is in the union but both its words are already aligned after the intersection
    fwd = {(0, 0), (1, 1), (1, 0)}
    rev = {(0, 0), (1, 1)}
    assert symmetrize(fwd, rev, 2, 2, "grow-diag-final-and") == {(0, 0), (1, 1)}


def test_alignment_lines_round_trip_and_errors():
    assert parse_alignment("0-0 2-1 1-3") == [(0, 0), (2, 1), (1, 3)]
    assert format_alignment({(2, 1), (0, 0)}) == "0-0 2-1"
    with pytest.raises(CadError, match="out of range"):
        parse_alignment("0-5", 2, 2, "a.txt", 3)
    with pytest.raises(CadError, match=r"a.txt:3: malformed"):
        parse_alignment("0:1", 2, 2, "a.txt", 3)
