"""cad view: the page's data read from a two-document example (traces, coreference records, a
reference, a class table, a report), the command's errors and conventions, and the page itself in
a real headless browser (Debian's Chromium driven by Playwright): the pronoun and antecedent marks
where the trace puts them, a screenshot, and not one network request."""

import io
import json
import os
import re
import struct
import sys
import time

import pytest
from conftest import write

from cad.cli import main
from cad.core.errors import CadError
from cad.view.build import ViewInputs, build_view
from cad.view.inputs import SystemSpec
from cad.view.page import render_page
from cad.view.pronouns import Placer
from cad.view.inputs import Document

# two documents: a mouse (feminine) then it; cars (feminine plural) then they, and a pleonastic it
SOURCE = ["My cat caught a mouse .", "It was not dead .", "Look at the cars .", "They are red but it is late ."]
DOCS = "0\ttalk-a\n2\ttalk-b\n"
CM_OUT = ["mon chat a attrapé une souris .", "elle n' était pas morte .", "regarde les voitures .",
          "elles sont rouges mais il est tard ."]
BL_OUT = ["mon chat a attrapé une souris .", "il n' était pas mort .", "regarde les voitures .",
          "ils sont rouges mais c' est tard ."]
ALIGN = ["0-0 1-1 2-2 2-3 3-4 4-5 5-6", "0-0 1-2 2-1 2-3 3-4 4-5", "0-0 2-1 3-2 4-3",
         "0-0 1-1 2-2 3-3 4-4 5-5 6-6 7-7"]


def _record(doc, sentence, index, pronoun, antecedent=None, ante_sentence=None, candidates=(), bundles=None,
            features=None, pass_="none", target=None, target_class=None, **extra):
    return {"doc": doc, "sentence": sentence, "index": index, "pronoun": pronoun, "antecedent": antecedent,
            "antecedent_sentence": ante_sentence, "antecedent_translation": None, "candidates": list(candidates),
            "bundles": bundles or {}, "features": features, "pass": pass_, "target": target,
            "target_class": target_class, **extra}


CM_TRACE = [
    _record("0", 1, 0, "It", "a mouse", 0, [["a mouse", 0.9], ["My cat", 0.1]],
            {"it-subj-fem-sing": 0.9, "it-subj-nonref": 0.1}, "it-subj-fem-sing", "inter", "elle", "elle",
            gender_source="lexicon"),
    _record("1", 1, 0, "They", "the cars", 0, [["the cars", 1.0]], {"they-subj-fem-plur": 1.0},
            "they-subj-fem-plur", "inter", "elles", "elles"),
    _record("1", 1, 4, "it", None, None, [], {"it-subj-nonref": 1.0}, "it-subj-nonref", "none", "il", "il",
            referent="pleonastic"),
]
BL_TRACE = [
    _record("0", 1, 0, "It", "a mouse", 0, [["a mouse", 0.9], ["My cat", 0.1]], target="il", target_class="il"),
    _record("1", 1, 0, "They", "the cars", 0, [["the cars", 1.0]], target="ils", target_class="ils"),
    _record("1", 1, 4, "it", target="c'", target_class="ce"),
]
CLASSES = ["it-subj-fem-sing ||| elle ||| 0.8", "it-subj-fem-sing ||| il ||| 0.2", "it-subj-nonref ||| il ||| 0.6",
           "it-subj-nonref ||| ce ||| 0.4", "they-subj-fem-plur ||| elles ||| 0.9", "they-subj-fem-plur ||| ils ||| 0.1"]


def _lines(rows) -> str:
    return "".join(r + "\n" for r in rows)


@pytest.fixture
def example(tmp_path):
    d = tmp_path / "in"
    f = {"source": write(d / "src.en", _lines(SOURCE)), "docs": write(d / "src.docs", DOCS),
         "cm": write(d / "cm.out", _lines(CM_OUT)), "bl": write(d / "bl.out", _lines(BL_OUT)),
         "align": write(d / "out.align", _lines(ALIGN)), "reference": write(d / "ref.fr", _lines(CM_OUT)),
         "align_ref": write(d / "ref.align", _lines(ALIGN)),
         "cm_trace": write(d / "cm.trace.jsonl", _lines(json.dumps(r) for r in CM_TRACE)),
         "bl_trace": write(d / "bl.trace.jsonl", _lines(json.dumps(r) for r in BL_TRACE)),
         "classes": write(d / "classes", _lines(CLASSES))}
    return {k: str(v) for k, v in f.items()}


def _systems(f):
    return [SystemSpec("CM-feature", f["cm"], f["align"], f["cm_trace"]), SystemSpec("BL", f["bl"], f["align"], f["bl_trace"])]


