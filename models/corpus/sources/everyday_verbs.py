"""The most common everyday verbs that the dictionary sources miss, in the sentences of
ding_verbs.py and verbs_fr.py: "The child is eating." / "Das Kind isst." / "L'enfant mange."

Ding marks eat, drink, read, write, play, wait and most verbs a person does all day as
transitive ({vt}), and ding_verbs.py reads intransitive entries only, so none of them stands in
the verb sentences; FreeDict and Verbiste give verbs_fr.py only the French of Ding's verbs. Here
each verb is written by hand once, for all three languages: the English infinitive and its
present, -ing form and simple past; the German infinitive with its present and simple past, a
separable particle or a noun as the rest ("räumt auf", "fährt Ski"); the French infinitive, whose
forms Verbiste conjugates (verbs_fr.verbiste_forms; None where French says it with
several words, "faire les courses": that verb gets German sentences only). A German verb with
"sich" puts its pronoun after the finite word ("Das Kind ruht sich jetzt aus.", "Wir beeilen
uns."); a French pronominal verb takes its pronoun and être ("Ma sœur s'est reposée.").
Each is a verb a person does without naming an object ("She is reading.").

The sentences are ding_verbs.sentences' and verbs_fr.sentences' (the same patterns, subjects,
animals and places), with MORE_PER_VERB sentences beyond ding_verbs.PER_VERB: these verbs are
few and the commonest, so each gets more. A verb Ding or FreeDict already gives is left to them
(the corpus keeps an English sentence once).
"""
from . import ding_verbs, verbs_fr

PACKAGES = {"fr": ["verbiste"]}
MORE_PER_VERB = 16

