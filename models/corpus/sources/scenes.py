"""Who does something and where, written by hand in English, German and French at once, for the
verb sentences of ding_verbs.py and verbs_fr.py beyond their third person singular: plural and
first person plural subjects ("The children are sleeping." / "Die Kinder schlafen." / "Les
enfants dorment."), animals as subjects of the verbs an animal does, and everyday places ("in the
garden" / "im Garten" / "dans le jardin").

German places are in the dative (where, not where to); French ones take the preposition a French
speaker uses for being there ("au lit", "à la gare", "en ville").

Left out on purpose: the nouns of the sentences the model is checked on by hand
(make_multi_card.ISSUE_22: cat, dog, table, sofa, couch), so that those stay a check of what the
model learnt elsewhere and not of these lists.
"""

# (English, German, French, French gender, person): the person is "3p" or "1p"; the gender is
# what a French past participle agrees with after être.
PLURAL_SUBJECTS = [
    ("they", "sie", "ils", "m", "3p"), ("the children", "die Kinder", "les enfants", "m", "3p"),
    ("my parents", "meine Eltern", "mes parents", "m", "3p"),
    ("our neighbours", "unsere Nachbarn", "nos voisins", "m", "3p"),
    ("the girls", "die Mädchen", "les filles", "f", "3p"),
    ("my friends", "meine Freunde", "mes amis", "m", "3p"),
    ("the pupils", "die Schüler", "les élèves", "m", "3p"),
    ("the women", "die Frauen", "les femmes", "f", "3p"),
    ("my grandparents", "meine Großeltern", "mes grands-parents", "m", "3p"),
    ("we", "wir", "nous", "m", "1p"),
]
# (English, German, French, French gender); third person singular
ANIMALS = [
    ("the horse", "das Pferd", "le cheval", "m"), ("the bird", "der Vogel", "l'oiseau", "m"),
    ("the cow", "die Kuh", "la vache", "f"), ("the mouse", "die Maus", "la souris", "f"),
    ("the rabbit", "das Kaninchen", "le lapin", "m"), ("the duck", "die Ente", "le canard", "m"),
    ("the sheep", "das Schaf", "le mouton", "m"), ("the pig", "das Schwein", "le cochon", "m"),
    ("the goat", "die Ziege", "la chèvre", "f"), ("the fox", "der Fuchs", "le renard", "m"),
]
# English infinitives an animal can be the subject of; other verbs get people only. Not "lie",
# "leave", "live": Ding's German for them is lügen, abfahren (by vehicle), leben (not "wohnen").
ANIMAL_VERBS = {
    "sleep", "eat", "run", "play", "swim", "jump", "wait", "walk", "drink", "fly", "hide",
    "fall", "come", "go", "hunt", "rest", "breathe", "grow", "die", "sing", "move", "stay",
    "climb", "run away", "wake up", "come back", "escape", "return", "arrive", "disappear",
    "appear", "fly away", "get up", "fall asleep", "sit", "stand", "graze", "hop", "crawl",
    "creep", "limp", "bleed", "shiver", "tremble", "sweat", "listen",
}
# (English, German, French)
PLACES = [
    ("in the garden", "im Garten", "dans le jardin"),
    ("in the kitchen", "in der Küche", "dans la cuisine"),
    ("in bed", "im Bett", "au lit"), ("at home", "zu Hause", "à la maison"),
    ("in the park", "im Park", "dans le parc"), ("at school", "in der Schule", "à l'école"),
    ("in the car", "im Auto", "dans la voiture"),
    ("behind the house", "hinter dem Haus", "derrière la maison"),
    ("by the window", "am Fenster", "près de la fenêtre"),
    ("in the living room", "im Wohnzimmer", "dans le salon"),
    ("in the street", "auf der Straße", "dans la rue"),
    ("at the station", "am Bahnhof", "à la gare"),
    ("in the forest", "im Wald", "dans la forêt"), ("on the beach", "am Strand", "sur la plage"),
    ("in the office", "im Büro", "au bureau"), ("in town", "in der Stadt", "en ville"),
    ("in the village", "im Dorf", "au village"), ("on the bench", "auf der Bank", "sur le banc"),
    ("next to the door", "neben der Tür", "à côté de la porte"),
    ("outside", "draußen", "dehors"), ("in the shop", "im Laden", "dans le magasin"),
    ("at the bakery", "in der Bäckerei", "à la boulangerie"),
    ("in the library", "in der Bibliothek", "à la bibliothèque"),
    ("in the hospital", "im Krankenhaus", "à l'hôpital"),
    ("on the train", "im Zug", "dans le train"),
    ("in the bathroom", "im Badezimmer", "dans la salle de bains"),
    ("under the tree", "unter dem Baum", "sous l'arbre"),
    ("on the chair", "auf dem Stuhl", "sur la chaise"),
    ("in the bedroom", "im Schlafzimmer", "dans la chambre"),
    ("on the stairs", "auf der Treppe", "dans l'escalier"),
    ("in the meadow", "auf der Wiese", "dans le pré"),
    ("by the river", "am Fluss", "au bord de la rivière"),
]
