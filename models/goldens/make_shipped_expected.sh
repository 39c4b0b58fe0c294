#!/usr/bin/env bash
# Writes tests/data/shipped_expected.json: what the shipped models answer (greedy and beam 4) for
# a fixed set of sentences, as translated by the C++ engine (build/heed). Run after a model
# changes; the native test tests/shipped_models_test.cpp then guards against regressions.
# A model with several directions gets cases per direction, each naming its target ("to").
set -euo pipefail
cd "$(dirname "$0")/../.."
/usr/bin/python3 - <<'PY'
import json, subprocess
DEBIAN = ["This package contains the development files for the library.",
          "A simple text editor for the terminal.",
          "The program reads a configuration file and starts the server.",
          "Documentation for the Python bindings is included in this package.",
          "This is a transitional dummy package. It can safely be removed.",
          "It can be used to monitor network traffic in real time.",
          "Fonts for displaying mathematical formulas.",
          "The game features several levels and a level editor."]
EVERYDAY = {
    "en": ["Click the button to save your changes.", "Where is the train station?",
           "The file could not be opened because it does not exist.",
           "Do you want to delete the selected messages?"],
    "de": ["Klicken Sie auf die Schaltfläche, um Ihre Änderungen zu speichern.",
           "Wo ist der Bahnhof?", "Möchten Sie die ausgewählten Nachrichten löschen?",
           "Die Datei konnte nicht geöffnet werden."],
    "fr": ["Cliquez sur le bouton pour enregistrer vos modifications.", "Où est la gare ?",
           "Voulez-vous supprimer les messages sélectionnés ?",
           "Le fichier n'a pas pu être ouvert."],
}


def run(name, texts, beam, to=None):
    # why: --no-split: one line is one sentence, as the test decodes it
    cmd = ["build/heed", "translate", "-m", "models/%s.heed" % name, "--no-split",
           "--beam", str(beam)] + (["--to", to] if to else [])
    r = subprocess.run(cmd, input="\n".join(texts) + "\n", capture_output=True, text=True,
                       check=True)
    return r.stdout.split("\n")[:len(texts)]


out = {}
for name in ("en-fr", "en-de"):
    out[name] = [{"source": s, "greedy": g, "beam4": b}
                 for s, g, b in zip(DEBIAN, run(name, DEBIAN, 1), run(name, DEBIAN, 4))]
out["multi"] = []
for direction in ("en-de", "de-en", "en-fr", "fr-en"):
    src, to = direction.split("-")
    texts = EVERYDAY[src]
    out["multi"] += [{"source": s, "to": to, "greedy": g, "beam4": b}
                     for s, g, b in zip(texts, run("multi", texts, 1, to),
                                        run("multi", texts, 4, to))]
with open("tests/data/shipped_expected.json", "w") as f:
    json.dump(out, f, indent=1, ensure_ascii=False)
print(json.dumps(out, indent=1, ensure_ascii=False))
PY