def _build(f, **kw):
    args = dict(docs=f["docs"], reference=f["reference"], align_ref=f["align_ref"], classes=f["classes"])
    args.update(kw)
    return build_view(ViewInputs(f["source"], _systems(f), **args))


def _argv(f, out, *extra):
    return ["-q", "view", "--source", f["source"], "--docs", f["docs"], "--reference", f["reference"],
            "--align-ref", f["align_ref"], "--classes", f["classes"],
            "--system", f"CM-feature={f['cm']}:{f['align']}:{f['cm_trace']}",
            "--system", f"BL={f['bl']}:{f['align']}:{f['bl_trace']}", "--out", str(out), *extra]


# -- the page's data -----------------------------------------------------------------------------

def test_documents_pronouns_and_antecedents(example):
    data = _build(example)
    assert [(d["index"], d["id"], d["first"], len(d["src"])) for d in data["docs"]] == [(0, "talk-a", 0, 2),
                                                                                        (1, "talk-b", 2, 2)]
    a, b = data["docs"]
    assert [(p["s"], p["i"], p["tok"]) for p in a["prons"]] == [(1, 0, "It")]
    assert [(p["s"], p["i"], p["tok"]) for p in b["prons"]] == [(1, 0, "They"), (1, 4, "it")]
    it = a["prons"][0]
    cm, bl = it["sys"]
    assert cm["ante"]["text"] == "a mouse" and (cm["ante"]["s"], cm["ante"]["start"], cm["ante"]["end"]) == (0, 3, 5)
    # the trace gives no antecedent translation here: read through the alignment
    assert cm["ante"]["tr"] == "une souris" and cm["ante"]["trpos"] == [4, 5] and cm["ante"]["trFrom"] == "alignment"
    assert [c["start"] for c in cm["cands"]] == [3, 0]
    assert cm["target"] == "elle" and cm["tpos"] == [0] and bl["target"] == "il"
    assert cm["case"] == 1 and bl["case"] == 3                # APT against the reference (elle)
    assert it["ref"] == {"pos": [0], "words": "elle", "improved": False}
    assert it["fem"] and it["femRef"]
    assert cm["pass"] == "inter" and cm["genderSource"] == "lexicon" and cm["features"] == "it-subj-fem-sing"
    assert cm["bundles"] == [["it-subj-fem-sing", 0.9], ["it-subj-nonref", 0.1]] or \
        cm["bundles"] == [("it-subj-fem-sing", 0.9), ("it-subj-nonref", 0.1)]
    top = cm["classes"][0]
    assert top[0] == "elle" and top[1] == pytest.approx(0.72)    # 0.9 × 0.8
    assert bl["classes"] is None and bl["bundles"] == []
    pleonastic = b["prons"][1]["sys"][0]
    assert pleonastic["ante"] is None and pleonastic["extra"] == {"referent": "pleonastic"}   # a field shown as it is
    assert pleonastic["chain"] is None and b["prons"][0]["sys"][0]["chain"] == 0


def test_summary_from_apt_and_from_a_report(example, tmp_path):
    data = _build(example)
    rows = {r["system"]: r for r in data["summary"]["rows"]}
    assert rows["CM-feature"]["cases"]["C1"] == 3 and rows["BL"]["cases"]["C3"] == 2
    assert data["summary"]["svg"].startswith("<svg") and 'data-case="3"' in data["summary"]["svg"]
    report = {"systems": [{"system": "BL", "cases": {"C1": 5, "C2": 1, "C3": 2, "C4": 0, "C5": 0, "C6": 0},
                           "apt": 0.6875, "acc_c1_c2": 0.75, "pronoun_prf": {"all": {"precision": 0.5}},
                           "bleu": 20.5}, {"system": "other", "cases": {"C1": 1}}]}
    path = write(tmp_path / "r.json", json.dumps(report))
    data = _build(example, report=str(path))
    assert [r["system"] for r in data["summary"]["rows"]] == ["BL", "other"]
    assert data["summary"]["rows"][0]["shown"] and not data["summary"]["rows"][1]["shown"]
    assert data["summary"]["rows"][1]["cases"]["C3"] == 0
    page = render_page(data)
    assert "20.50" in page and "0.688" in page


