#!/usr/bin/env python3
"""Labels MemoryBank's probing questions with the utterances that answer them (docs/quality.md).

    bench/memorybank_labels.py [--data ../shared/data/memorybank] [--out bench/memorybank_labels.json]
                               [--check] [--show]

MemoryBank (MIT) gives each of 15 persons ten days of dialogue with an AI companion, in Chinese and
in English (the same persons, days and turns in both: a translation), and probing questions about
them, but no answers. The rule below labels them from the data alone, deterministically, and
independent of PowerContext's own tokenizer so that changing search never moves the labels:

1. Terms. Chinese: character bigrams of Han runs (neither character a function character), whole
   《titles》, and Latin words; English: words of 3+ letters, not stop words, cut to their first 5
   letters (a crude stemmer: recommend/recommended, museum/museums). Terms that appear in 8 % or
   more of a language's questions are the questions' template (name, recommend, movie, 喜欢, 推荐 …)
   and are ignored.
2. Scope. A question naming a day ("On May 4th", "5月4日"; "our first conversation" is the first
   day) looks only at that day's utterances; any other question at all of the person's.
3. Score. Each utterance (a user query or an assistant response) scores, per language, the summed
   IDF (over the person's utterances in that language) of the question terms it contains; each
   language's scores are divided by that language's best, and the two added (0 to 2).
4. Agreement. An utterance counts only if it shares a term with the question in every language
   whose question has a term found in the person's dialogue: a match must hold in the original
   and in the translation.
5. Label. The utterances scoring at least half the best, each with the utterance right after it
   (in a dialogue the answer follows the question: the assistant asks which cuisine, the user's
   next turn names it).
6. Fallback and drops. A question naming a day with no utterance left after step 4 is answered by
   the whole day; any other such question is dropped. A question is also dropped when its labels
   touch a day whose two languages differ in turn count (4 of 150 days: the utterances cannot be
   matched across languages).

Labels are utterance ids "DATE#TURN/user" or "DATE#TURN/assistant" of the person's history, the
same in both languages. The split is by person: even positions in memory_bank_en.json are `dev`,
odd ones `held-out`. --check exits 1 when --out differs from what the data gives (77 without the
data); --show prints every label with its English text, for reading.
"""
import argparse
import json
import math
import os
import re
import sys

TEMPLATE_SHARE = 0.08  # a term in this share of the questions is the questions' template
RELATIVE = 0.5  # an utterance is labelled at this share of the best score
FUNCTION_CHARS = set("的了是我你他她它在有和吗呢啊吧也都就很不这那个一们着过得地么")
STOP_WORDS = set(
    "a an the and or but if of to in on at for with by from as is are was were be been am do does "
    "did i you he she it we they me him her us them my your his its our their this that these "
    "those so not no can will would could should have has had what how there here just too very "
    "oh".split())
MONTHS = {"april": 4, "may": 5}
LANGS = ("zh", "en")
FILES = {"zh": "cn", "en": "en"}


def zh_terms(text):
    out = {"《" + t + "》" for t in re.findall(r"《([^》]+)》", text)}
    for run in re.findall(r"[\u4e00-\u9fff]+", text):
        out |= {a + b for a, b in zip(run, run[1:]) if a not in FUNCTION_CHARS and b not in FUNCTION_CHARS}
    return out | {w.lower()[:5] for w in re.findall(r"[A-Za-z]+", text)}


def en_terms(text):
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 3 and w not in STOP_WORDS}


TERMS = {"zh": zh_terms, "en": en_terms}


def named_day(question, days):
    """The date a question names, or None."""
    if re.search(r"first conversation|第一次对话", question):
        return days[0]
    m = re.search(r"(\d{1,2})月(\d{1,2})[日号]", question)
    if m:
        return "2023-%02d-%02d" % (int(m.group(1)), int(m.group(2)))
    m = re.search(r"(April|May) (\d{1,2})(?:st|nd|rd|th)", question)
    if m:
        return "2023-%02d-%02d" % (MONTHS[m.group(1).lower()], int(m.group(2)))
    return None


