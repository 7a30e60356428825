"""Train coreferee's English model locally (`make coref-model`), and install a trained one.

coreferee 1.5.0 downloads its models from the internet, which cad cannot reach, but it ships its
training code. This module works around what stops that code here:
* `python -m coreferee train` does not work: TrainingManager is called directly;
* the wheel ships empty model folders, which training skips as "model exists": the target folder
  is removed first;
* every config entry (lg/md/trf) would be tried: the config is restricted to `sm_3_8_0`;
* its ParCor loader cannot read ParCorFull 2.0's discontinuous spans (`word_1..word_5,word_9`):
  the markables are rewritten to their longest contiguous part in a build directory.
Training data: LitBank (CoNLL) and ParCorFull *news* (English). ParCorFull TED is kept out: those
are the dev talks, used for evaluation.
"""

from __future__ import annotations

import argparse
import logging
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from cad.core.errors import CadError
from cad.downloads.spacy_models import prepare_english_model

log = logging.getLogger(__name__)

ENTRY = "sm_3_8_0"
_SPAN = re.compile(r'span="([^"]*)"')


def _longest_part(span: str) -> str:
    parts = span.split(",")
    if len(parts) == 1:
        return span

    def size(p: str) -> int:
        a, _, b = p.partition("..")
        return int(b[5:]) - int(a[5:]) + 1 if b else 1

    return max(parts, key=size)


def prepare_data(shared: Path, out: Path) -> Path:
    """A flat directory with LitBank .conll files and ParCorFull news words/coref files."""
    lit = shared / "coref" / "litbank" / "coref" / "conll"
    news = shared / "coref" / "parcorfull" / "corpus" / "news" / "EN"
    if not lit.is_dir() or not news.is_dir():
        raise CadError(f"training data not found under {shared / 'coref'}")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for f in sorted(lit.glob("*.conll")):
        (out / f.name).symlink_to(f.resolve())
    for words in sorted((news / "Basedata").glob("*_words.xml")):
        name = words.name[:-len("_words.xml")]
        coref = news / "Markables" / f"{name}_coref_level.xml"
        if not coref.exists():
            continue
        (out / f"news{name}_words.xml").symlink_to(words.resolve())
        text = coref.read_text(encoding="utf-8")
        (out / f"news{name}_coref_level.xml").write_text(
            _SPAN.sub(lambda m: f'span="{_longest_part(m.group(1))}"', text), encoding="utf-8")
    return out


def site_models_dir() -> Path:
    import coreferee      # optional, and it loads spaCy: only where its models are managed

    return Path(coreferee.__file__).resolve().parent.parent / "models" / "en"


def make_importable() -> None:
    """coreferee imports `coreferee_model_en.<entry>`; its training writes that package under
    site-packages/models/en, which a .pth file puts on the path."""
    models = site_models_dir()
    pth = models.parent.parent / "cad_coreferee_models.pth"
    if not pth.exists() or pth.read_text().strip() != str(models):
        pth.write_text(str(models) + "\n")
    if str(models) not in sys.path:
        sys.path.append(str(models))


def installed() -> bool:
    d = site_models_dir() / "coreferee_model_en" / ENTRY
    return (d / "feature_table.bin").exists() and (d / "model").exists()


def train(shared: Path, build: Path, keep: Path | None) -> Path:
    prepare_english_model()
    # coreferee's training code and thinc (torch underneath) load only to train
    import coreferee.training.train as training
    from thinc.api import Config

    data = prepare_data(shared, build / "data")
    target = site_models_dir() / "coreferee_model_en" / ENTRY
    if target.exists():
        shutil.rmtree(target)      # the wheel's empty folder would make training skip this entry
    original = Config.from_disk

    def only_entry(self, *args, **kwargs):
        cfg = original(self, *args, **kwargs)
        return Config({ENTRY: cfg[ENTRY]}) if ENTRY in cfg else cfg

    Config.from_disk = only_entry
    try:
        start = time.time()
        manager = training.TrainingManager("coreferee", "en", "ConllLoader,ParCorLoader", str(data),
                                           str(build / "logs"), train_not_check=True)
        manager.train_models()
        log.info("coreferee model trained in %.0f s", time.time() - start)
    finally:
        Config.from_disk = original
    if not installed():
        raise CadError(f"coreferee training did not produce a model in {target}")
    make_importable()
    if keep is not None:
        if keep.exists():
            shutil.rmtree(keep)
        shutil.copytree(target, keep)
    return target


def install(source: Path) -> Path:
    """Install a trained model folder (feature_table.bin + model) or a released model wheel."""
    if source.suffix == ".whl":
        subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", str(source)], check=True)
        return source
    if not (source / "feature_table.bin").exists():
        raise CadError(f"{source} holds no coreferee model (feature_table.bin, model)")
    target = site_models_dir() / "coreferee_model_en" / ENTRY
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target)
    make_importable()
    return target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m coref.english.train_coreferee", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=str(Path(__file__).resolve().parents[2].parent / "shared" / "data"))
    ap.add_argument("--build", default="build/coreferee")
    ap.add_argument("--keep", default="models/coreferee-en", help="copy of the trained model, for make install")
    ap.add_argument("--install", help="install this trained model folder or released wheel instead of training")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        if a.install:
            print(install(Path(a.install)))
        else:
            print(train(Path(a.shared), Path(a.build), Path(a.keep) if a.keep else None))
    except CadError as exc:
        print(f"cad: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