def test_without_traces_the_coreference_records_give_the_antecedents(example, tmp_path):
    coref = [{"doc": "0", "sentence": 1, "index": 0, "token": "It", "referential": True, "anaphoricity": 0.9,
              "candidates": [{"sentence": 0, "start": 3, "end": 5, "head": 4, "text": "a mouse", "probability": 0.8},
                             {"sentence": 0, "start": 0, "end": 2, "head": 1, "text": "My cat", "probability": 0.2}]}]
    path = write(tmp_path / "coref.jsonl", _lines(json.dumps(r) for r in coref))
    f = example
    data = build_view(ViewInputs(f["source"], [SystemSpec("BL", f["bl"], f["align"])], docs=f["docs"],
                                 reference=f["reference"], align_ref=f["align_ref"], coref=str(path)))
    it = data["docs"][0]["prons"][0]["sys"][0]
    assert it["from"] == "coref" and it["ante"]["text"] == "a mouse" and it["ante"]["start"] == 3
    assert it["tclass"] == "il" and it["case"] == 3
    # the other pronouns come from APT's list, with no antecedent
    assert [p["sys"][0]["from"] for p in data["docs"][1]["prons"]] == ["apt", "apt"]


def test_two_candidates_with_one_text_are_two_occurrences():
    src = [["it", "was", "small", "and", "it", "ran", "."], ["kill", "it", "."]]
    placer = Placer(Document(0, "0", 0, 2), src, 1, 1, None)
    assert placer.place("it", None) == (0, 4, 5)
    assert placer.place("it", None) == (0, 0, 1)
    assert placer.place("kill", None) == (1, 0, 1)
    assert placer.place("nothing", None) is None


def test_trace_documents_named_by_the_docs_ids(example, tmp_path):
    rows = [dict(r, doc={"0": "talk-a", "1": "talk-b"}[r["doc"]]) for r in CM_TRACE]
    path = write(tmp_path / "ids.jsonl", _lines(json.dumps(r) for r in rows))
    f = example
    data = build_view(ViewInputs(f["source"], [SystemSpec("CM", f["cm"], f["align"], str(path))], docs=f["docs"]))
    assert [p["sys"][0]["from"] for d in data["docs"] for p in d["prons"]] == ["trace"] * 3
    assert data["summary"] is None and not data["hasRef"]


# -- the command ---------------------------------------------------------------------------------

def test_cad_view_writes_one_self_contained_page(example, tmp_path):
    out = tmp_path / "view.html"
    assert main(_argv(example, out, "--title", "two <talks>")) == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "default-src 'none'" in page
    assert "two &lt;talks&gt;" in page
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\((?!#)", page)     # url(#id): a marker in the page
    # the only URL is SVG's namespace name, which is never fetched
    assert set(re.findall(r"https?://[^\s\"'<>)\\]+", page)) <= {"http://www.w3.org/2000/svg"}
    data = json.loads(re.search(r'<script type="application/json" id="cad-data">(.*?)</script>', page, re.S).group(1))
    assert [s["name"] for s in data["systems"]] == ["CM-feature", "BL"]


def test_one_system_from_flags_and_the_trace_from_stdin(example, tmp_path, monkeypatch):
    f = example
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(open(f["cm_trace"], "rb").read()), encoding="utf-8"))
    out = tmp_path / "one.html"
    assert main(["-q", "view", "--source", f["source"], "--docs", f["docs"], "--translation", f["cm"],
                 "--alignment", f["align"], "--trace", "-", "--name", "CM", "--out", str(out)]) == 0
    assert '"name":"CM","trace":true' in out.read_text(encoding="utf-8")


def test_raw_source_is_tokenized_as_cad_translate_raw(tmp_path):
    src = write(tmp_path / "raw.en", "My cat caught a mouse, and it ran.\n")
    tgt = write(tmp_path / "tok.fr", "mon chat a attrapé une souris , et elle a couru .\n")
    al = write(tmp_path / "al", "0-0 1-1 2-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 8-10 9-11\n")
    data = build_view(ViewInputs(str(src), [SystemSpec("x", str(tgt), str(al))], raw=True))
    assert data["docs"][0]["src"] == ["My cat caught a mouse , and it ran ."]
    assert [(p["i"], p["sys"][0]["target"]) for p in data["docs"][0]["prons"]] == [(7, "elle")]


