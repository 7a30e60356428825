"""Write the embedded English-French sample corpus: short two-sentence documents in which *it* or
*they* refers to a masculine or feminine noun of the first sentence, so that the right French
pronoun (il/elle/ils/elles) depends on the antecedent.

    python -m cad.sample.generate [OUT_PREFIX]

The output is deterministic; the committed files are this script's output (a test checks it).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

# english singular, english plural, french singular, french plural, gender
NOUNS = [
    ("cat", "cats", "chat", "chats", "m"), ("mouse", "mice", "souris", "souris", "f"),
    ("house", "houses", "maison", "maisons", "f"), ("car", "cars", "voiture", "voitures", "f"),
    ("book", "books", "livre", "livres", "m"), ("table", "tables", "table", "tables", "f"),
    ("garden", "gardens", "jardin", "jardins", "m"), ("door", "doors", "porte", "portes", "f"),
    ("dog", "dogs", "chien", "chiens", "m"), ("bird", "birds", "oiseau", "oiseaux", "m"),
    ("bottle", "bottles", "bouteille", "bouteilles", "f"), ("letter", "letters", "lettre", "lettres", "f"),
    ("computer", "computers", "ordinateur", "ordinateurs", "m"), ("chair", "chairs", "chaise", "chaises", "f"),
    ("tree", "trees", "arbre", "arbres", "m"), ("window", "windows", "fenêtre", "fenêtres", "f"),
    ("box", "boxes", "boîte", "boîtes", "f"), ("phone", "phones", "téléphone", "téléphones", "m"),
    ("city", "cities", "ville", "villes", "f"), ("train", "trains", "train", "trains", "m"),
]
# english, french masc. sing., fem. sing., masc. plur., fem. plur.
ADJECTIVES = [
    ("big", "grand", "grande", "grands", "grandes"), ("small", "petit", "petite", "petits", "petites"),
    ("green", "vert", "verte", "verts", "vertes"), ("black", "noir", "noire", "noirs", "noires"),
    ("heavy", "lourd", "lourde", "lourds", "lourdes"), ("broken", "cassé", "cassée", "cassés", "cassées"),
    ("beautiful", "beau", "belle", "beaux", "belles"), ("expensive", "cher", "chère", "chers", "chères"),
    ("old", "vieux", "vieille", "vieux", "vieilles"), ("clean", "propre", "propre", "propres", "propres"),
]
VOWELS = tuple("aeiouhâéèêîôû")


def _det_def(fr: str, gender: str) -> str:
    if fr.startswith(VOWELS):
        return "l'"
    return "le" if gender == "m" else "la"


def _det_indef(gender: str) -> str:
    return "un" if gender == "m" else "une"


def _adj(adj, gender: str, plural: bool) -> str:
    return adj[1 + (2 if plural else 0) + (1 if gender == "f" else 0)]


def documents(seed: int = 2016) -> list[list[tuple[str, str]]]:
    rng = random.Random(seed)
    docs = []
    for k in range(160):
        en_s, en_p, fr_s, fr_p, g = NOUNS[k % len(NOUNS)]
        adj = rng.choice(ADJECTIVES)
        kind = (k // len(NOUNS)) % 4
        it = "il" if g == "m" else "elle"
        they = "ils" if g == "m" else "elles"
        if kind == 0:
            doc = [(f"i saw the {en_s} yesterday .", f"j' ai vu {_det_def(fr_s, g)} {fr_s} hier ."),
                   (f"it is {adj[0]} .", f"{it} est {_adj(adj, g, False)} .")]
        elif kind == 1:
            doc = [(f"we bought a {en_s} .", f"nous avons acheté {_det_indef(g)} {fr_s} ."),
                   (f"it was {adj[0]} .", f"{it} était {_adj(adj, g, False)} .")]
        elif kind == 2:
            doc = [(f"my {en_p} are here .", f"mes {fr_p} sont ici ."),
                   (f"they are {adj[0]} .", f"{they} sont {_adj(adj, g, True)} .")]
        else:
            doc = [(f"the {en_p} were in the garden .", f"les {fr_p} étaient dans le jardin ."),
                   (f"they were {adj[0]} .", f"{they} étaient {_adj(adj, g, True)} .")]
        docs.append(doc)
    return docs


def write_sample(prefix: Path) -> int:
    lines = 0
    with open(f"{prefix}.en", "w", encoding="utf-8") as en, open(f"{prefix}.fr", "w", encoding="utf-8") as fr, \
            open(f"{prefix}.docs", "w", encoding="utf-8") as dd:
        for k, doc in enumerate(documents()):
            dd.write(f"{lines}\tsample:{k}\n")
            for e, f in doc:
                en.write(e + "\n")
                fr.write(f + "\n")
                lines += 1
    return lines


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("sample")
    print(f"wrote {write_sample(out)} sentence pairs to {out}.{{en,fr,docs}}")
