#!/usr/bin/env python3
"""Write tests/fixtures/nltk_porter_sample.tsv: NLTK's Porter stems (nltk.stem.porter.
PorterStemmer(), its default NLTK_EXTENSIONS mode, the stemmer Google's rouge-score applies
under use_stemmer=True) of

- every distinct token longer than 3 characters that rouge-score's tokenizer gives (lowercase,
  every run of characters outside [a-z0-9] made a space, split on spaces) over all texts of
  examples/data/summeval-sample.jsonl (sources, references and system summaries), and
- hand-picked words that exercise each of NLTK's own rules and edge cases (the irregular
  forms, short words, y, -ies/-ied, -alli/-fulli/-logi, digits), of any length.

crates/aesop-text/src/porter_nltk.rs checks that its stems equal every row. Run with a Python
that has nltk (3.10.x was used):

    /work/pyvenv/bin/python scripts/build/nltk-porter-fixture.py
"""
import json
import os
import re

import nltk
from nltk.stem.porter import PorterStemmer

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(REPO, "examples", "data", "summeval-sample.jsonl")
OUT = os.path.join(REPO, "tests", "fixtures", "nltk_porter_sample.tsv")

NON_ALPHANUMERIC = re.compile(r"[^a-z0-9]+")

# Words for NLTK's own rules and the edge cases the sample texts may not reach.
HAND_PICKED = """
sky skies dying lying tying news inning innings outing outings canning cannings howe proceed
exceed succeed proceeding exceeded succeeds
a i y s e z 1 0 9 as at by is it of on to us we ye yo ax ox ow aw ay oy 19 3d a1 ss es ed
ies ied ing eed yes yet the was sly fly try cry shy spy dry why sys sss eee yyy aaa
dies died lies lied ties tied pies pied vies vied hies hied xies xied
flies fliers tried trying tries spied spies cried cries fried applied replies studies
enjoy enjoying enjoyed toy toys boy joy happy happily happiness sky syzygy yyyy yyyyy yyyyyy
yy yyy ayy yay yayy yea yeay employ employs employed destroy destroying annoy buy guy
ypsilanti yield yielding young youth ayes eyes yelling
radically radicalli finally finalli really realli formally totally sexually alli calli
hopefully hopefulli carefully usefully fulli beautifully skillfully
geology geologi theology theologi biology apology analogy logi ecology astrology trilogy
archaeology philology logic logical
relational rational conditional national rationalli operational ational tional
valenci valency hesitanci hesitancy digitizer conformabli conformably possibly sensibly bli
differentli differently vileli vilely analogousli analogously vietnamization organization
realization ization predication operator feudalism decisiveness hopefulness callousness
formaliti formality sensitiviti sensitivity sensibiliti sensibility generalizations
triplicate formative formalize electriciti electrical hopeful goodness
revival allowance inference airliner gyroscopic adjustable defensible irritant replacement
adjustment dependent adoption adoptions communion homologou communism activate angulariti
homologous effective bowdlerize probate rate cease controll roll controlling rolling
caresses ponies ties caress cats feed agreed bled plastered motoring sing conflated
troubled sized hopping tanned falling hissing fizzed failing filing
agreement disagreed freed speed seed bleed breed decreed guaranteed refereed indeed need
hopped hoped hoping tapping taping fizzing buzzing rolled filled spilled missed kissed
bbbed bbbing zzzing ssed ssing lled lling
owe owed owing ow axe box boxing boxed sew sewed sewing waxing
1990s 1980s 3d 2d covid19 covid mp3 mp3s 4g 5g 100 2020 1st 2nd 3rd 4th 21st 0 00 000
123ing 12ed 9ies 7s 99s a1s b2b h1n1 x86 y2k 1990ies ing1 ed2 yy1 1yy
ion tion sion union opinion onion lion million region vision decision action
"""


def texts(record):
    """Every text of one SummEval line, in either layout this project uses."""
    # The raw SummEval layout of examples/data/summeval-sample.jsonl.
    if "src" in record:
        yield record["src"]
    yield from record.get("ref_summs", [])
    if "ref_summ" in record:
        yield record["ref_summ"]
    for summary in record.get("sys_summs", {}).values():
        yield summary["sys_summ"]
    # The aesop layout (documents, references, summaries).
    for key in ("documents", "references", "summaries"):
        for item in record.get(key, []):
            yield item["text"]


def rouge_tokens(text):
    """rouge-score's tokenizer, before stemming."""
    return NON_ALPHANUMERIC.sub(" ", text.lower()).split()


def main():
    words = set()
    with open(SAMPLE, encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                for text in texts(json.loads(line)):
                    words.update(t for t in rouge_tokens(text) if len(t) > 3)
    words.update(HAND_PICKED.split())

    stemmer = PorterStemmer()
    tmp = OUT + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as out:
        out.write("word\tstem\n")
        for word in sorted(words):
            out.write(f"{word}\t{stemmer.stem(word)}\n")
    os.replace(tmp, OUT)
    print(f"{OUT}: {len(words)} words, nltk {nltk.__version__}")


if __name__ == "__main__":
    main()