@pytest.mark.parametrize("what,text,message", [
    ("cm_trace", '{"doc": "0", "sentence": 1, "index": 1, "pronoun": "It"}\n', r"cm\.trace\.jsonl:1: the pronoun 'It' is 'was'"),
    ("cm_trace", '{"doc": "0", "sentence": 1, "index": 0, "pronoun": "It"}\n{oops\n', r"cm\.trace\.jsonl:2: not a trace record"),
    ("cm_trace", '{"doc": "0", "sentence": 5, "index": 0, "pronoun": "It"}\n', r"cm\.trace\.jsonl:1: sentence 5 is past"),
    ("cm_trace", '{"doc": "7", "sentence": 0, "index": 0, "pronoun": "My"}\n', r"cm\.trace\.jsonl:1: doc '7' names no document"),
    ("cm_trace", '{"doc": "0", "sentence": 1, "index": 0, "pronoun": "It", "candidates": [["x"]]}\n',
     r"cm\.trace\.jsonl:1: not a trace record: candidates"),
    ("align", _lines(ALIGN[:2] + ["0-9"] + ALIGN[3:]), r"out\.align:3: alignment point 0-9 out of range"),
    ("bl", _lines(BL_OUT[:3]), r"bl\.out:4: has 3 lines but the source"),
])
def test_errors_name_the_file_and_line(example, tmp_path, capsys, what, text, message):
    write(tmp_path / "in" / os.path.basename(example[what]), text)
    out = tmp_path / "view.html"
    assert main(_argv(example, out)) == 1
    assert re.search(message, capsys.readouterr().err)
    assert not out.exists()                     # nothing half-written


def test_command_line_mistakes(example, tmp_path, capsys):
    f = example
    base = ["-q", "view", "--source", f["source"], "--out", str(tmp_path / "x.html")]
    assert main(base + ["--system", "BL=only-one-file"]) == 1
    assert "NAME=TRANSLATION:ALIGNMENT" in capsys.readouterr().err
    assert main(base + ["--translation", f["cm"]]) == 1
    assert "--translation and --alignment go together" in capsys.readouterr().err
    assert main(base) == 1
    assert "no translation to show" in capsys.readouterr().err
    assert main(base + ["--system", f"A={f['cm']}:{f['align']}", "--reference", f["reference"]]) == 1
    assert "--reference and --align-ref go together" in capsys.readouterr().err
    bad = write(tmp_path / "bad.json", '{"systems": 3}')
    assert main(base + ["--system", f"A={f['cm']}:{f['align']}", "--report", str(bad)]) == 1
    assert "not a cad eval report" in capsys.readouterr().err
    with pytest.raises(CadError, match="two systems have one name"):
        build_view(ViewInputs(f["source"], [SystemSpec("A", f["cm"], f["align"])] * 2))


# -- the page in a real browser ------------------------------------------------------------------

VIEWPORT = (1280, 800)




def _open(browser, page_path):
    """The page opened from its file with every request counted and, past the page itself, refused."""
    page = browser.new_page(viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]})
    url = page_path.as_uri()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.route("**/*", lambda route: route.continue_() if route.request.url == url else route.abort())
    t = time.time()
    page.goto(url)
    page.wait_for_selector("body[data-ready]")
    return page, (lambda: [u for u in requests if u != url]), time.time() - t