# (English: infinitive, present, -ing, past; German: infinitive, present, past; French)
VERBS = [
    ("eat", "eats", "eating", "ate", "essen", "isst", "aß", "manger"),
    ("drink", "drinks", "drinking", "drank", "trinken", "trinkt", "trank", "boire"),
    ("read", "reads", "reading", "read", "lesen", "liest", "las", "lire"),
    ("write", "writes", "writing", "wrote", "schreiben", "schreibt", "schrieb", "écrire"),
    ("play", "plays", "playing", "played", "spielen", "spielt", "spielte", "jouer"),
    ("wait", "waits", "waiting", "waited", "warten", "wartet", "wartete", "attendre"),
    ("walk", "walks", "walking", "walked", "zu Fuß gehen", "geht zu Fuß", "ging zu Fuß",
     "marcher"),
    ("cook", "cooks", "cooking", "cooked", "kochen", "kocht", "kochte", "cuisiner"),
    ("cry", "cries", "crying", "cried", "weinen", "weint", "weinte", "pleurer"),
    ("think", "thinks", "thinking", "thought", "nachdenken", "denkt nach", "dachte nach",
     "réfléchir"),
    ("travel", "travels", "travelling", "travelled", "reisen", "reist", "reiste", "voyager"),
    ("learn", "learns", "learning", "learnt", "lernen", "lernt", "lernte", "apprendre"),
    ("study", "studies", "studying", "studied", "studieren", "studiert", "studierte", "étudier"),
    ("help", "helps", "helping", "helped", "helfen", "hilft", "half", "aider"),
    ("win", "wins", "winning", "won", "gewinnen", "gewinnt", "gewann", "gagner"),
    ("lose", "loses", "losing", "lost", "verlieren", "verliert", "verlor", "perdre"),
    ("begin", "begins", "beginning", "began", "anfangen", "fängt an", "fing an", "commencer"),
    ("answer", "answers", "answering", "answered", "antworten", "antwortet", "antwortete",
     "répondre"),
    ("paint", "paints", "painting", "painted", "malen", "malt", "malte", "peindre"),
    ("draw", "draws", "drawing", "drew", "zeichnen", "zeichnet", "zeichnete", "dessiner"),
    ("drive", "drives", "driving", "drove", "fahren", "fährt", "fuhr", "conduire"),
    ("smoke", "smokes", "smoking", "smoked", "rauchen", "raucht", "rauchte", "fumer"),
    ("clean", "cleans", "cleaning", "cleaned", "putzen", "putzt", "putzte", "nettoyer"),
    ("knock", "knocks", "knocking", "knocked", "klopfen", "klopft", "klopfte", "frapper"),
    ("phone", "phones", "phoning", "phoned", "telefonieren", "telefoniert", "telefonierte",
     "téléphoner"),
    ("understand", "understands", "understanding", "understood", "verstehen", "versteht",
     "verstand", "comprendre"),
    ("cough", "coughs", "coughing", "coughed", "husten", "hustet", "hustete", "tousser"),
    ("yawn", "yawns", "yawning", "yawned", "gähnen", "gähnt", "gähnte", "bâiller"),
    ("knit", "knits", "knitting", "knitted", "stricken", "strickt", "strickte", "tricoter"),
    ("sew", "sews", "sewing", "sewed", "nähen", "näht", "nähte", "coudre"),
    ("count", "counts", "counting", "counted", "zählen", "zählt", "zählte", "compter"),
    ("pay", "pays", "paying", "paid", "bezahlen", "bezahlt", "bezahlte", "payer"),
    ("tidy up", "tidies up", "tidying up", "tidied up", "aufräumen", "räumt auf", "räumte auf",
     "ranger"),
    ("ski", "skis", "skiing", "skied", "Ski fahren", "fährt Ski", "fuhr Ski", "skier"),
    ("search", "searches", "searching", "searched", "suchen", "sucht", "suchte", "chercher"),
    ("ask", "asks", "asking", "asked", "fragen", "fragt", "fragte", "demander"),
    ("dream", "dreams", "dreaming", "dreamt", "träumen", "träumt", "träumte", "rêver"),
    ("guess", "guesses", "guessing", "guessed", "raten", "rät", "riet", "deviner"),
    ("clap", "claps", "clapping", "clapped", "klatschen", "klatscht", "klatschte",
     "applaudir"),
    ("vote", "votes", "voting", "voted", "wählen", "wählt", "wählte", "voter"),
    ("move house", "moves house", "moving house", "moved house", "umziehen", "zieht um",
     "zog um", "déménager"),
    ("camp", "camps", "camping", "camped", "zelten", "zeltet", "zeltete", "camper"),
    ("hike", "hikes", "hiking", "hiked", "wandern", "wandert", "wanderte", "randonner"),
    ("skate", "skates", "skating", "skated", "Schlittschuh laufen", "läuft Schlittschuh",
     "lief Schlittschuh", "patiner"),
    ("bleed", "bleeds", "bleeding", "bled", "bluten", "blutet", "blutete", "saigner"),
    ("shiver", "shivers", "shivering", "shivered", "zittern", "zittert", "zitterte",
     "frissonner"),
    ("sweat", "sweats", "sweating", "sweated", "schwitzen", "schwitzt", "schwitzte",
     "transpirer"),
    ("hop", "hops", "hopping", "hopped", "hüpfen", "hüpft", "hüpfte", "sautiller"),
    ("hunt", "hunts", "hunting", "hunted", "jagen", "jagt", "jagte", "chasser"),
    ("arrive", "arrives", "arriving", "arrived", "ankommen", "kommt an", "kam an", "arriver"),
    ("shop", "shops", "shopping", "shopped", "einkaufen", "kauft ein", "kaufte ein", None),
    ("have breakfast", "has breakfast", "having breakfast", "had breakfast", "frühstücken",
     "frühstückt", "frühstückte", None),
    ("marry", "marries", "marrying", "married", "heiraten", "heiratet", "heiratete", "se marier"),
    # reflexive in German ("sich": its forms are written without it) or pronominal in French
    ("rest", "rests", "resting", "rested", "sich ausruhen", "ruht aus", "ruhte aus",
     "se reposer"),
    ("hurry", "hurries", "hurrying", "hurried", "sich beeilen", "beeilt", "beeilte",
     "se dépêcher"),
    ("sit down", "sits down", "sitting down", "sat down", "sich hinsetzen", "setzt hin",
     "setzte hin", "s'asseoir"),
    ("get dressed", "gets dressed", "getting dressed", "got dressed", "sich anziehen", "zieht an",
     "zog an", "s'habiller"),
    ("wash", "washes", "washing", "washed", "sich waschen", "wäscht", "wusch", "se laver"),
    ("go to bed", "goes to bed", "going to bed", "went to bed", "ins Bett gehen", "geht ins Bett",
     "ging ins Bett", "se coucher"),
    ("go for a walk", "goes for a walk", "going for a walk", "went for a walk", "spazieren gehen",
     "geht spazieren", "ging spazieren", "se promener"),
    ("have fun", "has fun", "having fun", "had fun", "sich amüsieren", "amüsiert", "amüsierte",
     "s'amuser"),
    ("get lost", "gets lost", "getting lost", "got lost", "sich verlaufen", "verläuft",
     "verlief", "se perdre"),
    ("get angry", "gets angry", "getting angry", "got angry", "sich ärgern", "ärgert", "ärgerte",
     "se fâcher"),
    ("shave", "shaves", "shaving", "shaved", "sich rasieren", "rasiert", "rasierte", "se raser"),
    ("worry", "worries", "worrying", "worried", "sich Sorgen machen", "macht Sorgen",
     "machte Sorgen", "s'inquiéter"),
    ("complain", "complains", "complaining", "complained", "sich beschweren", "beschwert",
     "beschwerte", "se plaindre"),
    ("calm down", "calms down", "calming down", "calmed down", "sich beruhigen", "beruhigt",
     "beruhigte", "se calmer"),
    ("hide", "hides", "hiding", "hid", "sich verstecken", "versteckt", "versteckte",
     "se cacher"),
    ("move", "moves", "moving", "moved", "sich bewegen", "bewegt", "bewegte", "bouger"),
    ("apologise", "apologises", "apologising", "apologised", "sich entschuldigen",
     "entschuldigt", "entschuldigte", "s'excuser"),
    ("relax", "relaxes", "relaxing", "relaxed", "sich entspannen", "entspannt", "entspannte",
     "se détendre"),
    ("get up", "gets up", "getting up", "got up", "aufstehen", "steht auf", "stand auf",
     "se lever"),
    ("wake up", "wakes up", "waking up", "woke up", "aufwachen", "wacht auf", "wachte auf",
     "se réveiller"),
    ("fall asleep", "falls asleep", "falling asleep", "fell asleep", "einschlafen", "schläft ein",
     "schlief ein", "s'endormir"),
]
REFLEXIVE = "sich "