def load(data, lang):
    with open(os.path.join(data, "memory_bank_%s.json" % FILES[lang]), encoding="utf-8") as f:
        bank = list(json.load(f).items())
    questions = {}
    with open(os.path.join(data, "probing_questions_%s.jsonl" % FILES[lang]), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                questions.update({k.strip(): v for k, v in json.loads(line).items()})
    return bank, questions


def utterances(history):
    """[(id, text)] in order: each turn's user query, then the assistant's response."""
    return [("%s#%d/%s" % (day, i, role), turn[key]) for day in sorted(history)
            for i, turn in enumerate(history[day])
            for role, key in (("user", "query"), ("assistant", "response"))]


def template(questions, terms):
    counts = {}
    for person in questions.values():
        for q in person:
            for t in terms(q):
                counts[t] = counts.get(t, 0) + 1
    total = sum(len(p) for p in questions.values())
    return {t for t, n in counts.items() if n >= TEMPLATE_SHARE * total}


def scores(question, utts, terms, ignore, day):
    """Utterance id -> (IDF-weighted overlap, matched terms), for the utterances in scope."""
    df = {}
    for _, text in utts:
        for t in terms(text):
            df[t] = df.get(t, 0) + 1
    wanted = {t for t in terms(question) if t not in ignore and t in df}
    out = {}
    for uid, text in utts:
        if day is None or uid.startswith(day):
            matched = sorted(wanted & terms(text))
            out[uid] = (sum(math.log(len(utts) / df[t]) for t in matched), matched)
    return out


def following(uid, history):
    day, rest = uid.split("#")
    turn, role = rest.split("/")
    if role == "user":
        return "%s#%s/assistant" % (day, turn)
    return "%s#%d/user" % (day, int(turn) + 1) if int(turn) + 1 < len(history[day]) else None


def label(question, person, ignore):
    """(relevant utterance ids, rule) or (None, reason) for one question in both languages."""
    days = sorted(person["zh"]["history"])
    day = named_day(question["zh"], days)
    if day != named_day(question["en"], days):
        return None, "the languages name different days"
    per_lang = {l: scores(question[l], person[l]["utts"], TERMS[l], ignore[l], day) for l in LANGS}
    best_of = {l: max([s for s, _ in per_lang[l].values()] or [0]) for l in LANGS}
    active = [l for l in LANGS if best_of[l] > 0]
    combined = {}
    for uid in per_lang["zh"]:
        if active and all(per_lang[l].get(uid, (0,))[0] > 0 for l in active):
            combined[uid] = sum(per_lang[l][uid][0] / best_of[l] for l in active)
    if combined:
        best = max(combined.values())
        hits = [u for u in combined if combined[u] >= RELATIVE * best]
        nexts = [following(u, person["zh"]["history"]) for u in hits]
        relevant, rule = sorted(set(hits) | {u for u in nexts if u}), "terms" if day is None else "day+terms"
    elif day is not None:
        relevant, rule = [u for u, _ in person["zh"]["utts"] if u.startswith(day)], "whole day"
    else:
        return None, "no utterance shares its terms in both languages"
    if any(u.split("#")[0] not in person["aligned"] for u in relevant):
        return None, "its labels fall on a day the two languages tell differently"
    return relevant, rule


def build(data):
    banks, questions = {}, {}
    for l in LANGS:
        banks[l], questions[l] = load(data, l)
    ignore = {l: template(questions[l], TERMS[l]) for l in LANGS}
    persons, labelled, dropped = [], [], []
    for index, ((zh_key, zh), (en_key, en)) in enumerate(zip(banks["zh"], banks["en"])):
        split = "dev" if index % 2 == 0 else "held-out"
        person = {"zh": zh, "en": en}
        for l in LANGS:
            person[l]["utts"] = utterances(person[l]["history"])
        person["aligned"] = {d for d in zh["history"] if len(zh["history"][d]) == len(en["history"].get(d, []))}
        persons.append({"key": {"zh": zh_key, "en": en_key}, "split": split})
        for qi, pair in enumerate(zip(questions["zh"][zh_key.strip()], questions["en"][en_key.strip()])):
            q = {"zh": pair[0], "en": pair[1]}
            relevant, rule = label(q, person, ignore)
            entry = {"person": index, "question": qi, "split": split, "text": q}
            if relevant is None:
                dropped.append(dict(entry, reason=rule))
            else:
                labelled.append(dict(entry, rule=rule, relevant=relevant))
    return {"persons": persons, "questions": labelled, "dropped": dropped,
            "template": {l: sorted(ignore[l]) for l in LANGS}}


def dump(doc):
    """One person or question per line, so a change to the labels reads as a small diff."""
    lines = ["{", '"about": "generated by bench/memorybank_labels.py from ../shared/data/memorybank; '
             'the rule is in its docstring and docs/quality.md",']
    for key in ("persons", "questions", "dropped"):
        rows = ",\n".join(" " + json.dumps(r, ensure_ascii=False, sort_keys=True) for r in doc[key])
        lines.append('"%s": [\n%s\n],' % (key, rows))
    lines.append('"template": %s' % json.dumps(doc["template"], ensure_ascii=False, sort_keys=True))
    return "\n".join(lines) + "\n}\n"


def show(doc, data):
    bank = dict(load(data, "en")[0])
    for q in doc["questions"] + doc["dropped"]:
        key = doc["persons"][q["person"]]["key"]["en"]
        print("\n## %s %d.%d %s | %s  [%s]" % (q["split"], q["person"], q["question"], q["text"]["en"],
                                               q["text"]["zh"], q.get("rule") or "dropped: " + q["reason"]))
        for uid in q.get("relevant", []):
            day, rest = uid.split("#")
            turn, role = rest.split("/")
            text = bank[key]["history"][day][int(turn)]["query" if role == "user" else "response"]
            print("   %-28s %s" % (uid, text[:150]))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data", "memorybank"))
    p.add_argument("--out", default=os.path.join(here, "memorybank_labels.json"))
    p.add_argument("--check", action="store_true")
    p.add_argument("--show", action="store_true")
    args = p.parse_args()
    if not os.path.exists(os.path.join(args.data, "memory_bank_en.json")):
        print("skipped: MemoryBank not found at %s (it lives in the project's shared/data)" % args.data)
        return 77
    doc = build(args.data)
    text = dump(doc)
    if args.show:
        show(doc, args.data)
    if args.check:
        with open(args.out, encoding="utf-8") as f:
            if f.read() != text:
                print("%s is not what the data gives: run bench/memorybank_labels.py" % args.out)
                return 1
        print("%s: %d questions labelled, %d dropped" % (args.out, len(doc["questions"]), len(doc["dropped"])))
        return 0
    if not args.show:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
        print("%s: %d questions labelled, %d dropped" % (args.out, len(doc["questions"]), len(doc["dropped"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
