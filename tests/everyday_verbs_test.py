"""models/corpus/sources/everyday_verbs.py: every hand-written verb is well-formed (its English
forms are the infinitive's, its German rest fits the infinitive, the German plural can be made),
a few sentences in German and French (French forms from a two-verb Verbiste written here), and
which verbs are left to the dictionaries. Run from the repository root:
python3 -m tests.everyday_verbs_test (stdlib only)."""
import os
import tempfile
import unittest

from models.corpus.sources import ding_verbs, everyday_verbs, scenes, verbs_fr

# A Verbiste with four verbs, in verbs_fr's reading of its two files.
VERBS_XML = ("<?xml version=\"1.0\"?>\n<verbs-fr>\n<v><i>jouer</i><t>aim:er</t></v>\n"
             "<v><i>manger</i><t>man:ger</t></v>\n<v><i>reposer</i><t>aim:er</t></v>\n"
             "<v><i>habiller</i><t>aim:er</t></v>\n</verbs-fr>\n")


def template(name, present, participle):
    persons = "".join("<p><i>%s</i></p>" % f for f in present)
    parts = "".join("<p><i>%s</i></p>" % f for f in participle)
    return ('<template name="%s"><indicative><present>%s</present></indicative><participle>'
            "<past-participle>%s</past-participle></participle></template>\n" % (
                name, persons, parts))


CONJUGATION_XML = ("<?xml version=\"1.0\"?>\n<conjugation-fr>\n"
                   + template("aim:er", ["e", "es", "e", "ons", "ez", "ent"],
                              ["é", "és", "ée", "ées"])
                   + template("man:ger", ["ge", "ges", "ge", "geons", "gez", "gent"],
                              ["gé", "gés", "gée", "gées"])
                   + "</conjugation-fr>\n")


def row(en_inf):
    return next(v for v in everyday_verbs.VERBS if v[0] == en_inf)


class EveryVerb(unittest.TestCase):
    def test_english_forms_are_the_infinitives(self):
        for en_inf, pres, ing, past, *_ in everyday_verbs.VERBS:
            verb, _, rest = en_inf.partition(" ")
            with self.subTest(en_inf):
                if verb != "have":  # why: the one irregular present here (has)
                    self.assertIn(pres.split()[0], ding_verbs.english_present(verb))
                self.assertIn(ing.split()[0], ding_verbs.english_ing(verb))
                # why: english_ing allows both; a short verb doubles (win: winning)
                if ding_verbs.SHORT_VERB.match(verb):
                    self.assertEqual(ing.split()[0], verb + verb[-1] + "ing")
                self.assertEqual([f.partition(" ")[2] for f in (pres, ing, past)], [rest] * 3)

    def test_german_rest_fits_and_the_plural_is_made(self):
        for v in everyday_verbs.VERBS:
            de_inf, (_, rest) = everyday_verbs.german_infinitive(v), everyday_verbs.split(v[5])
            with self.subTest(de_inf):
                self.assertTrue(ding_verbs.german_rest_ok(rest, de_inf))
                self.assertEqual(everyday_verbs.split(v[6])[1], rest)
                self.assertIsNotNone(
                    ding_verbs.plural_forms(de_inf, everyday_verbs.forms(v)))

    def test_each_verb_once(self):
        names = [v[0] for v in everyday_verbs.VERBS]
        self.assertEqual(len(names), len(set(names)))