def split(form):
    """(first word, the rest) of a form: ("räumt", "auf"), ("isst", "")."""
    word, _, rest = form.partition(" ")
    return word, rest


def forms(verb):
    """ding_verbs' forms of one VERBS row ("reflexive" true for a German verb with "sich")."""
    en_inf, pres, ing, past, de_inf, de_pres, de_past, _ = verb
    en_rest = split(en_inf)[1]
    out = {"present": (split(de_pres), (split(pres)[0], en_rest)),
           "ing": (None, (split(ing)[0], en_rest)),
           "past": (split(de_past), (split(past)[0], en_rest))}
    if de_inf.startswith(REFLEXIVE):
        out["reflexive"] = True
    return out


def german_infinitive(verb):
    """The German infinitive without "sich" ("ausruhen"), as ding_verbs reads infinitives."""
    de_inf = verb[4]
    return de_inf[len(REFLEXIVE):] if de_inf.startswith(REFLEXIVE) else de_inf


def german(root, taken=None):
    """[(German infinitive, English infinitive, forms)] for ding_verbs.sentences, less the
    English verbs Ding gives (taken: ding_verbs.verbs' English infinitives)."""
    if taken is None:
        taken = {en for _, en, _ in ding_verbs.verbs(root)}
    return [(german_infinitive(v), v[0], forms(v)) for v in VERBS if v[0] not in taken]


def french_verb(fr_inf):
    """The verb Verbiste conjugates: "reposer" for "se reposer", "habiller" for "s'habiller"."""
    for pronoun in verbs_fr.PRONOMINAL:
        if fr_inf.startswith(pronoun):
            return fr_inf[len(pronoun):]
    return fr_inf


def french(root, taken=None):
    """[(English infinitive, English forms, French infinitive, French forms)] for
    verbs_fr.sentences: the verbs with a French infinitive Verbiste conjugates, less the English
    verbs verbs_fr gives (taken)."""
    known = verbs_fr.verbiste_forms(root)
    if taken is None:
        taken = {en for en, _, _, _ in verbs_fr.verbs(root)}
    out = []
    for v in VERBS:
        en_inf, fr_inf = v[0], v[7]
        if fr_inf and french_verb(fr_inf) in known and en_inf not in taken:
            out.append((en_inf, forms(v), fr_inf, known[french_verb(fr_inf)]))
    return out


def pairs(root, lang):
    if lang == "de":
        yield from ding_verbs.sentences(german(root), more=MORE_PER_VERB)
    elif lang == "fr":
        yield from verbs_fr.sentences(french(root), more=MORE_PER_VERB)
