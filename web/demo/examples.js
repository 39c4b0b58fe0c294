// The example buttons: per models.json entry, sentences its model was tried on in this page
// (beam 4) and translates well, and one marked as hard, where it visibly fails. Used before the
// entry's own `examples`; a direction not listed here keeps those, else English defaults.

/** Tried on models/multi.heed (step 12800), beam 4; `hard` is the one it gets wrong. */
export const TRIED = {
  'multi-en-de': [
    'Click the button to save your changes.',
    'Open the settings and choose a new password.',
    'Do you want to delete the selected messages?',
    'Select a language from the list.',
    { text: 'I would like a cup of coffee, please.', hard: true },
  ],
  'multi-en-fr': [
    'Click the button to save your changes.',
    'The file could not be opened because it does not exist.',
    'Do you want to delete the selected messages?',
    'This program shows the weather forecast for your city.',
    'Open the settings and choose a new password.',
    { text: 'I would like a cup of coffee, please.', hard: true },
  ],
  'multi-de-en': [
    'Klicken Sie auf die Schaltfläche, um Ihre Änderungen zu speichern.',
    'Die Datei konnte nicht geöffnet werden, weil sie nicht existiert.',
    'Möchten Sie die ausgewählten Nachrichten löschen?',
    'Speichern Sie das Dokument, bevor Sie das Fenster schließen.',
    'Wählen Sie eine Sprache aus der Liste.',
    { text: 'Ich hätte gerne eine Tasse Kaffee, bitte.', hard: true },
  ],
  'multi-fr-en': [
    'Cliquez sur le bouton pour enregistrer vos modifications.',
    'Voulez-vous supprimer les messages sélectionnés ?',
    "Veuillez redémarrer votre ordinateur pour terminer l'installation.",
    'Enregistrez le document avant de fermer la fenêtre.',
    'Choisissez une langue dans la liste.',
    { text: "Le roi ordonna à ses soldats de défendre le château jusqu'à l'aube.", hard: true },
  ],
};

// The examples of an entry that names none (an English source: the package-description models).
const ENGLISH = [
  'This package contains the documentation for the library.',
  'It is a simple text editor for the terminal.',
  'The program is written in Python and uses the GTK toolkit.',
  'This package provides a command line tool to convert images.',
  'Attention is cool.',
  'This package contains the shared library, which is needed to run programs that were compiled against it, as well as the header files and examples for developers.',
];

/**
 * A models.json entry's example sentences as [{text, hard}]: the tried ones above, else the
 * entry's `examples` (strings, or {text, hard}), else the English ones.
 */
export function examplesOf(entry) {
  const list = TRIED[entry?.id] ?? entry?.examples;
  const items = (Array.isArray(list) ? list : []).map((x) =>
    typeof x === 'string' ? { text: x, hard: false } : { text: x?.text, hard: Boolean(x?.hard) },
  );
  const ok = items.length && items.every((x) => typeof x.text === 'string' && x.text);
  return ok ? items : ENGLISH.map((text) => ({ text, hard: false }));
}