def _wait_until(page, expression: str, timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while not page.evaluate(expression):
        assert time.time() < deadline, f"never true: {expression}"
        page.wait_for_timeout(50)


def _png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_the_page_in_a_headless_browser(browser, example, tmp_path):
    out = tmp_path / "view.html"
    assert main(_argv(example, out)) == 0
    page, outside, _ = _open(browser, out)
    page.evaluate("cadView.renderAll()")
    docs = {r["doc"] for r in CM_TRACE}
    assert page.locator("section.doc").count() == len(docs) == 2
    for r in CM_TRACE:
        key = f'{r["doc"]}:{r["sentence"]}:{r["index"]}'
        sec = page.locator(f'section#doc-{r["doc"]}')
        mark = sec.locator(f'.row[data-s="{r["sentence"]}"] .col-src [data-pron="{key}"]')
        assert mark.count() == 1 and mark.inner_text() == r["pronoun"]
        target = sec.locator(f'.row[data-s="{r["sentence"]}"] .col-tgt [data-pron-tgt~="{key}"]')
        assert " ".join(target.all_inner_texts()) == r["target"]
        ante = sec.locator(f'.col-src [data-ante-of~="{key}"]')
        if r["antecedent"] is None:
            assert ante.count() == 0
        else:
            assert " ".join(ante.all_inner_texts()) == r["antecedent"]
            rows = ante.evaluate_all("els => els.map(e => e.closest('.row').dataset.s)")
            assert set(rows) == {str(r["antecedent_sentence"])}
    # a pronoun's card: its antecedent, its classes, and the arrow to the antecedent
    page.locator('[data-pron="0:1:0"]').click()
    card = page.locator("#card")
    assert card.is_visible() and "a mouse" in card.inner_text() and "une souris" in card.inner_text()
    assert "lexicon" in card.inner_text() and "it-subj-fem-sing" in card.inner_text()
    assert page.locator("section#doc-0 svg.arrows path.arrow").count() == 1
    assert page.locator(".sel-ante").count() >= 2                # the antecedent and its translation
    # filters: BL's errors are the two pronouns it made masculine
    page.select_option("#sys", "1")
    page.select_option("#filter", "errors")
    assert page.locator("#count").inner_text().startswith("2 of 3")
    assert page.locator('.col-src [data-pron].dim').count() == 1
    shot = tmp_path / "view.png"
    page.screenshot(path=str(shot))
    assert _png_size(shot) == VIEWPORT and shot.stat().st_size > 10_000
    assert outside() == []
    page.close()


def test_a_large_page_renders_its_documents_lazily(browser, tmp_path):
    """40 documents of 60 sentences: only those near the screen are rendered at first."""
    n_docs, n_sent = 40, 60
    src = ["The mouse ran home and it hid there ."] * (n_docs * n_sent)
    tgt = ["la souris a couru à la maison et elle s' est cachée là ."] * len(src)
    al = ["0-0 1-1 2-2 2-3 3-4 3-5 3-6 4-7 5-8 6-9 6-10 6-11 7-12 8-13"] * len(src)
    f = {k: write(tmp_path / k, _lines(v)) for k, v in (("src", src), ("tgt", tgt), ("al", al))}
    docs = write(tmp_path / "docs", "".join(f"{d * n_sent}\tdoc{d}\n" for d in range(n_docs)))
    out = tmp_path / "big.html"
    assert main(["-q", "view", "--source", str(f["src"]), "--docs", str(docs), "--reference", str(f["tgt"]),
                 "--align-ref", str(f["al"]), "--system", f"X={f['tgt']}:{f['al']}", "--out", str(out)]) == 0
    page, outside, seconds = _open(browser, out)
    assert page.locator("section.doc").count() == n_docs
    first = page.evaluate("cadView.rendered().length")
    assert 1 <= first < n_docs
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    # Playwright's wait_for_function evaluates a string predicate with eval, which the page's CSP refuses
    # (as it should); page.evaluate goes through the debugger protocol, which CSP does not govern.
    _wait_until(page, "cadView.rendered().includes(39)")
    assert page.locator(f'[data-pron="39:{n_sent - 1}:5"]').count() == 1
    assert outside() == []
    page.close()


# -- the formats cad view reads, fuzzed as tests/test_fuzz_formats.py fuzzes the others -------------

from test_fuzz_formats import fuzz  # noqa: E402


def _example_files(d) -> dict:
    f = {"source": write(d / "src.en", _lines(SOURCE)), "docs": write(d / "src.docs", DOCS),
         "cm": write(d / "cm.out", _lines(CM_OUT)), "align": write(d / "out.align", _lines(ALIGN)),
         "reference": write(d / "ref.fr", _lines(CM_OUT)), "classes": write(d / "classes", _lines(CLASSES))}
    return {k: str(v) for k, v in f.items()}


@fuzz(_lines(json.dumps(r) for r in CM_TRACE).encode(), "cm.trace.jsonl")
def test_fuzz_trace(path):
    """A mutated trace gives a page (whose data is valid JSON) or an error naming the file."""
    f = _example_files(path.parent)
    data = build_view(ViewInputs(f["source"], [SystemSpec("CM", f["cm"], f["align"], str(path))], docs=f["docs"],
                                 reference=f["reference"], align_ref=f["align"], classes=f["classes"]))
    payload = re.search(r'id="cad-data">(.*?)</script>', render_page(data), re.S).group(1)
    json.loads(payload, parse_constant=lambda c: pytest.fail(f"{c} in the page's data"))


_REPORT = json.dumps({"systems": [{"system": "BL", "cases": {"C1": 5, "C2": 1, "C3": 2, "C4": 0, "C5": 0, "C6": 0},
                                   "apt": 0.6875, "acc_c1_c2": 0.75, "bleu": 20.5, "chrf": 48.1,
                                   "pronoun_prf": {"all": {"precision": 0.5, "recall": 0.4, "f": 0.44}},
                                   "mcnemar_vs_BL": {"C1": 0.5, "C1+C2": 0.01}}]}, indent=1).encode()


@fuzz(_REPORT, "report.json")
def test_fuzz_report(path):
    from cad.view.inputs import read_report
    from cad.view.page import summary_html
    from cad.view.summary import chart_svg, report_rows

    rows = report_rows(read_report(str(path)), ["BL"])
    summary_html({"from": "r", "full": True, "rows": rows, "svg": chart_svg(rows)})
