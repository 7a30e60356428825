from hypothesis import given, settings, strategies as st

from cad.train.extract import extract_pairs


def spans(pairs):
    return {(p.src_start, p.src_end, p.tgt_start, p.tgt_end) for p in pairs}


def test_unaligned_source_words_extend_phrases():
    # a b c / x y with b unaligned
    pairs = extract_pairs(3, 2, [(0, 0), (2, 1)], max_len=7)
    assert spans(pairs) == {(0, 1, 0, 1), (0, 2, 0, 1), (0, 3, 0, 2), (2, 3, 1, 2), (1, 3, 1, 2)}
    ab_x = next(p for p in pairs if (p.src_start, p.src_end, p.tgt_start, p.tgt_end) == (0, 2, 0, 1))
    assert ab_x.alignment == ((0, 0),)


def test_unaligned_target_words_come_from_enumeration():
    # a b / x y z with y unaligned
    got = spans(extract_pairs(2, 3, [(0, 0), (1, 2)]))
    assert (0, 1, 0, 2) in got and (1, 2, 1, 3) in got and (0, 2, 0, 3) in got
    assert (0, 1, 1, 2) not in got  # a span of only unaligned words is never extracted


def test_length_limit():
    pts = [(i, i) for i in range(5)]
    got = spans(extract_pairs(5, 5, pts, max_len=2))
    assert all(e - s <= 2 and te - ts <= 2 for s, e, ts, te in got)
    assert (0, 2, 0, 2) in got and (0, 3, 0, 3) not in got


def test_orientations_monotone_swap_other():
    # a b c / x y z with a-x, b-z, c-y: (b,z) follows a swap of (c,y)
    pairs = {(p.src_start, p.src_end, p.tgt_start, p.tgt_end): p for p in extract_pairs(3, 3, [(0, 0), (1, 2), (2, 1)])}
    ax = pairs[(0, 1, 0, 1)]
    assert (ax.prev_orientation, ax.next_orientation) == ("mono", "other")   # sentence start; next target y aligns to c
    cy = pairs[(2, 3, 1, 2)]
    assert (cy.prev_orientation, cy.next_orientation) == ("other", "swap")  # previous target x aligns to a; next z to b
    bz = pairs[(1, 2, 2, 3)]
    assert (bz.prev_orientation, bz.next_orientation) == ("swap", "other")  # y aligns to c, right of b; end not adjacent
    bcyz = pairs[(1, 3, 1, 3)]
    assert (bcyz.prev_orientation, bcyz.next_orientation) == ("mono", "mono")


def consistent(points, s0, s1, t0, t1):
    inside = False
    for i, j in points:
        in_s, in_t = s0 <= i < s1, t0 <= j < t1
        if in_s != in_t:
            return False
        inside |= in_s
    return inside


@st.composite
def aligned_pair(draw):
    ns = draw(st.integers(1, 7))
    nt = draw(st.integers(1, 7))
    pts = draw(st.sets(st.tuples(st.integers(0, ns - 1), st.integers(0, nt - 1)), max_size=ns * nt))
    return ns, nt, sorted(pts), draw(st.integers(1, 4))


@settings(max_examples=300, deadline=None)
@given(aligned_pair())
def test_extraction_is_exactly_the_consistent_pairs(case):
    ns, nt, pts, max_len = case
    got = spans(extract_pairs(ns, nt, pts, max_len))
    expected = {(s0, s1, t0, t1)
                for s0 in range(ns) for s1 in range(s0 + 1, min(ns, s0 + max_len) + 1)
                for t0 in range(nt) for t1 in range(t0 + 1, min(nt, t0 + max_len) + 1)
                if consistent(pts, s0, s1, t0, t1)}
    assert got == expected