class Sentences(unittest.TestCase):
    def test_forms_of_a_separable_verb(self):
        self.assertEqual(everyday_verbs.forms(row("tidy up")), {
            "present": (("räumt", "auf"), ("tidies", "up")),
            "ing": (None, ("tidying", "up")),
            "past": (("räumte", "auf"), ("tidied", "up"))})

    def test_german(self):
        rows = {r[0]: r for r in ding_verbs.PATTERNS + ding_verbs.PLACE_PATTERNS}
        found = {en: dict(f, plural=ding_verbs.plural_forms(de, f))
                 for de, en, f in everyday_verbs.german("", taken=set())}
        we = next(s[:2] + s[4:] for s in scenes.PLURAL_SUBJECTS if s[0] == "we")
        child = ("the child", "das Kind")
        for pattern, subject, en_inf, place, want in [
                ("question", child, "ski", None, ("Is the child skiing?", "Fährt das Kind Ski?")),
                ("past", we, "think", None, ("We thought.", "Wir dachten nach.")),
                ("yesterday", we, "eat", None, ("We ate yesterday.", "Wir aßen gestern.")),
                ("where", child, "walk", scenes.PLACES[0][:2],
                 ("The child walks in the garden.", "Das Kind geht im Garten zu Fuß.")),
                ("now", child, "tidy up", None,
                 ("The child is tidying up now.", "Das Kind räumt jetzt auf.")),
                ("now", child, "rest", None,
                 ("The child is resting now.", "Das Kind ruht sich jetzt aus.")),
                ("question", ("he", "er"), "sit down", None,
                 ("Is he sitting down?", "Setzt er sich hin?")),
                ("did not", we, "hurry", None, ("We did not hurry.", "Wir beeilten uns nicht.")),
                ("where", we, "worry", scenes.PLACES[0][:2],
                 ("We worry in the garden.", "Wir machen uns im Garten Sorgen."))]:
            with self.subTest(pattern=pattern, verb=en_inf):
                self.assertEqual(ding_verbs.sentence(rows[pattern], subject, en_inf,
                                                     found[en_inf], place), want)

    def test_french_from_verbiste(self):
        with tempfile.TemporaryDirectory() as root:
            folder = os.path.join(root, verbs_fr.VERBISTE)
            os.makedirs(folder)
            for name, text in (("verbs-fr.xml", VERBS_XML),
                               ("conjugation-fr.xml", CONJUGATION_XML)):
                with open(os.path.join(folder, name), "w") as f:
                    f.write(text)
            found = everyday_verbs.french(root, taken=set())
            made = list(verbs_fr.sentences(found, more=everyday_verbs.MORE_PER_VERB))
        self.assertEqual([(en, fr) for en, _, fr, _ in found], [
            ("eat", "manger"), ("play", "jouer"), ("rest", "se reposer"),
            ("get dressed", "s'habiller")])
        rows = {r[0]: r for r in verbs_fr.PATTERNS}
        verb = {en: (en, f, fr, frf) for en, f, fr, frf in found}
        we = next(s[:1] + s[2:] for s in scenes.PLURAL_SUBJECTS if s[0] == "we")
        self.assertEqual(verbs_fr.sentence(rows["present"], we, *verb["eat"]),
                         ("We eat.", "Nous mangeons."))
        self.assertEqual(verbs_fr.sentence(rows["did not"], verbs_fr.SUBJECTS[1], *verb["play"]),
                         ("She did not play.", "Elle n'a pas joué."))
        they, sister = scenes.PLURAL_SUBJECTS[0][:1] + scenes.PLURAL_SUBJECTS[0][2:], \
            verbs_fr.SUBJECTS[3]
        rows.update({r[0]: r for r in verbs_fr.PLACE_PATTERNS})
        for pattern, subject, en_inf, want in [
                ("present", we, "rest", ("We rest.", "Nous nous reposons.")),
                ("past", sister, "rest", ("My sister rested.", "Ma sœur s'est reposée.")),
                ("did not", they, "rest", ("They did not rest.", "Ils ne se sont pas reposés.")),
                ("present", verbs_fr.SUBJECTS[0], "get dressed",
                 ("He gets dressed.", "Il s'habille.")),
                ("not", verbs_fr.SUBJECTS[0], "get dressed",
                 ("He is not getting dressed.", "Il ne s'habille pas.")),
                ("question", they, "get dressed",
                 ("Are they getting dressed?", "Est-ce qu'ils s'habillent ?"))]:
            with self.subTest(pattern=pattern, verb=en_inf):
                self.assertEqual(verbs_fr.sentence(rows[pattern], subject, *verb[en_inf]), want)
        self.assertTrue(ding_verbs.PER_VERB * 4 < len(made) <= (
            ding_verbs.PER_VERB + everyday_verbs.MORE_PER_VERB) * 4)
        self.assertEqual(len(made), len(set(made)))

    def test_the_dictionaries_verbs_are_left_to_them(self):
        german = {en for _, en, _ in everyday_verbs.german("", taken={"eat", "camp"})}
        self.assertNotIn("eat", german)
        self.assertIn("drink", german)
        self.assertEqual(everyday_verbs.french("", taken=set()), [])  # no Verbiste, no French


if __name__ == "__main__":
    unittest.main()
